"""Inference speed: prefill (TTFT) and decode (TPOT) as a roofline plus a TP collective term.

For one model replica on t cores (per-core bandwidth BW, per-core peak P):
  decode step  t_mem  = (active weight bytes / t + KV bytes read per core) / (BW · η_mem)
               t_comp = (2·N_active·b + 4·L·(heads·head_dim)·ctx·b) / (t · P · η_comp)
  prefill      t_mem  = active weight bytes / t / (BW · η_mem)
               t_comp = (2·N_active·b·s_in + 4·L·(heads·head_dim)·s_in²·b) / (t · P · η_comp)
  collectives  t_coll = 2 all-reduces per layer × L × 2·ceil(log2 t) latency steps × c_hop
               (decode all-reduces carry b·h values: latency-bound, log-depth algorithms; a ring
               model, 2·(t − 1) steps, fits the TP24 calibration equally but over-predicts the
               held-out TP32 and TP64 rows by up to 129 %)
  time = max(t_mem, t_comp) + t_coll (+ t_fixed for prefill: per-request latency the roofline
  does not explain, e.g. graph launch and sampling); the larger roofline term names the bound.
TPOT is evaluated at the mean context ctx = s_in + s_out / 2. When t does not divide the heads,
N_active and heads count the padded query heads (memory.head_padding), as the padded model runs.
Per replica: tokens/s = b · s_out / (TTFT + (s_out − 1) · TPOT); the instance runs
floor(cores / t) replicas. η_mem, η_comp, c_hop and t_fixed are data, one set per instance kind:
bench/calibrate.py fits the Neuron set on published Inf2 measurements and the GPU set (gpu_*) on
published GPU measurements.
"""

from dataclasses import dataclass, fields
from typing import Any

from . import data, dtypes, memory
from .derivation import Derivation
from .errors import CalcError
from .flops import peak_flops_per_core
from .specs import InstanceSpec, ModelSpec
from .units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

ALL_REDUCES_PER_LAYER = 2


@dataclass(frozen=True, slots=True)
class Efficiency:
    decode_memory: float             # achieved fraction of peak memory bandwidth
    prefill_compute: float           # achieved fraction of peak matmul FLOP/s
    collective_hop_latency_s: float  # latency per step of one all-reduce (2·ceil(log2 t) steps)
    prefill_fixed_latency_s: float = 0.0  # per-request latency of prefill beyond the roofline

    @staticmethod
    def from_data(kind: str = "neuron") -> "Efficiency":
        """The fitted constants for one accelerator kind: neuron (ids as named) or gpu
        (the same ids with a ``gpu_`` prefix, fitted on the GPU calibration rows)."""
        prefix = efficiency_prefix(kind)
        return Efficiency(
            decode_memory=data.assumption_value(f"{prefix}decode_memory_efficiency"),
            prefill_compute=data.assumption_value(f"{prefix}prefill_compute_efficiency"),
            collective_hop_latency_s=data.assumption_value(f"{prefix}collective_hop_latency_s"),
            prefill_fixed_latency_s=data.assumption_value(f"{prefix}prefill_fixed_latency_s"),
        )


def efficiency_prefix(kind: str) -> str:
    """Assumption-id prefix of the speed constants for an instance kind (neuron | gpu)."""
    return "gpu_" if kind == "gpu" else ""


def allreduce_steps(tp: int) -> int:
    """Latency steps of one small-message all-reduce over t ranks: 2·ceil(log2 t)
    (recursive halving + doubling; decode all-reduces carry only b·h values)."""
    return 2 * (tp - 1).bit_length()


def collective_hops_per_step(model: ModelSpec, tp: int) -> int:
    return ALL_REDUCES_PER_LAYER * model.layers * allreduce_steps(tp)


@dataclass(frozen=True, slots=True)
class Roofline:
    """Ideal (efficiency 1) times of one step on one replica."""

    memory_s: float
    compute_s: float
    collective_hops: int
    is_prefill: bool = False

    def time_s(self, efficiency: Efficiency) -> float:
        fixed = efficiency.prefill_fixed_latency_s if self.is_prefill else 0.0
        memory_s = self.memory_s / efficiency.decode_memory
        compute_s = self.compute_s / efficiency.prefill_compute
        return (
            max(memory_s, compute_s)
            + self.collective_hops * efficiency.collective_hop_latency_s
            + fixed
        )

    def bound(self, efficiency: Efficiency) -> str:
        memory_s = self.memory_s / efficiency.decode_memory
        compute_s = self.compute_s / efficiency.prefill_compute
        return "compute" if compute_s > memory_s else "bandwidth"


def padded_active_params(model: ModelSpec, tp: int) -> int:
    """Active parameters plus the zero query/output rows of padded heads (memory.head_padding):
    padded heads are read and multiplied like real ones."""
    return model.active_params + memory.padding_params(model, tp)


def padded_attention_width(model: ModelSpec, tp: int) -> int:
    return (model.heads + memory.head_padding(model, tp)) * model.head_dim


def _bandwidth_per_core(instance: InstanceSpec) -> float:
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    if bandwidth is None or bandwidth <= 0:
        raise CalcError("instance", "bandwidth_missing", {"value": instance.id})
    return bandwidth


def decode_roofline(
    model: ModelSpec, instance: InstanceSpec, *, tp: int, dtype: str, kv_dtype: str,
    batch: int, context: int,
) -> Roofline:
    kv_heads_eff = memory.kv_heads_effective(model, tp)
    weights = dtypes.bytes_for(padded_active_params(model, tp), dtype) / tp
    kv_read = dtypes.bytes_for(
        memory.kv_elements_per_head(model, batch, context) * (kv_heads_eff // tp), kv_dtype
    )
    _, peak = peak_flops_per_core(instance, dtype)
    attention = 4 * model.layers * padded_attention_width(model, tp) * context * batch
    flops = 2 * padded_active_params(model, tp) * batch + attention
    return Roofline(
        memory_s=(weights + kv_read) / _bandwidth_per_core(instance),
        compute_s=flops / (tp * peak),
        collective_hops=collective_hops_per_step(model, tp),
    )


def prefill_roofline(
    model: ModelSpec, instance: InstanceSpec, *, tp: int, dtype: str, batch: int, input_len: int
) -> Roofline:
    weights = dtypes.bytes_for(padded_active_params(model, tp), dtype) / tp
    _, peak = peak_flops_per_core(instance, dtype)
    flops = (
        2 * padded_active_params(model, tp) * batch * input_len
        + 4 * model.layers * padded_attention_width(model, tp) * input_len * input_len * batch
    )
    return Roofline(
        memory_s=weights / _bandwidth_per_core(instance),
        compute_s=flops / (tp * peak),
        collective_hops=collective_hops_per_step(model, tp),
        is_prefill=True,
    )


@dataclass(frozen=True, slots=True)
class PerfResult:
    model: str
    instance: str
    dtype: str
    kv_dtype: str
    compute_dtype: str
    batch: int
    input_len: int
    output_len: int
    tp_degree: int
    fits: bool
    ttft_s: float
    tpot_s: float
    e2e_s: float
    output_tokens_per_s_per_replica: float
    replicas: int
    output_tokens_per_s: float
    decode_bound: str
    prefill_bound: str
    bandwidth_bound_tokens_per_s: float
    compute_bound_tokens_per_s: float
    usd_per_hour: float | None
    usd_per_million_output_tokens: float | None
    price_missing_reason: str | None
    decode_memory_efficiency: float
    prefill_compute_efficiency: float
    collective_hop_latency_s: float
    prefill_fixed_latency_s: float
    derivation: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def perf(
    model: ModelSpec,
    instance: InstanceSpec,
    *,
    dtype: str,
    kv_dtype: str | None,
    batch: int,
    input_len: int,
    output_len: int,
    tp: int | None,
    usd_per_hour: float | None = None,
    price_missing_reason: str | None = None,
    efficiency: Efficiency | None = None,
) -> PerfResult:
    if not model.is_decoder:
        raise CalcError("model", "not_a_decoder", {"value": model.id})
    efficiency = efficiency or Efficiency.from_data(instance.kind)
    kv_dtype = kv_dtype or dtypes.default_kv_dtype(dtype)
    fit = memory.fit(
        model, instance, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
        seq_len=input_len + output_len, tp=tp,
    )
    tp_degree = fit.tp_degree
    steps = Derivation()
    steps.add("tp_degree", "given" if tp is not None else "recommended TP (memory fit)", tp_degree,
              "cores")
    steps.add("head_padding", "(−heads) mod t", memory.head_padding(model, tp_degree), "heads")
    compute, peak = peak_flops_per_core(instance, dtype)
    steps.add("peak_flops_per_core", f"{compute} dense peak per core", peak, "FLOP/s")
    steps.add("bandwidth_per_core", "memory bandwidth per core", _bandwidth_per_core(instance),
              "B/s")
    prefill = prefill_roofline(
        model, instance, tp=tp_degree, dtype=dtype, batch=batch, input_len=input_len
    )
    context = input_len + output_len // 2
    decode = decode_roofline(
        model, instance, tp=tp_degree, dtype=dtype, kv_dtype=kv_dtype, batch=batch, context=context
    )
    steps.add("prefill_compute_s", "prefill FLOPs / (t · P · η_comp)",
              prefill.compute_s / efficiency.prefill_compute, "s")
    steps.add("prefill_memory_s", "weights / t / (BW · η_mem)",
              prefill.memory_s / efficiency.decode_memory, "s")
    steps.add("collective_s", "2 · L · 2·ceil(log2 t) · c_hop",
              prefill.collective_hops * efficiency.collective_hop_latency_s, "s")
    steps.add("prefill_fixed_s", "fitted per-request latency", efficiency.prefill_fixed_latency_s,
              "s")
    ttft = steps.add("ttft_s", "max(compute, memory) + collectives + fixed",
                     prefill.time_s(efficiency), "s")
    steps.add("decode_context", "s_in + s_out / 2", context, "tokens")
    steps.add("decode_memory_s", "(weights / t + KV per core) / (BW · η_mem)",
              decode.memory_s / efficiency.decode_memory, "s")
    steps.add("decode_compute_s", "decode FLOPs / (t · P · η_comp)",
              decode.compute_s / efficiency.prefill_compute, "s")
    tpot = steps.add("tpot_s", "max(memory, compute) + collectives", decode.time_s(efficiency), "s")
    e2e = steps.add("e2e_s", "TTFT + (s_out − 1) · TPOT", ttft + (output_len - 1) * tpot, "s")
    per_replica = steps.add("output_tokens_per_s_per_replica", "b · s_out / e2e",
                            batch * output_len / e2e, "tokens/s")
    replicas = steps.add("replicas", "floor(cores / t)", instance.logical_cores // tp_degree, "")
    total_rate = steps.add("output_tokens_per_s", "replicas × per replica", replicas * per_replica,
                           "tokens/s")
    bandwidth_bound = replicas * batch * tp_degree * _bandwidth_per_core(instance) / (
        dtypes.bytes_for(model.active_params, dtype)
    )
    compute_bound = replicas * tp_degree * peak / (2 * model.active_params)
    usd_per_million = None
    if usd_per_hour is not None:
        usd_per_million = usd_per_hour / (SECONDS_PER_HOUR * total_rate) * TOKENS_PER_MILLION
    steps.add("usd_per_million_output_tokens", "$/hour / (3600 · tokens/s) · 10⁶", usd_per_million,
              "USD")
    return PerfResult(
        model=model.id,
        instance=instance.id,
        dtype=dtype,
        kv_dtype=kv_dtype,
        compute_dtype=compute,
        batch=batch,
        input_len=input_len,
        output_len=output_len,
        tp_degree=tp_degree,
        fits=fit.fits,
        ttft_s=ttft,
        tpot_s=tpot,
        e2e_s=e2e,
        output_tokens_per_s_per_replica=per_replica,
        replicas=replicas,
        output_tokens_per_s=total_rate,
        decode_bound=decode.bound(efficiency),
        prefill_bound=prefill.bound(efficiency),
        bandwidth_bound_tokens_per_s=bandwidth_bound,
        compute_bound_tokens_per_s=compute_bound,
        usd_per_hour=usd_per_hour,
        usd_per_million_output_tokens=usd_per_million,
        price_missing_reason=price_missing_reason,
        decode_memory_efficiency=efficiency.decode_memory,
        prefill_compute_efficiency=efficiency.prefill_compute,
        collective_hop_latency_s=efficiency.collective_hop_latency_s,
        prefill_fixed_latency_s=efficiency.prefill_fixed_latency_s,
        derivation=steps.as_list(),
    )
