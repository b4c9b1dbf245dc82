"""Leave-one-SOURCE-out cross-validation of the speed and training models, per-family error
figures and the band statistics every estimate's range comes from (calc.serving_band).

Each source document is left out in turn; the constants are refitted on the other sources
(calc.calibration.fit) and the left-out rows are predicted. Families: chip × framework × phase.
Coverage: a point counts as covered when its measurement lies inside the band built, by the same
procedure an estimate uses, from the other sources' points.
"""

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import frameworks, serving_band, training_speed
from .calibration import (
    MEDIAN_TARGET,
    MIN_FAMILY_POINTS,
    PHASE_FIELDS,
    Case,
    cases,
    estimate,
    fit,
    resolved,
    shows_one_step,
)

# ---------------------------------------------------------------- cross-validation


@dataclass(frozen=True, slots=True)
class Point:
    """A left-out prediction: the constants were fitted without the point's source."""

    id: str
    source: str
    hardware: str
    kind: str
    framework: str
    phase: str
    estimated: float
    measured: float
    features: Mapping[str, float]
    framework_calibrated: bool = True
    load: str | None = None       # serving_band.LOADS (None: training)

    @property
    def ratio(self) -> float:
        return self.measured / self.estimated

    @property
    def error(self) -> float:
        return self.estimated / self.measured - 1.0


def load_of_case(case: Case) -> str | None:
    """The load level (serving_band.LOADS) a perf request with this row's setup gets: "one-step"
    when the row shows one step alone (calibration.shows_one_step), "loaded" when several requests
    share the engine. A static-batch row of a continuous-batching engine above one request has
    none: perf runs that engine continuously, so no request matches it (it scores the exact
    family only)."""
    if not shows_one_step(case):
        return "loaded"
    if frameworks.get(case.framework.id).batching == "continuous" and case.batch > 1:
        return None
    return "one-step"


def _features(case: Case) -> dict[str, float]:
    """The request's shape as the band's measured ranges compare it; `batch` = requests in flight
    per replica (an offered-rate row: its Little's-law concurrency, calibration.resolved)."""
    return {"params": float(case.model.params), "batch": float(case.batch),
            "input_len": float(case.input_len), "output_len": float(case.output_len),
            "tp": float(case.tp)}


def cross_validate(rows: Sequence[Case] | None = None,
                   training_rows: Sequence["training_speed.TrainingCase"] | None = None
                   ) -> list[Point]:
    rows = list(cases() if rows is None else rows)
    training_rows = list(training_speed.cases() if training_rows is None else training_rows)
    sources = sorted({c.source for c in rows} | {c.source for c in training_rows})
    points: list[Point] = []
    for source in sources:
        held = [c for c in rows if c.source == source]
        held_training = [c for c in training_rows if c.source == source]
        constants = fit([c for c in rows if c.source != source],
                        [c for c in training_rows if c.source != source])
        for case in held:
            estimated = estimate(case, constants)
            features = _features(resolved(case, constants))   # an offered rate: its C in flight
            for phase in ("decode", "prefill", "throughput"):
                field = PHASE_FIELDS[phase]
                measured = case.measured(field)
                if measured is None or measured <= 0 or estimated[field] <= 0:
                    continue
                points.append(Point(case.id, source, case.hardware, case.instance.kind,
                                    case.framework.id, phase, estimated[field], measured,
                                    features,
                                    (case.framework.id, case.group) in constants.steps,
                                    load_of_case(case)))
        for tcase in held_training:
            predicted = training_speed.estimate(tcase, constants.training)
            points.append(Point(tcase.id, source, tcase.instance.chip.id, tcase.instance.kind,
                                tcase.framework.id, "training", predicted, tcase.tokens_per_s,
                                tcase.features()))
    return points


# ---------------------------------------------------------------- bands


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def exact_family_of(point: Point) -> str:
    return serving_band.exact_family(point.hardware, point.framework, point.phase)


def family_of(point: Point, level: str) -> str | None:
    return serving_band.family_key(level, point.hardware, point.kind, point.framework,
                                   point.phase, point.load)


def band_stats(pool: Sequence[Point]) -> list[serving_band.BandStats]:
    """Residual quantiles of every family at every level with enough points."""
    found = []
    for level in serving_band.LEVELS:
        grouped: dict[str, list[Point]] = {}
        for point in pool:
            key = family_of(point, level)
            if key is not None:
                grouped.setdefault(key, []).append(point)
        for key, members in sorted(grouped.items()):
            if len(members) < MIN_FAMILY_POINTS:
                continue
            logs = [math.log(p.ratio) for p in members]
            ranges: dict[str, tuple[float, float]] = {}
            for name in members[0].features:
                values = [p.features[name] for p in members if name in p.features]
                ranges[name] = (min(values), max(values))
            found.append(serving_band.BandStats(
                key, level, members[0].phase, len(members),
                quantile(logs, serving_band.BAND_LOW_Q), quantile(logs, serving_band.BAND_HIGH_Q),
                ranges))
    return found


@dataclass(frozen=True, slots=True)
class FamilyStats:
    family: str
    hardware: str
    framework: str
    phase: str
    n: int
    sources: int
    median_abs_error: float
    p90_abs_error: float
    coverage: float | None
    meets_target: bool | None     # None: fewer than MIN_FAMILY_POINTS points
    ratio_q10: float
    ratio_q90: float
    # per load (serving_band.LOADS) with points: (points, median |error|); empty for training
    by_load: Mapping[str, tuple[int, float]] = field(default_factory=dict)


P90_TARGET = 0.25
COVERAGE_TARGET = (0.70, 0.90)


def coverage_hits(points: Sequence[Point]) -> dict[tuple[str, str], bool]:
    """For each point: is its measurement inside the band built from the OTHER sources' points
    (the same procedure an estimate uses)?"""
    hits: dict[tuple[str, str], bool] = {}
    stats_without: dict[str, list[serving_band.BandStats]] = {}
    for point in points:
        if point.source not in stats_without:
            stats_without[point.source] = band_stats(
                [p for p in points if p.source != point.source])
        band = serving_band.nearest(stats_without[point.source], point.hardware, point.kind,
                                    point.framework, point.phase, point.features, point.load)
        if band is not None and not point.framework_calibrated:
            band = serving_band.widen_more(band, serving_band.FALLBACK_WIDEN,
                                           ["framework_not_calibrated"])
        if band is not None:
            hits[(point.id, point.phase)] = band.low_ratio <= point.ratio <= band.high_ratio
    return hits


def family_stats(points: Sequence[Point]) -> list[FamilyStats]:
    hits = coverage_hits(points)
    grouped: dict[str, list[Point]] = {}
    for point in points:
        grouped.setdefault(exact_family_of(point), []).append(point)
    stats = []
    for key, members in sorted(grouped.items()):
        errors = [abs(p.error) for p in members]
        covered = [hits[(p.id, p.phase)] for p in members if (p.id, p.phase) in hits]
        median, p90 = statistics.median(errors), quantile(errors, 0.9)
        coverage = sum(covered) / len(covered) if covered else None
        meets = None
        if len(members) >= MIN_FAMILY_POINTS:
            meets = median <= MEDIAN_TARGET and p90 <= P90_TARGET
        ratios = [p.ratio for p in members]
        by_load = {}
        for load in serving_band.LOADS:
            errors_at = [abs(p.error) for p in members if p.load == load]
            if errors_at:
                by_load[load] = (len(errors_at), statistics.median(errors_at))
        stats.append(FamilyStats(
            key, members[0].hardware, members[0].framework, members[0].phase, len(members),
            len({p.source for p in members}), median, p90, coverage, meets,
            quantile(ratios, serving_band.BAND_LOW_Q), quantile(ratios, serving_band.BAND_HIGH_Q),
            by_load))
    return stats


def within_source_errors(members: Sequence[Point]) -> list[float]:
    """|error| of each point once its source's own offset is taken out: every point's
    estimate / measurement divided by the median of that ratio over its source's points in
    `members` (one family). An oracle no model has (it reads the left-out source's answers):
    what stays is the error inside each source, which a better model of the recorded inputs
    could remove; what goes is the spread between sources (their unrecorded settings)."""
    logs: dict[str, list[float]] = {}
    for point in members:
        logs.setdefault(point.source, []).append(math.log(point.estimated / point.measured))
    offset = {source: statistics.median(values) for source, values in logs.items()}
    return [abs(math.exp(math.log(p.estimated / p.measured) - offset[p.source]) - 1.0)
            for p in members]


def within_source_stats(points: Sequence[Point]) -> dict[str, tuple[float, float]]:
    """family -> (median, p90) of within_source_errors over its points."""
    grouped: dict[str, list[Point]] = {}
    for point in points:
        grouped.setdefault(exact_family_of(point), []).append(point)
    found = {}
    for key, members in grouped.items():
        errors = within_source_errors(members)
        found[key] = (statistics.median(errors), quantile(errors, 0.9))
    return found


def overall_coverage(points: Sequence[Point]) -> float | None:
    hits = coverage_hits(points)
    return sum(hits.values()) / len(hits) if hits else None


# ---------------------------------------------------------------- report for the site


