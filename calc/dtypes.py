"""Data types: bits per element, and which dtype computes and holds the KV cache.

int8/int4 are weight-only formats here: matmuls run in bf16 and the KV cache is bf16 unless
``kv_dtype`` says otherwise. fp8 computes in fp8 where the accelerator has fp8 TFLOPS.
"""

from fractions import Fraction

from .errors import CalcError

BITS_PER_BYTE = 8
DTYPE_BITS: dict[str, int] = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4}
WEIGHT_ONLY_DTYPES = frozenset({"int8", "int4"})
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8")
# Checkpoint storage formats with their scales, as bits per weight (calc.hf_config reads them from
# quantization_config): fp8 with one fp32 scale per 128×128 block (DeepSeek-V3 weight_block_size),
# MXFP4 (OCP microscaling: 32 fp4 values share one 8-bit E8M0 scale; gpt-oss experts), and int4
# with a 16-bit scale and a 4-bit zero point per group of g weights (AWQ / GPTQ group_size g).
FORMAT_BITS: dict[str, Fraction] = {
    "fp8_block128": 8 + Fraction(32, 128 * 128),
    "mxfp4": 4 + Fraction(8, 32),
    "int4_g32": 4 + Fraction(16 + 4, 32),
    "int4_g64": 4 + Fraction(16 + 4, 64),
    "int4_g128": 4 + Fraction(16 + 4, 128),
}
FORMAT_COMPUTE: dict[str, str] = {
    "fp8_block128": "fp8", "mxfp4": "bf16", "int4_g32": "bf16", "int4_g64": "bf16",
    "int4_g128": "bf16",
}
WEIGHT_DTYPES = (*DTYPE_BITS, *FORMAT_BITS)


def bits(dtype: str, field: str = "dtype") -> int:
    if dtype not in DTYPE_BITS:
        raise CalcError(field, "unknown_choice", {"value": dtype, "allowed": list(DTYPE_BITS)})
    return DTYPE_BITS[dtype]


def storage_bits(dtype: str, field: str = "dtype") -> Fraction:
    """Bits per element including block scales (plain dtypes: their width)."""
    if dtype in FORMAT_BITS:
        return FORMAT_BITS[dtype]
    if dtype not in DTYPE_BITS:
        raise CalcError(field, "unknown_choice", {"value": dtype, "allowed": list(WEIGHT_DTYPES)})
    return Fraction(DTYPE_BITS[dtype])


def bytes_for(count: int, dtype: str) -> int:
    """Integer bytes to hold ``count`` elements of ``dtype`` (rounded up for sub-byte types)."""
    plain = DTYPE_BITS.get(dtype)
    if plain is not None and dtype not in FORMAT_BITS:  # whole bits: the same value, no Fraction
        return -(-(count * plain) // BITS_PER_BYTE)     # (hot: memory.fit's searches)
    total_bits = count * storage_bits(dtype)
    return -(-total_bits.numerator // (total_bits.denominator * BITS_PER_BYTE))


def compute_dtype(weight_dtype: str) -> str:
    """The dtype the matmuls run in: weight-only int formats dequantize to bf16."""
    if weight_dtype in FORMAT_COMPUTE:
        return FORMAT_COMPUTE[weight_dtype]
    return "bf16" if weight_dtype in WEIGHT_ONLY_DTYPES else weight_dtype


def default_kv_dtype(weight_dtype: str) -> str:
    """KV cache dtype when none is given: the float dtype itself, else bf16 (fp8/int8/int4)."""
    return weight_dtype if weight_dtype in ("fp32", "bf16", "fp16") else "bf16"


def activation_dtype(weight_dtype: str) -> str:
    """Activations are fp32 for fp32 models, 16-bit otherwise."""
    return "fp32" if weight_dtype == "fp32" else "bf16"
