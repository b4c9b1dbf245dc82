"""The translated strings the presenter needs, from data/i18n/<lang>/*.toml (one shape: tables of
key = text). Field labels: calculators.toml [input] over errors.toml [input]."""

from functools import cache
from typing import Any

from .. import data
from .numbers import DEFAULT_LANG, LANGS


def lang_or_default(lang: str) -> str:
    return lang if lang in LANGS else DEFAULT_LANG


@cache
def table(lang: str, file: str, name: str) -> dict[str, str]:
    found: dict[str, Any] = data.i18n(lang_or_default(lang), file).get(name, {})
    return {str(k): str(v) for k, v in found.items()}


def ui(lang: str, name: str) -> dict[str, str]:
    """A table of calculators.toml ([status], [result], [action], ...)."""
    return table(lang, "calculators", name)


@cache
def field_labels(lang: str) -> dict[str, str]:
    """Field labels; "mode" (not a request param) is the Mode select's label."""
    mode = table(lang, "calculators", "mode").get("label")
    return {**table(lang, "errors", "input"), **table(lang, "calculators", "input"),
            **({"mode": mode} if mode else {})}


@cache
def result_labels(lang: str) -> dict[str, str]:
    return {**table(lang, "steps", "step"), **table(lang, "steps", "field")}


def value_text(value: str, lang: str) -> str:
    """A text result value (roofline bound, KV rule) in the language; else as it is."""
    for name in ("bound", "kv_rule"):
        found = table(lang, "steps", name).get(value)
        if found:
            return found
    return value


# The label table(s) of each select's options, (file, table) in lookup order; a select not named
# here offers names or numbers that read the same in every language (NAMED_CHOICES).
CHOICE_TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "mode": (("calculators", "mode"),),
    "objective": (("calculators", "objective"),),
    "price_kind": (("site", "price_kind"),),
    "family": (("calculators", "family"),),
    "recompute": (("calculators", "recompute"),),
    "recipe": (("calculators", "recipe"),),
    "attention": (("calculators", "attention"),),
    "framework": (("calculators", "framework"),),
}
# options that are names (models and instances by their data names, AWS regions, dtypes as the
# docs and the dtype note write them: bf16, fp8) or numbers (ZeRO stage 0-3): shown as they are
NAMED_CHOICES = frozenset({"model", "instance", "region", "dtype", "zero"})


@cache
def choice_labels(field: str, lang: str) -> dict[str, str]:
    """{option id: label in `lang`} of a select (empty for a select of names or numbers)."""
    found: dict[str, str] = {}
    for file, name in reversed(CHOICE_TABLES.get(field, ())):
        found.update(table(lang, file, name))
    return found


def choice_label(field: str, value: str, lang: str) -> str:
    """The label of one option of a select in `lang`; the id itself where it is a name."""
    return choice_labels(field, lang).get(str(value), str(value))
