"""One spelling per unit per language: the units table (data/i18n/<lang>/site.toml [unit]) is the
only place a unit is spelled; no other translation table spells one, every calc unit the
engine emits is known, and the presenter's text uses the table's spelling."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from calc import api, data
from calc.display import LANGS, calculators, numbers, present, units

ROOT = Path(__file__).resolve().parents[2]
# spellings that must come from the units table only (any language's spelling of these keys)
UNIT_KEYS = ("tokens_per_s", "s", "ms", "us", "hours", "per_hour", "tokens", "cores", "heads")


def _all_strings(value: Any, path: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [item for k, v in value.items() for item in _all_strings(v, f"{path}.{k}")]
    return [(path, value)] if isinstance(value, str) else []


@pytest.mark.parametrize("lang", LANGS)
def test_each_unit_has_one_spelling(lang: str) -> None:
    table = units.labels(lang)
    # no other i18n table of the calculators holds a [unit] table of its own
    for name in ("calculators", "steps", "errors"):
        assert "unit" not in data.i18n(lang, name), f"{lang}/{name}.toml has a [unit] table"
    # no unit under two keys (a second key is where a second spelling would creep in)
    spelled_twice = {v for v in table.values() if list(table.values()).count(v) > 1}
    assert not spelled_twice, spelled_twice
    if lang == "ja":
        assert table["tokens_per_s"] == "トークン/秒"


def _default_results() -> list[dict[str, Any]]:
    requests = [("memory", {"model": "llama-3.1-8b", "instance": "inf2.xlarge", "seq_len": 4096}),
                ("perf", {"model": "llama-3.1-8b", "instance": "inf2.48xlarge",
                          "input_len": 128, "output_len": 128}),
                ("train", {"model": "llama-3.1-8b", "instance": "trn1.32xlarge",
                           "tokens": 10**10, "seq_len": 4096}),
                ("train_memory", {"model": "llama-3.1-8b", "instance": "trn1.32xlarge",
                                  "seq_len": 4096}),
                ("price", {"instance": "trn1.32xlarge"})]
    return [api.run({"kind": k, "params": p})["result"] for k, p in requests]


def test_every_unit_calc_emits_is_in_the_table() -> None:
    emitted = {step["unit"] for result in _default_results() for step in result["derivation"]}
    assert emitted and all(units.known(unit) for unit in emitted), emitted


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", tuple(calculators.CALCULATORS))
def test_presented_units_are_the_tables_spelling(lang: str, name: str) -> None:
    table = units.labels(lang)
    others = {other: units.labels(other) for other in LANGS if other != lang}
    shown = present({"calculator": name}, lang)
    texts = [o["text"] for o in shown["outputs"]] + [r["text"] for r in shown["derivation"]]
    labels = sorted((v for v in table.values() if v), key=len, reverse=True)
    money = str(numbers.locale(lang)["usd_symbol"])
    for text in texts:
        # every number followed by a unit label (a value, and its band "likely 9–16 ms"): the
        # label is this language's spelling
        for match in re.finditer(r"\d\u00a0", text):
            rest = text[match.end():]
            if rest.startswith(money) or any(rest.startswith(label) for label in labels):
                continue  # the table's spelling, or money (CLDR currency pattern, es "US$/h")
            word = rest.split(",")[0].split("\u2013")[0]
            foreign = [o for o, t in others.items() if word in t.values()]
            assert not foreign, (lang, text, foreign)
            raise AssertionError(f"{lang}: unit {word!r} in {text!r} is not in the table")


def test_field_units_come_from_field_names() -> None:
    assert units.result_unit("weights_bytes") == "B"
    assert units.result_unit("output_tokens_per_s") == "tokens/s"
    assert units.result_unit("peak_flops_per_s") == "FLOP/s"
    assert units.result_unit("usd_per_hour") == "USD"
    assert units.result_unit("replicas") == ""
