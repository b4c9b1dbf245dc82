"""Typed numbers from text in a page language: the one parser for calculator inputs.

Accepts the locale's own writing and refuses what could be read two ways; it never guesses.
- en, ja: "10,000,000,000", "10000", "1.5", "1.5e9", "10B" / "10M" / "10K" (SI-style short
  scales: K = 10^3, M = 10^6, B = 10^9, T = 10^12); ja also full-width digits and 万 (10^4),
  億 (10^8), 兆 (10^12).
- es: "10.000.000.000", "10000", "1,5", "1,5e9", "10K", "10M" (M = millón); "B" and "T" are
  refused (billón is 10^12 in Spanish, 10^9 in English).
Ambiguous or malformed text raises CalcError(field, "number_ambiguous" | "number_malformed").
en "10,000" is 10000, never 10. The other convention's decimal sign is refused, never silently
reinterpreted: where it cannot be a group sign (es "1.5", "4096.5", "0.0001", "0.500", "1.5k";
en "10,5", "0,5"; not followed by exactly three digits after 1-3 digits with no leading zero) it
raises "number_decimal_sign" (the message says which decimal sign the page uses, with the text
rewritten so); where it can (es "1.500": es does not group 4 digits) it is "number_ambiguous".
So is a decimal sign of the page followed by exactly three digits after 1-3 digits (no leading
zero) with no group sign: es "10,000" and en/ja "1.000", "12.345" (the other convention's
thousands form too), while es "1,5", "1,25", "0,125", "1,2345" and "1.000,500" and en "1.5",
"0.001", "1.0000", "1,000.500" read one way only.
"""

import re
import unicodedata
from decimal import Decimal, InvalidOperation

from ..errors import CalcError
from .numbers import locale

SCALES: dict[str, dict[str, int]] = {
    "en": {"k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12},
    "ja": {"k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12, "万": 10**4, "億": 10**8,
           "兆": 10**12},
    "es": {"k": 10**3, "m": 10**6},
}
AMBIGUOUS_SCALES: dict[str, frozenset[str]] = {"es": frozenset({"b", "t"})}
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009]+")
_SUFFIX = re.compile(r"^(?P<body>.*?)(?P<suffix>[A-Za-z万億兆])$")
_EXPONENT = re.compile(r"^(?P<body>.*?)[eE](?P<exp>[+-]?\d{1,3})$")
# a decimal sign that could be the other convention's group sign: es "10,000", en "1.000"
# (never "0,125", "0.125", "1.000,500", "1,000.500")
_THOUSANDS_FORM = {sign: re.compile(r"[1-9]\d{0,2}" + re.escape(sign) + r"\d{3}")
                   for sign in ",."}


def _rewritten(raw: str, group: str, decimal: str) -> str:
    """The text with the other convention's decimal sign written the page's way ("4096.5" ->
    "4096,5" in es), as the reader would type it (NFKC: full-width digits as ASCII)."""
    return unicodedata.normalize("NFKC", raw).strip().replace(group, decimal)[:40]


def _mantissa(body: str, decimal: str, group: str, min_grouping: int, field: str,
              raw: str, spaced: bool = False) -> Decimal:
    """Digits with the locale's group and decimal signs as a Decimal (`spaced`: the group
    signs of `body` were typed as spaces)."""
    params = {"value": raw[:40]}
    if not body or body.count(decimal) > 1:
        raise CalcError(field, "number_malformed", params)
    thousands = _THOUSANDS_FORM.get(decimal)
    if thousands is not None and thousands.fullmatch(body):
        # "10,000" in es: ten in Spanish, ten thousand written the English way; "1.000" in
        # en/ja: one, or a thousand written the European way
        raise CalcError(field, "number_ambiguous", params)
    whole, _, fraction = body.partition(decimal)
    if group in fraction:
        raise CalcError(field, "number_malformed", params)
    if group in whole:
        parts = whole.split(group)
        # a first group has 1-3 digits and no leading zero ("0,500" is no thousands form)
        grouped = (1 <= len(parts[0]) <= 3 and parts[0].isdigit() and parts[0][0] != "0"
                   and all(len(p) == 3 and p.isdigit() for p in parts[1:]))
        if not grouped:
            single = len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit() and not fraction
            if single and not spaced:
                # "10,5" in en / "4096.5", "0.0001" in es: not a group sign, so the other
                # convention's decimal sign: said so, with the text written the page's way
                raise CalcError(field, "number_decimal_sign", {
                    **params, "example": _rewritten(raw, group, decimal)})
            # "1 5": a space between digits that are no group
            raise CalcError(field, "number_ambiguous" if single else "number_malformed", params)
        if len(parts) == 2 and len(whole) - 1 < 3 + min_grouping and not fraction:
            # es does not group 4-digit numbers: "1.500" could be 1,5 written the English way
            raise CalcError(field, "number_ambiguous", params)
        whole = "".join(parts)
    if not (whole.isdigit() or (whole == "" and fraction)) or (fraction and not fraction.isdigit()):
        raise CalcError(field, "number_malformed", params)
    return Decimal(f"{whole or '0'}.{fraction or '0'}")


def parse_number(text: str, lang: str, field: str = "value") -> int | float:
    """The number written in `text` in language `lang`: an int when it is whole, else a float."""
    raw = str(text)
    data = locale(lang)
    decimal, group = str(data["decimal"]), str(data["group"])
    cleaned = unicodedata.normalize("NFKC", raw)
    cleaned = cleaned.strip().replace("\u2212", "-")
    cleaned = re.sub(r"[\s\u00a0\u202f\u2009]+(?=[A-Za-z万億兆]$)", "", cleaned)
    cleaned = re.sub(r"^([+-])[\s\u00a0\u202f\u2009]+", r"\1", cleaned)
    spaced = bool(_SPACES.search(cleaned))
    cleaned = _SPACES.sub(group, cleaned)  # "12 345": a space groups digits like the group sign
    params = {"value": raw[:40]}
    if not cleaned:
        raise CalcError(field, "missing_field")
    sign = -1 if cleaned.startswith("-") else 1
    if cleaned[0] in "+-":
        cleaned = cleaned[1:]
    multiplier = Decimal(1)
    suffix = _SUFFIX.match(cleaned)
    if suffix and not _EXPONENT.match(cleaned):
        key = suffix["suffix"].lower()
        if key in AMBIGUOUS_SCALES.get(lang, frozenset()):
            raise CalcError(field, "number_ambiguous", params)
        scales = SCALES.get(lang, SCALES["en"])
        if key not in scales:
            raise CalcError(field, "number_malformed", params)
        multiplier = Decimal(scales[key])
        cleaned = suffix["body"]
    exponent = _EXPONENT.match(cleaned)
    if exponent:
        if multiplier != 1:
            raise CalcError(field, "number_malformed", params)
        multiplier = Decimal(10) ** int(exponent["exp"])
        cleaned = exponent["body"]
    try:
        value = _mantissa(cleaned, decimal, group, int(str(data["min_grouping_digits"])), field,
                          raw, spaced) * multiplier * sign
    except InvalidOperation:
        raise CalcError(field, "number_malformed", params) from None
    if value == value.to_integral_value():
        return int(value)
    return float(value)
