"""One figure from data → text in the page language, with its unit, or "not published" + reason."""

from __future__ import annotations

import datetime
import html
from functools import cache
from typing import Any

from . import data, formatting, units


# Text of a number with its unit, in the page language ("384 GiB", "$21.50/h"); the same figures
# recur in many tables and in three languages, so the text is cached
@cache
def with_unit(value: float | int, field: str, lang: str) -> str:
    labels = data.labels(lang)["unit"]
    if units.is_money(field):
        decimals = 2 if abs(value) >= 0.1 or value == 0 else 4
        suffix_key = units.MONEY_FIELDS[field.split(".", 1)[0]]
        return formatting.usd(value, lang, decimals) + (labels[suffix_key] if suffix_key else "")
    key = units.unit_key(field)
    text = formatting.number(value, lang)
    return f"{text}\u00a0{labels[key]}" if key else text


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


# "not published" in the page language, plus the reason the data gives
def not_published(reason: str, lang: str) -> str:
    label = data.labels(lang)["text"]["not_published"]
    if not reason:
        return f'<span class="nfg-missing">{label}</span>'
    escaped = html.escape(reason)
    return (f'<span class="nfg-missing" title="{escaped}">{label}</span>'
            f' <small class="nfg-missing-reason">({escaped})</small>')


# A table cell for record[field]: formatted text wrapped with data-field/data-value for tests
def cell(record: data.Record, field: str, lang: str) -> str:
    value = data.field(record, field)
    if value is None:
        reason = data.missing_reason(record, field)
        head, dot, _ = field.partition(".")
        if not reason and dot and isinstance(record.get(head), dict):
            return str(data.labels(lang)["text"]["not_applicable"])  # dtype not in the table
        return not_published(reason, lang)
    text = html.escape(display(value, field, lang))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f'<span data-field="{field}" data-value="{value}">{text}</span>'
    return text


# A computed value (from calc) as a cell, with the same data attributes
def computed_cell(value: float | int | None, field: str, lang: str, reason: str = "") -> str:
    if value is None:
        if not reason:
            return str(data.labels(lang)["text"]["not_applicable"])
        return not_published(reason, lang)
    text = html.escape(with_unit(value, field, lang))
    return f'<span data-field="{field}" data-value="{value}">{text}</span>'
