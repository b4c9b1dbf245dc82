"""Fit gates everything (issue 9 item 1): a setup that does not fit gets no speed and no cost.

``check`` says whether one model replica fits at the given TP degree (or at any allowed degree
when none is given) and, when not, why (``fit_reason``: a key + params). ``gated`` turns a result
dict into one whose speed and cost fields are null, keeping only the fields that describe the
setup. The api handlers call these around calc.perf / calc.flops, so the estimators stay as
they are.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import memory
from .specs import InstanceSpec, ModelSpec

# result fields that describe the setup (kept when it does not fit); every other field is null
SETUP_FIELDS = frozenset({
    "model", "instance", "dtype", "kv_dtype", "compute_dtype", "batch", "input_len", "output_len",
    "seq_len", "tp_degree", "count", "tokens", "region", "price_kind", "usd_per_hour",
    "price_missing_reason", "price_kind_used", "price_region_used", "price_fallback_reason",
    "price_sources", "objective", "fits", "fit_reason", "suggestions", "derivation",
    "tp_reason", "tp_other_objective", "dtypes_supported",
    "active_params",  # issue 10: a property of the model, not a speed or cost
    "beyond_max_positions",  # a property of the model and the length asked for
    "checkpoint_fallback",   # what the checkpoint stores that the chip does not run
})


@dataclass(frozen=True, slots=True)
class Verdict:
    fits: bool
    tp: int                       # the degree shown: the given one, else the best that fits,
    #                               else the one with the least memory per core
    per_core_bytes: int
    capacity_per_core_bytes: int
    reason: dict[str, Any] | None  # None when it fits


def per_core_bytes(
    model: ModelSpec, instance: InstanceSpec, *, dtype: str, kv_dtype: str, batch: int,
    seq_len: int, tp: int,
) -> int:
    return memory.footprint(
        model, instance.chip, dtype=dtype, kv_dtype=kv_dtype, batch=batch, seq_len=seq_len, tp=tp
    ).per_core_bytes


def check(
    model: ModelSpec, instance: InstanceSpec, *, dtype: str, kv_dtype: str, batch: int,
    seq_len: int, tp: int | None,
) -> Verdict:
    capacity = memory.capacity_per_core_bytes(instance)
    degrees = [tp] if tp is not None else sorted(instance.tp_degrees)
    used = {
        d: per_core_bytes(model, instance, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
                          seq_len=seq_len, tp=d)
        for d in degrees
    }
    fitting = [d for d in degrees if used[d] <= capacity]
    if fitting:
        shown = fitting[0]
        return Verdict(True, shown, used[shown], capacity, None)
    shown = min(degrees, key=lambda d: (used[d], d))
    key = "does_not_fit_at_tp" if tp is not None else "does_not_fit_any_tp"
    reason = {
        "key": key,
        "params": {
            "tp": shown,
            "per_core_bytes": used[shown],
            "capacity_per_core_bytes": capacity,
            "over_bytes": used[shown] - capacity,
            "tp_degrees_allowed": sorted(instance.tp_degrees),
        },
    }
    return Verdict(False, shown, used[shown], capacity, reason)


def gated(
    fields: Iterable[str], setup: Mapping[str, Any], *, keep: Iterable[str] = ()
) -> dict[str, Any]:
    """A result dict over ``fields``: setup fields copied from ``setup``, the rest null.
    ``fits`` is False; ``derivation`` comes from ``setup`` (the memory steps that say why)."""
    kept = SETUP_FIELDS | set(keep)
    result = {name: (setup.get(name) if name in kept else None) for name in fields}
    for name in kept:
        if name in setup and name not in result:
            result[name] = setup[name]
    result["fits"] = False
    return result


def speed_and_cost_are_null(result: Mapping[str, Any]) -> bool:
    """The invariant tests check: a result that does not fit has no number outside SETUP_FIELDS
    (other than derivation/labels)."""
    if result.get("fits") is not False:
        return True
    return all(
        value is None or name in SETUP_FIELDS or isinstance(value, str | bool | list | dict)
        for name, value in result.items()
    )
