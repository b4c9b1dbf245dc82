"""The one number parser for typed inputs (calc.display.parse): each language's own writing is
read exactly; ambiguous or malformed text is refused with a typed error, never reinterpreted."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calc.display import LANGS, numbers, parse_number
from calc.errors import CalcError


@pytest.mark.parametrize(("lang", "text", "value"), [
    ("en", "10,000,000,000", 10_000_000_000),
    ("en", "10,000", 10_000),          # never 10
    ("en", "1.5e9", 1_500_000_000),
    ("en", "10B", 10_000_000_000),
    ("en", "10M", 10_000_000),
    ("en", "10K", 10_000),
    ("en", "0.75", 0.75),
    ("en", " 4096 ", 4096),
    ("ja", "１０，０００", 10_000),      # full-width digits and comma
    ("ja", "１.５e９", 1_500_000_000),
    ("ja", "15億", 1_500_000_000),
    ("ja", "3万", 30_000),
    ("es", "10.000.000.000", 10_000_000_000),
    ("es", "1,5", 1.5),
    ("es", "1,5e9", 1_500_000_000),
    ("es", "12 345", 12_345),
    ("es", "1.000,5", 1000.5),
    ("es", "10M", 10_000_000),
])
def test_reads_the_page_language(lang: str, text: str, value: float) -> None:
    parsed = parse_number(text, lang, "x")
    assert parsed == value
    assert type(parsed) is type(value)


@pytest.mark.parametrize(("lang", "text", "key"), [
    ("en", "1 5", "number_ambiguous"),
    ("en", "1.500", "number_ambiguous"),    # 1.5, or 1500 written the European way?
    ("es", "1.500", "number_ambiguous"),    # es does not group 4 digits: 1,5 or 1500?
    ("es", "10B", "number_ambiguous"),      # billón = 10^12 in Spanish
    ("en", "1,2,3", "number_malformed"),
    ("en", "abc", "number_malformed"),
    ("en", "1e", "number_malformed"),
    ("en", "1.2.3", "number_malformed"),
    ("en", "10KM", "number_malformed"),
    ("es", "1,5,0", "number_malformed"),
])
def test_refuses_ambiguous_and_malformed_text(lang: str, text: str, key: str) -> None:
    with pytest.raises(CalcError) as info:
        parse_number(text, lang, "tokens")
    assert (info.value.field, info.value.key) == ("tokens", key)
    assert text.strip()[:10] in str(info.value)


@pytest.mark.parametrize(("lang", "text", "example"), [
    ("en", "10,5", "10.5"),     # a decimal comma: refused, not 105 or 10.5
    ("es", "1.5", "1,5"),       # a decimal point: refused, not 15
])
def test_refuses_the_other_decimal_sign(lang: str, text: str, example: str) -> None:
    # (QA pass E, item 7) refused as before, now saying which decimal sign the page uses
    with pytest.raises(CalcError) as info:
        parse_number(text, lang, "tokens")
    assert (info.value.field, info.value.key) == ("tokens", "number_decimal_sign")
    assert info.value.params["value"] == text and info.value.params["example"] == example


@pytest.mark.parametrize("lang", LANGS)
@given(value=st.integers(min_value=0, max_value=10**15))
def test_formatted_integers_read_back(lang: str, value: int) -> None:
    assert parse_number(numbers.number(value, lang, 0), lang) == value


@pytest.mark.parametrize("lang", LANGS)
@given(value=st.decimals(min_value=0, max_value=10**9, places=3, allow_nan=False))
def test_formatted_decimals_read_back(lang: str, value: object) -> None:
    text = numbers.number(float(str(value)), lang, 3)
    if lang == "es" and "." in text and len(text.split(",")[0].replace(".", "")) == 4:
        pytest.skip("unreachable: es never groups 4 digits")
    decimal = re.escape(str(numbers.locale(lang)["decimal"]))
    if re.fullmatch(rf"[1-9]\d{{0,2}}{decimal}\d{{3}}", text):
        # es "12,345": the English thousands form too (QA pass A item 3), and en/ja "12.345" the
        # European one (QA pass E item 7): refused, not read as 12.345
        with pytest.raises(CalcError) as info:
            parse_number(text, lang)
        assert info.value.key == "number_ambiguous"
        return
    assert parse_number(text, lang) == pytest.approx(float(str(value)), rel=1e-12)

