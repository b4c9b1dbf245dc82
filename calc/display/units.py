"""The one units table: how a quantity in a calc unit is written in each language.

Spellings live in one place, data/i18n/<lang>/site.toml [unit] (one key per unit, one spelling
per language); this module only says which key a calc unit scales to and how a number and its
label are joined (a no-break space, none before a "/rate" label: "627/s", "$2.10/h").
calc units (derivation steps, result fields): B, B/s, FLOP, FLOP/s, s, h, tokens, tokens/s,
cores, heads, GB (decimal, where a constant is per 10^9 B), USD, USD/h, fraction, "" (a count),
bool, text.
"""

from functools import lru_cache
from typing import Any

from .. import data
from . import numbers

NBSP = "\u00a0"

# calc unit -> ((threshold, divisor, site.toml [unit] key), ...) from the largest down; the last
# entry (threshold 0) applies below every other threshold
SCALED: dict[str, tuple[tuple[float, float, str], ...]] = {
    "B": ((2**30, 2**30, "gib"), (2**20, 2**20, "mib"), (2**10, 2**10, "kib"), (0, 1, "bytes")),
    "B/s": ((1e12, 1e12, "tb_per_s"), (1e9, 1e9, "gb_per_s"), (1e6, 1e6, "mb_per_s"),
            (0, 1, "bytes_per_s")),
    "FLOP": ((1e18, 1e18, "eflop"), (1e15, 1e15, "pflop"), (1e12, 1e12, "tflop"),
             (1e9, 1e9, "gflop"), (0, 1, "flop")),
    "FLOP/s": ((1e15, 1e15, "pflops"), (1e12, 1e12, "tflops"), (1e9, 1e9, "gflops"),
               (0, 1, "flops")),
}
# calc unit -> site.toml [unit] key, for units shown as they are
PLAIN: dict[str, str] = {
    "h": "hours",
    "tokens": "tokens",
    "tokens/s": "tokens_per_s",
    "cores": "cores",
    "heads": "heads",
    "requests/s": "requests_per_s",
    "GB": "gb",   # decimal gigabytes (10^9 B) where a fitted constant is per GB
}
SCALED_DECIMALS = 2
RATE_DECIMALS = 1


def labels(lang: str) -> dict[str, str]:
    """The unit spellings of one language (data/i18n/<lang>/site.toml [unit])."""
    table: dict[str, str] = data.i18n(lang, "site")["unit"]
    return table


def join(number_text: str, label: str) -> str:
    """A number and its unit label: a no-break space between, none before a "/rate" label."""
    if not label:
        return number_text
    return number_text + label if label.startswith("/") else f"{number_text}{NBSP}{label}"


def usd_text(value: float | int, lang: str) -> str:
    """Money: cents from $1 (and for 0), four decimals below (prices per token are tiny)."""
    decimals = 2 if abs(value) >= 1 or value == 0 else 4
    return numbers.usd(value, lang, decimals)


def count_decimals(value: float | int) -> int:
    return 0 if float(value).is_integer() else (1 if abs(value) >= 10 else 3)


def seconds_text(value: float | int, lang: str) -> str:
    names = labels(lang)
    if value != 0 and abs(value) < 1e-3:
        return join(numbers.number(value * 1e6, lang, 1), names["us"])
    if abs(value) < 1:
        return join(numbers.number(value * 1e3, lang, 1), names["ms"])
    if abs(value) >= 86400:
        return join(numbers.number(value / 86400, lang, 1), names["d"])
    return join(numbers.number(value, lang, 2), names["s"])


def quantity(value: float | int, unit: str, lang: str) -> str:
    """A number in calc unit `unit` as text in `lang` ("14.96 GiB", "1234,5 US$", "12,3 %")."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a quantity")
    if unit in SCALED:
        for threshold, divisor, key in SCALED[unit]:
            if abs(value) >= threshold:
                return join(numbers.number(value / divisor, lang, SCALED_DECIMALS),
                            labels(lang)[key])
    if unit == "s":
        return seconds_text(value, lang)
    if unit == "USD":
        return usd_text(value, lang)
    if unit == "USD/h":
        return usd_text(value, lang) + labels(lang)["per_hour"]
    if unit == "fraction":
        return numbers.percent(value, lang, 1)
    if unit == "tokens/s":
        return join(numbers.number(value, lang, RATE_DECIMALS), labels(lang)["tokens_per_s"])
    label = labels(lang).get(PLAIN.get(unit, ""), unit)
    return join(numbers.number(value, lang, count_decimals(value)), label)


def known(unit: str) -> bool:
    return unit in SCALED or unit in PLAIN or unit in ("s", "USD", "USD/h", "fraction", "")


def raw_value(value: Any) -> str | None:
    """A value for a data-value attribute (the same text at build time and in the worker)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


# A result field's unit from its name (units are in field names, ARCHITECTURE.md §1)
_FIELD_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_flops_per_s", "FLOP/s"),
    ("tokens_per_s", "tokens/s"),
    ("_per_replica", "tokens/s"),
    ("_bytes", "B"),
    ("_flops", "FLOP"),
    ("_s", "s"),
)
_FIELD_UNITS: dict[str, str] = {"fits": "bool", "mfu": "fraction", "cost_usd": "USD",
                                "prefill_bound": "text", "decode_bound": "text",
                                "kv_rule": "text",
                                # advisor (issue 11)
                                "requests_per_s": "requests/s",
                                "break_even_requests_per_s": "requests/s",
                                "api_usd_per_request": "USD", "api_usd_per_hour": "USD/h",
                                "fleet_usd_per_hour": "USD/h"}


@lru_cache(maxsize=512)
def result_unit(field: str) -> str:
    """The calc unit of a result field: `weights_bytes` -> B, `usd_per_hour` -> USD, ..."""
    if field in _FIELD_UNITS:
        return _FIELD_UNITS[field]
    if field.startswith("usd_"):
        return "USD"
    for suffix, unit in _FIELD_SUFFIXES:
        if field.endswith(suffix):
            return unit
    return ""
