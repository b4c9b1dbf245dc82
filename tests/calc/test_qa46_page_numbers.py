"""QA pass E item 7: how each page language reads a dot or a comma in a typed number.

- es: a dot that cannot be a thousands separator (not followed by exactly three digits after
  1-3 digits with no leading zero) is said to be a decimal point, which Spanish writes as a
  comma, with the text rewritten so; never "can be read two ways".
- en/ja: "1.000" (a non-zero group of 1-3 digits, a dot, exactly three digits) was read as 1,
  silently; it is the European thousands form too, so refused as ambiguous like es "10,000".
"""

from __future__ import annotations

import pytest

from calc.display import LANGS, lang_state, parse_number, present
from calc.errors import CalcError


def _refusal(text: str, lang: str) -> CalcError:
    with pytest.raises(CalcError) as info:
        parse_number(text, lang, "seq_len")
    return info.value


@pytest.mark.parametrize(("text", "example"), [
    ("0.0001", "0,0001"), ("4096.5", "4096,5"), ("1.5k", "1,5k"), ("0.500", "0,500"),
    ("4096.500", "4096,500"), ("1.5e3", "1,5e3"),
])
def test_es_a_dot_that_is_no_group_sign_is_a_decimal_point(text: str, example: str) -> None:
    error = _refusal(text, "es")
    assert error.key == "number_decimal_sign"
    assert error.params["example"] == example
    shown = present({"calculator": "memory", "values": {"seq_len": text}}, "es")
    (message,) = [e["message"] for e in shown["errors"] if e["field"] == "seq_len"]
    assert "coma" in message and example in message and "dos lecturas" not in message


@pytest.mark.parametrize("text", ["1.500", "12.3"])
def test_es_the_other_forms_keep_their_reading(text: str) -> None:
    # "1.500": es does not group 4 digits, so 1,5 or 1500 (ambiguous); "12.3": decimal point
    assert _refusal(text, "es").key == ("number_ambiguous" if text == "1.500"
                                        else "number_decimal_sign")
    assert parse_number("12.345", "es") == 12_345 and parse_number("1,5", "es") == 1.5


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("text", ["1.000", "12.345", "999.125", "1.000k", "1.500e3", "-1.000"])
def test_en_ja_a_dot_then_three_digits_is_ambiguous(lang: str, text: str) -> None:
    assert _refusal(text, lang).key == "number_ambiguous"


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(("text", "value"), [
    ("1.5", 1.5), ("0.001", 0.001), ("0.125", 0.125), ("1.0000", 1), ("1,000.500", 1000.5),
    ("1,000", 1000), ("1000.5", 1000.5), ("12.3456", 12.3456),
])
def test_en_ja_one_reading_forms_are_read(lang: str, text: str, value: float) -> None:
    assert parse_number(text, lang) == pytest.approx(value)


def test_en_the_page_shows_the_ambiguity_message() -> None:
    shown = present({"calculator": "memory", "values": {"seq_len": "1.000"}}, "en")
    assert [(e["field"], e["key"]) for e in shown["errors"]] == [("seq_len", "number_ambiguous")]
    assert not shown["ok"]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_en_ja_a_decimal_comma_is_said_so(lang: str) -> None:
    error = _refusal("0,5", lang)
    assert (error.key, error.params["example"]) == ("number_decimal_sign", "0.5")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("value", [1.125, 12.345, 999.5, 1.234e20, 0.001])
def test_the_language_switcher_writes_what_each_page_reads(lang: str, value: float) -> None:
    text = lang_state.plain_number(value, lang)
    assert parse_number(text, lang) == value
