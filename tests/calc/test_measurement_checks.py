"""The consistency rule of the measurements header (calc.measurement_checks): a scored row's own
figures agree within the tolerance; a row marked inconsistent really is."""

import pytest

from calc import data
from calc.calibration import scored_use
from calc.measurement_checks import inconsistencies, ratios


def test_the_rule_on_hand_figures() -> None:
    # 16 requests in flight, 245 tokens at 0.0869 s per token (21.3 s each) → 184 tokens/s
    row = {"mode": "serving", "output_len": 245, "concurrency": 16,
           "e2e_per_output_token_s": 0.0869, "output_tokens_per_s": 123.4}
    assert ratios(row)["little"] == pytest.approx(123.4 / (16 / 0.0869))
    assert set(inconsistencies(row)) == {"little"}
    assert inconsistencies({**row, "output_tokens_per_s": 170.0}) == {}
    # e2e: 7.166 + 249 · 0.05453 = 20.74 s published as 16.94 s → 0.817 (within 25 %)
    timed = {"output_len": 250, "ttft_s": 7.166, "tpot_s": 0.05453, "e2e_s": 16.94}
    assert ratios(timed)["e2e"] == pytest.approx(16.94 / (7.166 + 249 * 0.05453))
    assert inconsistencies(timed) == {}
    # rate: 5.175 requests/s × 250 tokens = 1,294 tokens/s published as 929 → 0.718
    rated = {"output_len": 250, "request_throughput_per_s": 5.175, "output_tokens_per_s": 929.0}
    assert inconsistencies(rated) == pytest.approx({"rate": 929.0 / (5.175 * 250)})
    assert ratios({"kind": "training", "output_len": 1}) == {}


def test_scored_rows_pass_and_marked_rows_fail() -> None:
    checked = 0
    for raw in data.records("measurements"):
        bad = inconsistencies(raw)
        if str(raw.get("use_note", "")).startswith("Inconsistent published figures"):
            assert bad and raw["use"] == "reference" and "use_pending" not in raw, raw["id"]
        if scored_use(raw) is not None:
            assert not bad, (raw["id"], bad)
            checked += bool(ratios(raw))
    assert checked > 50
