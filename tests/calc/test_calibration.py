"""The calibrated constants in data/assumptions.toml are exactly what bench/calibrate.py fits,
one set per instance kind (Neuron ids as named, GPU ids with the gpu_ prefix)."""

import pytest
from calc_helpers import run

from calc import calibration, data
from calc.perf import Efficiency


@pytest.mark.parametrize("kind", calibration.KINDS)
def test_stored_constants_equal_a_fresh_fit(kind: str) -> None:
    fitted = calibration.fit(kind)
    stored = Efficiency.from_data(kind)
    assert stored.decode_memory == pytest.approx(fitted.decode_memory, rel=1e-9)
    assert stored.collective_hop_latency_s == pytest.approx(fitted.collective_hop_latency_s,
                                                            rel=1e-9)
    assert stored.prefill_compute == pytest.approx(fitted.prefill_compute, rel=1e-9)
    assert stored.prefill_fixed_latency_s == pytest.approx(fitted.prefill_fixed_latency_s,
                                                           rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("kind", "minimum_rows"), [("neuron", 5), ("gpu", 2)])
def test_calibrated_records_name_their_fit(kind: str, minimum_rows: int) -> None:
    expected = calibration.fitted_on(kind)
    assert len(expected) >= minimum_rows
    for assumption_id in calibration.fitted_ids(kind):
        record = data.assumption(assumption_id)
        assert record["fitted_by"] == "bench/calibrate.py"
        assert record["fitted_on"] == expected
        assert record["applies_to"] == kind


def test_each_kind_is_fitted_only_on_its_own_rows() -> None:
    kinds = {m["id"]: data.instance(str(m["instance"])).kind
             for m in data.records("measurements")}
    for kind in calibration.KINDS:
        assert {kinds[row] for row in calibration.fitted_on(kind)} == {kind}
    assert calibration.fit("neuron") != calibration.fit("gpu")


@pytest.mark.parametrize("kind", calibration.KINDS)
def test_fit_is_physical(kind: str) -> None:
    fitted = calibration.fit(kind)
    assert 0 < fitted.decode_memory <= 1
    assert 0 < fitted.prefill_compute <= 1
    assert fitted.collective_hop_latency_s > 0
    assert fitted.prefill_fixed_latency_s >= 0


def test_perf_uses_the_constants_of_the_instance_kind() -> None:
    for instance, kind in (("p4d.24xlarge", "gpu"), ("inf2.48xlarge", "neuron")):
        result = run("perf", model="llama-3.1-8b", instance=instance, input_len=128,
                     output_len=16)
        expected = Efficiency.from_data(kind)
        assert result["decode_memory_efficiency"] == expected.decode_memory
        assert result["prefill_compute_efficiency"] == expected.prefill_compute
        assert result["collective_hop_latency_s"] == expected.collective_hop_latency_s


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
        assert row["kind"] == data.instance(row["instance"]).kind
        for field in ("ttft_s", "tpot_s", "output_tokens_per_s"):
            assert row[f"{field}_estimated"] > 0
            if row[f"{field}_measured"] is not None:
                assert row[f"{field}_error"] == pytest.approx(
                    row[f"{field}_estimated"] / row[f"{field}_measured"] - 1
                )


def test_calibration_rows_are_reproduced_within_30_percent() -> None:
    # The fit quality the guide quotes: decode and prefill within ±30 % on every calibration row
    # (Neuron and GPU).
    for row in calibration.report():
        if row["use"] == "calibration":
            assert abs(row["tpot_s_error"]) < 0.30, row["id"]
            assert abs(row["ttft_s_error"]) < 0.30, row["id"]


def test_no_scored_row_is_off_by_more_than_a_factor_of_four() -> None:
    # Guards against scoring rows that are not comparable (e.g. NIM concurrency as batch, once
    # about 80x off): every calibration/validation TTFT and TPOT within -75 % .. +300 %. (The
    # worst today: batch-8 8,192-token Mistral prefill on trn1, measured 3.5x the estimate.)
    for row in calibration.report():
        for field in ("ttft_s", "tpot_s"):
            error = row[f"{field}_error"]
            if error is not None:
                assert -0.75 < error < 3.0, (row["id"], field, error)
