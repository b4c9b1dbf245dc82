"""calc.display.numbers follows CLDR for every site language, checked against Babel (build-time
dependency): symbols, patterns, rounding; plus CLDR's minimum grouping digits, which Babel does
not apply (es: 2517,5 but 12.517,5)."""

from __future__ import annotations

import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from babel import Locale
from babel.numbers import format_currency, format_decimal, format_percent
from hypothesis import given
from hypothesis import strategies as st

from calc.display import LANGS, numbers

ROOT = Path(__file__).resolve().parents[2]


def babel_number(value: float, lang: str, decimals: int) -> str:
    pattern = "#,##0" + ("." + "#" * decimals if decimals else "")
    return str(format_decimal(Decimal(str(value)), format=pattern, locale=lang))


def without_small_grouping(text: str, lang: str) -> str:
    """Babel's text with CLDR minimum grouping digits applied (es: no group in 4-digit numbers)."""
    min_grouping = int(str(numbers.locale(lang)["min_grouping_digits"]))
    group = str(Locale.parse(lang).number_symbols["latn"]["group"])
    match = re.search(r"\d[\d.,]*", text)
    whole = match.group(0).split(str(numbers.locale(lang)["decimal"]))[0] if match else ""
    digits = whole.replace(group, "")
    if min_grouping > 1 and len(digits) < 3 + min_grouping:
        return text.replace(group, "", 1) if group in whole else text
    return text


def test_languages_are_the_mkdocs_languages() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import gen_cldr

    assert list(LANGS) == gen_cldr.languages()
    assert LANGS[0] == "en"


def test_generated_cldr_table_is_current() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_cldr.py"), "--check"],
                            cwd=ROOT, capture_output=True, check=False)
    assert result.returncode == 0, "calc/display/cldr.py is stale: run scripts/gen_cldr.py"


@pytest.mark.parametrize("lang", LANGS)
@given(value=st.floats(min_value=-1e13, max_value=1e13, allow_nan=False, allow_infinity=False),
       decimals=st.integers(min_value=0, max_value=4))
def test_numbers_match_babel(lang: str, value: float, decimals: int) -> None:
    expected = without_small_grouping(babel_number(value, lang, decimals), lang)
    if expected in ("-0",):
        expected = "0"
    assert numbers.number(value, lang, decimals) == expected


@pytest.mark.parametrize("lang", LANGS)
@given(value=st.floats(min_value=0, max_value=1e7, allow_nan=False))
def test_usd_matches_babel(lang: str, value: float) -> None:
    expected = str(format_currency(Decimal(str(value)), "USD", locale=lang))
    assert numbers.usd(value, lang, 2) == without_small_grouping(expected, lang)


@pytest.mark.parametrize("lang", LANGS)
@given(value=st.floats(min_value=0, max_value=10, allow_nan=False))
def test_percent_matches_babel(lang: str, value: float) -> None:
    expected = str(format_percent(Decimal(str(value)), locale=lang))  # no fraction digits
    assert numbers.percent(value, lang, 0) == without_small_grouping(expected, lang)


@pytest.mark.parametrize(("value", "decimals", "text"), [
    (2517.3, 1, "2517,3"),       # 4 digits: no group (CLDR es minimumGroupingDigits = 2)
    (12517.3, 1, "12.517,3"),    # 5 digits: grouped with "."
    (1234567, 0, "1.234.567"),
    (0.5, 2, "0,5"),
    (-1234.5, 1, "-1234,5"),
])
def test_spanish_follows_cldr_es(value: float, decimals: int, text: str) -> None:
    assert numbers.number(value, "es", decimals) == text


def test_spanish_percent_and_currency() -> None:
    assert numbers.percent(0.123, "es", 1) == "12,3\u00a0%"
    assert numbers.usd(2517.5, "es") == "2517,50\u00a0US$"
    assert numbers.usd(12517.5, "es") == "12.517,50\u00a0US$"
    assert numbers.percent(0.123, "en", 1) == "12.3%"
    assert numbers.usd(2517.5, "en") == "$2,517.50"
    assert numbers.number(2517.5, "ja", 1) == "2,517.5"
