"""Tensor-parallel degree chosen for an objective (issue 9 item 4).

Every allowed TP degree at which the setup fits is estimated with calc.perf; then
  latency: the degree with the smallest time per request (e2e_s = TTFT + (s_out − 1)·TPOT)
  cost:    the degree with the most output tokens/s per instance (replicas × per replica), i.e. the
           lowest $ per token at a fixed hourly price
(ties go to the smaller degree). The result says which degree was picked and why (``tp_reason``:
key + params) and what the other objective would pick (``tp_other_objective``).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import memory
from .perf import PerfResult
from .specs import InstanceSpec, ModelSpec

OBJECTIVES = ("latency", "cost")
DEFAULT_OBJECTIVE = {"perf": "latency", "price": "cost", "compare": "cost"}

Estimate = Callable[[int], PerfResult]


@dataclass(frozen=True, slots=True)
class TpChoice:
    tp: int | None                 # None: no allowed degree fits
    objective: str
    reason: dict[str, Any]         # {"key": ..., "params": {...}}
    other: dict[str, Any] | None   # the other objective's pick: {"objective", "tp", ...}
    candidates: list[dict[str, Any]]


def other_objective(objective: str) -> str:
    return "cost" if objective == "latency" else "latency"


def _score(objective: str, result: PerfResult) -> tuple[float, int]:
    if objective == "latency":
        return (result.e2e_s, result.tp_degree)
    return (-result.output_tokens_per_s, result.tp_degree)


def _summary(result: PerfResult) -> dict[str, Any]:
    return {
        "tp": result.tp_degree, "e2e_s": result.e2e_s, "ttft_s": result.ttft_s,
        "tpot_s": result.tpot_s, "output_tokens_per_s": result.output_tokens_per_s,
        "replicas": result.replicas,
    }


def fitting_degrees(
    model: ModelSpec, instance: InstanceSpec, *, dtype: str, kv_dtype: str, batch: int,
    seq_len: int,
) -> list[int]:
    """Allowed TP degrees at which one replica fits, ascending."""
    capacity = memory.capacity_per_core_bytes(instance)
    return sorted(
        d for d in instance.tp_degrees
        if memory.footprint(model, instance.chip, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
                            seq_len=seq_len, tp=d).per_core_bytes <= capacity
    )


def choose(degrees: list[int], estimate: Estimate, objective: str) -> TpChoice:
    """Pick among ``degrees`` (those that fit) by ``objective``; ``estimate(t)`` runs calc.perf."""
    if not degrees:
        return TpChoice(None, objective, {"key": "tp_none_fits", "params": {}}, None, [])
    results = [estimate(d) for d in degrees]
    best = min(results, key=lambda r: _score(objective, r))
    other_name = other_objective(objective)
    other = min(results, key=lambda r: _score(other_name, r))
    smallest = results[0]
    if len(results) == 1:
        key = "tp_only_fit"
    elif objective == "latency":
        key = "tp_fastest"
    else:
        key = "tp_cheapest"
    params: dict[str, Any] = {
        "tp": best.tp_degree, "objective": objective, "candidates": degrees,
        "smallest_fitting_tp": smallest.tp_degree,
        "e2e_s": best.e2e_s, "smallest_fitting_e2e_s": smallest.e2e_s,
        "output_tokens_per_s": best.output_tokens_per_s,
        "smallest_fitting_output_tokens_per_s": smallest.output_tokens_per_s,
    }
    return TpChoice(
        tp=best.tp_degree,
        objective=objective,
        reason={"key": key, "params": params},
        other={"objective": other_name, **_summary(other)},
        candidates=[_summary(r) for r in results],
    )


def given(tp: int, objective: str) -> TpChoice:
    """The user fixed the degree: the reason says so."""
    return TpChoice(tp, objective, {"key": "tp_given", "params": {"tp": tp}}, None, [])
