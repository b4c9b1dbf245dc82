"""The calculator's inputs as each language's page would show them (issue 14: the language switch
keeps the calculator state).

The query string holds inputs as typed, in the page language (calc.display.parse reads them).
"1,500" means 1500 in English and 1.5 in Spanish, so the language switcher must not copy the text:
it takes this table, made by the presenter, and JavaScript only moves the strings into the links.
A number is written in its plain form (no group separators: "1500", "0,35" in Spanish), which
every language's parser reads as the same value; choices and text go through unchanged, and a
field that did not parse is carried as typed (the other page then shows the same error).
"""

from typing import Any

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
    return text.replace(".", str(LOCALES[lang]["decimal"]))


def values_by_lang(values: dict[str, str], typed: dict[str, Any],
                   failed: set[str]) -> dict[str, dict[str, str]]:
    """{lang: {field: text}} for every site language."""
    out: dict[str, dict[str, str]] = {}
    for lang in LANGS:
        shown: dict[str, str] = {}
        for name, text in values.items():
            value = typed.get(name)
            if (name not in failed and isinstance(value, int | float)
                    and not isinstance(value, bool)):
                shown[name] = plain_number(value, lang)
            else:
                shown[name] = text
        out[lang] = shown
    return out
