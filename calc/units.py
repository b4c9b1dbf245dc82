"""Unit constants and unit-suffixed data-field readers (GB vs GiB always explicit)."""

from collections.abc import Mapping
from typing import Any

BYTES_PER_KIB = 2**10
BYTES_PER_MIB = 2**20
BYTES_PER_GIB = 2**30
BYTES_PER_TIB = 2**40
BYTES_PER_KB = 10**3
BYTES_PER_MB = 10**6
BYTES_PER_GB = 10**9
BYTES_PER_TB = 10**12

FLOPS_PER_TFLOP = 10**12
FLOPS_PER_PFLOP = 10**15
SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 10**6

# suffix of a data field -> bytes per unit
_SIZE_SUFFIXES: tuple[tuple[str, int], ...] = (
    ("_bytes", 1),
    ("_kib", BYTES_PER_KIB),
    ("_mib", BYTES_PER_MIB),
    ("_gib", BYTES_PER_GIB),
    ("_tib", BYTES_PER_TIB),
    ("_kb", BYTES_PER_KB),
    ("_mb", BYTES_PER_MB),
    ("_gb", BYTES_PER_GB),
    ("_tb", BYTES_PER_TB),
)


def size_bytes(record: Mapping[str, Any], stem: str) -> int | None:
    """Integer bytes of ``<stem>_<unit>`` (e.g. memory_gib, memory_gb); None if absent."""
    for suffix, bytes_per_unit in _SIZE_SUFFIXES:
        value = record.get(stem + suffix)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return round(value * bytes_per_unit)
    return None


def rate_bytes_per_s(record: Mapping[str, Any], stem: str) -> float | None:
    """Bytes per second of ``<stem>_<unit>_per_s`` (gib, gb, tb, ...); None if absent."""
    for suffix, bytes_per_unit in _SIZE_SUFFIXES:
        value = record.get(f"{stem}{suffix}_per_s")
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value) * bytes_per_unit
    return None


def ceil_div(numerator: int, denominator: int) -> int:
    """Integer ceiling division for non-negative integers."""
    return -(-numerator // denominator)
