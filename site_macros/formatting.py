"""Locale-aware formatting of figures with Babel (numbers, USD, percent, dates).

Formatting only: no arithmetic on the figures beyond rounding for display. Babel patterns are
parsed once per (locale, precision) and cached; a build formats thousands of cells.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from functools import cache

from babel import Locale
from babel.dates import format_date as babel_format_date
from babel.numbers import NumberPattern, parse_pattern

LANGS = ("en", "ja", "es")


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


# A Babel pattern with exactly `min_decimals`..`max_decimals` fraction digits
@cache
def _pattern(lang: str, kind: str, min_decimals: int, max_decimals: int) -> NumberPattern:
    locale = _locale(lang)
    source = {"decimal": locale.decimal_formats[None], "currency":
              locale.currency_formats["standard"], "percent": locale.percent_formats[None]}[kind]
    pattern = parse_pattern(source.pattern)
    pattern.frac_prec = (min_decimals, max_decimals)
    return pattern


def auto_decimals(value: float | int) -> int:
    """Fraction digits that keep a figure readable: none for integers and values ≥ 100,
    otherwise about three significant digits."""
    magnitude = abs(value)
    if float(value).is_integer() or magnitude >= 100:
        return 0
    digits = 1
    while magnitude * 10**digits < 100 and digits < 8:
        digits += 1
    return digits


def number(value: float | int, lang: str, decimals: int | None = None) -> str:
    """A number with the locale's grouping and decimal separators (up to `decimals` digits)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a figure")
    digits = auto_decimals(value) if decimals is None else decimals
    return str(_pattern(lang, "decimal", 0, digits).apply(Decimal(str(value)), _locale(lang)))


def usd(value: float | int, lang: str, decimals: int = 2) -> str:
    """US dollars in the locale's currency pattern with exactly `decimals` fraction digits."""
    pattern = _pattern(lang, "currency", decimals, decimals)
    return str(pattern.apply(Decimal(str(value)), _locale(lang), currency="USD",
                             currency_digits=False))


def percent(fraction: float, lang: str, decimals: int = 1) -> str:
    """A fraction (0.123) as a percentage in the locale ("12.3%", "12,3 %")."""
    return str(_pattern(lang, "percent", decimals, decimals).apply(Decimal(str(fraction)),
                                                                    _locale(lang)))


def date(value: datetime.date | str, lang: str) -> str:
    """A date in the locale's medium format (Dec 1, 2025 / 2025/12/01 / 1 dic 2025)."""
    if isinstance(value, str):
        value = datetime.date.fromisoformat(value)
    return str(babel_format_date(value, format="medium", locale=_locale(lang)))
