"""Issue 9 on the calculator pages, in all three languages: a setup that does not fit shows no
speed or cost (outputs, exports) but the verdict, the reason and suggestions that fill the form;
the dtype select offers what the instance has; the TP objective; no stale numbers while inputs
change during loading or computing; typed numbers parsed per page language or refused next to
the field. Expected text comes from calc.display.present in CPython (the worker runs the same)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from browser_expect import default_raw, presented
from test_calculators import page_url, set_input, shown_fields, wait_mounted, wait_state

from calc import display
from calc.display import calculators, trust

pytestmark = pytest.mark.browser

LANGS = display.LANGS
NO_FIT = {"model": "llama-3.1-70b", "instance": "inf2.xlarge", "batch": "32"}

# hold every message the page sends to the worker (a worker that is computing for ever)
HOLD_WORKER_JS = """() => {
  const w = window.__nfgCalcBoot.worker;
  w.__held = [];
  w.__post = w.postMessage;
  w.postMessage = (m) => { w.__held.push(m); };
}"""
RELEASE_WORKER_JS = """() => {
  const w = window.__nfgCalcBoot.worker;
  w.postMessage = w.__post;
  for (const m of w.__held.splice(0)) w.postMessage(m);
}"""


def results_state(page: Any) -> str:
    return str(page.get_attribute(".nfg-calc", "data-results"))


def wait_results(page: Any, *states: str, timeout: int = 30_000) -> str:
    selector = ", ".join(f'.nfg-calc[data-results="{s}"]' for s in states)
    page.wait_for_selector(selector, state="attached", timeout=timeout)
    return results_state(page)


def download(page: Any, action: str) -> str:
    with page.expect_download(timeout=10_000) as info:
        page.click(f'.nfg-calc [data-action="{action}"]')
    return Path(info.value.path()).read_text(encoding="utf-8")


def form_values(page: Any) -> dict[str, str]:
    return dict(page.eval_on_selector_all(
        ".nfg-calc__form [name]", "els => els.map(e => [e.name, e.value.trim()])"))


@pytest.mark.parametrize("lang", LANGS)
def test_no_fit_shows_verdict_not_speed_or_cost(browser_site: Any, open_page: Any,
                                                lang: str) -> None:
    raw = {**default_raw("performance"), **NO_FIT}
    expected = presented("performance", raw, lang)
    assert expected["verdict"] is not None  # the setup really does not fit (CPython)
    probe = open_page(page_url(browser_site.base_url, lang, "performance",
                               "?" + urlencode(NO_FIT)))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    assert wait_results(page, "live", "error") == "live"
    verdict = page.locator(".nfg-calc__verdict")
    assert verdict.is_visible()
    assert page.inner_text(".nfg-calc__verdict-text") == expected["verdict"]["text"]
    assert page.inner_text(".nfg-calc__verdict-reason") == (expected["verdict"]["reason"] or "")
    shown = shown_fields(page)
    for field in trust.SPEED_COST_FIELDS & set(shown):
        assert shown[field] is None, (field, shown[field])  # no speed, no cost
        text = page.inner_text(f'.nfg-calc [data-field="{field}"]')
        assert text == trust.text(lang, "not_shown_no_fit")
    # exports: no speed or cost either
    rows = list(csv.reader(io.StringIO(download(page, "export-csv"))))
    results = {r[1]: r[2] for r in rows[1:] if r[0] == "result"}
    assert all(results[f] == "" for f in trust.SPEED_COST_FIELDS & set(results))
    body = json.loads(download(page, "export-json"))
    main = body["responses"]["main"]["result"]
    assert all(main.get(f) is None for f in trust.SPEED_COST_FIELDS)
    # suggestions: one link each, as the presenter made them; the first fills the form
    links = page.locator(".nfg-calc__suggestions a")
    assert links.count() == len(expected["verdict"]["suggestions"])
    if expected["verdict"]["suggestions"]:
        first = expected["verdict"]["suggestions"][0]
        assert links.nth(0).inner_text() == first["text"]
        computed = int(page.get_attribute(".nfg-calc", "data-computed") or 0)
        links.nth(0).click()
        page.wait_for_function(
            "n => Number(document.querySelector('.nfg-calc').dataset.computed) > n",
            arg=computed, timeout=30_000)
        values = form_values(page)
        assert all(values[k] == v for k, v in first["values"].items()), values
        assert wait_results(page, "live") == "live"
        assert not page.locator(".nfg-calc__verdict").is_visible()
    assert not probe.console_errors, probe.console_errors


@pytest.mark.parametrize("lang", LANGS)
def test_dtype_select_offers_what_the_instance_has(browser_site: Any, open_page: Any,
                                                   lang: str) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, "memory"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    for instance in ("g4dn.xlarge", "trn1.32xlarge"):
        set_input(page, "instance", instance)
        page.wait_for_function(
            "v => new URLSearchParams(location.search).get('instance') === v", arg=instance,
            timeout=30_000)
        wait_results(page, "live")
        expected = presented("memory", {**default_raw("memory"), "instance": instance}, lang)
        options = page.eval_on_selector_all(
            '.nfg-calc [name="dtype"] option', "els => els.map(e => [e.value, e.textContent])")
        assert [list(o) for o in options] == [[c["value"], c["label"]]
                                              for c in expected["choices"]["dtype"]]
        notes = {n["key"]: n["text"] for n in expected["notes"]}
        if "dtypes" in notes:  # the engine says which types the hardware has: the page says why
            assert page.inner_text('.nfg-calc [data-note="dtypes"]') == notes["dtypes"]
    assert not probe.console_errors, probe.console_errors


@pytest.mark.skipif(not calculators.HAS_OBJECTIVE, reason="engine without the objective param")
@pytest.mark.parametrize("lang", LANGS)
def test_objective_select_and_tp_reason(browser_site: Any, open_page: Any, lang: str) -> None:
    for name, default in (("performance", "latency"), ("price", "cost")):
        probe = open_page(page_url(browser_site.base_url, lang, name))
        page = probe.page
        assert page.input_value('.nfg-calc [name="objective"]') == default
        assert wait_state(page, "ready", "failed") == "ready"
        raw = {**default_raw(name), "instance": "trn1.32xlarge", "model": "llama-3.1-70b"}
        for field in ("model", "instance"):
            set_input(page, field, raw[field])
        page.wait_for_function(
            "() => new URLSearchParams(location.search).get('model') === 'llama-3.1-70b'",
            timeout=30_000)
        wait_results(page, "live")
        notes = {n["key"]: n["text"] for n in presented(name, raw, lang)["notes"]}
        for key in ("tp_reason", "tp_other_objective"):
            if key in notes:
                assert page.inner_text(f'.nfg-calc [data-note="{key}"]') == notes[key]
        assert "tp_reason" in notes
        assert not probe.console_errors, probe.console_errors


@pytest.mark.parametrize("lang", LANGS)
def test_no_stale_numbers(browser_site: Any, open_page: Any, lang: str) -> None:
    # (a) a shared link during loading: never the defaults' numbers
    link = {"batch": "4", "seq_len": "2048"}
    probe = open_page(page_url(browser_site.base_url, lang, "memory", "?" + urlencode(link)))
    page = probe.page
    wait_mounted(page)
    if page.get_attribute(".nfg-calc", "data-state") != "ready":
        assert results_state(page) == "cleared"
        assert all(v is None for v in shown_fields(page).values())
    assert wait_state(page, "ready", "failed") == "ready"
    assert wait_results(page, "live") == "live"
    expected = presented("memory", {**default_raw("memory"), **link}, lang)
    assert shown_fields(page) == {o["field"]: o["value"] for o in expected["outputs"]}

    # (b) inputs change while the worker computes: old values struck through, then the new ones
    page.evaluate(HOLD_WORKER_JS)
    set_input(page, "batch", "2")
    assert results_state(page) == "updating"
    decoration = page.eval_on_selector('.nfg-calc [data-field="total_bytes"]',
                                       "e => getComputedStyle(e).textDecorationLine")
    assert "line-through" in decoration
    # (c) a new instance clears what no longer applies
    set_input(page, "instance", "trn1.32xlarge")
    assert results_state(page) == "cleared"
    assert all(v is None for v in shown_fields(page).values())
    page.evaluate(RELEASE_WORKER_JS)
    assert wait_results(page, "live") == "live"
    raw = {**default_raw("memory"), **link, "batch": "2", "instance": "trn1.32xlarge"}
    expected = presented("memory", raw, lang)
    assert shown_fields(page) == {o["field"]: o["value"] for o in expected["outputs"]}
    assert not probe.console_errors, probe.console_errors


# typed numbers per page language: (field, text, parsed value or None = refused)
TYPED: dict[str, list[tuple[str, str, int | None]]] = {
    "en": [("hours", "10,000", 10_000), ("tokens", "10B", 10**10),
           ("tokens", "10,000,000,000", 10**10), ("hours", "10,5", None)],
    "ja": [("hours", "１０，０００", 10_000), ("tokens", "100億", 10**10),
           ("tokens", "1.5e9", 1_500_000_000)],
    "es": [("hours", "10.000", 10_000), ("tokens", "10.000.000.000", 10**10),
           ("tokens", "10B", None), ("hours", "1.500", None)],
}


@pytest.mark.parametrize("lang", LANGS)
def test_typed_numbers_per_language(browser_site: Any, open_page: Any, lang: str) -> None:
    # training mode: the token count field is shown (serving, the default, hides it)
    probe = open_page(page_url(browser_site.base_url, lang, "price", "?mode=training"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    assert page.is_visible('.nfg-calc [name="tokens"]')
    for field, text, value in TYPED[lang]:
        set_input(page, field, text)
        page.wait_for_function(
            "([f, v]) => new URLSearchParams(location.search).get(f) === v", arg=[field, text],
            timeout=30_000)
        wait_results(page, "live", "error")
        raw = {**form_values(page), field: text}
        expected = presented("price", raw, lang)
        error = page.inner_text(f'.nfg-calc [data-input="{field}"] .nfg-calc__error').strip()
        if value is None:
            messages = [e["message"] for e in expected["errors"] if e["field"] == field]
            assert messages and error == messages[0], (text, error)
            assert results_state(page) == "error"
        else:
            assert error == "", (text, error)
            assert results_state(page) == "live"
            assert expected["export_values"][field] == text
            shown = shown_fields(page)
            assert shown == {o["field"]: o["value"] for o in expected["outputs"]}
        set_input(page, field, default_raw("price")[field])
        page.wait_for_function(
            "([f, v]) => new URLSearchParams(location.search).get(f) === v",
            arg=[field, default_raw("price")[field]], timeout=30_000)
    assert not probe.console_errors, probe.console_errors
