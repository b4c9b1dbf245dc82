"""calc.calibration.error_summary: the one place the calibration medians are computed (used by
bench/calibrate.py and the site's calibration_summary() macro)."""

from calc import calibration


def _row(use: str, kind: str, error: float | None) -> dict[str, object]:
    return {"use": use, "kind": kind, "tpot_s_error": error}


ROWS = [
    _row("validation", "neuron", -0.30),
    _row("validation", "neuron", 0.10),
    _row("validation", "neuron", 0.20),
    _row("validation", "gpu", 0.50),
    _row("calibration", "neuron", 0.90),
    _row("validation", "neuron", None),
]


def test_median_and_max_of_absolute_errors_for_one_kind_and_use() -> None:
    summary = calibration.error_summary(ROWS, "validation", "tpot_s", "neuron")
    assert summary == calibration.ErrorSummary(rows=3, median=0.20, max=0.30)


def test_all_kinds() -> None:
    summary = calibration.error_summary(ROWS, "validation", "tpot_s")
    assert summary is not None and summary.rows == 4 and summary.max == 0.50


def test_no_rows_is_none() -> None:
    assert calibration.error_summary(ROWS, "calibration", "tpot_s", "gpu") is None


def test_report_rows_summarise() -> None:
    summary = calibration.error_summary(calibration.report(), "calibration", "tpot_s", "neuron")
    assert summary is not None and summary.rows > 0 and summary.median <= summary.max
