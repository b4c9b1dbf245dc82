"""Data types: bits per element, and which dtype computes and holds the KV cache.

int8/int4 are weight-only formats here: matmuls run in bf16 and the KV cache is bf16 unless
``kv_dtype`` says otherwise. fp8 computes in fp8 where the accelerator has fp8 TFLOPS.
"""

from .errors import CalcError

BITS_PER_BYTE = 8
DTYPE_BITS: dict[str, int] = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4}
WEIGHT_ONLY_DTYPES = frozenset({"int8", "int4"})
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8")


def bits(dtype: str, field: str = "dtype") -> int:
    if dtype not in DTYPE_BITS:
        raise CalcError(field, "unknown_choice", {"value": dtype, "allowed": list(DTYPE_BITS)})
    return DTYPE_BITS[dtype]


def bytes_for(count: int, dtype: str) -> int:
    """Integer bytes to hold ``count`` elements of ``dtype`` (rounded up for sub-byte types)."""
    return -(-count * bits(dtype) // BITS_PER_BYTE)


def compute_dtype(weight_dtype: str) -> str:
    """The dtype the matmuls run in: weight-only int formats dequantize to bf16."""
    return "bf16" if weight_dtype in WEIGHT_ONLY_DTYPES else weight_dtype


def default_kv_dtype(weight_dtype: str) -> str:
    """KV cache dtype when none is given: the float dtype itself, else bf16 (fp8/int8/int4)."""
    return weight_dtype if weight_dtype in ("fp32", "bf16", "fp16") else "bf16"


def activation_dtype(weight_dtype: str) -> str:
    """Activations are fp32 for fp32 models, 16-bit otherwise."""
    return "fp32" if weight_dtype == "fp32" else "bf16"
