"""Locale-aware formatting of figures with Babel (numbers, USD, percent, dates).

Formatting only: no arithmetic on the figures beyond rounding for display.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from babel import Locale
from babel.dates import format_date as babel_format_date
from babel.numbers import format_decimal, parse_pattern

LANGS = ("en", "ja", "es")


# Babel decimal pattern with a fixed number of fraction digits (max_decimals, min_decimals)
def _decimal_pattern(max_decimals: int, min_decimals: int = 0) -> str:
    frac = "0" * min_decimals + "#" * (max_decimals - min_decimals)
    return "#,##0" + ("." + frac if frac else "")


# How many fraction digits a figure needs to stay readable (3 significant digits for small values)
def auto_decimals(value: float) -> int:
    magnitude = abs(value)
    if magnitude == 0 or magnitude >= 100 or float(value).is_integer():
        return 0 if float(value).is_integer() or magnitude >= 100 else 1
    if magnitude >= 10:
        return 1
    if magnitude >= 1:
        return 2
    digits = 2
    while magnitude * 10**digits < 100 and digits < 8:
        digits += 1
    return digits


def number(value: float | int, lang: str, decimals: int | None = None) -> str:
    """A plain number with the locale's grouping and decimal separators."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a figure")
    if decimals is None:
        decimals = auto_decimals(value)
    return format_decimal(value, format=_decimal_pattern(decimals), locale=lang)


def usd(value: float | int, lang: str, decimals: int = 2) -> str:
    """US dollars in the locale's currency pattern with exactly `decimals` fraction digits."""
    pattern = parse_pattern(Locale.parse(lang).currency_formats["standard"].pattern)
    pattern.frac_prec = (decimals, decimals)
    return str(pattern.apply(Decimal(str(value)), Locale.parse(lang), currency="USD",
                             currency_digits=False))


def percent(fraction: float, lang: str, decimals: int = 1) -> str:
    """A fraction (0.123) as a percentage in the locale ("12.3%", "12,3 %")."""
    pattern = parse_pattern(Locale.parse(lang).percent_formats[None].pattern)
    pattern.frac_prec = (decimals, decimals)
    return str(pattern.apply(Decimal(str(fraction)), Locale.parse(lang)))


def date(value: datetime.date | str, lang: str) -> str:
    """A date in the locale's medium format (Dec 1, 2025 / 2025/12/01 / 1 dic 2025)."""
    if isinstance(value, str):
        value = datetime.date.fromisoformat(value)
    return babel_format_date(value, format="medium", locale=lang)
