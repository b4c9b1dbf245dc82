"""The nearest setups that do fit (issue 9 item 1).

For a setup that does not fit, each suggestion changes one thing and is checked to fit:
  tp        the nearest allowed TP degree (only when a degree was given)
  kv_dtype  a lower KV-cache precision the hardware has (fp8, then int8)
  dtype     a lower weight precision the hardware has (fp8, int8, int4: the highest that fits)
  batch     the largest smaller batch that fits
  length    the longest input (perf: input_len; memory: seq_len) that fits
  instance  the cheapest other instance where it fits (same accelerator kind first; the
            instance's default dtype if it lacks the asked one)
Each is ``{"change", "value", "params", "reason_key"}``: ``params`` is the whole request with the
change applied (tp dropped where the given degree no longer applies), ready to fill the form.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from . import data, dtype_support, dtypes, fit_gate
from .errors import CalcError
from .specs import InstanceSpec, ModelSpec

LOWER_WEIGHT_DTYPES = ("fp8", "int8", "int4")
LOWER_KV_DTYPES = ("fp8", "int8")
MAX_INSTANCE_SUGGESTIONS = 2


@dataclass(frozen=True, slots=True)
class Setup:
    model: ModelSpec
    instance: InstanceSpec
    dtype: str
    kv_dtype: str | None          # None: the default for dtype on this instance
    batch: int
    input_len: int                # memory: the whole sequence; perf: the prompt
    output_len: int               # memory: 0
    tp: int | None
    length_field: str = "input_len"  # "seq_len" for memory requests
    # the model as its checkpoint stores it (no expert dtype named): another instance serves it
    # its own way (calc.dtype_gate.served); None: ``model`` on every instance
    checkpoint_model: ModelSpec | None = None

    @property
    def seq_len(self) -> int:
        return self.input_len + self.output_len

    @property
    def kv(self) -> str:
        return self.kv_dtype or dtype_support.default_kv_dtype(self.instance, self.dtype)


def fitting_tp(setup: Setup) -> int | None:
    """The given degree if it fits, else (no degree given) the smallest that fits, else None."""
    try:
        verdict = fit_gate.check(
            setup.model, setup.instance, dtype=setup.dtype, kv_dtype=setup.kv,
            batch=setup.batch, seq_len=setup.seq_len, tp=setup.tp,
        )
    except CalcError:
        return None
    return verdict.tp if verdict.fits else None


def _params(base: Mapping[str, Any], setup: Setup, **changes: Any) -> dict[str, Any]:
    params = {k: v for k, v in base.items() if v is not None and v != ""}
    params.update({k: v for k, v in changes.items() if v is not None})
    for k, v in changes.items():
        if v is None:
            params.pop(k, None)
    return params


def _suggestion(
    change: str, value: Any, params: dict[str, Any], fits_tp: int | None
) -> dict[str, Any]:
    return {"change": change, "value": value, "params": params,
            "reason_key": f"suggest_{change}", "tp_degree": fits_tp}


def _with_tp(candidate: Setup) -> tuple[Setup, int | None]:
    """The candidate at its given degree, else at auto TP (the given degree then dropped)."""
    tp = fitting_tp(candidate)
    if tp is not None or candidate.tp is None:
        return candidate, tp
    auto = replace(candidate, tp=None)
    return auto, fitting_tp(auto)


def _largest(fits: Callable[[int], bool], below: int) -> int:
    """Largest n in [1, below) with fits(n) (monotone), or 0."""
    if below <= 1 or not fits(1):
        return 0
    low, high = 1, below
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def _tp(setup: Setup, base: Mapping[str, Any]) -> list[dict[str, Any]]:
    if setup.tp is None:
        return []
    given = setup.tp
    degrees = sorted(setup.instance.tp_degrees, key=lambda d: (abs(d - given), -d))
    for degree in degrees:
        if degree != setup.tp and fitting_tp(replace(setup, tp=degree)) is not None:
            return [_suggestion("tp", degree, _params(base, setup, tp=degree), degree)]
    return []


def _kv_dtype(setup: Setup, base: Mapping[str, Any]) -> list[dict[str, Any]]:
    current = dtypes.bits(setup.kv, "kv_dtype")
    for kv in LOWER_KV_DTYPES:
        if dtypes.bits(kv) >= current or not dtype_support.kv_dtype_supported(setup.instance, kv):
            continue
        candidate, tp = _with_tp(replace(setup, kv_dtype=kv))
        if tp is not None:
            changes: dict[str, Any] = {"kv_dtype": kv}
            if candidate.tp is None:
                changes["tp"] = None
            return [_suggestion("kv_dtype", kv, _params(base, setup, **changes), tp)]
    return []


def _dtype(setup: Setup, base: Mapping[str, Any]) -> list[dict[str, Any]]:
    current = dtypes.storage_bits(setup.dtype)
    for dtype in LOWER_WEIGHT_DTYPES:
        if dtypes.storage_bits(dtype) >= current:
            continue
        if not dtype_support.weight_dtype_supported(setup.instance, dtype):
            continue
        candidate, tp = _with_tp(replace(setup, dtype=dtype))
        if tp is not None:
            changes: dict[str, Any] = {"dtype": dtype}
            if candidate.tp is None:
                changes["tp"] = None
            return [_suggestion("dtype", dtype, _params(base, setup, **changes), tp)]
    return []


def _batch(setup: Setup, base: Mapping[str, Any]) -> list[dict[str, Any]]:
    best = _largest(lambda b: fitting_tp(replace(setup, batch=b)) is not None, setup.batch)
    changes: dict[str, Any] = {}
    if best == 0 and setup.tp is not None:
        auto = replace(setup, tp=None)
        best = _largest(lambda b: fitting_tp(replace(auto, batch=b)) is not None, setup.batch)
        changes["tp"] = None
        setup = auto
    if best == 0:
        return []
    changes["batch"] = best
    return [_suggestion("batch", best, _params(base, setup, **changes),
                        fitting_tp(replace(setup, batch=best)))]


def _length(setup: Setup, base: Mapping[str, Any]) -> list[dict[str, Any]]:
    best = _largest(lambda n: fitting_tp(replace(setup, input_len=n)) is not None,
                    setup.input_len)
    if best == 0:
        return []
    params = _params(base, setup, **{setup.length_field: best})
    return [_suggestion(setup.length_field, best, params,
                        fitting_tp(replace(setup, input_len=best)))]


def _instance_order(setup: Setup, region: str) -> list[tuple[int, float, str]]:
    from .price import hourly_price

    order = []
    for instance_id in data.instance_ids():
        if instance_id == setup.instance.id:
            continue
        other = data.instance(instance_id)
        try:
            usd = hourly_price(instance_id, region).usd_per_hour
        except CalcError:
            usd = None
        order.append((0 if other.kind == setup.instance.kind else 1,
                      usd if usd is not None else float("inf"), instance_id))
    return sorted(order)


def _instance(setup: Setup, base: Mapping[str, Any], region: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    kinds_done: set[int] = set()
    for same_kind, _, instance_id in _instance_order(setup, region):
        if same_kind in kinds_done:
            continue
        other = data.instance(instance_id)
        dtype = setup.dtype
        if not dtype_support.weight_dtype_supported(other, dtype):
            dtype = dtype_support.default_dtype(other)
        kv = setup.kv_dtype
        if kv is not None and not dtype_support.kv_dtype_supported(other, kv):
            kv = None
        model = setup.model
        if setup.checkpoint_model is not None:   # e.g. MXFP4 experts kept on a GPU, BF16 on Inf2
            from .dtype_gate import served

            model = served(setup.checkpoint_model, other)
        candidate = replace(setup, model=model, instance=other, dtype=dtype, kv_dtype=kv,
                            tp=None)
        tp = fitting_tp(candidate)
        if tp is None:
            continue
        changes: dict[str, Any] = {"instance": instance_id, "tp": None, "dtype": dtype}
        if kv is None:
            changes["kv_dtype"] = None
        found.append(_suggestion("instance", instance_id, _params(base, setup, **changes), tp))
        kinds_done.add(same_kind)
        if len(found) >= MAX_INSTANCE_SUGGESTIONS:
            break
    return found


def suggestions(
    setup: Setup, base: Mapping[str, Any], *, region: str = "us-east-1",
    other_instances: bool = True,
) -> list[dict[str, Any]]:
    """The nearest setups that fit, in the order of the module doc ([] when it already fits)."""
    if fitting_tp(setup) is not None:
        return []
    found = [
        *_tp(setup, base), *_kv_dtype(setup, base), *_dtype(setup, base), *_batch(setup, base),
        *_length(setup, base),
    ]
    if other_instances:
        found += _instance(setup, base, region)
    return found
