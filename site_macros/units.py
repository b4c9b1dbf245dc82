"""Units of data fields, read from the field name (ARCHITECTURE.md §1: units are in field names)."""

from __future__ import annotations

# Field-name suffix → unit key in data/i18n/<lang>/site.toml [unit]. Longest suffix first.
SUFFIX_UNITS: tuple[tuple[str, str], ...] = (
    ("_gib_per_s_per_chip", "gib_per_s"),
    ("_gb_per_s_per_chip", "gb_per_s"),
    ("_tb_per_s_per_chip", "tb_per_s"),
    ("_gib_per_s", "gib_per_s"),
    ("_gb_per_s", "gb_per_s"),
    ("_tb_per_s", "tb_per_s"),
    ("_tokens_per_s", "tokens_per_s"),
    ("_gbps", "gbit_per_s"),
    ("_gib", "gib"),
    ("_mib", "mib"),
    ("_gb", "gb"),
    ("_tb", "tb"),
    ("_bytes", "bytes"),
    ("_tflops", "tflops"),
    ("_pflops", "pflops"),
    ("_s", "s"),
)

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


def unit_key(field: str) -> str:
    """The unit key of a (possibly dotted) field: `dense_tflops.bf16` → `tflops`; '' if unitless."""
    head = field.split(".", 1)[0]
    for suffix, key in SUFFIX_UNITS:
        if head.endswith(suffix):
            return key
    return ""


def is_money(field: str) -> bool:
    return field.split(".", 1)[0] in MONEY_FIELDS
