"""Inference memory fit: weights + KV cache + activations + runtime overhead per core vs capacity.

Formulas (B = bytes per element of the named dtype, t = TP degree):
  head_padding      = (−heads) mod t   query heads added so that t divides them
                      (neuronx-distributed get_number_of_extra_heads; transformers-neuronx and
                      NxD pad_model do this; 0 when t divides the heads)
  weights_bytes     = Σ_groups ceil(params_group × bits(dtype_group) / 8)   (calc.model_shape)
                      groups: routed expert matrices (expert dtype), other linear layers + the
                      padded query/output rows 2 · L · hidden · head_dim · head_padding (linear
                      dtype), the rest (unquantized dtype). Dtypes: the checkpoint's precision
                      unless dtype / expert_dtype override it (model_shape.weight_precision).
  kv_cache_bytes    = unique KV bytes, one copy (calc.kv: GQA 2 · kv_heads · head_dim, MLA
                      kv_lora_rank + qk_rope_head_dim per token and layer; local layers keep
                      min(s, window) tokens)                                   (decoders only)
  kv_cache_per_core_bytes = what one core holds: GQA its share of kv_heads_eff heads, where
      kv_heads_eff  = max(kv_heads, t)   if t % kv_heads == 0 or kv_heads % t == 0
                                          (REPLICATE_TO_TP_DEGREE)
                    = padded heads       otherwise (CONVERT_TO_MHA, on the padded layout)
                      — the same counts as neuronx-distributed get_shardable_head_counts;
                      MLA: the whole latent on every core (MLA_LATENT_REPLICATED).
                      Replicated K/V projection weights are not counted (padded or not).
  kv_cache_replicated_bytes = kv_cache_per_core_bytes × t (all copies)
  activation_bytes  = 2 · b · s · (h + i_active) · B_act         (one layer's prefill working set;
                                                                   buffers are reused across layers)
  overhead_bytes    = runtime overhead per logical core × t
                      (Neuron: 96 MiB microcode per physical core × LNC; GPU: an assumption)
  total_bytes       = weights + kv_cache_bytes + activations + overhead (unique bytes)
  per_core_bytes    = weights/t + activations/t (rounded up) + KV per core + overhead per core
  fits              = per_core_bytes ≤ usable memory per core, and t is an allowed degree
TP choice: the allowed degrees are tried unpadded first (t divides the heads; NxD Inference needs
this), then padded, each group in ascending order. min_tp_degree = the first that fits;
recommended_tp_degree = the first that leaves ≥ 10 % of the per-core capacity free, else the
minimum. So an unpadded degree wins whenever one fits, even if a smaller padded one also fits.
min_tp_degree_with_head_padding = the smallest padded degree that fits when it is smaller than
every unpadded degree that fits (None otherwise); it equals min_tp_degree when only padded fit.
"""

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from . import dtypes, kv, model_shape
from .derivation import Derivation
from .errors import CalcError
from .kv import (
    CONVERT_TO_MHA,
    MLA_LATENT_REPLICATED,
    NO_KV_CACHE,
    REPLICATE_TO_TP_DEGREE,
    head_padding,
    kv_layout,
)
from .specs import ChipSpec, InstanceSpec, ModelSpec
from .units import ceil_div

__all__ = [
    "CONVERT_TO_MHA", "MLA_LATENT_REPLICATED", "NO_KV_CACHE", "REPLICATE_TO_TP_DEGREE",
    "Footprint", "MemoryResult", "fit", "footprint", "head_padding", "kv_layout",
]

RECOMMENDED_HEADROOM_FRACTION = 0.10
ACTIVATION_WORKING_SET_TENSORS = 2
_SEARCH_LIMIT = 1 << 40

# the degree a setup that fits at no allowed degree is shown at (fit_gate.check does the same)
TP_NONE_FITS = "least memory per core (no allowed degree fits)"


def padding_params(model: ModelSpec, tp: int) -> int:
    """Zero query and output projection weights of the padding heads: 2 · L · h · head_dim · pad."""
    return 2 * model.layers * model.hidden * model.head_dim * head_padding(model, tp)


def kv_heads_effective(model: ModelSpec, tp: int) -> int:
    return kv_layout(model, tp)[1]


def tp_is_valid(model: ModelSpec, tp: int) -> bool:
    """t divides the heads: usable without padding (the NxD Inference rule)."""
    return model.heads % tp == 0


@dataclass(frozen=True, slots=True)
class Footprint:
    """Memory of one model replica spread over ``tp`` cores, in integer bytes."""

    tp: int
    head_padding: int
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
    precision: model_shape.WeightPrecision
    expert_weights_bytes: int

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


def kv_elements_per_head(model: ModelSpec, batch: int, seq_len: int) -> int:
    """K and V elements of one KV head over all layers: 2 · L · head_dim · s · b (full
    attention; calc.kv has the per-attention-type counts)."""
    return 2 * model.layers * model.head_dim * seq_len * batch


def activation_elements(model: ModelSpec, batch: int, seq_len: int) -> int:
    width = model.hidden + model.mlp_width_active
    return ACTIVATION_WORKING_SET_TENSORS * batch * seq_len * width


def footprint(
    model: ModelSpec,
    chip: ChipSpec,
    *,
    dtype: str | None,
    kv_dtype: str,
    batch: int,
    seq_len: int,
    tp: int,
    expert_dtype: str | None = None,
) -> Footprint:
    """Memory at one TP degree; heads that t does not divide are padded (see the module doc).
    dtype None: the checkpoint's precision (model_shape.weight_precision)."""
    padding, precision, weights, expert_weights = _weights_at(model, dtype, expert_dtype, tp)
    rule, kv_heads_eff = kv_layout(model, tp)
    kv_total = kv.unique_bytes(model, kv_dtype, batch, seq_len)
    kv_per_core = kv.per_core_bytes(model, tp, kv_dtype, batch, seq_len)
    activations = dtypes.bytes_for(
        activation_elements(model, batch, seq_len), dtypes.activation_dtype(precision.unquantized)
    )
    overhead_per_core = chip.runtime_overhead_per_core_bytes
    return Footprint(
        tp=tp,
        head_padding=padding,
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
        precision=precision,
        expert_weights_bytes=expert_weights,
    )


@lru_cache(maxsize=4096)
def _weights_at(
    model: ModelSpec, dtype: str | None, expert_dtype: str | None, tp: int
) -> tuple[int, model_shape.WeightPrecision, int, int]:
    """(head_padding, precision, weights_bytes, expert_weights_bytes) at TP degree t: pure
    functions of frozen specs, cached (fit and the advisor ask for the same ones per TP, batch
    and length; ModelSpec hashes by value, so a custom shape equal to a preset shares them)."""
    padding = head_padding(model, tp)
    precision = model_shape.weight_precision(model, dtype, expert_dtype)
    weights = model_shape.weights_bytes(model, precision, padding_params(model, tp))
    return padding, precision, weights, model_shape.expert_weights_bytes(model, precision)


@dataclass(frozen=True, slots=True)
class MemoryResult:
    model: str
    instance: str
    dtype: str
    kv_dtype: str
    batch: int
    seq_len: int
    params: int
    active_params: int
    expert_dtype: str
    unquantized_dtype: str
    weights_bytes: int
    expert_weights_bytes: int
    kv_cache_bytes: int
    kv_cache_replicated_bytes: int
    kv_bytes_per_token: int | None
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
    head_padding: int
    heads_divisible: bool
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


def sequences_in_kv_memory(
    model: ModelSpec, instance: InstanceSpec, *, dtype: str | None, kv_dtype: str,
    seq_len: int, tp: int,
) -> int:
    """Requests of seq_len tokens whose KV cache fits beside one replica's weights: what a
    continuous-batching server can run at once (it reserves each running request's KV up to
    its full length: TensorRT-LLM's guaranteed-no-evict policy, vLLM's paged blocks when full),
        (usable memory per core − weights per core − runtime overhead per core)
        // KV bytes per core of one request.
    Activation buffers are not subtracted (a server sizes them for one token budget, not per
    request), so this is an upper bound; 0 when the weights alone do not fit."""
    one = footprint(model, instance.chip, dtype=dtype, kv_dtype=kv_dtype, batch=1,
                    seq_len=seq_len, tp=tp)
    free = (capacity_per_core_bytes(instance) - one.weights_per_core_bytes
            - one.overhead_per_core_bytes)
    return max(0, free) // max(1, one.kv_cache_per_core_bytes)


def tp_search_order(model: ModelSpec, instance: InstanceSpec) -> list[int]:
    """Allowed degrees, unpadded (t divides the heads) first, then padded; ascending in each."""
    allowed = sorted(instance.tp_degrees)
    return [d for d in allowed if tp_is_valid(model, d)] + [
        d for d in allowed if not tp_is_valid(model, d)
    ]


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


def _largest_near(fits_at: Callable[[int], bool], start: int, hint: int) -> int:
    """The same value as ``_largest(fits_at, start)`` for a monotone predicate, found by
    galloping from ``hint`` (a close estimate of the answer) then bisection: a handful of
    calls instead of ~2 · log2(answer). Falls back to ``_largest`` near its search cap, so
    the capped answer is kept too."""
    cap = _SEARCH_LIMIT >> 1
    if start > cap or hint > cap:
        return _largest(fits_at, start)
    if not fits_at(1):
        return 0
    probe = max(1, hint)
    step = 1
    if fits_at(probe):
        low = probe
        while fits_at(low + step):
            low += step
            step *= 2
            if low > cap:
                return _largest(fits_at, start)
        high = low + step
        if high > cap:      # the bracket reaches the cap: _largest may stop at its capped value
            return _largest(fits_at, start)
    else:
        high = probe
        while high - step > 1 and not fits_at(high - step):
            high -= step
            step *= 2
        low = max(1, high - step)
    while high - low > 1:
        middle = (low + high) // 2
        if fits_at(middle):
            low = middle
        else:
            high = middle
    return low


def per_core_function(
    model: ModelSpec, used: Footprint, kv_dtype: str
) -> Callable[[int, int], int]:
    """per_core(batch, seq_len) -> the ``per_core_bytes`` of ``footprint`` at the TP degree,
    dtype and chip of ``used``, without re-deriving the weights: weights and overhead per core
    are fixed; activations and KV are recomputed with footprint's exact integer formulas."""
    tp = used.tp
    fixed = used.weights_per_core_bytes + used.overhead_per_core_bytes
    act_dtype = dtypes.activation_dtype(used.precision.unquantized)
    act_per_token = ACTIVATION_WORKING_SET_TENSORS * (model.hidden + model.mlp_width_active)
    kv_per_layer = kv.elements_per_token_per_layer_per_core(model, tp)
    groups = tuple((group.layers, group.window) for group in kv.layer_groups(model))
    bytes_for = dtypes.bytes_for

    def per_core(batch: int, seq_len: int) -> int:
        token_layers = sum(
            layers * (seq_len if window is None else min(seq_len, window))
            for layers, window in groups
        )
        activations = bytes_for(batch * seq_len * act_per_token, act_dtype)
        return (
            fixed + ceil_div(activations, tp)
            + bytes_for(token_layers * batch * kv_per_layer, kv_dtype)
        )

    return per_core


def _linear_hint(per_core: Callable[[int], int], capacity: int) -> int:
    """Where per_core (≈ affine, nondecreasing) reaches capacity, from its values at 1 and 2."""
    one = per_core(1)
    slope = per_core(2) - one
    if slope <= 0:
        return 1
    return max(1, 1 + (capacity - one) // slope)


@dataclass(frozen=True, slots=True)
class TpChoice:
    """The degree fit() uses and the degrees it reports (None: no allowed degree qualifies)."""

    chosen: int
    min_tp: int | None
    recommended: int | None
    min_tp_padded: int | None


def choose_tp(
    model: ModelSpec, instance: InstanceSpec, tp: int | None, capacity: int,
    per_core_at: Callable[[int], int],
) -> TpChoice:
    """The given degree, else the recommended one (smallest allowed t with the headroom, t
    dividing the heads first), else the one that needs the least memory per core.
    per_core_at(t): bytes per core at degree t."""
    limit_recommended = int(capacity * (1 - RECOMMENDED_HEADROOM_FRACTION))
    per_core = {d: per_core_at(d) for d in instance.tp_degrees}
    order = tp_search_order(model, instance)
    min_tp = next((d for d in order if per_core[d] <= capacity), None)
    recommended = next((d for d in order if per_core[d] <= limit_recommended), min_tp)
    min_unpadded = next(
        (d for d in order if tp_is_valid(model, d) and per_core[d] <= capacity), None
    )
    min_tp_padded = next(
        (
            d for d in order
            if not tp_is_valid(model, d) and per_core[d] <= capacity
            and (min_unpadded is None or d < min_unpadded)
        ),
        None,
    )
    if tp is not None:
        chosen = tp
    elif recommended is not None:
        chosen = recommended
    else:  # nothing fits: show the degree with the least memory per core
        chosen = min(per_core, key=lambda d: (per_core[d], d))
    return TpChoice(chosen, min_tp, recommended, min_tp_padded)


def placement(
    model: ModelSpec, instance: InstanceSpec, *, dtype: str | None, kv_dtype: str | None,
    batch: int, seq_len: int, tp: int | None,
) -> tuple[int, bool]:
    """(TP degree, fits) exactly as fit() decides them — same checks, same errors — without
    its derivation, its other degrees (when t is given) or its batch / length limits: what a
    speed estimate needs from the memory fit."""
    precision = model_shape.weight_precision(model, dtype, None)
    kv_dtype = kv_dtype or dtypes.default_kv_dtype(precision.unquantized)
    capacity = capacity_per_core_bytes(instance)
    if tp is not None and tp not in instance.tp_degrees:
        raise CalcError("tp", "tp_not_allowed", {"value": tp, "allowed": list(instance.tp_degrees)})

    def per_core_at(degree: int) -> int:
        return footprint(model, instance.chip, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
                         seq_len=seq_len, tp=degree).per_core_bytes

    chosen = tp if tp is not None else choose_tp(
        model, instance, None, capacity, per_core_at).chosen
    return chosen, per_core_at(chosen) <= capacity


def fit(
    model: ModelSpec,
    instance: InstanceSpec,
    *,
    dtype: str | None,
    kv_dtype: str | None,
    batch: int,
    seq_len: int,
    tp: int | None = None,
    expert_dtype: str | None = None,
) -> MemoryResult:
    """Memory fit; dtype/expert_dtype None = the checkpoint's precision, kv_dtype None = the
    float dtype of the unquantized weights (bf16 for fp8/int weights)."""
    steps = Derivation()
    chip = instance.chip
    precision = model_shape.weight_precision(model, dtype, expert_dtype)
    kv_dtype = kv_dtype or dtypes.default_kv_dtype(precision.unquantized)
    capacity = capacity_per_core_bytes(instance)
    allowed = list(instance.tp_degrees)
    if tp is not None and tp not in allowed:
        raise CalcError("tp", "tp_not_allowed", {"value": tp, "allowed": allowed})

    def at(degree: int, b: int = batch, s: int = seq_len) -> Footprint:
        return footprint(
            model, chip, dtype=dtype, kv_dtype=kv_dtype, batch=b, seq_len=s, tp=degree,
            expert_dtype=expert_dtype,
        )

    choice = choose_tp(model, instance, tp, capacity, lambda d: at(d).per_core_bytes)
    chosen, min_tp = choice.chosen, choice.min_tp
    recommended, min_tp_padded = choice.recommended, choice.min_tp_padded
    used = at(chosen)
    fits = used.per_core_bytes <= capacity

    steps.add("params", "params", model.params, "")
    steps.add("active_params", "params − moe_layers · (experts − active) · one expert",
              model.active_params, "")
    steps.add("bytes_per_param", "bits(dtype) / 8",
              float(dtypes.storage_bits(precision.linear)) / 8, "B")
    tp_formula = "given" if tp is not None else "recommended TP" if fits else TP_NONE_FITS
    steps.add("tp_degree", tp_formula, chosen, "cores")
    steps.add("head_padding", "(−heads) mod t", used.head_padding, "heads")
    steps.add(
        "expert_weights_bytes", "ceil(moe_layers · experts · m · h · expert_width × bits / 8)",
        used.expert_weights_bytes, "B",
    )
    steps.add(
        "weights_bytes",
        "Σ dtype ceil(params_dtype × bits / 8), padding 2 · L · h · head_dim · head_padding",
        used.weights_bytes, "B",
    )
    steps.add("kv_rule", "MLA ? latent on every core : t % kv_heads == 0 or kv_heads % t == 0 ?"
              " replicate : MHA", used.kv_rule)
    steps.add(
        "kv_heads_effective",
        "replicate: max(kv_heads, t); MHA: heads + head_padding; MLA: t; encoder: 0",
        used.kv_heads_effective,
    )
    per_token = kv.bytes_per_token(model, kv_dtype)
    steps.add(
        "kv_bytes_per_token",
        "L · (GQA 2 · kv_heads · head_dim | MLA kv_lora_rank + rope) · B_kv (null with local"
        " layers)", per_token, "B",
    )
    steps.add(
        "kv_cache_bytes",
        "Σ layers · min(s, window) · b · (GQA 2 · kv_heads · head_dim | MLA kv_lora_rank + rope)"
        " · B_kv",
        used.kv_cache_bytes,
        "B",
    )
    steps.add("kv_cache_per_core_bytes", "KV per core (replicated heads / MLA latent)",
              used.kv_cache_per_core_bytes, "B")
    steps.add(
        "activation_bytes", "2 · b · s · (h + i_active) · B_act (one layer)",
        used.activation_bytes, "B",
    )
    steps.add(
        "overhead_per_core_bytes", "runtime overhead per logical core",
        used.overhead_per_core_bytes, "B",
    )
    steps.add("overhead_bytes", "overhead per core × t", used.overhead_bytes, "B")
    steps.add("total_bytes", "weights + KV (one copy) + activations + overhead", used.total_bytes,
              "B")
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
    steps.add(
        "min_tp_degree", "smallest allowed t that fits (t dividing heads first, then padded)",
        min_tp, "cores",
    )
    steps.add(
        "min_tp_degree_with_head_padding",
        "smallest padded t that fits, if smaller than every unpadded t that fits",
        min_tp_padded,
        "cores",
    )
    steps.add(
        "recommended_tp_degree",
        f"smallest allowed t with ≥ {RECOMMENDED_HEADROOM_FRACTION:.0%} headroom"
        " (t dividing heads first, then padded)",
        recommended,
        "cores",
    )

    # the largest b (then s) with per core ≤ capacity: the footprint's own per-core sum
    # (per_core_function) searched from a linear estimate — the values _largest gives
    per_core_at = per_core_function(model, used, kv_dtype)

    def batch_per_core(b: int) -> int:
        return per_core_at(b, seq_len)

    def seq_per_core(s: int) -> int:
        return per_core_at(batch, s)

    max_batch = _largest_near(
        lambda b: batch_per_core(b) <= capacity, batch, _linear_hint(batch_per_core, capacity)
    )
    max_seq_len = _largest_near(
        lambda s: seq_per_core(s) <= capacity, seq_len, _linear_hint(seq_per_core, capacity)
    )
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
        dtype=precision.linear,
        kv_dtype=kv_dtype,
        batch=batch,
        seq_len=seq_len,
        params=model.params,
        active_params=model.active_params,
        expert_dtype=precision.expert,
        unquantized_dtype=precision.unquantized,
        weights_bytes=used.weights_bytes,
        expert_weights_bytes=used.expert_weights_bytes,
        kv_cache_bytes=used.kv_cache_bytes,
        kv_cache_replicated_bytes=used.kv_cache_per_core_bytes * chosen,
        kv_bytes_per_token=per_token,
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
        head_padding=used.head_padding,
        heads_divisible=used.head_padding == 0,
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
