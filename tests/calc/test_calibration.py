"""The calibrated constants in data/assumptions.toml are exactly what bench/calibrate.py fits."""

import pytest

from calc import calibration, data
from calc.perf import Efficiency


def test_stored_constants_equal_a_fresh_fit() -> None:
    fitted = calibration.fit()
    stored = Efficiency.from_data()
    assert stored.decode_memory == pytest.approx(fitted.decode_memory, rel=1e-9)
    assert stored.collective_hop_latency_s == pytest.approx(fitted.collective_hop_latency_s,
                                                            rel=1e-9)
    assert stored.prefill_compute == pytest.approx(fitted.prefill_compute, rel=1e-9)
    assert stored.prefill_fixed_latency_s == pytest.approx(fitted.prefill_fixed_latency_s,
                                                           rel=1e-9)


def test_calibrated_records_name_their_fit() -> None:
    expected = calibration.fitted_on()
    assert len(expected) >= 5
    for assumption_id in calibration.FITTED_IDS:
        record = data.assumption(assumption_id)
        assert record["fitted_by"] == "bench/calibrate.py"
        assert record["fitted_on"] == expected


def test_fit_is_physical() -> None:
    fitted = calibration.fit()
    assert 0 < fitted.decode_memory <= 1
    assert 0 < fitted.prefill_compute <= 1
    assert fitted.collective_hop_latency_s > 0
    assert fitted.prefill_fixed_latency_s >= 0


def test_report_covers_every_calibration_and_validation_row() -> None:
    rows = calibration.report()
    ids = {row["id"] for row in rows}
    wanted = {
        str(m["id"]) for m in data.records("measurements")
        if m.get("use") in ("calibration", "validation")
        and m.get("kind", "inference") == "inference"
    }
    assert ids == wanted
    for row in rows:
        for field in ("ttft_s", "tpot_s", "output_tokens_per_s"):
            assert row[f"{field}_estimated"] > 0
            if row[f"{field}_measured"] is not None:
                assert row[f"{field}_error"] == pytest.approx(
                    row[f"{field}_estimated"] / row[f"{field}_measured"] - 1
                )


def test_calibration_rows_are_reproduced_within_30_percent() -> None:
    # The fit quality the guide quotes: decode within ±30 % on every calibration row.
    for row in calibration.report():
        if row["use"] == "calibration":
            assert abs(row["tpot_s_error"]) < 0.30, row["id"]
