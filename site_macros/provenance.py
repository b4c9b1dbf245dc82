"""Where a figure comes from, shown on the page (issue 13): inferred values (†, with their
derivation), values on which sources disagree (‡, with the other value and its sources),
"up to" / "over" qualifiers, TP degrees only some sources list (*), the SDK support matrix and
the list of records whose data is more than a year old.

Data conventions (ARCHITECTURE.md §1): `inferred = [fields]` + `inferred_how = {field = text}`
(and `inferred_how_ja`, `inferred_how_es`); `<name>_alt` (+ `_alt_ja`, `_alt_es`,
`_alt_sources`), where `<name>` is the field or the field without its unit suffix;
`<field>_up_to = true`, `<field>_over = true`; `tp_degrees_flagged` + `tp_degrees_flagged_note`.
"""

from __future__ import annotations

import datetime
import html
import os
from functools import cache
from typing import Any

import calc.data
from calc import freshness
from calc.display import data_text

from . import data, markdown, page, units, values

ALT_SUFFIX = "_alt"
ALT_EXTRA_SUFFIXES = ("_alt_ja", "_alt_es", "_alt_sources")


def _text(lang: str, key: str) -> str:
    return str(data.labels(lang)["text"][key])


def localized(record: data.Record, key: str, lang: str) -> str:
    """record[key] in the page language (calc.display.data_text: `<key>_ja`, `<key>_es`)."""
    return data_text.text(record, key, lang)


def _localized_entry(record: data.Record, key: str, entry: str, lang: str) -> str:
    return data_text.text(record, f"{key}.{entry}", lang)


def inferred_field(record: data.Record, field: str) -> str | None:
    """The entry of `inferred` that covers `field` (the field, or its table for `table.dtype`)."""
    inferred = record.get("inferred", [])
    head = field.partition(".")[0]
    for name in (field, head):
        if name in inferred:
            return name
    return None


def alt_name(record: data.Record, field: str) -> str | None:
    """The `<name>` of a `<name>_alt` that is about `field`: the field itself, the field without
    its unit suffix (memory_bandwidth_alt → memory_bandwidth_tb_per_s), or the table of a dtype."""
    head = field.partition(".")[0]
    if f"{head}{ALT_SUFFIX}" in record:
        return head
    for suffix, _ in units.SUFFIX_UNITS:
        if head.endswith(suffix) and f"{head.removesuffix(suffix)}{ALT_SUFFIX}" in record:
            return head.removesuffix(suffix)
    return None


def _mark(css: str, symbol: str, title: str) -> str:
    return f'<sup class="nfg-mark {css}" title="{html.escape(title, quote=True)}">{symbol}</sup>'


def decorate(record: data.Record, field: str, text: str, lang: str) -> str:
    """`text` (already HTML-safe) with its qualifier ("up to") and provenance marks."""
    head = field.partition(".")[0]
    if record.get(f"{head}_up_to") is True:
        text = _text(lang, "up_to").format(value=text)
    elif record.get(f"{head}_over") is True:
        text = _text(lang, "over").format(value=text)
    marks = ""
    inferred = inferred_field(record, field)
    if inferred:
        how = _localized_entry(record, "inferred_how", inferred, lang)
        title = _text(lang, "inferred_mark") + (f": {how}" if how else "")
        marks += _mark("nfg-inferred", "†", title)
    name = alt_name(record, field)
    if name:
        marks += _mark("nfg-alt", "‡", f"{_text(lang, 'alt_mark')}: "
                       f"{localized(record, name + ALT_SUFFIX, lang)}")
    if head == "tp_degrees" and record.get("tp_degrees_flagged"):
        flagged = ", ".join(str(d) for d in record["tp_degrees_flagged"])
        marks += _mark("nfg-flagged", "*", f"{_text(lang, 'flagged_mark')} ({flagged}): "
                       f"{localized(record, 'tp_degrees_flagged_note', lang)}")
    return text + marks


# ---------------------------------------------------------------- tables

PROVENANCE_FILES = ("chips", "cores", "instances")


def _shown(record: data.Record, field: str, lang: str) -> str:
    """A field's value as text; a per-dtype table entry by entry, each with its own unit."""
    value = record[field]
    if isinstance(value, dict):
        return html.escape(", ".join(f"{key}: {values.display(item, f'{field}.{key}', lang)}"
                                     for key, item in value.items()))
    return values.cell(record, field, lang)


def _record_name(file: str, record: data.Record) -> str:
    return markdown.code(str(record.get("id", "")))


def _field_cell(field: str) -> str:
    return markdown.code(field)


def inferred_values_table(env: Any) -> str:
    """Every inferred value with how it was derived, in the page language."""
    lang = page.lang(env)
    headers = [data.labels(lang)["header"][k]
               for k in ("record", "field", "value_used", "derivation", "sources")]
    rows = []
    for file in PROVENANCE_FILES:
        for rec in data.records(file):
            for field in rec.get("inferred", []):
                shown = _shown(rec, field, lang)
                rows.append([_record_name(file, rec), _field_cell(field), shown,
                             values.data_string(rec, f"inferred_how.{field}", lang),
                             _source_links(env, rec["sources"])])
    return markdown.table(headers, rows)


def _alt_names(record: data.Record) -> list[str]:
    return [key.removesuffix(ALT_SUFFIX) for key in record
            if key.endswith(ALT_SUFFIX) and not key.endswith(ALT_EXTRA_SUFFIXES)]


def _used_field(record: data.Record, name: str) -> str | None:
    if name in record:
        return name
    for suffix, _ in units.SUFFIX_UNITS:
        if name + suffix in record:
            return name + suffix
    return None


def source_conflicts_table(env: Any) -> str:
    """Every figure on which two sources disagree: the value the calculators use, the other
    source's value, and the sources of both."""
    lang = page.lang(env)
    headers = [data.labels(lang)["header"][k]
               for k in ("record", "field", "value_used", "other_value", "sources")]
    rows = []
    for file in PROVENANCE_FILES:
        for rec in data.records(file):
            for name in _alt_names(rec):
                used = _used_field(rec, name)
                shown = (_shown(rec, used, lang) if used is not None
                         else data.labels(lang)["text"]["not_applicable"])
                sources = list(rec.get(f"{name}{ALT_SUFFIX}_sources") or rec["sources"])
                rows.append([_record_name(file, rec), _field_cell(used or name), shown,
                             values.data_string(rec, name + ALT_SUFFIX, lang),
                             _source_links(env, sources)])
    return markdown.table(headers, rows)


def _source_links(env: Any, source_ids: list[str]) -> str:
    from .tables import source_links  # tables imports values, which imports this module
    return source_links(env, source_ids)


def build_date() -> datetime.date:
    """The day of the build (SOURCE_DATE_EPOCH when set, for reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.datetime.fromtimestamp(int(epoch), datetime.UTC).date()
    return datetime.date.today()


def stale_records_table(env: Any) -> str:
    """Records whose newest supporting source is more than a year older than the build."""
    lang = page.lang(env)
    headers = [data.labels(lang)["header"][k]
               for k in ("record", "record_as_of", "sources")]
    rows = []
    for rec in freshness.stale_records(build_date()):
        date = (html.escape(values.display(rec.as_of, "as_of", lang)) if rec.as_of
                else data.labels(lang)["text"]["not_published"])
        rows.append([f"{markdown.code(rec.file)} {markdown.code(rec.record_id)}", date,
                     _source_links(env, list(rec.sources))])
    return markdown.table(headers, rows)


def stale_records_count(env: Any) -> str:
    """How many records the stale table lists, as a number in the page language."""
    return values.display(len(freshness.stale_records(build_date())), "", page.lang(env))


def freshness_build_date(env: Any) -> str:
    return values.display(build_date(), "as_of", page.lang(env))


@cache
def support_matrix() -> dict[str, Any]:
    return calc.data.document("support_matrix.toml")  # texts in every language (calc.data_lang)


def _status(cell: str, lang: str) -> str:
    status, _, sdk = cell.partition(":")
    label = str(support_matrix()["status"][status][lang]).format(sdk=sdk)
    css = f"nfg-support nfg-support--{html.escape(status)}"
    return f'<span class="{css}">{html.escape(label)}</span>'


def support_matrix_table(env: Any) -> str:
    """Framework or library × instance family at one Neuron SDK version
    (data/support_matrix.toml)."""
    lang = page.lang(env)
    matrix = support_matrix()
    header = data.labels(lang)["header"]
    families = list(matrix["families"])
    headers = [header["component"], *(f.capitalize() for f in families), header["note"],
               header["sources"]]
    rows = [[values.data_string(row, "component", lang),
             *(_status(row["cells"][f], lang) for f in families),
             values.data_string(row, "note", lang), _source_links(env, row["sources"])]
            for row in matrix["row"]]
    return markdown.table(headers, rows)


def support_matrix_as_of(env: Any) -> str:
    """"Neuron <version>, <date>" of the support matrix, in the page language's pattern."""
    matrix = support_matrix()
    lang = page.lang(env)
    return _text(lang, "sdk_as_of").format(
        sdk=matrix["sdk"], date=values.display(matrix["as_of"], "as_of", lang))


def register(env: Any) -> None:
    def block(render: Any) -> Any:
        return lambda *args, **kwargs: markdown.stash(env, render(env, *args, **kwargs))

    for name, render in {"inferred_values_table": inferred_values_table,
                         "source_conflicts_table": source_conflicts_table,
                         "stale_records_table": stale_records_table,
                         "support_matrix_table": support_matrix_table}.items():
        env.macro(block(render), name)
    env.macro(lambda: stale_records_count(env), "stale_records_count")
    env.macro(lambda: freshness_build_date(env), "freshness_build_date")
    env.macro(lambda: support_matrix_as_of(env), "support_matrix_as_of")
