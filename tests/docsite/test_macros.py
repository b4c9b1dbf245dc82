"""Unit checks of the macros against the data, without a site build (fake page objects)."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace

import pytest

import calc.data
from site_macros import facts, markdown, page, tables, values

pytestmark = pytest.mark.site


def env_for(src_uri: str = "en/guide/memory.md", locale: str = "en") -> SimpleNamespace:
    return SimpleNamespace(page=SimpleNamespace(file=SimpleNamespace(src_uri=src_uri,
                                                                     locale=locale)))


def _unpublished_price() -> dict:
    return next(p for p in calc.data.records("prices")
                if "usd_per_hour" not in p and p["region"] == "us-east-1")


@pytest.mark.parametrize("lang", ["en", "ja", "es"])
def test_unpublished_price_says_so_with_the_reason(lang):
    record = _unpublished_price()
    text = facts.fact(env_for(locale=lang), "price", record["instance"], "usd_per_hour")
    label = calc.data.i18n(lang, "site")["text"]["not_published"]
    assert label in text
    reason = record["usd_per_hour_missing" if lang == "en" else f"usd_per_hour_missing_{lang}"]
    assert values.html.escape(reason) in text  # the reason in the page language


def test_fact_formats_a_published_figure_with_its_unit():
    chip = next(c for c in calc.data.records("chips") if "memory_gib" in c)
    text = facts.fact(env_for(), "chip", chip["id"], "memory_gib")
    assert text == f"{chip['memory_gib']:,}\u00a0GiB"


def test_fact_rejects_unknown_kinds_and_fields():
    with pytest.raises(facts.UnknownFactError):
        facts.fact(env_for(), "planet", "x", "y")
    chip = calc.data.records("chips")[0]["id"]
    with pytest.raises(facts.UnknownFactError):
        facts.fact(env_for(), "chip", chip, "no_such_field")


def test_cite_links_to_the_sources_page_relative_to_the_page():
    source = calc.data.records("sources")[0]["id"]
    assert facts.cite(env_for("ja/guide/memory.md", "ja"), source) == (
        f"[[{source}]](../reference/sources.md#{source})")
    assert facts.cite(env_for("en/index.md"), source).endswith(f"(reference/sources.md#{source})")
    with pytest.raises(KeyError):
        facts.cite(env_for(), "no-such-source")


def test_table_urls_are_relative_directory_urls():
    assert page.url_to(env_for("es/reference/instances.md", "es"), "reference/sources/") == (
        "../sources/")
    assert page.url_to(env_for("en/index.md"), "reference/sources/") == "reference/sources/"


def test_instances_table_carries_the_data_values():
    env = env_for("ja/reference/instances.md", "ja")
    family = tables.families()[0]
    html = tables.instances_table(env, family)
    members = [r for r in calc.data.records("instances") if r["family"] == family]
    shown = re.findall(r'data-field="chip_count" data-value="([^"]+)"', html)
    assert [float(v) for v in shown] == [float(r["chip_count"]) for r in members]


def test_table_macro_leaves_a_marker_and_keeps_the_html_on_the_page():
    env = env_for()
    marker = markdown.stash(env, "<table><tr><td>x</td></tr></table>")
    key = re.search(r"nfg-block:([0-9a-f]{16})", marker)
    assert key and env.page.nfg_blocks[key.group(1)].startswith("<table>")


def test_html_blocks_hook_swaps_markers_and_registers_anchors():
    from hooks import html_blocks

    env = env_for()
    table = '<table><tr><td><span id="src-a">a</span></td><td>b &amp; c</td></tr></table>'
    marker = markdown.stash(env, table)
    env.page.present_anchor_ids = set()
    out = html_blocks.on_page_content(f"<p>x</p>{marker.strip()}", env.page, None, None)
    # what the search plugin indexes: the table's words, not its tags
    assert "<td>" not in out and "a b &amp; c" in out and "nfg-block" not in out
    assert "src-a" in env.page.present_anchor_ids
    env.page.content = out
    html_blocks.on_page_context({}, env.page, None, None)
    assert env.page.content == f"<p>x</p>{table}"
    with pytest.raises(html_blocks.MissingBlockError):
        html_blocks.on_page_content("<!-- nfg-block:0123456789abcdef -->",
                                    SimpleNamespace(nfg_blocks={"x": "y"},
                                                    file=SimpleNamespace(src_uri="p.md")),
                                    None, None)


@pytest.mark.parametrize("lang", ["en", "ja", "es"])
def test_measurements_table_shows_a_training_rows_layout_speed_and_release(lang):
    """A training row's TP degree, dtype, framework and release are columns of the measurements
    table like a serving row's (the how-it-works page sends readers there for the release), and
    its tokens/s has its own column; the serving-only columns say "not applicable", and a serving
    row's training column too."""
    not_applicable = calc.data.i18n(lang, "site")["text"]["not_applicable"]
    headers = [column.header for column in tables.MEASUREMENT_COLUMNS]
    rows = calc.data.records("measurements")
    training = [r for r in rows if r.get("kind") == "training"]
    assert training
    for record in training:
        cells = dict(zip(headers, tables._measurement_cells(record, lang), strict=True))
        assert f'data-value="{record["tp"]}"' in cells["tp"]
        assert f'data-value="{record["tokens_per_s"]}"' in cells["training_tokens_per_s"]
        assert html.escape(record["sdk"]) in cells["sdk"]
        assert html.escape(record["framework"]) in cells["framework"]
        assert html.escape(record["dtype"]) in cells["dtype"]
        for header in ("batch", "input_len", "output_len", "ttft", "tpot", "output_tokens_per_s"):
            assert cells[header] == not_applicable
    serving = next(r for r in rows if "kind" not in r and "tpot_s" in r)
    cells = dict(zip(headers, tables._measurement_cells(serving, lang), strict=True))
    assert cells["training_tokens_per_s"] == not_applicable
    assert f'data-value="{serving["tpot_s"]}"' in cells["tpot"]
