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
    return run("price", instance=instance, region=region, price_kind=kind)


@cache  # pure function of the data; the three language builds share one report
def calibration_report() -> list[dict[str, Any]]:
    """calc's estimate vs measurement (and relative error) for each calibration/validation row."""
    import calc.calibration

    return calc.calibration.report()
