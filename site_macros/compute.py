"""Derived figures come from calc through its JSON api (ARCHITECTURE.md §2), not from macros."""

from __future__ import annotations

from functools import cache
from typing import Any


class CalcRequestError(RuntimeError):
    """calc.api answered ok=false to a request made by a page; the build stops with its message."""


def run(kind: str, **params: Any) -> dict[str, Any]:
    """The `result` dict of calc.api.run for one request."""
    import calc.api  # imported on first use: calc is loaded only when a page needs it

    response = calc.api.run({"schema_version": 1, "kind": kind, "params": params})
    if not response.get("ok"):
        error = response.get("error", {})
        raise CalcRequestError(f"calc {kind} {params}: {error.get('message', error)}")
    result: dict[str, Any] = response["result"]
    return result


@cache  # pure function of the data; asked again by each language build (treat as read-only)
def price(instance: str, region: str = "us-east-1", kind: str = "on-demand") -> dict[str, Any]:
    """Normalised price figures for one instance, region and price kind."""
    # the tables list price records: no fallback to another kind or region (trust, issue 9)
    return run("price", instance=instance, region=region, price_kind=kind, price_fallback=False)


@cache  # pure function of the data; the three language builds share one report
def calibration_report() -> list[dict[str, Any]]:
    """calc's estimate vs measurement (and relative error) for each calibration/validation row."""
    import calc.calibration

    return calc.calibration.report()


CALIBRATION_KINDS = ("neuron", "gpu")
CALIBRATION_USES = ("calibration", "validation")
CALIBRATION_FIELDS = ("ttft_s", "tpot_s", "output_tokens_per_s")
CALIBRATION_STATS = ("median", "max")


class CalibrationSummaryError(ValueError):
    """calibration_summary() was asked for an unknown kind/use/field/stat or an empty set."""


def calibration_error_summary(kind: str, use: str, field: str, stat: str = "median") -> float:
    """The median or max |relative error| of calc's estimates against the measurements of one
    instance kind and use (the rows of calc.calibration.report(); nothing is recomputed here)."""
    for name, value, allowed in (("kind", kind, CALIBRATION_KINDS), ("use", use, CALIBRATION_USES),
                                 ("field", field, CALIBRATION_FIELDS),
                                 ("stat", stat, CALIBRATION_STATS)):
        if value not in allowed:
            raise CalibrationSummaryError(f"calibration_summary {name}={value!r}: not one of "
                                          f"{allowed}")
    import calc.calibration

    summary = calc.calibration.error_summary(calibration_report(), use, field, kind)
    if summary is None:
        raise CalibrationSummaryError(f"calc.calibration.report() has no {kind} {use} rows with "
                                      f"{field}")
    return summary.median if stat == "median" else summary.max
