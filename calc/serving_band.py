"""Error bands: the 80 % band of an estimate from the cross-validated residuals of its nearest
calibration family (stored by bench/calibrate.py in data/calibration.toml), and its basis.

A family is hardware generation (chip) × framework × phase (decode, prefill, throughput,
training). Residual = measured / estimated under leave-one-source-out cross-validation. The band
is estimate × [exp(c − w·h), exp(c + w·h)] where c ± h are the mid-point and half-width of the
10th-90th percentiles of log(residual), and the widening w = sqrt(10/n) when n < 10 (thin),
× 1.25 when a coarser family stands in (same chip any framework, same kind, any hardware), × 1.5
when the request is outside the family's measured range of model size, batch, lengths or TP.

The nearest family is first the exact family at the request's load (LOADS): "one-step" when a
single decode step is measured alone (a static batch, or one request in flight), "loaded" when
several requests share the engine (their prefills interleave, they queue) — the two miss by
different amounts, so a band at one request in flight is not widened by the queueing errors of
loaded rows, nor a loaded band narrowed by the quiet ones. Training has no load level.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from . import data

LEVELS = ("load", "exact", "hardware", "kind", "phase")
LOADS = ("one-step", "loaded")
EXACT_LEVELS = ("load", "exact")   # no fallback widening
BAND_LOW_Q, BAND_HIGH_Q = 0.10, 0.90
THIN_POINTS = 10
FALLBACK_WIDEN = 1.25
OUTSIDE_RANGE_WIDEN = 1.5
CALIBRATION_FILE = "calibration.toml"
POINTS_FILE = "calibration_points.toml"


def exact_family(hardware: str, framework: str, phase: str) -> str:
    """A calibration family: hardware generation × framework × phase."""
    return f"{hardware}/{framework}/{phase}"


def family_key(level: str, hardware: str, kind: str, framework: str, phase: str,
               load: str | None = None) -> str | None:
    """The family of a level; None at the load level when there is no load (training)."""
    if level == "load":
        return None if load is None else f"{exact_family(hardware, framework, phase)}/{load}"
    if level == "exact":
        return exact_family(hardware, framework, phase)
    if level == "hardware":
        return f"{hardware}/*/{phase}"
    if level == "kind":
        return f"{kind}/*/{phase}"
    return f"*/*/{phase}"


@dataclass(frozen=True, slots=True)
class BandStats:
    family: str
    level: str
    phase: str
    n: int
    log_low: float      # 10th percentile of log(measured / estimated)
    log_high: float     # 90th percentile
    ranges: Mapping[str, tuple[float, float]]

    def as_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {"family": self.family, "level": self.level, "phase": self.phase,
                               "n": self.n, "log_low": round(self.log_low, 6),
                               "log_high": round(self.log_high, 6)}
        for name, (low, high) in sorted(self.ranges.items()):
            row[f"{name}_min"], row[f"{name}_max"] = low, high
        return row


@dataclass(frozen=True, slots=True)
class Band:
    low_ratio: float
    high_ratio: float
    family: str
    level: str
    points: int
    reasons: tuple[str, ...]


def outside(stats: BandStats, features: Mapping[str, float]) -> list[str]:
    names = []
    for name, value in features.items():
        if name in stats.ranges:
            low, high = stats.ranges[name]
            if not low <= value <= high:
                names.append(name)
    return names


def widen(stats: BandStats, features: Mapping[str, float]) -> Band:
    centre, half = (stats.log_low + stats.log_high) / 2, (stats.log_high - stats.log_low) / 2
    factor = 1.0
    reasons: list[str] = []
    if stats.n < THIN_POINTS:
        factor *= math.sqrt(THIN_POINTS / stats.n)
        reasons.append("thin_family")
    if stats.level not in EXACT_LEVELS:
        factor *= FALLBACK_WIDEN
        reasons.append(f"family_level_{stats.level}")
    beyond = outside(stats, features)
    if beyond:
        factor *= OUTSIDE_RANGE_WIDEN
        reasons.extend(f"outside_range_{name}" for name in beyond)
    return Band(math.exp(centre - factor * half), math.exp(centre + factor * half),
                stats.family, stats.level, stats.n, tuple(reasons))


def load_field(name: str, load: str) -> str:
    """A per-load field of a [[family]] row in data/calibration.toml: "n_one_step",
    "median_abs_error_loaded", ..."""
    return f"{name}_{load.replace('-', '_')}"


def load_of(batching: str, in_flight: int) -> str:
    """The load level of a serving request: one decode step measured alone (a static batch, or
    one request in flight under continuous batching) or several requests sharing the engine."""
    return "one-step" if batching == "static" or in_flight <= 1 else "loaded"


def nearest(stats: Iterable[BandStats], hardware: str, kind: str, framework: str, phase: str,
            features: Mapping[str, float], load: str | None = None) -> Band | None:
    by_key = _by_family(stats) if isinstance(stats, tuple) else {s.family: s for s in stats}
    for level in LEVELS:
        key = family_key(level, hardware, kind, framework, phase, load)
        found = None if key is None else by_key.get(key)
        if found is not None:
            return widen(found, features)
    return None


_BY_FAMILY: dict[int, tuple[tuple[BandStats, ...], dict[str, BandStats]]] = {}


def _by_family(stats: tuple[BandStats, ...]) -> dict[str, BandStats]:
    """family -> its statistics, built once per tuple (stored() returns the same one; the
    tuple is kept with its index so its id is not reused)."""
    found = _BY_FAMILY.get(id(stats))
    if found is None or found[0] is not stats:
        found = _BY_FAMILY[id(stats)] = (stats, {s.family: s for s in stats})
    return found[1]


@cache
def stored() -> tuple[BandStats, ...]:
    """The band statistics bench/calibrate.py wrote to data/calibration.toml."""
    raw = data._toml(CALIBRATION_FILE)
    found = []
    for row in raw.get("band", []):
        ranges = {}
        for key in row:
            if key.endswith("_min") and f"{key[:-4]}_max" in row:
                ranges[key[:-4]] = (float(row[key]), float(row[f"{key[:-4]}_max"]))
        found.append(BandStats(str(row["family"]), str(row["level"]), str(row["phase"]),
                               int(row["n"]), float(row["log_low"]), float(row["log_high"]),
                               ranges))
    return tuple(found)


def stored_families() -> list[dict[str, Any]]:
    """Per-family cross-validated figures (for the site): data/calibration.toml [[family]]."""
    return list(data._toml(CALIBRATION_FILE).get("family", []))


def stored_points() -> list[dict[str, Any]]:
    """Left-out predictions vs measurements (for the chart): data/calibration_points.toml."""
    return list(data._toml(POINTS_FILE).get("point", []))


def inference_key(model: str, instance: str, framework: str, tp: int, batch: int,
                  input_len: int, output_len: int, dtype: str) -> str:
    return f"inference|{model}|{instance}|{framework}|{tp}|{batch}|{input_len}|{output_len}|{dtype}"


def training_key(model: str, instance: str, framework: str, count: int, seq_len: int) -> str:
    return f"training|{model}|{instance}|{framework}|{count}|{seq_len}"


@cache
def measured_index() -> dict[str, str]:
    """Configuration key -> id of a published record with exactly that configuration
    (data/calibration.toml `measured`, "key=id" strings written by bench/calibrate.py, so an
    estimate finds its basis without parsing every measurement)."""
    found: dict[str, str] = {}
    for entry in data._toml(CALIBRATION_FILE).get("summary", {}).get("measured", []):
        key, _, record_id = str(entry).rpartition("=")
        found.setdefault(key, record_id)
    return found


def interval(value: float, band: Band | None) -> list[float] | None:
    if band is None:
        return None
    return [value * band.low_ratio, value * band.high_ratio]


def rate_interval(value: float, band: Band | None) -> list[float] | None:
    return interval(value, band)


def describe(band: Band | None) -> str:
    if band is None:
        return "no calibration family with enough points"
    reasons = ", ".join(band.reasons) or "none"
    return f"family {band.family} ({band.level}, n={band.points}); widened: {reasons}"


def widen_more(band: Band, factor: float, reasons: Sequence[str]) -> Band:
    """Widen a band further in log space around its centre (e.g. an uncalibrated framework)."""
    low, high = math.log(band.low_ratio), math.log(band.high_ratio)
    centre, half = (low + high) / 2, (high - low) / 2
    return Band(math.exp(centre - factor * half), math.exp(centre + factor * half), band.family,
                band.level, band.points, (*band.reasons, *reasons))
