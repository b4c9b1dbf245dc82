"""Inference memory fit: weights + KV cache + activations + runtime overhead per core vs capacity.

Formulas (B = bytes per element of the named dtype, t = TP degree):
  weights_bytes     = ceil(params × bits / 8)                    (MoE: total params)
  kv_cache_bytes    = 2 · L · head_dim · s · b · B_kv · kv_heads_eff   (decoders only)
      kv_heads_eff  = max(kv_heads, t)   if t % kv_heads == 0 or kv_heads % t == 0
                                          (NxD Inference REPLICATE_TO_TP_DEGREE)
                    = heads              otherwise (CONVERT_TO_MHA; needs heads % t == 0)
  activation_bytes  = 2 · b · s · (h + i_active) · B_act         (one layer's prefill working set;
                                                                   buffers are reused across layers)
  overhead_bytes    = runtime overhead per logical core × t
                      (Neuron: 96 MiB microcode per physical core × LNC; GPU: an assumption)
  per_core_bytes    = each term / t (weights, activations rounded up; KV exact per core) + overhead
  fits              = per_core_bytes ≤ usable memory per core, and t is an allowed degree
Recommended TP: the smallest allowed degree that leaves ≥ 10 % of the per-core capacity free.
Allowed degrees that do not divide the heads are skipped (NxD Inference rule); the smallest such
degree that would fit with padded heads (as transformers-neuronx runs them) is reported apart.
"""

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from . import dtypes
from .derivation import Derivation
from .errors import CalcError
from .specs import ChipSpec, InstanceSpec, ModelSpec
from .units import ceil_div

RECOMMENDED_HEADROOM_FRACTION = 0.10
ACTIVATION_WORKING_SET_TENSORS = 2
REPLICATE_TO_TP_DEGREE = "replicate_to_tp_degree"
CONVERT_TO_MHA = "convert_to_mha"
NO_KV_CACHE = "no_kv_cache"
PADDED_HEADS = "padded_heads"
_SEARCH_LIMIT = 1 << 40


def kv_layout(model: ModelSpec, tp: int) -> tuple[str, int]:
    """(rule, kv_heads_eff): how many K/V heads exist in total across the t cores."""
    if model.heads % tp != 0:
        raise CalcError("tp", "heads_not_divisible", {"value": model.heads, "allowed": tp})
    if not model.is_decoder:
        return NO_KV_CACHE, 0
    kv_heads = model.kv_heads
    if tp % kv_heads == 0 or kv_heads % tp == 0:
        return REPLICATE_TO_TP_DEGREE, max(kv_heads, tp)
    return CONVERT_TO_MHA, model.heads


def kv_heads_effective_padded(model: ModelSpec, tp: int) -> int:
    """kv_heads_eff without the head check, for frameworks that pad heads (transformers-neuronx):
    the replicate rule when it applies, else the query heads padded up to a multiple of t."""
    if not model.is_decoder:
        return 0
    kv_heads = model.kv_heads
    if tp % kv_heads == 0 or kv_heads % tp == 0:
        return max(kv_heads, tp)
    return -(-model.heads // tp) * tp


def tp_is_valid(model: ModelSpec, tp: int) -> bool:
    return model.heads % tp == 0


@dataclass(frozen=True, slots=True)
class Footprint:
    """Memory of one model replica spread over ``tp`` cores, in integer bytes."""

    tp: int
    kv_rule: str
    kv_heads_effective: int
    weights_bytes: int
    kv_cache_bytes: int
    activation_bytes: int
    overhead_bytes: int
    weights_per_core_bytes: int
    kv_cache_per_core_bytes: int
    activation_per_core_bytes: int
    overhead_per_core_bytes: int

    @property
    def total_bytes(self) -> int:
        return (
            self.weights_bytes + self.kv_cache_bytes + self.activation_bytes + self.overhead_bytes
        )

    @property
    def per_core_bytes(self) -> int:
        return (
            self.weights_per_core_bytes
            + self.kv_cache_per_core_bytes
            + self.activation_per_core_bytes
            + self.overhead_per_core_bytes
        )


def weights_bytes(model: ModelSpec, dtype: str) -> int:
    return dtypes.bytes_for(model.params, dtype)


def kv_elements_per_head(model: ModelSpec, batch: int, seq_len: int) -> int:
    """K and V elements of one KV head over all layers: 2 · L · head_dim · s · b."""
    return 2 * model.layers * model.head_dim * seq_len * batch


def activation_elements(model: ModelSpec, batch: int, seq_len: int) -> int:
    width = model.hidden + model.mlp_width_active
    return ACTIVATION_WORKING_SET_TENSORS * batch * seq_len * width


def footprint(
    model: ModelSpec,
    chip: ChipSpec,
    *,
    dtype: str,
    kv_dtype: str,
    batch: int,
    seq_len: int,
    tp: int,
    pad_heads: bool = False,
) -> Footprint:
    """Memory at one TP degree. pad_heads: allow heads % t != 0 by padding the query heads up to
    a multiple of t (transformers-neuronx does this; NxD Inference requires divisibility)."""
    weights = weights_bytes(model, dtype)
    if pad_heads and model.heads % tp != 0:
        padded_heads = -(-model.heads // tp) * tp
        rule, kv_heads_eff = PADDED_HEADS, kv_heads_effective_padded(model, tp)
        # zero query and output projection rows for the padding heads
        padding = padded_heads - model.heads
        extra_params = model.layers * 2 * model.hidden * model.head_dim * padding
        weights += dtypes.bytes_for(extra_params, dtype)
    else:
        rule, kv_heads_eff = kv_layout(model, tp)
    per_head = kv_elements_per_head(model, batch, seq_len)
    kv_total = dtypes.bytes_for(per_head * kv_heads_eff, kv_dtype)
    kv_per_core = dtypes.bytes_for(per_head * (kv_heads_eff // tp), kv_dtype)
    activations = dtypes.bytes_for(
        activation_elements(model, batch, seq_len), dtypes.activation_dtype(dtype)
    )
    overhead_per_core = chip.runtime_overhead_per_core_bytes
    return Footprint(
        tp=tp,
        kv_rule=rule,
        kv_heads_effective=kv_heads_eff,
        weights_bytes=weights,
        kv_cache_bytes=kv_total,
        activation_bytes=activations,
        overhead_bytes=overhead_per_core * tp,
        weights_per_core_bytes=ceil_div(weights, tp),
        kv_cache_per_core_bytes=kv_per_core,
        activation_per_core_bytes=ceil_div(activations, tp),
        overhead_per_core_bytes=overhead_per_core,
    )


@dataclass(frozen=True, slots=True)
class MemoryResult:
    model: str
    instance: str
    dtype: str
    kv_dtype: str
    batch: int
    seq_len: int
    params: int
    weights_bytes: int
    kv_cache_bytes: int
    activation_bytes: int
    overhead_bytes: int
    total_bytes: int
    weights_per_core_bytes: int
    kv_cache_per_core_bytes: int
    activation_per_core_bytes: int
    overhead_per_core_bytes: int
    per_core_bytes: int
    capacity_per_core_bytes: int
    capacity_per_instance_bytes: int
    headroom_per_core_bytes: int
    headroom_fraction: float
    tp_degree: int
    tp_given: bool
    tp_degrees_allowed: list[int]
    min_tp_degree: int | None
    min_tp_degree_with_head_padding: int | None
    recommended_tp_degree: int | None
    recommended_headroom_fraction: float
    fits: bool
    max_batch: int
    max_batch_per_instance: int
    max_seq_len: int
    kv_rule: str
    kv_heads_per_core: int
    cores_used: int
    cores_available: int
    replicas: int
    derivation: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def capacity_per_core_bytes(instance: InstanceSpec) -> int:
    capacity = instance.chip.usable_memory_per_core_bytes
    if capacity is None:
        raise CalcError("instance", "memory_missing", {"value": instance.id})
    return capacity


def valid_tp_degrees(model: ModelSpec, instance: InstanceSpec) -> list[int]:
    return [tp for tp in instance.tp_degrees if tp_is_valid(model, tp)]


def _largest(fits_at: Callable[[int], bool], start: int) -> int:
    """Largest n ≥ 0 with fits_at(n) for a monotone predicate, by doubling then bisection."""
    if not fits_at(1):
        return 0
    low, high = 1, max(2, start)
    while fits_at(high):
        low, high = high, high * 2
        if high > _SEARCH_LIMIT:
            return low
    while high - low > 1:
        middle = (low + high) // 2
        if fits_at(middle):
            low = middle
        else:
            high = middle
    return low


def fit(
    model: ModelSpec,
    instance: InstanceSpec,
    *,
    dtype: str,
    kv_dtype: str | None,
    batch: int,
    seq_len: int,
    tp: int | None = None,
) -> MemoryResult:
    steps = Derivation()
    chip = instance.chip
    kv_dtype = kv_dtype or dtypes.default_kv_dtype(dtype)
    capacity = capacity_per_core_bytes(instance)
    allowed = list(instance.tp_degrees)
    valid = valid_tp_degrees(model, instance)
    if tp is not None:
        if tp not in allowed:
            raise CalcError("tp", "tp_not_allowed", {"value": tp, "allowed": allowed})
        kv_layout(model, tp)  # heads % tp check
    elif not valid:
        raise CalcError("tp", "heads_not_divisible", {"value": model.heads, "allowed": allowed})

    def at(degree: int, b: int = batch, s: int = seq_len) -> Footprint:
        return footprint(
            model, chip, dtype=dtype, kv_dtype=kv_dtype, batch=b, seq_len=s, tp=degree
        )

    limit_recommended = int(capacity * (1 - RECOMMENDED_HEADROOM_FRACTION))
    min_tp = next((d for d in valid if at(d).per_core_bytes <= capacity), None)
    recommended = next((d for d in valid if at(d).per_core_bytes <= limit_recommended), min_tp)
    padded_candidates = [d for d in allowed if d not in valid and (min_tp is None or d < min_tp)]
    min_tp_padded = next(
        (
            d
            for d in padded_candidates
            if footprint(model, chip, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
                         seq_len=seq_len, tp=d, pad_heads=True).per_core_bytes <= capacity
        ),
        None,
    )
    chosen = tp if tp is not None else (recommended if recommended is not None else valid[-1])
    used = at(chosen)
    fits = used.per_core_bytes <= capacity

    steps.add("params", "params", model.params, "")
    steps.add("bytes_per_param", "bits(dtype) / 8", dtypes.bits(dtype) / 8, "B")
    steps.add("weights_bytes", "ceil(params × bits / 8)", used.weights_bytes, "B")
    steps.add("kv_rule", "t % kv_heads == 0 or kv_heads % t == 0 ? replicate : MHA", used.kv_rule)
    steps.add(
        "kv_heads_effective",
        "replicate: max(kv_heads, t); MHA: heads; encoder: 0",
        used.kv_heads_effective,
    )
    steps.add(
        "kv_cache_bytes",
        "2 · L · head_dim · s · b · B_kv · kv_heads_eff",
        used.kv_cache_bytes,
        "B",
    )
    steps.add(
        "activation_bytes", "2 · b · s · (h + i_active) · B_act (one layer)",
        used.activation_bytes, "B",
    )
    steps.add(
        "overhead_per_core_bytes", "runtime overhead per logical core",
        used.overhead_per_core_bytes, "B",
    )
    steps.add("overhead_bytes", "overhead per core × t", used.overhead_bytes, "B")
    steps.add("total_bytes", "weights + KV + activations + overhead", used.total_bytes, "B")
    steps.add("tp_degree", "given" if tp is not None else "recommended TP", chosen, "cores")
    steps.add(
        "per_core_bytes",
        "weights/t + KV per core + activations/t + overhead per core",
        used.per_core_bytes,
        "B",
    )
    steps.add("capacity_per_core_bytes", "usable memory per core", capacity, "B")
    headroom = capacity - used.per_core_bytes
    steps.add("headroom_per_core_bytes", "capacity − per core", headroom, "B")
    steps.add("fits", "per core ≤ capacity", fits)
    steps.add("min_tp_degree", "smallest allowed t that fits", min_tp, "cores")
    steps.add(
        "min_tp_degree_with_head_padding",
        "smaller allowed t that fits only with query heads padded to a multiple of t",
        min_tp_padded,
        "cores",
    )
    steps.add(
        "recommended_tp_degree",
        f"smallest allowed t with ≥ {RECOMMENDED_HEADROOM_FRACTION:.0%} headroom",
        recommended,
        "cores",
    )

    def batch_fits(b: int) -> bool:
        return at(chosen, b, seq_len).per_core_bytes <= capacity

    def seq_fits(s: int) -> bool:
        return at(chosen, batch, s).per_core_bytes <= capacity

    max_batch = _largest(batch_fits, batch)
    max_seq_len = _largest(seq_fits, seq_len)
    if model.max_position_embeddings is not None:
        max_seq_len = min(max_seq_len, model.max_position_embeddings)
    replicas = instance.logical_cores // chosen
    steps.add("max_batch", "largest b with per core ≤ capacity at t, s", max_batch, "")
    steps.add(
        "max_seq_len", "largest s with per core ≤ capacity at t, b (≤ max positions)",
        max_seq_len, "tokens",
    )
    steps.add("replicas", "floor(cores / t)", replicas, "")

    return MemoryResult(
        model=model.id,
        instance=instance.id,
        dtype=dtype,
        kv_dtype=kv_dtype,
        batch=batch,
        seq_len=seq_len,
        params=model.params,
        weights_bytes=used.weights_bytes,
        kv_cache_bytes=used.kv_cache_bytes,
        activation_bytes=used.activation_bytes,
        overhead_bytes=used.overhead_bytes,
        total_bytes=used.total_bytes,
        weights_per_core_bytes=used.weights_per_core_bytes,
        kv_cache_per_core_bytes=used.kv_cache_per_core_bytes,
        activation_per_core_bytes=used.activation_per_core_bytes,
        overhead_per_core_bytes=used.overhead_per_core_bytes,
        per_core_bytes=used.per_core_bytes,
        capacity_per_core_bytes=capacity,
        capacity_per_instance_bytes=capacity * instance.logical_cores,
        headroom_per_core_bytes=headroom,
        headroom_fraction=headroom / capacity,
        tp_degree=chosen,
        tp_given=tp is not None,
        tp_degrees_allowed=allowed,
        min_tp_degree=min_tp,
        min_tp_degree_with_head_padding=min_tp_padded,
        recommended_tp_degree=recommended,
        recommended_headroom_fraction=RECOMMENDED_HEADROOM_FRACTION,
        fits=fits,
        max_batch=max_batch,
        max_batch_per_instance=max_batch * replicas,
        max_seq_len=max_seq_len,
        kv_rule=used.kv_rule,
        kv_heads_per_core=used.kv_heads_effective // chosen,
        cores_used=chosen,
        cores_available=instance.logical_cores,
        replicas=replicas,
        derivation=steps.as_list(),
    )
