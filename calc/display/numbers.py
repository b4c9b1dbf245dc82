"""Numbers, percentages and US dollars as text in a site language, following CLDR.

The CLDR data (symbols, patterns, minimum grouping digits) comes from calc/display/cldr.py,
generated from Babel by scripts/gen_cldr.py; the output equals Babel's (tested) except that the
minimum grouping digits of CLDR apply (es: "2517", but "12.517"). Rounding is half-even on the
decimal text of the value, as Babel does.
"""

import re
from decimal import ROUND_HALF_EVEN, Decimal
from functools import cache, lru_cache

from .cldr import LOCALES

LANGS: tuple[str, ...] = tuple(LOCALES)
DEFAULT_LANG = LANGS[0]
_CORE = re.compile(r"[#0,.]+")


def locale(lang: str) -> dict[str, object]:
    """The CLDR entry of `lang` (the default language for an unknown one)."""
    return LOCALES.get(lang, LOCALES[DEFAULT_LANG])


@cache
def _affixes(lang: str, kind: str) -> tuple[str, str]:
    """(prefix, suffix) around the digits of the locale's `kind` pattern, symbols filled in."""
    data = locale(lang)
    pattern = str(data[f"{kind}_pattern"]).split(";")[0]
    match = _CORE.search(pattern)
    if match is None:  # pragma: no cover - CLDR patterns always have digits
        raise ValueError(f"no digits in pattern {pattern!r}")
    fill = {"%": str(data["percent_sign"]), "¤": str(data["usd_symbol"])}

    def sub(text: str) -> str:
        return "".join(fill.get(char, char) for char in text.replace("'", ""))

    return sub(pattern[: match.start()]), sub(pattern[match.end():])


@lru_cache(maxsize=8192)  # a table repeats its figures (prices, degrees, batches) in every row
def _digits(value: float | int | Decimal, lang: str, min_decimals: int, max_decimals: int) -> str:
    """The digits of value, rounded half-even to max_decimals, at least min_decimals shown.
    Equal values give equal text whatever their type (1, 1.0 and Decimal("1.00") alike), so
    the cache may answer one with another's text."""
    decimal, group, min_grouping = _symbols(lang)
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    rounded = number.quantize(_quantum(max_decimals), rounding=ROUND_HALF_EVEN)
    negative = rounded < 0
    text = f"{abs(rounded):f}"
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if len(fraction) < min_decimals:
        fraction = fraction.ljust(min_decimals, "0")
    if len(whole) >= 3 + min_grouping:
        groups: list[str] = []
        while len(whole) > 3:
            groups.insert(0, whole[-3:])
            whole = whole[:-3]
        whole = group.join([whole, *groups])
    body = whole + (decimal + fraction if fraction else "")
    if negative and body.strip("0.,") != "":
        return "-" + body
    return body


@cache
def _symbols(lang: str) -> tuple[str, str, int]:
    """(decimal sign, group sign, minimum grouping digits) of the locale."""
    data = locale(lang)
    return str(data["decimal"]), str(data["group"]), int(str(data["min_grouping_digits"]))


@cache
def _quantum(decimals: int) -> Decimal:
    return Decimal(1).scaleb(-decimals)


def _sign_split(text: str) -> tuple[str, str]:
    return ("-", text[1:]) if text.startswith("-") else ("", text)


def number(value: float | int, lang: str, max_decimals: int = 3, min_decimals: int = 0) -> str:
    """A plain number ("12,345.5", "12.345,5", "2517,5" in es)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    sign, body = _sign_split(_digits(value, lang, min_decimals, max_decimals))
    minus = str(locale(lang)["minus"]) if sign else ""
    return minus + body


def percent(fraction: float, lang: str, decimals: int = 1) -> str:
    """A fraction (0.123) as a percentage ("12.3%", "12,3 %" with a no-break space in es)."""
    scaled = Decimal(str(fraction)) * 100
    sign, body = _sign_split(_digits(scaled, lang, decimals, decimals))
    prefix, suffix = _affixes(lang, "percent")
    return (str(locale(lang)["minus"]) if sign else "") + prefix + body + suffix


def usd(value: float | int, lang: str, decimals: int = 2) -> str:
    """US dollars with exactly `decimals` fraction digits ("$1,234.50", "1234,50 US$")."""
    sign, body = _sign_split(_digits(value, lang, decimals, decimals))
    prefix, suffix = _affixes(lang, "currency")
    return (str(locale(lang)["minus"]) if sign else "") + prefix + body + suffix


def auto_decimals(value: float | int) -> int:
    """Fraction digits that keep a figure readable: none for integers and values >= 100,
    otherwise about three significant digits."""
    magnitude = abs(value)
    if float(value).is_integer() or magnitude >= 100:
        return 0
    digits = 1
    while magnitude * 10**digits < 100 and digits < 8:
        digits += 1
    return digits
