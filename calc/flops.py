"""Training compute and time, and the matmul peak of an accelerator.

Convention: model FLOPs = 6·N_mm·D + 12·L·h·s·D  (forward + backward; N_mm = the parameters a
token is multiplied by: the active ones less an untied input embedding, calc.model_shape.
matmul_params; D = tokens, s = sequence length; the attention-score term counts the full,
non-causal s×s matrices). With a given MFU: time = model FLOPs / (instances × peak × MFU).
Without one, the framework's model (calc.training_speed): recomputation FLOPs added, attention
FLOPs at their own efficiency, and the fitted efficiency of the training framework on this
hardware group: time = D × weighted FLOPs per token / (instances × peak × efficiency) + the
layout's tensor-parallel all-reduces (calc.training_speed.collective_s_per_token; none where the
efficiency is the instance kind's MFU preset, an end-to-end figure); the result's `mfu` is then
the model-FLOPs utilisation that implies.

Peaks: training time uses the chip headline dense peak × chips, the basis the MFU presets in
data/assumptions.toml are defined against. The inference roofline (perf.py) uses the matmul peak:
Tensor Engine per NeuronCore × cores on Neuron (the headline also counts the other engines), the
dense Tensor Core peak per GPU.
"""

import math
from dataclasses import dataclass, fields
from typing import Any

from . import data, dtypes, model_shape
from .derivation import Derivation
from .errors import CalcError
from .specs import InstanceSpec, ModelSpec
from .units import FLOPS_PER_TFLOP, SECONDS_PER_HOUR

TRAINING_FLOPS_PER_PARAM_TOKEN = 6
ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN = 12

# the training band's upper end when the fitted error would pass the peak
BAND_CAPPED = "capped at MFU = 1 (the peak)"

def matmul_dtype(instance: InstanceSpec, weight_dtype: str) -> str:
    """The dtype whose peak applies: int8/int4 weights compute in bf16; fp8 needs fp8 TFLOPS."""
    wanted = dtypes.compute_dtype(weight_dtype)
    peaks = instance.chip.peak_flops_per_core
    if wanted == "fp8" and "fp8" not in peaks:
        return "mxfp8" if "mxfp8" in peaks else "bf16"
    return wanted


def peak_proxy(instance: InstanceSpec, compute: str) -> tuple[str, float] | None:
    """(assumption id, TFLOPS per chip) of a documented proxy for an unpublished peak
    (data/assumptions.toml ``peak_proxy_<chip id>``, for the dtypes it lists), else None."""
    assumption_id = "peak_proxy_" + instance.chip.id.replace("-", "_")
    found = data.record("assumptions", assumption_id)
    if found is None or compute not in found.get("dtypes", []):
        return None
    return assumption_id, float(found["value"])


def peak_is_proxy(instance: InstanceSpec, weight_dtype: str) -> str | None:
    """The proxy assumption id when the roofline peak for this dtype is a proxy, else None."""
    compute = matmul_dtype(instance, weight_dtype)
    peaks = instance.chip.peak_flops_per_core
    if peaks.get(compute) or (compute in ("bf16", "fp16") and
                              peaks.get("fp16" if compute == "bf16" else "bf16")):
        return None
    proxy = peak_proxy(instance, compute)
    return None if proxy is None else proxy[0]


def peak_flops_per_core(instance: InstanceSpec, weight_dtype: str) -> tuple[str, float]:
    """(compute dtype, dense FLOP/s of one logical core or GPU); CalcError if not published."""
    compute = matmul_dtype(instance, weight_dtype)
    peak = instance.chip.peak_flops_per_core.get(compute)
    if peak is None and compute in ("bf16", "fp16"):
        other = "fp16" if compute == "bf16" else "bf16"
        peak = instance.chip.peak_flops_per_core.get(other)
    proxy = peak_proxy(instance, compute) if peak is None else None
    if proxy is not None:  # documented proxy (results say peak_is_proxy)
        peak = proxy[1] * FLOPS_PER_TFLOP / instance.chip.logical_cores_per_chip
    if peak is None or peak <= 0:
        raise CalcError("instance", "peak_flops_missing", {"value": compute})
    return compute, peak


def headline_peak_flops_per_s(instance: InstanceSpec, weight_dtype: str) -> tuple[str, float]:
    """(dtype, dense FLOP/s of the whole instance) from the chip headline (AWS / vendor figure):
    the basis of the MFU presets and of $/PFLOP-hour."""
    compute = dtypes.compute_dtype(weight_dtype)
    headline = instance.chip.headline_dense_tflops
    if compute == "fp8" and "fp8" not in headline:
        compute = "bf16"
    tflops = headline.get(compute)
    if tflops is None and compute in ("bf16", "fp16"):
        tflops = headline.get("fp16" if compute == "bf16" else "bf16")
    proxy = peak_proxy(instance, compute) if tflops is None else None
    if proxy is not None:  # documented proxy (results say peak_is_proxy)
        tflops = proxy[1]
    if tflops is None or tflops <= 0:
        raise CalcError("instance", "peak_flops_missing", {"value": compute})
    return compute, tflops * FLOPS_PER_TFLOP * instance.chip_count


def training_flops(model: ModelSpec, tokens: int, seq_len: int) -> int:
    return (
        TRAINING_FLOPS_PER_PARAM_TOKEN * model_shape.matmul_params(model) * tokens
        + ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN * model.layers * model.hidden * seq_len * tokens
    )


MFU_PRESET_PREFIX = "mfu_training_"   # the presets' ids: mfu_training_<kind>_default


def default_mfu(instance: InstanceSpec) -> tuple[float, str]:
    """(MFU, assumption id) preset for the accelerator kind, from data/assumptions.toml."""
    assumption_id = f"{MFU_PRESET_PREFIX}{instance.kind}_default"
    return data.assumption_value(assumption_id), assumption_id


@dataclass(frozen=True, slots=True)
class TrainResult:
    model: str
    instance: str
    count: int
    tokens: int
    seq_len: int
    dtype: str
    total_flops: int
    peak_flops_per_s: float
    mfu: float
    mfu_source: str
    framework: str
    recompute: str
    hardware_efficiency: float | None
    time_s: float
    time_h: float
    tokens_per_s: float
    instance_hours: float
    usd_per_hour: float | None
    cost_usd: float | None
    price_missing_reason: str | None
    error_band: dict[str, list[float] | None]
    error_band_family: dict[str, str | None]
    error_band_reasons: dict[str, list[str]]
    basis: str
    basis_measurement_id: str | None
    derivation: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def train(
    model: ModelSpec,
    instance: InstanceSpec,
    *,
    count: int,
    tokens: int,
    seq_len: int,
    dtype: str,
    mfu: float | None,
    usd_per_hour: float | None,
    price_missing_reason: str | None,
    framework: str | None = None,
    recompute: str | None = None,
    devices_used: int | None = None,
    tp: int = 1,
) -> TrainResult:
    """Training time and cost. ``devices_used``: the devices (NeuronCores, GPUs) the parallel
    layout runs on (tp × pp × dp); None or all of them: every device of ``count`` instances
    works. Fewer: the others idle but are paid for (the time uses the working share). ``tp``:
    the layout's tensor-parallel degree, whose all-reduces the fitted time adds
    (calc.training_speed.collective_s_per_token)."""
    from . import calibration, frameworks, serving_band, training_speed

    chosen = frameworks.resolve(framework, instance, "training")
    recompute = recompute or chosen.default_recompute
    steps = Derivation()
    steps.add("framework", f"{chosen.name}; recompute: {recompute}", chosen.id, "")
    available = count * instance.logical_cores
    working = 1.0 if devices_used is None else min(devices_used, available) / available
    working_count = count * working   # instances' worth of devices that compute
    steps.add("matmul_params", model_shape.matmul_params_formula(model),
              model_shape.matmul_params(model), "")
    total = steps.add(
        "total_flops",
        "6 · N_mm · D + 12 · L · h · s · D",
        training_flops(model, tokens, seq_len),
        "FLOP",
    )
    compute, headline = headline_peak_flops_per_s(instance, dtype)
    peak_instance = steps.add(
        "peak_flops_per_s", f"{compute} dense headline TFLOPS per chip × chips", headline, "FLOP/s"
    )
    if working < 1.0:
        steps.add("devices_used", "tp × pp × dp of the layout / devices of count instances",
                  f"{devices_used} / {available}", "")
    hardware_efficiency: float | None = None
    if mfu is None:
        per_token = training_speed.token_flops(model, seq_len, recompute)
        steps.add("attention_flops", "12 · Σ_layers min(s, window) · heads · head_dim · D "
                  "(as run; the convention above counts 12 · L · h · s)",
                  per_token.attention_run * tokens, "FLOP")
        steps.add("recompute_flops", f"recomputation ({recompute}) per token × D",
                  per_token.recompute * tokens, "FLOP")
        steps.add("attention_relative_efficiency", "attention vs dense matmul efficiency",
                  training_speed.attention_relative_efficiency(), "")
        fitted = calibration.stored_constants().training
        hardware_efficiency, mfu_source = training_speed.lookup(chosen, instance, model, fitted)
        steps.add("hardware_efficiency", f"fitted efficiency ({mfu_source})", hardware_efficiency,
                  "")
        share = "" if working == 1.0 else " × devices used share"
        if training_speed.counts_collectives(mfu_source):
            passes = training_speed.RECOMPUTE_FORWARD_PASSES[recompute]
            collective_formula = (f"all-reduce passes ({passes}) × 2 · L · 2(t − 1)/t · h · 2 B "
                                  f"/ link per chip × D × t / devices (t = {tp})")
            collective_value = tokens * training_speed.collective_s_per_token(
                model, instance, tp, recompute, working_count * instance.logical_cores)
        else:   # an end-to-end preset already holds them
            collective_formula, collective_value = f"inside the MFU preset ({mfu_source})", 0.0
        collective_s = steps.add("tp_collective_s", collective_formula, collective_value, "s")
        time_s = steps.add(
            "time_s", f"D × weighted FLOPs per token / (count{share} × peak × efficiency) "
            "+ TP all-reduces",
            tokens * per_token.weighted / (working_count * peak_instance * hardware_efficiency)
            + collective_s, "s")
        mfu = steps.add("mfu", f"model FLOPs / (time × count{share} × peak)",
                        total / (time_s * working_count * peak_instance), "")
    else:
        mfu_source = "input"
        from .inputs import MIN_MFU

        if not MIN_MFU <= mfu <= 1.0:  # hardening: a vanishing MFU overflows the training time
            raise CalcError("mfu", "out_of_range", {"min": MIN_MFU, "max": 1.0, "value": mfu})
        steps.add("mfu", f"MFU ({mfu_source})", mfu, "")
        share = "" if working == 1.0 else " × devices used share"
        time_s = steps.add(
            "time_s", f"total / (count{share} × peak × MFU)",
            total / (working_count * peak_instance * mfu), "s")
    if not math.isfinite(time_s) or time_s <= 0:
        raise CalcError("tokens", "result_not_finite", {"value": "time_s"})
    tokens_per_s = steps.add("tokens_per_s", "D / time", tokens / time_s, "tokens/s")
    instance_hours = steps.add(
        "instance_hours", "count × time / 3600", count * time_s / SECONDS_PER_HOUR, "h"
    )
    cost = None if usd_per_hour is None else usd_per_hour * instance_hours
    steps.add("cost_usd", "instance-hours × $/hour", cost, "USD")
    features = {"params": float(model.params), "seq_len": float(seq_len), "count": float(count)}
    band = serving_band.nearest(serving_band.stored(), instance.chip.id, instance.kind, chosen.id,
                                "training", features)
    rate_band = serving_band.interval(tokens_per_s, band)
    # no faster than the peak: MFU 1 on the devices that work (an MFU near 1 given as input
    # would otherwise get a band above what the hardware can do)
    peak_rate = working_count * peak_instance * tokens / total
    capped = rate_band is not None and rate_band[1] > peak_rate
    if rate_band is not None and capped:
        rate_band = [min(rate_band[0], peak_rate), peak_rate]
    time_band = None if rate_band is None else [tokens / rate_band[1], tokens / rate_band[0]]
    steps.add("error_band_tokens_per_s",
              serving_band.describe(band) + ("; " + BAND_CAPPED if capped else ""),
              None if rate_band is None else f"{rate_band[0]:.4g}–{rate_band[1]:.4g}", "")
    measured_id = None if model.id == "custom" else serving_band.measured_index().get(
        serving_band.training_key(model.id, instance.id, chosen.id, count, seq_len))
    steps.add("basis", "a published record with this exact configuration exists?",
              "measured" if measured_id else "modelled", "")
    cost_band = None
    if time_band is not None and usd_per_hour is not None:
        cost_band = [usd_per_hour * count * t / SECONDS_PER_HOUR for t in time_band]
    return TrainResult(
        model=model.id,
        instance=instance.id,
        count=count,
        tokens=tokens,
        seq_len=seq_len,
        dtype=dtype,
        total_flops=total,
        peak_flops_per_s=peak_instance,
        mfu=mfu,
        mfu_source=mfu_source,
        framework=chosen.id,
        recompute=recompute,
        hardware_efficiency=hardware_efficiency,
        time_s=time_s,
        time_h=time_s / SECONDS_PER_HOUR,
        tokens_per_s=tokens_per_s,
        instance_hours=instance_hours,
        usd_per_hour=usd_per_hour,
        cost_usd=cost,
        price_missing_reason=price_missing_reason,
        error_band={"tokens_per_s": rate_band, "time_s": time_band, "cost_usd": cost_band},
        error_band_family={"tokens_per_s": None if band is None else band.family},
        error_band_reasons={"tokens_per_s": [] if band is None else list(band.reasons)},
        basis="measured" if measured_id else "modelled",
        basis_measurement_id=measured_id,
        derivation=steps.as_list(),
    )
