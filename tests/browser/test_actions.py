"""Calculator actions and presentation in real headless Chromium: CSV / JSON export, copy link
(clipboard and the no-clipboard fallback), "show the math" formatted the same by the macro and by
the JS, the measured reference, and Material's search on a calculator page (its index is held
back until the calculator is ready, then search works)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from browser_expect import default_raw, same_value
from test_calculators import page_url, set_input, shown_fields, wait_mounted, wait_state

from calc import data, display
from calc.display import present

pytestmark = pytest.mark.browser

# One calculator per language, so each calculator and each language is covered once.
ACTION_PAGES = (("en", "memory"), ("ja", "performance"), ("es", "price"))
LANGS = display.LANGS

MATH_ROWS_JS = """
root => [...root.querySelectorAll('.nfg-calc__math tbody tr')].map(tr => {
  const cell = tr.cells[2];
  return [cell.hasAttribute('data-value') ? cell.dataset.value : null, cell.dataset.unit,
          cell.textContent];
})
"""

def _python_value(raw: str | None) -> Any:
    if raw is None:
        return None
    if raw in ("true", "false"):
        return raw == "true"
    try:
        number = float(raw)
    except ValueError:
        return raw
    return int(number) if re.fullmatch(r"-?\d+", raw) else number


def _download(page: Any, action: str) -> str:
    with page.expect_download(timeout=10_000) as info:
        page.click(f'.nfg-calc [data-action="{action}"]')
    return Path(info.value.path()).read_text(encoding="utf-8")


@pytest.mark.parametrize(("lang", "name"), ACTION_PAGES)
def test_csv_and_json_export(browser_site: Any, open_page: Any, lang: str, name: str) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, name))
    page = probe.page
    wait_mounted(page)
    shown = shown_fields(page)
    assert shown and any(v is not None for v in shown.values())

    rows = list(csv.reader(io.StringIO(_download(page, "export-csv"))))
    assert rows[0] == ["section", "name", "value", "unit"]
    results = {r[1]: r[2] for r in rows[1:] if r[0] == "result"}
    assert set(results) == set(shown)
    for field, value in shown.items():
        expected = _python_value(results[field]) if results[field] != "" else None
        assert same_value(value, expected), (field, value, results[field])
    assert any(r[0] == "derivation" for r in rows[1:])
    assert any(r[0] == "input" for r in rows[1:])

    body = json.loads(_download(page, "export-json"))
    assert body["calculator"] == name
    main = body["responses"]["main"]
    assert main["ok"] is True
    for field, value in shown.items():
        for response in body["responses"].values():
            if response.get("ok") and field in response["result"]:
                assert same_value(value, response["result"][field]), (field, value)
                break
        else:
            assert value is None, field
    assert not probe.console_errors, probe.console_errors


@pytest.mark.parametrize(("lang", "name"), ACTION_PAGES)
def test_copy_link(browser_site: Any, open_page: Any, lang: str, name: str) -> None:
    strings = data.i18n(lang, "calculators")
    probe = open_page()
    probe.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = probe.page
    page.goto(page_url(browser_site.base_url, lang, name), wait_until="domcontentloaded")
    wait_mounted(page)
    page.click('.nfg-calc [data-action="copy-link"]')
    page.wait_for_function(
        "t => document.querySelector('.nfg-calc [data-action=\"copy-link\"]').textContent === t",
        arg=strings["action"]["copied"], timeout=10_000)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.evaluate("location.href")
    assert "?" in copied and "instance=" in copied  # every input is in the link
    assert not probe.console_errors, probe.console_errors


@pytest.mark.parametrize(("lang", "name"), ACTION_PAGES)
def test_copy_link_without_clipboard_shows_the_link(browser_site: Any, open_page: Any, lang: str,
                                                     name: str) -> None:
    strings = data.i18n(lang, "calculators")
    probe = open_page()
    probe.page.context.add_init_script(
        "Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });")
    page = probe.page
    page.goto(page_url(browser_site.base_url, lang, name), wait_until="domcontentloaded")
    wait_mounted(page)
    page.click('.nfg-calc [data-action="copy-link"]')
    field = page.wait_for_selector(".nfg-calc__link", state="visible", timeout=10_000)
    assert field.input_value() == page.evaluate("location.href")
    assert "instance=" in field.input_value()
    assert field.get_attribute("aria-label") == strings["action"]["copy_link_manual"]
    assert page.evaluate("document.activeElement.className") == "nfg-calc__link"
    assert not probe.console_errors, probe.console_errors


@pytest.mark.parametrize("lang", LANGS)
def test_math_rows_are_the_presenters_text(browser_site: Any, open_page: Any, lang: str) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, "performance"))
    page = probe.page
    wait_mounted(page)
    root = page.query_selector(".nfg-calc")

    # prerendered: readable (no raw floats, no Python reprs)
    rows = root.evaluate(MATH_ROWS_JS)
    assert len(rows) >= 10
    texts = [text for _, _, text in rows]
    assert not [t for t in texts if re.search(r"\d{7,}|\d\.\d{5,}|e\+|None|True|False", t)], texts

    # after a change: the worker's rows are what calc.display.present writes in CPython
    assert wait_state(page, "ready", "failed") == "ready"
    set_input(page, "batch", "3")
    page.wait_for_function("() => new URLSearchParams(location.search).get('batch') === '3'",
                           timeout=10_000)
    rows = root.evaluate(MATH_ROWS_JS)
    assert rows and [text for _, _, text in rows] != texts
    raw = {**default_raw("performance"), "batch": "3"}
    expected = present({"calculator": "performance", "values": raw}, lang)["derivation"]
    assert [[r["value"], r["unit"], r["text"]] for r in expected] == rows
    assert not probe.console_errors, probe.console_errors


@pytest.mark.parametrize("lang", LANGS)
def test_measured_reference_is_llama_2_70b_on_inf2_tp24(browser_site: Any, open_page: Any,
                                                        lang: str) -> None:
    measurement = next(m for m in data.records("measurements")
                       if m["model"] == "llama-2-70b" and m["instance"].startswith("inf2")
                       and m["tp"] == 24)
    strings = data.i18n(lang, "calculators")["caveat"]
    intro = (strings["reference_intro"].replace("{model}", measurement["model"])
             .replace("{instance}", measurement["instance"]).replace("{tp}", "24")
             .replace("{batch}", str(measurement["batch"]))
             .replace("{sdk}", str(measurement.get("sdk", ""))))
    probe = open_page(page_url(browser_site.base_url, lang, "performance"))
    caveats = probe.page.inner_text(".nfg-calc__caveats")
    assert intro in caveats
    estimated = probe.page.eval_on_selector_all(
        ".nfg-calc__caveats tbody tr", "trs => trs.map(tr => tr.cells[2].textContent.trim())")
    assert estimated and all(e not in ("", "—") for e in estimated), estimated


def test_search_waits_for_the_calculator_then_works(browser_site: Any, open_page: Any) -> None:
    probe = open_page(page_url(browser_site.base_url, "en", "memory"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    page.wait_for_function(
        "() => performance.getEntriesByType('resource')"
        ".some(e => e.name.endsWith('/search/search_index.json'))", timeout=20_000)
    timing = page.evaluate("""() => {
      const client = document.querySelector('.nfg-calc').nfgWidget.client;
      const index = performance.getEntriesByType('resource')
        .find(e => e.name.endsWith('/search/search_index.json'));
      return { index: index.startTime,
               ready: client.readyMarks['calc-imported'] - performance.timeOrigin };
    }""")
    assert timing["index"] >= timing["ready"], timing  # held back while Pyodide started
    page.click(".md-search__input")  # desktop viewport: the search field is in the header
    page.type(".md-search__input", "Inferentia", delay=20)  # Material reacts to keys
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    assert not probe.console_errors, probe.console_errors


def test_search_on_a_calculator_page_before_ready(browser_site: Any, open_page: Any) -> None:
    """Opening search while Pyodide still loads releases the index at once."""
    probe = open_page()
    page = probe.page
    page.route("**/pyodide.asm.wasm", lambda route: None)  # never answered: stays loading
    page.goto(page_url(browser_site.base_url, "ja", "memory"), wait_until="domcontentloaded")
    wait_mounted(page)
    page.click(".md-search__input")  # desktop viewport: the search field is in the header
    page.type(".md-search__input", "Inferentia", delay=20)  # Material reacts to keys
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    assert page.get_attribute(".nfg-calc", "data-state") in ("prerendered", "loading")


def test_chart_is_drawn_when_scrolled_into_view(browser_site: Any, open_page: Any) -> None:
    probe = open_page(page_url(browser_site.base_url, "es", "memory"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    page.eval_on_selector(".nfg-calc__chart", "box => box.scrollIntoView()")
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.querySelector('.nfg-calc__chart canvas'))",
        timeout=20_000)
    assert page.is_visible(".nfg-calc__chart canvas")
    assert not probe.console_errors, probe.console_errors
