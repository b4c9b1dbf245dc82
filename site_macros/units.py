"""Units of data fields, read from the field name (ARCHITECTURE.md §1: units are in field names)."""

from __future__ import annotations

# Field-name suffix → unit key in data/i18n/<lang>/site.toml [unit]. Longest suffix first; a
# field equal to a suffix without its leading "_" (tokens_per_s) has that unit too.
SUFFIX_UNITS: tuple[tuple[str, str], ...] = (
    ("_gib_per_s_per_chip", "gib_per_s"),
    ("_gb_per_s_per_chip", "gb_per_s"),
    ("_tb_per_s_per_chip", "tb_per_s"),
    ("_gib_per_s", "gib_per_s"),
    ("_gb_per_s", "gb_per_s"),
    ("_tb_per_s", "tb_per_s"),
    ("_tokens_per_s", "tokens_per_s"),
    ("_sequences_per_s", "sequences_per_s"),
    ("_flop_per_cycle", "flop_per_cycle"),
    ("_throughput_per_s", "per_s"),   # a rate whose item (token, sequence) the source leaves open
    ("_gbps", "gbit_per_s"),
    ("_ghz", "ghz"),
    ("_gib", "gib"),
    ("_mib", "mib"),
    ("_gb", "gb"),
    ("_tb", "tb"),
    ("_bytes", "bytes"),
    ("_tflops", "tflops"),
    ("_pflops", "pflops"),
    ("_s", "s"),
)

# Integer dtypes count operations, not floating-point operations: TFLOPS → TOPS (int8, int4)
INTEGER_DTYPE_PREFIX = "int"
OPS_UNITS = {"tflops": "tops", "pflops": "pops"}

# Fields that are money, and their unit key (formatted with Babel's currency pattern)
MONEY_FIELDS: dict[str, str] = {
    "usd_per_hour": "per_hour",
    "usd_total": "",
    "usd_per_month": "per_month",
    "usd_per_chip_hour": "per_chip_hour",
    "usd_per_gib_hour": "per_gib_hour",
    "usd_per_bf16_pflop_hour": "per_bf16_pflop_hour",
    "usd_per_million_output_tokens": "per_million_tokens",
    "cost_usd": "",
}

# data/assumptions.toml `unit` → how the value is shown: a site.toml [unit] key, "bytes"
# (scaled to MiB or GiB) or "percent" (a fraction shown as a percentage)
ASSUMPTION_UNITS: dict[str, str] = {
    "B": "bytes",
    "B/param": "bytes_per_param",
    "fraction": "percent",
    "h": "hours",
    "s": "s",
    "TFLOPS": "tflops",  # trust (issue 9): peak proxies
    "tokens": "tokens",  # perf (issue 15): prefill_half_tokens
    "ratio": "times",  # perf (issue 15): decode_expert_extra (a multiple, may exceed 1)
    "s/GB": "s_per_gb",  # perf (issue 15): prefill_expert_s_per_gb
    "ns": "ns",  # perf (issue 15): decode_expert_matmul_ns
}


class UnknownUnitError(KeyError):
    """An assumption has a unit the site does not know how to show."""


def unit_key(field: str) -> str:
    """The unit key of a (possibly dotted) field: `dense_tflops.bf16` → `tflops`,
    `dense_tflops.int8` → `tops`; '' if unitless."""
    head, _, sub = field.partition(".")
    for suffix, key in SUFFIX_UNITS:
        if head.endswith(suffix) or head == suffix[1:]:
            if sub.startswith(INTEGER_DTYPE_PREFIX):
                return OPS_UNITS.get(key, key)
            return key
    return ""


def assumption_unit(unit: str) -> str:
    """How an assumption's `unit` is shown (see ASSUMPTION_UNITS)."""
    try:
        return ASSUMPTION_UNITS[unit]
    except KeyError:
        raise UnknownUnitError(f"assumption unit {unit!r} is not in site_macros/units.py "
                               f"ASSUMPTION_UNITS") from None


def is_money(field: str) -> bool:
    return field.split(".", 1)[0] in MONEY_FIELDS
