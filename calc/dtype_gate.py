"""The data types a request runs in, checked against its hardware: the first gate of every
calculator (issue 9; calc.fit_gate_api has the others). A dtype the accelerator lacks is refused
(dtype_not_supported, calc.dtype_support); an absent one follows the checkpoint, then the
hardware. Apart from calc.fit_gate_api so that the memory calculator, which needs only this gate,
does not load the speed model."""

from dataclasses import replace
from typing import Any

from . import dtype_support, dtypes, inputs, model_shape
from .errors import CalcError
from .specs import InstanceSpec, ModelSpec

# what a training run computes and keeps its weights in: the weight-only (int8, int4) and
# checkpoint storage formats (mxfp4, int4_g*, fp8_block128) are inference formats here
TRAINING_DTYPES = ("fp32", "bf16", "fp16", "fp8")
# checkpoint dtypes a framework does not run as stored when no dtype is asked for: vLLM's dtype
# "auto" downcasts a float32 checkpoint to the platform's first 16-bit type (vllm/config/model.py
# _resolve_auto_dtype: "Downcast for float32 models"; bf16, or fp16 where there is no bf16), and
# training runs in mixed precision (bf16 compute); e.g. google/gemma-2-9b's config says float32
DOWNCAST = ("fp32",)


def hardware_default(model: ModelSpec | None, instance: InstanceSpec) -> str:
    """The dtype a model runs in on this hardware when neither the request nor the checkpoint
    decides: calc.dtype_support's default (bf16, else fp16), but fp32 for a model vLLM will not
    run in fp16 (ModelSpec.fp16_unstable: Gemma 2 and 3 on a T4 or V100)."""
    chosen = dtype_support.default_dtype(instance)
    if (chosen == "fp16" and model is not None and model.fp16_unstable
            and dtype_support.weight_dtype_supported(instance, "fp32")):
        return "fp32"
    return chosen


def dtype_for(req: inputs.Request, instance: InstanceSpec) -> str:
    """The given dtype if the hardware has it (else dtype_not_supported); absent: the
    checkpoint's precision (ModelSpec.default_dtype, issue 10) when the hardware has it, else
    the hardware's default (calc.dtype_support). A float32 checkpoint (DOWNCAST) runs in the
    hardware's default 16-bit type, as serving frameworks load it (checkpoint_fallback says so)."""
    dtype = req.get_opt_text("dtype")
    if dtype is not None:
        return dtype_support.check_dtype(instance, dtype)
    checkpoint = req.model.default_dtype if req.model is not None else None
    if (checkpoint is not None and checkpoint not in DOWNCAST
            and dtype_support.weight_dtype_supported(instance, checkpoint)):
        return checkpoint
    return hardware_default(req.model, instance)


def training_dtype(dtype: str | None) -> None:
    """Refuse a dtype that training does not run in (unknown_choice), before any hardware
    check, so that every instance gives the same answer."""
    if dtype is not None and dtype not in TRAINING_DTYPES:
        raise CalcError("dtype", "unknown_choice",
                        {"value": dtype[:40], "allowed": list(TRAINING_DTYPES)})


def training_dtype_for(req: inputs.Request, instance: InstanceSpec) -> str:
    """dtype_for for a training run: a given dtype must be one training runs in; an absent one
    follows the checkpoint's compute precision when training runs in it and the hardware has
    it (an FP8-block checkpoint trains in fp8 on an FP8 chip), else the hardware's default."""
    given = req.get_opt_text("dtype")
    training_dtype(given)
    if given is not None:
        return dtype_support.check_dtype(instance, given)
    # the checkpoint's compute type, never its storage format: which formats the chip's
    # serving frameworks keep (weight_formats) says nothing of training, which computes in
    # fp8 / bf16 (review: DeepSeek-V3's fp8_block128 trained in bf16 on Trn2, twice as slow)
    checkpoint = req.model.default_dtype if req.model is not None else None
    if checkpoint is not None:
        computed = dtypes.compute_dtype(checkpoint)   # fp8_block128 -> fp8; mxfp4 -> bf16
        if (computed in TRAINING_DTYPES and computed not in DOWNCAST
                and dtype_support.weight_dtype_supported(instance, computed)):
            return computed
    return hardware_default(req.model, instance)


def expert_dtype_for(req: inputs.Request, instance: InstanceSpec) -> str | None:
    """The given expert dtype if the hardware has it; absent: None (the checkpoint's)."""
    expert = req.get_opt_text("expert_dtype")
    if expert is not None and req.model is not None and req.model.experts <= 0:
        # a dense model: the option has no effect
        raise CalcError("expert_dtype", "needs_field",
                        {"value": "experts", "with_field": "experts"})
    return None if expert is None else dtype_support.check_dtype(instance, expert,
                                                                 "expert_dtype")


def kv_dtype_for(req: inputs.Request, instance: InstanceSpec, dtype: str) -> str:
    """The given KV dtype if the hardware has it; absent: the float type of the unquantized
    weights (calc.model_shape.weight_precision; bf16 for fp8/int weights), or the chip's."""
    kv = req.get_opt_text("kv_dtype")
    if kv is None:
        base = dtype
        if req.model is not None:
            base = model_shape.weight_precision(req.model, dtype).unquantized
        return dtype_support.default_kv_dtype(instance, base)
    return dtype_support.check_dtype(instance, kv, "kv_dtype")


def served(model: ModelSpec, instance: InstanceSpec) -> ModelSpec:
    """``model`` (as its checkpoint stores it, no expert dtype named) as the instance serves
    it: experts in a storage format the chip does not keep are loaded like the other weights
    (vLLM Neuron: 'gpt-oss falls back to BF16' on Trn2)."""
    if (model.expert_dtype is not None
            and not dtype_support.weight_dtype_supported(instance, model.expert_dtype)):
        return replace(model, expert_dtype=None)
    return model


def checkpoint_model(req: inputs.Request) -> ModelSpec | None:
    """The model as its checkpoint stores it when the request names no expert dtype (each
    instance then serves it its own way: ``served``); None when it names one."""
    return req.need_model() if req.get_opt_text("expert_dtype") is None else None


def model_for(req: inputs.Request, instance: InstanceSpec) -> ModelSpec:
    """The request's model as the instance serves it (``served``; as given when the request
    names an expert dtype), so every calculator sizes and times the experts in the dtype the
    chip's frameworks load them in."""
    stored = checkpoint_model(req)
    return req.need_model() if stored is None else served(stored, instance)


def checkpoint_fallback(req: inputs.Request, instance: InstanceSpec,
                        dtype: str) -> dict[str, Any] | None:
    """What the checkpoint stores that the chip does not run, and what is used instead (the
    results say it: never a different number unannounced): {"part": "weights" | "experts" |
    "downcast" (a float32 checkpoint served in 16 bits: DOWNCAST), "checkpoint", "used",
    "chip"}; None when the checkpoint's own formats are used or the request names the dtypes."""
    model = req.model
    if model is None:
        return None
    chip = str(instance.chip.name)
    if (req.get_opt_text("dtype") is None and model.default_dtype in DOWNCAST
            and dtype != model.default_dtype):
        return {"part": "downcast", "checkpoint": model.default_dtype, "used": dtype,
                "chip": chip}
    if (req.get_opt_text("dtype") is None and model.default_dtype != dtype
            and not dtype_support.weight_dtype_supported(instance, model.default_dtype)):
        return {"part": "weights", "checkpoint": model.default_dtype, "used": dtype,
                "chip": chip}
    if req.get_opt_text("expert_dtype") is None and model.expert_dtype is not None:
        loaded = served(model, instance)
        if loaded is not model:   # experts the chip does not keep: loaded like the weights
            return {"part": "experts", "checkpoint": model.expert_dtype,
                    "used": model_shape.weight_precision(loaded, dtype).expert, "chip": chip}
    return None
