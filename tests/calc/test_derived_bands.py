"""QA (Stop 46): "Output tokens/s per replica" and "Cost per million output tokens" were shown
without a band, though both come straight from banded figures. Every speed and cost figure the
serving pages show now carries one (issue 15: no number without its band and basis)."""

import pytest
from calc_helpers import run

from calc.display import calculators
from calc.display.presenter import present

SPEED_UNITS = ("s", "tokens/s", "USD")


def test_derived_bands_by_hand() -> None:
    result = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", input_len=128,
                 output_len=128, batch=4, tp=8)
    band = result["error_band"]
    rate_low, rate_high = band["output_tokens_per_s"]
    replicas = result["replicas"]
    assert replicas == 3
    assert band["output_tokens_per_s_per_replica"] == pytest.approx(
        [rate_low / replicas, rate_high / replicas])
    tpot_low, tpot_high = band["tpot_s"]
    assert band["output_tokens_per_s_per_user"] == pytest.approx([1 / tpot_high, 1 / tpot_low])
    hourly = result["usd_per_hour"]
    assert band["usd_per_million_output_tokens"] == pytest.approx(
        [hourly / (3600 * rate_high) * 1e6, hourly / (3600 * rate_low) * 1e6])
    for field in ("output_tokens_per_s_per_replica", "output_tokens_per_s_per_user",
                  "usd_per_million_output_tokens"):
        low, high = band[field]
        assert low <= result[field] <= high, field


@pytest.mark.parametrize("name", ["performance", "price"])
@pytest.mark.parametrize("lang", ["en", "ja", "es"])
def test_every_modelled_speed_or_cost_output_shows_a_band(name: str, lang: str) -> None:
    spec = calculators.calculator(name)
    likely = {"en": "likely", "ja": "見込み", "es": "probable"}[lang]
    for mode in spec.mode_ids():
        shown = present({"calculator": name, "values": {"mode": mode}}, lang)
        assert shown["ok"], shown["errors"]
        for output in shown["outputs"]:
            if output.get("basis") != "modelled" or output["unit"] not in SPEED_UNITS:
                continue
            assert likely in output["text"], (mode, output["field"], output["text"])
