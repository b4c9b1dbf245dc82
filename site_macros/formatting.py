"""Locale-aware text of figures for the site's tables: numbers, USD and percent come from the one
formatter in calc.display.numbers (CLDR, the same the calculators use in the browser); dates
come from Babel (build time only).
"""

from __future__ import annotations

import datetime
from functools import cache

from babel import Locale
from babel.dates import format_date as babel_format_date

from calc.display import numbers as display_numbers
from calc.display.numbers import LANGS, auto_decimals

__all__ = ["LANGS", "auto_decimals", "date", "number", "percent", "usd"]


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def number(value: float | int, lang: str, decimals: int | None = None) -> str:
    """A number with the locale's grouping and decimal separators (up to `decimals` digits)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a figure")
    digits = auto_decimals(value) if decimals is None else decimals
    return display_numbers.number(value, lang, digits)


def usd(value: float | int, lang: str, decimals: int = 2) -> str:
    """US dollars in the locale's currency pattern with exactly `decimals` fraction digits."""
    return display_numbers.usd(value, lang, decimals)


def percent(fraction: float, lang: str, decimals: int = 1) -> str:
    """A fraction (0.123) as a percentage in the locale ("12.3%", "12,3 %")."""
    return display_numbers.percent(fraction, lang, decimals)


def date(value: datetime.date | str, lang: str) -> str:
    """A date in the locale's medium format (Dec 1, 2025 / 2025/12/01 / 1 dic 2025)."""
    if isinstance(value, str):
        value = datetime.date.fromisoformat(value)
    return str(babel_format_date(value, format="medium", locale=_locale(lang)))
