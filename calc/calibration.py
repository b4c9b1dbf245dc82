"""Calibration of the speed model on published measurements, and its report for the site.

Two independent sets of constants, one per instance kind (Neuron, GPU): each is fitted only on
the rows with use = "calibration" whose instance has that kind (Neuron: published Inf2 decoder
benchmarks; GPU: published GPU rows), and each row is estimated with the set of its own kind.
fit(kind):
  1. decode: TPOT = x₁ · t_mem,ideal + x₂ · hops  — weighted least squares (weights 1/TPOT², i.e.
     relative error), closed form; η_mem = 1/x₁, c_hop = x₂;
  2. prefill: TTFT = max(t_mem, t_comp/η_comp) + t_coll + t_fixed with η_mem and c_hop fixed;
     for each η_comp on a grid of step 0.001 in (0, 1] the best t_fixed ≥ 0 is closed form
     (weighted least squares, weights 1/TTFT²); the pair with the least relative error wins.
report(): estimate vs measured (TTFT, TPOT, output tokens/s per replica) and relative error for
every calibration and validation row. Rows at a TP degree that does not divide the heads
(transformers-neuronx at TP24) are evaluated with padded heads, as perf does.
"""

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import data, dtypes
from .perf import Efficiency, Roofline, decode_roofline, efficiency_prefix, prefill_roofline
from .specs import InstanceSpec, ModelSpec

CALIBRATION = "calibration"
VALIDATION = "validation"
FITTED_BY = "bench/calibrate.py"
KINDS = ("neuron", "gpu")
FITTED_IDS = (
    "decode_memory_efficiency",
    "collective_hop_latency_s",
    "prefill_compute_efficiency",
    "prefill_fixed_latency_s",
)


def fitted_ids(kind: str) -> tuple[str, ...]:
    """The assumption ids that hold the fitted constants of one instance kind."""
    prefix = efficiency_prefix(kind)
    return tuple(f"{prefix}{name}" for name in FITTED_IDS)
SIGNIFICANT_DIGITS = 4
_GRID_STEPS = 1000


@dataclass(frozen=True, slots=True)
class Case:
    """One inference measurement, resolved to specs."""

    id: str
    use: str
    model: ModelSpec
    instance: InstanceSpec
    tp: int
    batch: int
    input_len: int
    output_len: int
    dtype: str
    ttft_s: float | None
    tpot_s: float | None
    output_tokens_per_s: float | None


def _float(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def cases(uses: tuple[str, ...] = (CALIBRATION, VALIDATION)) -> list[Case]:
    found: list[Case] = []
    for raw in data.records("measurements"):
        if raw.get("kind", "inference") != "inference" or raw.get("use") not in uses:
            continue
        needed = ("model", "instance", "tp", "batch", "input_len", "output_len", "dtype")
        if any(not isinstance(raw.get(name), int | str) for name in needed):
            continue
        if str(raw["dtype"]) not in dtypes.DTYPE_BITS:
            continue
        found.append(
            Case(
                id=str(raw["id"]),
                use=str(raw["use"]),
                model=data.model(str(raw["model"])),
                instance=data.instance(str(raw["instance"])),
                tp=int(raw["tp"]),
                batch=int(raw["batch"]),
                input_len=int(raw["input_len"]),
                output_len=int(raw["output_len"]),
                dtype=str(raw["dtype"]),
                ttft_s=_float(raw.get("ttft_s")),
                tpot_s=_float(raw.get("tpot_s")),
                output_tokens_per_s=_float(raw.get("output_tokens_per_s")),
            )
        )
    return found


def _decode(case: Case) -> Roofline:
    return decode_roofline(
        case.model, case.instance, tp=case.tp, dtype=case.dtype,
        kv_dtype=dtypes.default_kv_dtype(case.dtype), batch=case.batch,
        context=case.input_len + case.output_len // 2,
    )


def _prefill(case: Case) -> Roofline:
    return prefill_roofline(
        case.model, case.instance, tp=case.tp, dtype=case.dtype, batch=case.batch,
        input_len=case.input_len,
    )


def estimate(case: Case, efficiency: Efficiency) -> dict[str, float]:
    ttft = _prefill(case).time_s(efficiency)
    tpot = _decode(case).time_s(efficiency)
    rate = case.batch * case.output_len / (ttft + (case.output_len - 1) * tpot)
    return {"ttft_s": ttft, "tpot_s": tpot, "output_tokens_per_s": rate}


def _round(value: float) -> float:
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def _calibration_rows(kind: str) -> list[Case]:
    return [
        c for c in cases((CALIBRATION,)) if c.tpot_s is not None and c.instance.kind == kind
    ]


def fit(kind: str = "neuron") -> Efficiency:
    """Fit η_mem and c_hop (decode) then η_comp (prefill) on the calibration rows of one kind."""
    rows = _calibration_rows(kind)
    if len(rows) < 2:
        raise LookupError(f"need at least two {kind} calibration rows with tpot_s")
    # weighted normal equations for y ≈ x1·a + x2·b with weight 1/y²
    saa = sab = sbb = say = sby = 0.0
    for case in rows:
        roofline = _decode(case)
        y = case.tpot_s or 0.0
        weight = 1.0 / (y * y)
        a, b = roofline.memory_s, float(roofline.collective_hops)
        saa += weight * a * a
        sab += weight * a * b
        sbb += weight * b * b
        say += weight * a * y
        sby += weight * b * y
    determinant = saa * sbb - sab * sab
    x1 = (say * sbb - sby * sab) / determinant
    x2 = (saa * sby - sab * say) / determinant
    decode_memory = _round(1.0 / x1)
    hop_latency = _round(x2)

    prefill_rows = [c for c in rows if c.ttft_s is not None]
    rooflines = [(_prefill(c), c.ttft_s or 0.0) for c in prefill_rows]
    best_error, best_eta, best_fixed = float("inf"), 1.0, 0.0
    for step in range(1, _GRID_STEPS + 1):
        eta = step / _GRID_STEPS
        trial = Efficiency(decode_memory, eta, hop_latency, 0.0)
        predicted = [(roofline.time_s(trial), measured) for roofline, measured in rooflines]
        numerator = sum((measured - value) / measured**2 for value, measured in predicted)
        denominator = sum(1.0 / measured**2 for _, measured in predicted)
        fixed = max(0.0, numerator / denominator)
        error = sum(((value + fixed - measured) / measured) ** 2 for value, measured in predicted)
        if error < best_error:
            best_error, best_eta, best_fixed = error, eta, fixed
    return Efficiency(decode_memory, _round(best_eta), hop_latency, _round(best_fixed))


def fitted_on(kind: str = "neuron") -> list[str]:
    return [c.id for c in _calibration_rows(kind)]


def _error(estimated: float, measured: float | None) -> float | None:
    return None if measured is None or measured == 0 else (estimated - measured) / measured


def report(efficiencies: Mapping[str, Efficiency] | None = None) -> list[dict[str, Any]]:
    """One row per calibration / validation measurement: estimate (with the constants of the
    row's instance kind; stored ones unless given), measurement, relative error."""
    chosen = dict(efficiencies or {})
    rows: list[dict[str, Any]] = []
    for case in cases():
        kind = case.instance.kind
        if kind not in chosen:
            chosen[kind] = Efficiency.from_data(kind)
        estimated = estimate(case, chosen[kind])
        row: dict[str, Any] = {
            "id": case.id,
            "use": case.use,
            "kind": kind,
            "model": case.model.id,
            "instance": case.instance.id,
            "tp": case.tp,
            "batch": case.batch,
            "input_len": case.input_len,
            "output_len": case.output_len,
            "dtype": case.dtype,
        }
        measured: Mapping[str, float | None] = {
            "ttft_s": case.ttft_s,
            "tpot_s": case.tpot_s,
            "output_tokens_per_s": case.output_tokens_per_s,
        }
        for name, value in estimated.items():
            row[f"{name}_estimated"] = value
            row[f"{name}_measured"] = measured[name]
            row[f"{name}_error"] = _error(value, measured[name])
        rows.append(row)
    return rows


@dataclass(frozen=True, slots=True)
class ErrorSummary:
    """|relative error| of one estimated field over a set of report rows."""

    rows: int
    median: float
    max: float


def error_summary(
    rows: Sequence[Mapping[str, Any]], use: str, field: str, kind: str = "all"
) -> ErrorSummary | None:
    """Median and max |error| of `field` (ttft_s, tpot_s, output_tokens_per_s) over the report
    rows of one use and instance kind ("all": every kind); None when no row has that field."""
    errors = [
        abs(row[f"{field}_error"])
        for row in rows
        if row["use"] == use and kind in ("all", row["kind"]) and row[f"{field}_error"] is not None
    ]
    if not errors:
        return None
    return ErrorSummary(rows=len(errors), median=statistics.median(errors), max=max(errors))
