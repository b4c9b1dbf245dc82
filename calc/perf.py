"""Inference speed for one request mix on one instance: the serving step model (calc.serving)
with the framework's batching and buckets, the calibrated constants of the hardware group and
framework, an 80 % error band from the cross-validated residuals of the nearest calibration
family (calc.serving_band), and its basis ("measured" when a published record has this exact
configuration, else "modelled").

Per replica (t cores): TTFT, TPOT and output tokens/s as calc.serving.serve computes them; the
instance runs floor(cores / t) replicas; tokens/s per user = 1 / TPOT.
"""

from dataclasses import dataclass, fields
from functools import cache
from typing import Any

from . import calibration, dtypes, frameworks, memory, model_shape, serving, serving_band
from .derivation import Derivation
from .errors import CalcError
from .flops import peak_flops_per_core
from .serving import (  # noqa: F401  (re-exported for callers and tests)
    Efficiency,
    Roofline,
    Workload,
    allreduce_steps,
    decode_roofline,
    efficiency_prefix,
    prefill_roofline,
)
from .specs import InstanceSpec, ModelSpec
from .units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

BAND_FIELDS = {"tpot_s": "decode", "ttft_s": "prefill", "output_tokens_per_s": "throughput"}


def _derived_bands(bands: dict[str, list[float] | None], *, replicas: int,
                   usd_per_hour: float | None
                   ) -> dict[str, tuple[str, list[float] | None]]:
    """The bands of the figures computed from banded ones (every speed and cost figure a page
    shows carries one): per replica and $ per 1M tokens from the tokens/s band, per user from
    the TPOT band. {field: (formula, [low, high] or None)}."""
    rate = bands.get("output_tokens_per_s")
    tpot = bands.get("tpot_s")
    usd: list[float] | None = None
    if rate is not None and usd_per_hour is not None:
        usd = [usd_per_hour / (SECONDS_PER_HOUR * rate[1]) * TOKENS_PER_MILLION,
               usd_per_hour / (SECONDS_PER_HOUR * rate[0]) * TOKENS_PER_MILLION]
    return {
        "output_tokens_per_s_per_replica": (
            "tokens/s band / replicas", None if rate is None else [r / replicas for r in rate]),
        "output_tokens_per_s_per_user": (
            "1 / TPOT band", None if tpot is None else [1.0 / tpot[1], 1.0 / tpot[0]]),
        "usd_per_million_output_tokens": ("$/hour / (3600 · tokens/s band) · 10⁶", usd),
    }


@cache
def _constants() -> calibration.Constants:
    return calibration.stored_constants()


@dataclass(frozen=True, slots=True)
class PerfResult:
    model: str
    instance: str
    framework: str
    batching: str
    dtype: str
    kv_dtype: str
    compute_dtype: str
    batch: int
    input_len: int
    output_len: int
    compiled_batch: int | None
    compiled_seq_len: int | None
    padded_batch: int
    padded_input_len: int
    tp_degree: int
    fits: bool
    ttft_s: float
    tpot_s: float
    e2e_s: float
    queue_wait_s: float
    output_tokens_per_s_per_replica: float
    output_tokens_per_s_per_user: float
    replicas: int
    output_tokens_per_s: float
    decode_bound: str
    prefill_bound: str
    bandwidth_bound_tokens_per_s: float
    compute_bound_tokens_per_s: float
    usd_per_hour: float | None
    usd_per_million_output_tokens: float | None
    price_missing_reason: str | None
    hardware_group: str
    decode_memory_efficiency: float
    prefill_compute_efficiency: float
    collective_hop_latency_s: float
    prefill_fixed_latency_s: float
    step_fixed_s: float
    framework_calibrated: bool
    error_band: dict[str, list[float] | None]
    error_band_family: dict[str, str | None]
    error_band_reasons: dict[str, list[str]]
    basis: str
    basis_measurement_id: str | None
    derivation: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


# the prefill's all-reduce as the framework runs it (calc/collectives.py), 2 per layer
COLLECTIVE_FORMULAS = {
    "none": "0 (t = 1)",
    "ring": "2 · L · (2·ceil(log2 t) · c_hop + 2(t−1)/t · tokens · h · 2 B / link)",
    "one-shot": "2 · L · (c_custom + (t−1) · tokens · h · 2 B / link)  [one-shot]",
    "two-stage": "2 · L · (2 · c_custom + 2(t−1)/t · tokens · h · 2 B / link)  [two-stage]",
}


def _bandwidth_per_core(instance: InstanceSpec) -> float:
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    if bandwidth is None or bandwidth <= 0:
        raise CalcError("instance", "bandwidth_missing", {"value": instance.id})
    return bandwidth


def measured_basis(model: ModelSpec, instance: InstanceSpec, framework_id: str, *, tp: int,
                   batch: int, input_len: int, output_len: int, dtype: str) -> str | None:
    """The id of a published inference record with exactly this configuration, if any."""
    if model.id == "custom":
        return None
    return serving_band.measured_index().get(serving_band.inference_key(
        model.id, instance.id, framework_id, tp, batch, input_len, output_len, dtype))


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
    framework: str | None = None,
    compiled_batch: int | None = None,
    compiled_seq_len: int | None = None,
    explain: bool = True,
    tp_chosen_by: str | None = None,
) -> PerfResult:
    """The speed estimate of one serving configuration; explain=False leaves its derivation
    empty (the advisor's search: the same figures, no math to show). tp_chosen_by: how the
    caller chose the ``tp`` it passes (the tp_degree step's formula; None: "given")."""
    if not model.is_decoder:
        raise CalcError("model", "not_a_decoder", {"value": model.id})
    chosen = frameworks.resolve(framework, instance, "inference")
    serving.check_compiled_shapes(batch, input_len, output_len, compiled_batch, compiled_seq_len)
    group = serving.hardware_group(instance)
    constants = _constants()
    efficiency = efficiency or constants.efficiency(group, chosen.id)
    step_fixed = constants.step(chosen, group)
    framework_calibrated = (chosen.id, group) in constants.steps
    kv_dtype = kv_dtype or dtypes.default_kv_dtype(dtype)
    tp_degree, fits = memory.placement(
        model, instance, dtype=dtype, kv_dtype=kv_dtype,
        batch=max(batch, compiled_batch or batch),
        seq_len=max(input_len + output_len, compiled_seq_len or 0), tp=tp,
    )
    steps = Derivation(record=explain)
    one_length = chosen.single_bucket and compiled_seq_len is not None
    steps.add("framework", f"{chosen.name}: {chosen.batching} batching"
              f"{', one compiled sequence length' if one_length else ''}"
              f"{', bucketed' if chosen.bucketing and not one_length else ''}", chosen.id, "")
    tp_formula = ("recommended TP (memory fit)" if tp is None
                  else tp_chosen_by if tp_chosen_by is not None else "given")
    steps.add("tp_degree", tp_formula, tp_degree, "cores")
    steps.add("head_padding", "(−heads) mod t", memory.head_padding(model, tp_degree), "heads")
    steps.add("matmul_params", model_shape.matmul_params_formula(model),
              model_shape.matmul_params(model), "")
    compute, peak = peak_flops_per_core(instance, dtype)
    steps.add("peak_flops_per_core", f"{compute} dense peak per core (projections)", peak,
              "FLOP/s")
    steps.add("bandwidth_per_core", "memory bandwidth per core", _bandwidth_per_core(instance),
              "B/s")
    work = Workload(batch, input_len, output_len, compiled_batch, compiled_seq_len)
    served = serving.serve(model, instance, chosen, efficiency, step_fixed, tp=tp_degree,
                           dtype=dtype, kv_dtype=kv_dtype, work=work)
    steps.add("padded_batch", "batch padded to the compiled batch", served.padded_batch, "")
    steps.add("padded_input_len", "prompt padded to the compiled length (one sequence bucket)"
              if one_length else "prompt padded to the sequence bucket", served.padded_input_len,
              "tokens")
    if model.experts:
        read_formula = "NxD: B·k ≥ E ? E : B·k" if instance.kind == "neuron" \
            else "E · (1 − (1 − k/E)^B)"
        steps.add("experts_touched_decode", read_formula,
                  serving.decode_experts_read(model, instance, served.padded_batch), "")
    prefill, decode = served.prefill, served.decode
    continuous = chosen.batching == "continuous"
    budget = chosen.max_num_tokens if continuous else None
    if continuous:
        limit = served.running_limit
        steps.add("running_batch", f"C = min(b, {limit})" if limit else "C = b",
                  served.running_batch, "")
    if budget:   # waiting prompts prefilled together, up to the iteration's token budget
        steps.add("prompts_per_prefill",
                  f"n = max(1, min({budget} / s_in, C / s_out)) (token budget {budget})",
                  served.prompts_per_prefill, "")
    prefill_eta = prefill.compute_efficiency(efficiency)
    ramp = ""
    if efficiency.prefill_half_tokens > 0:
        ramp = " · T / (T + T_half)"
        steps.add("prefill_tokens", "T = n · s_in" if budget else "T = s_in" if continuous
                  else "T = B · s_in", prefill.tokens,
                  "tokens")
        steps.add("prefill_half_tokens", "T_half (fitted)", efficiency.prefill_half_tokens,
                  "tokens")
    steps.add("prefill_compute_s",
              f"projection FLOPs (LM head: last token only) / (t · P_dtype · η_comp{ramp})",
              prefill.projection_compute_s / prefill_eta, "s")
    attention_flops = "attention FLOPs over the unmasked half" if chosen.causal_skip \
        else "attention FLOPs"
    steps.add("prefill_attention_s", f"{attention_flops} / (t · P_bf16 · η_comp{ramp})",
              prefill.attention_compute_s / prefill_eta, "s")
    steps.add("prefill_memory_s", "weights streamed / t / (BW · η_mem)",
              prefill.weights_memory_s / efficiency.decode_memory, "s")
    steps.add("collective_s", COLLECTIVE_FORMULAS[prefill.allreduce_algorithm],
              prefill.collective_s(efficiency), "s")
    steps.add("prefill_fixed_s", "fitted latency per prefill pass" if budget
              else "fitted per-request latency", efficiency.prefill_fixed_latency_s, "s")
    if prefill.expert_block_gb > 0:          # NxD's blockwise MoE prefill (Neuron)
        blocks, rows = serving.expert_blocks(model.experts, model.active_experts,
                                             round(prefill.tokens))
        steps.add("prefill_expert_blocks",
                  "min(⌈(T·k − (E − 1)) / 512⌉ + E − 1, T·k) per MoE layer", blocks, "")
        steps.add("prefill_expert_block_gb",
                  f"MoE layers · blocks · (expert bytes / t + {rows} · h · 2 B) / 10⁹",
                  prefill.expert_block_gb, "GB")
        steps.add("prefill_expert_s", "t_GB · expert-block GB",
                  prefill.expert_block_gb * efficiency.prefill_expert_s_per_gb, "s")
    steps.add("step_fixed_s", f"fitted per-step cost ({chosen.id}, {group})", step_fixed, "s")
    steps.add("prefill_s",
              "max(weights, projections) + attention + collectives + fixed + step cost",
              served.prefill_s, "s")
    steps.add("decode_context", "compiled length" if one_length else "bucket(s_in + s_out / 2)",
              served.padded_context, "tokens")
    steps.add("decode_memory_s", "weights streamed / t / (BW · η_mem)",
              decode.weights_memory_s / efficiency.decode_memory, "s")
    steps.add("decode_compute_s", "projection FLOPs / (t · P_dtype · η_comp)",
              decode.projection_compute_s / efficiency.prefill_compute, "s")
    steps.add("decode_kv_s", "KV cache read per core / (BW · η_mem)",
              decode.kv_memory_s / efficiency.decode_memory, "s")
    steps.add("decode_attention_s", "attention FLOPs / (t · P_bf16 · η_comp)",
              decode.attention_compute_s / efficiency.prefill_compute, "s")
    steps.add("decode_collective_s", COLLECTIVE_FORMULAS[decode.allreduce_algorithm],
              decode.collective_s(efficiency), "s")
    if model.experts and decode.expert_matmuls:
        steps.add("decode_expert_matmuls",
                  "MoE layers · experts · ⌈h/128⌉ · (⌈2f/t/128⌉ + ⌈f/t/128⌉)",
                  decode.expert_matmuls, "")
        steps.add("decode_expert_s", "t_mm · matmul instructions",
                  decode.expert_matmuls * efficiency.decode_expert_matmul_ns
                  * serving.SECONDS_PER_NS, "s")
    elif model.experts:
        steps.add("decode_expert_s", "x_expert · routed-expert bytes / t / BW",
                  decode.expert_stream_s * efficiency.decode_expert_extra, "s")
    experts_term = " + routed experts" if model.experts else ""
    steps.add("decode_step_s",
              "max(weights, projections) + max(KV read, attention) + collectives + step cost"
              + experts_term, served.step_s, "s")
    if continuous:
        per, half = ("t_prefill / n", "t_prefill/(2n)") if budget else ("t_prefill", "t_prefill/2")
        steps.add("cycle_s", f"C · {per} + (s_out − 1) · t_step", served.cycle_s, "s")
        steps.add("prefill_share", f"C · {per} / cycle", served.prefill_share, "")
        steps.add("queue_wait_s",
                  f"min((C−1)/C · (t_step/2 + ρ/(1−ρ) · {half}), (C − {'n' if budget else '1'})"
                  f" · {per}) + (b − C) · cycle / C", served.queue_wait_s, "s")
    ttft = steps.add("ttft_s", "prefill (+ queue wait under continuous batching)", served.ttft_s,
                     "s")
    tpot = steps.add("tpot_s", "decode step (continuous: (e2e − TTFT) / (s_out − 1))",
                     served.tpot_s, "s")
    e2e = steps.add("e2e_s", "static: TTFT + (s_out − 1) · TPOT; continuous: cycle + (b − C) · "
                    "cycle / C", served.e2e_s, "s")
    per_replica = steps.add("output_tokens_per_s_per_replica", "b · s_out / e2e",
                            served.output_tokens_per_s_per_replica, "tokens/s")
    per_user = steps.add("output_tokens_per_s_per_user", "1 / TPOT", 1.0 / tpot, "tokens/s")
    replicas = steps.add("replicas", "floor(cores / t)", instance.logical_cores // tp_degree, "")
    total_rate = steps.add("output_tokens_per_s", "replicas × per replica", replicas * per_replica,
                           "tokens/s")
    bandwidth_bound = replicas * batch * tp_degree * _bandwidth_per_core(instance) / (
        serving.streamed_weight_bytes(model, tp_degree, dtype, 1)
    )
    compute_bound = (replicas * tp_degree * peak
                     / (2 * serving.padded_matmul_params(model, tp_degree)))
    usd_per_million = None
    if usd_per_hour is not None:
        usd_per_million = usd_per_hour / (SECONDS_PER_HOUR * total_rate) * TOKENS_PER_MILLION
    steps.add("usd_per_million_output_tokens", "$/hour / (3600 · tokens/s) · 10⁶", usd_per_million,
              "USD")
    features = {"params": float(model.params), "batch": float(batch),
                "input_len": float(input_len), "output_len": float(output_len),
                "tp": float(tp_degree)}
    values = {"tpot_s": tpot, "ttft_s": ttft, "output_tokens_per_s": total_rate}
    bands: dict[str, list[float] | None] = {}
    families: dict[str, str | None] = {}
    reasons: dict[str, list[str]] = {}
    for field, phase in BAND_FIELDS.items():
        band = serving_band.nearest(serving_band.stored(), instance.chip.id, instance.kind,
                                    chosen.id, phase, features,
                                    serving_band.load_of(chosen.batching, batch))
        extra = [] if framework_calibrated else ["framework_not_calibrated"]
        if band is not None and extra:
            band = serving_band.widen_more(band, serving_band.FALLBACK_WIDEN, extra)
        interval = serving_band.interval(values[field], band)
        bands[field] = interval
        families[field] = None if band is None else band.family
        reasons[field] = [] if band is None else list(band.reasons)
        shown = None if interval is None else f"{interval[0]:.4g}–{interval[1]:.4g}"
        steps.add(f"error_band_{field}", serving_band.describe(band), shown, "")
    for field, (formula, derived) in _derived_bands(
            bands, replicas=replicas, usd_per_hour=usd_per_hour).items():
        bands[field] = derived
        families[field] = families["output_tokens_per_s" if field != "output_tokens_per_s_per_user"
                                   else "tpot_s"]
        shown = None if derived is None else f"{derived[0]:.4g}–{derived[1]:.4g}"
        steps.add(f"error_band_{field}", formula, shown, "")
    measured_id = measured_basis(model, instance, chosen.id, tp=tp_degree, batch=batch,
                                 input_len=input_len, output_len=output_len, dtype=dtype)
    steps.add("basis", "a published record with this exact configuration exists?",
              "measured" if measured_id else "modelled", "")
    return PerfResult(
        model=model.id, instance=instance.id, framework=chosen.id, batching=chosen.batching,
        dtype=dtype, kv_dtype=kv_dtype, compute_dtype=compute, batch=batch, input_len=input_len,
        output_len=output_len, compiled_batch=compiled_batch, compiled_seq_len=compiled_seq_len,
        padded_batch=served.padded_batch, padded_input_len=served.padded_input_len,
        tp_degree=tp_degree, fits=fits, ttft_s=ttft, tpot_s=tpot, e2e_s=e2e,
        queue_wait_s=served.queue_wait_s, output_tokens_per_s_per_replica=per_replica,
        output_tokens_per_s_per_user=per_user, replicas=replicas,
        output_tokens_per_s=total_rate, decode_bound=decode.bound(efficiency),
        prefill_bound=prefill.bound(efficiency), bandwidth_bound_tokens_per_s=bandwidth_bound,
        compute_bound_tokens_per_s=compute_bound, usd_per_hour=usd_per_hour,
        usd_per_million_output_tokens=usd_per_million,
        price_missing_reason=price_missing_reason, hardware_group=group,
        decode_memory_efficiency=efficiency.decode_memory,
        prefill_compute_efficiency=efficiency.prefill_compute,
        collective_hop_latency_s=efficiency.collective_hop_latency_s,
        prefill_fixed_latency_s=efficiency.prefill_fixed_latency_s, step_fixed_s=step_fixed,
        framework_calibrated=framework_calibrated, error_band=bands,
        error_band_family=families, error_band_reasons=reasons,
        basis="measured" if measured_id else "modelled", basis_measurement_id=measured_id,
        derivation=steps.as_list(),
    )
