"""Which data types an instance's accelerator can run, from ``compute_dtypes`` in data/chips.toml.

A request dtype (``dtype``: the weights' type) is supported when the matmuls it needs run on the
hardware: a float type (fp32, bf16, fp16, fp8) must be one of the chip's compute types;
weight-only integer formats (int8, int4) dequantize to a 16-bit float, so they need bf16 or fp16;
where the chip lists ``weight_formats`` (the Neuron chips: what their serving frameworks keep as
stored, e.g. MXFP4 only on Trainium3), a weight-only or storage format must be listed.
A KV-cache dtype is held and read by attention: bf16/fp16/fp32/fp8 need that compute type,
int8 needs a 16-bit float to dequantize into. A chip without ``compute_dtypes`` supports every
type (no data, no refusal). Unsupported types are refused with ``dtype_not_supported`` and the
supported list, so every front end can offer only those.
"""

from . import data, dtypes
from .errors import CalcError
from .specs import InstanceSpec

SIXTEEN_BIT_FLOATS = ("bf16", "fp16")
# the default weight dtype on a chip: the first of these the chip has
DEFAULT_PREFERENCE = ("bf16", "fp16", "fp32")


def compute_dtypes(instance: InstanceSpec) -> list[str] | None:
    """The chip's matmul types as published (data/chips.toml), or None when the data has none."""
    raw = data.record("chips", instance.chip.id)
    listed = None if raw is None else raw.get("compute_dtypes")
    if not isinstance(listed, list):
        return None
    return [str(item) for item in listed]


def weight_formats(instance: InstanceSpec) -> list[str] | None:
    """The weight-only and checkpoint storage formats the chip's serving frameworks keep as
    stored (data/chips.toml ``weight_formats``: the Neuron chips), or None when the data does
    not list them (then a 16-bit float to dequantize into is enough, as on GPUs)."""
    raw = data.record("chips", instance.chip.id)
    listed = None if raw is None else raw.get("weight_formats")
    if not isinstance(listed, list):
        return None
    return [str(item) for item in listed]


def _has(computes: list[str] | None, dtype: str) -> bool:
    if computes is None:
        return True
    if dtype == "fp8":
        return "fp8" in computes or "mxfp8" in computes
    return dtype in computes


def weight_dtype_supported(instance: InstanceSpec, dtype: str) -> bool:
    computes = compute_dtypes(instance)
    formats = weight_formats(instance)
    if formats is not None and (dtype in dtypes.FORMAT_COMPUTE
                                or dtype in dtypes.WEIGHT_ONLY_DTYPES):
        return dtype in formats   # the chip's frameworks list what they keep as stored
    if dtype in dtypes.FORMAT_COMPUTE:  # checkpoint formats (issue 10): their matmul type
        compute = dtypes.FORMAT_COMPUTE[dtype]
        if compute in SIXTEEN_BIT_FLOATS:  # dequantized to a 16-bit float, like int4
            return any(_has(computes, f) for f in SIXTEEN_BIT_FLOATS)
        return _has(computes, compute)
    if dtype in dtypes.WEIGHT_ONLY_DTYPES:
        return any(_has(computes, f) for f in SIXTEEN_BIT_FLOATS)
    return _has(computes, dtype)


def kv_dtype_supported(instance: InstanceSpec, kv_dtype: str) -> bool:
    computes = compute_dtypes(instance)
    if kv_dtype == "int8":
        return any(_has(computes, f) for f in SIXTEEN_BIT_FLOATS)
    return _has(computes, kv_dtype)


def supported_dtypes(instance: InstanceSpec) -> list[str]:
    """Request dtypes (``dtype``, ``expert_dtype``) this instance accepts, in calc.dtypes order
    (the checkpoint storage formats after the plain types)."""
    return [d for d in dtypes.WEIGHT_DTYPES if weight_dtype_supported(instance, d)]


def supported_kv_dtypes(instance: InstanceSpec) -> list[str]:
    return [d for d in dtypes.KV_DTYPES if kv_dtype_supported(instance, d)]


def default_dtype(instance: InstanceSpec) -> str:
    """bf16 where the chip has it, else fp16, else fp32 (e.g. fp16 on a T4 or V100)."""
    return next((d for d in DEFAULT_PREFERENCE if weight_dtype_supported(instance, d)), "bf16")


def default_kv_dtype(instance: InstanceSpec, dtype: str) -> str:
    """calc.dtypes.default_kv_dtype, with bf16 replaced by fp16 where the chip has no bf16."""
    wanted = dtypes.default_kv_dtype(dtype)
    if kv_dtype_supported(instance, wanted):
        return wanted
    return next((d for d in SIXTEEN_BIT_FLOATS if kv_dtype_supported(instance, d)), wanted)


def check_dtype(instance: InstanceSpec, dtype: str, field: str = "dtype") -> str:
    """``dtype`` if the hardware has it, else CalcError(dtype_not_supported) naming the others."""
    ok = (
        kv_dtype_supported(instance, dtype) if field == "kv_dtype"
        else weight_dtype_supported(instance, dtype)
    )
    if not ok:
        allowed = (
            supported_kv_dtypes(instance) if field == "kv_dtype" else supported_dtypes(instance)
        )
        raise CalcError(field, "dtype_not_supported", {
            "value": dtype, "instance": instance.id, "chip": instance.chip.name,
            "allowed": allowed,
        })
    return dtype


def describe(instance: InstanceSpec) -> dict[str, object]:
    """The api ``dtypes`` answer and the per-instance fields of ``list instances``."""
    return {
        "instance": instance.id,
        "chip": instance.chip.id,
        "compute_dtypes": compute_dtypes(instance),
        "dtypes_supported": supported_dtypes(instance),
        "kv_dtypes_supported": supported_kv_dtypes(instance),
        "default_dtype": default_dtype(instance),
    }
