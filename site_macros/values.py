"""One figure from data → text in the page language, with its unit, or "not published" + reason."""

from __future__ import annotations

import datetime
import html
from functools import cache
from typing import Any

from calc.display import data_text
from calc.display import units as display_units

from . import data, formatting, provenance, units


# Text of a number with its unit, in the page language ("384 GiB", "$21.50/h"); the same figures
# recur in many tables and in three languages, so the text is cached
@cache
def with_unit(value: float | int, field: str, lang: str) -> str:
    labels = data.labels(lang)["unit"]
    if units.is_money(field):
        suffix_key = units.MONEY_FIELDS[field.split(".", 1)[0]]
        return display_units.usd_text(value, lang) + (labels[suffix_key] if suffix_key else "")
    key = units.unit_key(field)
    if key == "bytes":
        return byte_size(value, lang)
    return joined(formatting.number(value, lang), labels[key] if key else "")


# A number and its unit label: the one joining rule of calc.display.units
joined = display_units.join


BYTES_PER_MIB = 2**20
BYTES_PER_GIB = 2**30


# A byte count in the binary unit that keeps it readable: B below 1 MiB, MiB below 1 GiB, else GiB
# (display scaling only, the same powers of two as calc.units)
def byte_size(value: float | int, lang: str) -> str:
    labels = data.labels(lang)["unit"]
    if abs(value) >= BYTES_PER_GIB:
        scaled, key = value / BYTES_PER_GIB, "gib"
    elif abs(value) >= BYTES_PER_MIB:
        scaled, key = value / BYTES_PER_MIB, "mib"
    else:
        scaled, key = value, "bytes"
    return joined(formatting.number(scaled, lang), labels[key])


# An assumption's value with its unit (data/assumptions.toml `unit`) in the page language
def assumption_value(value: Any, unit: str, lang: str) -> str:
    shown = units.assumption_unit(unit)
    if not isinstance(value, int | float) or isinstance(value, bool):
        return display(value, "", lang)
    if shown == "bytes":
        return byte_size(value, lang)
    if shown == "percent":
        return formatting.percent(value, lang, formatting.auto_decimals(round(value * 100, 9)))
    return joined(formatting.number(value, lang), data.labels(lang)["unit"][shown])


# Any data value as display text (numbers with units, dates, lists, booleans, plain text)
def display(value: Any, field: str, lang: str) -> str:
    text_labels = data.labels(lang)["text"]
    if isinstance(value, bool):
        return text_labels["yes"] if value else text_labels["no"]
    if isinstance(value, int | float):
        return with_unit(value, field, lang)
    if isinstance(value, datetime.date):
        return formatting.date(value, lang)
    if isinstance(value, list):
        return ", ".join(display(item, field, lang) for item in value) or text_labels["none"]
    if isinstance(value, dict):
        return ", ".join(f"{k}: {display(v, field, lang)}" for k, v in value.items())
    return data.labels(lang).get("value", {}).get(str(value), str(value))


# Reason keys calc gives instead of a text (`price_missing_reason`, `peak_missing_reason`) are
# translated with data/i18n/<lang>/steps.toml [reason]; "not_published" adds nothing to the label
REASON_KEY_NOT_PUBLISHED = "not_published"


def _reason_text(reason: str, lang: str) -> str:
    """A calc reason key (steps.toml [reason]) in the page language; data texts come through
    `missing()` in the page language (calc.display.data_text), so no English text is shown here."""
    if not reason or reason == REASON_KEY_NOT_PUBLISHED:
        return ""
    keyed = data.reasons(lang).get(reason)
    if not keyed:
        raise KeyError(f"{reason!r} is not a reason key of steps.toml [reason]; pass data texts "
                       "through values.missing(record, field, lang)")
    return str(keyed)


# "not published" in the page language, then the reason: a calc reason key, or (reason_lang
# given) a text already in `reason_lang` (a data text without a `_ja`/`_es` sibling is "en" and
# marked with lang="en")
@cache
def not_published(reason: str, lang: str, reason_lang: str | None = None) -> str:
    label = data.labels(lang)["text"]["not_published"]
    text, text_lang = (reason, reason_lang) if reason_lang else (_reason_text(reason, lang), lang)
    if not text:
        return f'<span class="nfg-missing">{label}</span>'
    lang_attr = f' lang="{text_lang}"' if text_lang != lang else ""
    return (f'<span class="nfg-missing">{label}</span>'
            f' <small class="nfg-missing-reason"{lang_attr}>'
            f'{data.labels(lang)["text"]["missing_reason"].format(reason=html.escape(text))}'
            '</small>')


# A data text (`<field>`, `<field>_ja`, `<field>_es`; calc.display.data_text) as HTML in the page
# language; an English fallback is marked lang="en"
def data_string(record: data.Record, field: str, lang: str) -> str:
    text, text_lang = data_text.localized(record, field, lang)
    return marked(text, text_lang, lang)


def marked(text: str, text_lang: str, lang: str) -> str:
    escaped = html.escape(text)
    if text_lang == lang or not text:
        return escaped
    return f'<span lang="{text_lang}">{escaped}</span>'


# "not published" and the data's reason for record[field] (`<field>_missing`) in the page language
def missing(record: data.Record, field: str, lang: str) -> str:
    reason, reason_lang = data_text.missing(record, field, lang)
    return not_published(reason, lang, reason_lang if reason else None)


# A table cell for record[field]: formatted text wrapped with data-field/data-value for tests
def cell(record: data.Record, field: str, lang: str) -> str:
    value = data.field(record, field)
    if value is None:
        reason = data.missing_reason(record, field)
        head, dot, _ = field.partition(".")
        if not reason and dot and isinstance(record.get(head), dict):
            return str(data.labels(lang)["text"]["not_applicable"])  # dtype not in the table
        return missing(record, field, lang)
    if isinstance(value, str) and value not in data.labels(lang).get("value", {}):
        # a data text (interconnect, topology, ...) in the page language
        return provenance.decorate(record, field, data_string(record, field, lang), lang)
    text = html.escape(display(value, field, lang))
    if isinstance(value, int | float) and not isinstance(value, bool):
        text = f'<span data-field="{field}" data-value="{value}">{text}</span>'
    return provenance.decorate(record, field, text, lang)  # up to / over, †, ‡, * (issue 13)


# A computed value (from calc) as a cell, with the same data attributes
def computed_cell(value: float | int | None, field: str, lang: str, reason: str = "") -> str:
    if value is None:
        if not reason:
            return str(data.labels(lang)["text"]["not_applicable"])
        return not_published(reason, lang)
    text = html.escape(with_unit(value, field, lang))
    return f'<span data-field="{field}" data-value="{value}">{text}</span>'
