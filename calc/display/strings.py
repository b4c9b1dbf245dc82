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
    return {**table(lang, "errors", "input"), **table(lang, "calculators", "input")}


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
