"""The calculator's inputs as each language's page would show them (issue 14: the language switch
keeps the calculator state).

The query string holds inputs as typed, in the page language (calc.display.parse reads them).
"1,500" means 1500 in English and 1.5 in Spanish, so the language switcher must not copy the text:
it takes this table, made by the presenter, and JavaScript only moves the strings into the links.
A number is written in its plain form (no group separators: "1500", "0,35" in Spanish), which
every language's parser reads as the same value; choices and text go through unchanged. A field
with an error is left out: its text can be a valid, different number in the other language
(Spanish "10,000" is refused as ambiguous, English reads 10000), so the language switcher drops
it and names it (`dropped=`, calc-widget.js carriedTo), never carries it as typed.

Link facts: what a share link says besides the form's inputs, which calc-widget.js and
calc-pin.js send to present() as the request's `link`: {"twice": {field: [every value the link
gives it]}, "pin": [every `pin=` value]} (the pin only when calc-pin.js could not restore it).
"""

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from .cldr import LOCALES
from .numbers import LANGS

MAX_PLAIN_INTEGER = 10**15


def plain_number(value: int | float, lang: str) -> str:
    """`value` as the simplest text parse_number reads back in `lang` (no group signs)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < MAX_PLAIN_INTEGER:
        return str(int(value))
    text = repr(value).replace("e+", "e")
    decimal = str(LOCALES[lang]["decimal"])
    if _THOUSANDS_FORM.match(text):
        # "12.345" is the other convention's thousands form too ("12,345" in Spanish; "12.345"
        # in English reads as 12345 in Europe), which the parser refuses as ambiguous; a fourth
        # decimal ("12.3450", "12,3450") reads one way only
        text = _THOUSANDS_FORM.sub(r"\g<0>0", text)
    return text.replace(".", decimal)


_THOUSANDS_FORM = re.compile(r"^-?[1-9]\d{0,2}\.\d{3}(?=e|$)")


def values_by_lang(values: dict[str, str], typed: dict[str, Any],
                   failed: set[str]) -> dict[str, dict[str, str]]:
    """{lang: {field: text}} for every site language; a field in `failed` (with an error) is
    left out."""
    out: dict[str, dict[str, str]] = {}
    for lang in LANGS:
        shown: dict[str, str] = {}
        for name, text in values.items():
            value = typed.get(name)
            if name in failed:
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                shown[name] = plain_number(value, lang)
            else:
                shown[name] = text
        out[lang] = shown
    return out


MAX_FACT_VALUES = 5
MAX_DROPPED = 40   # a calculator's inputs, at most
MAX_FACT_TEXT = 4000


@dataclass(frozen=True, slots=True)
class LinkFacts:
    twice: dict[str, list[str]] = field(default_factory=dict)  # field -> the values given
    pin: list[str] | None = None  # the `pin=` values calc-pin.js could not restore
    dropped: list[str] = field(default_factory=list)  # inputs the other language's page left out


def _texts(value: Any, limit: int) -> list[str] | None:
    if not isinstance(value, list) or not value:
        return None
    return [str(v)[:limit] for v in value[:MAX_FACT_VALUES]]


def link_facts(raw: Any) -> LinkFacts:
    """A request's `link` as LinkFacts (what is not in its shape is left out: the page's own
    scripts write it)."""
    if not isinstance(raw, dict):
        return LinkFacts()
    twice: dict[str, list[str]] = {}
    given = raw.get("twice")
    if isinstance(given, dict):
        for name, values in list(given.items())[:20]:
            texts = _texts(values, 40)
            if texts:
                twice[str(name)] = texts
    dropped = raw.get("dropped")
    names = [str(n)[:40] for n in dropped[:MAX_DROPPED]] if isinstance(dropped, list) else []
    return LinkFacts(twice=twice, pin=_texts(raw.get("pin"), MAX_FACT_TEXT), dropped=names)


def query_values(query: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    """A query string (a `pin=` value) as the page reads it: ({name: first value}, {name: every
    value} for the names it gives more than once)."""
    first: dict[str, str] = {}
    repeated: dict[str, list[str]] = {}
    for name, text in parse_qsl(query, keep_blank_values=True):
        if name in first:
            repeated.setdefault(name, [first[name]]).append(text)
        else:
            first[name] = text
    return first, repeated
