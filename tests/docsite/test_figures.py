"""Figures in the rendered reference tables equal the data (instances, prices) in every language."""

from __future__ import annotations

import datetime

import pytest
from babel.dates import format_date
from babel.numbers import format_currency
from site_html import LANGS, parse, table_rows

import calc.api
import calc.data

pytestmark = pytest.mark.site

INSTANCE_FIELDS = ("chip_count", "vcpu", "host_memory_gib", "accelerator_memory_gib",
                   "accelerator_memory_gb", "network_gbps")


def _page(built_site, lang, name):
    return built_site.site_dir / ("" if lang == "en" else lang) / "reference" / name / "index.html"


def _cells_by_row(page):
    by_row: dict[int, dict[str, str]] = {}
    for cell in parse(page).cells:
        by_row.setdefault(int(cell["row"]), {})[cell["field"]] = cell["value"]
    return by_row


@pytest.mark.parametrize("lang", LANGS)
def test_instance_tables_equal_data(built_site, lang):
    page = _page(built_site, lang, "instances")
    rows = table_rows(page)
    cells = _cells_by_row(page)
    checked = 0
    for record in calc.data.records("instances"):
        # the family table row (first match) of this instance; table_rows counts <tr> like cells
        index = next(i for i, row in enumerate(rows) if row and row[0] == record["id"])
        shown = cells[index + 1]
        for field in INSTANCE_FIELDS:
            if field in record:
                assert float(shown[field]) == float(record[field]), (record["id"], field)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("lang", LANGS)
def test_price_list_equals_data_and_calc(built_site, lang):
    page = _page(built_site, lang, "prices")
    rows = table_rows(page)
    cells = _cells_by_row(page)
    data_rows = [i for i, row in enumerate(rows) if row and not row[0].startswith(("Instance",
                                                                                   "インスタンス",
                                                                                   "Instancia"))]
    records = calc.data.records("prices")
    assert len(data_rows) == len(records)
    for index, record in zip(data_rows, records, strict=True):
        assert rows[index][0] == record["instance"]
        assert rows[index][1] == record["region"]
        shown = cells.get(index + 1, {})
        if "usd_per_hour" not in record:
            assert "usd_per_hour" not in shown
            continue
        assert float(shown["usd_per_hour"]) == record["usd_per_hour"]
        quote = calc.api.run({"schema_version": 1, "kind": "price", "params": {
            "instance": record["instance"], "region": record["region"],
            "price_kind": record.get("kind", "on-demand")}})["result"]
        for field in ("usd_per_chip_hour", "usd_per_gib_hour", "usd_per_bf16_pflop_hour"):
            if quote[field] is not None:
                assert float(shown[field]) == pytest.approx(quote[field], rel=1e-12), field


def _unit(lang, key):
    return calc.data.i18n(lang, "site")["unit"][key]


@pytest.mark.parametrize("lang", LANGS)
def test_acceptance_examples_on_instances_page(built_site, lang):
    """inf2.48xlarge with its accelerator memory; trn1.32xlarge with its price, region and date."""
    page = _page(built_site, lang, "instances")
    rows: dict[str, list[str]] = {}
    for row in table_rows(page):  # the family tables come first, then the comparison
        if row:
            rows.setdefault(row[0], row)
    inf2 = calc.data.record("instances", "inf2.48xlarge")
    assert inf2 is not None
    memory_text = f"{inf2['accelerator_memory_gib']} {_unit(lang, 'gib')}"  # cells: nbsp → space
    assert memory_text in rows["inf2.48xlarge"]
    price = next(p for p in calc.data.records("prices") if p["instance"] == "trn1.32xlarge"
                 and p["region"] == "us-east-1" and p["kind"] == "on-demand")
    as_of: datetime.date = price["as_of"]
    money = " ".join(format_currency(price["usd_per_hour"], "USD", locale=lang).split())
    cell = next(c for c in rows["trn1.32xlarge"] if money in c)
    assert "us-east-1" in cell
    assert format_date(as_of, format="medium", locale=lang) in cell


def test_japanese_page_example_figures(built_site):
    """The issue's example, read literally from the Japanese page."""
    rows: dict[str, list[str]] = {}
    for row in table_rows(_page(built_site, "ja", "instances")):
        if row:
            rows.setdefault(row[0], row)
    assert "384 GiB" in rows["inf2.48xlarge"]
    assert any(c.startswith("$21.50/時間 (us-east-1、") for c in rows["trn1.32xlarge"])


@pytest.mark.parametrize("lang", LANGS)
def test_sources_page_has_an_anchor_per_source(built_site, lang):
    ids = parse(_page(built_site, lang, "sources")).ids
    missing = [s["id"] for s in calc.data.records("sources") if s["id"] not in ids]
    assert missing == []


@pytest.mark.parametrize("lang", LANGS)
def test_glossary_page_lists_every_term_in_its_language(built_site, lang):
    rows = {row[0]: row[1] for row in table_rows(_page(built_site, lang, "glossary"))
            if len(row) == 2}
    for term in calc.data.records("glossary"):
        assert " ".join(str(term[lang]).split()) == rows[term["abbr"]]
