"""Issue 17 on the calculator pages, in all three languages: request ids, timeouts and a
liveness check (a killed or stalled worker is restarted once, then the page says so and offers a
retry); numbers never labelled live unless they answer the inputs on screen; huge and non-finite
numbers refused next to the field; share links (a hypothesis generator of links) always end in
"ready" or "failed" with the ignored parts named; a slow start-up fails with a retry button
instead of hanging; exports hold only validated values, formula-like cells neutralised."""

from __future__ import annotations

import csv
import io
import json
import time
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from browser_expect import default_raw, presented
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_calculators import page_url, set_input, shown_fields, wait_mounted, wait_state
from test_trust_page import download, form_values, results_state, wait_results

from calc import data, display
from calc.display import calculators, present

pytestmark = pytest.mark.browser

LANGS = display.LANGS
FAST_TIMEOUTS = ("window.__nfgCalcTimeouts = {pingEveryMs: 500, pongMs: 2000, "
                 "requestMs: 15000, startupIdleMs: 40000};")
STALL_WORKER_JS = "() => { window.__nfgCalcBoot.worker.postMessage = () => {}; }"


def open_fast(open_page: Any, url: str) -> Any:
    probe = open_page()
    probe.page.context.add_init_script(FAST_TIMEOUTS)
    probe.page.goto(url, wait_until="domcontentloaded")
    return probe


def status(lang: str) -> dict[str, str]:
    return dict(data.i18n(lang, "calculators")["status"])


@pytest.mark.parametrize("lang", LANGS)
def test_killed_then_stalled_worker_restarts_once_then_says_so(browser_site: Any,
                                                               open_page: Any,
                                                               lang: str) -> None:
    probe = open_fast(open_page, page_url(browser_site.base_url, lang, "memory"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    assert wait_results(page, "live", timeout=60_000) == "live"
    # 1. kill the worker: the liveness check notices, the page restarts it and goes live again
    page.evaluate("() => window.__nfgCalcBoot.worker.terminate()")
    page.wait_for_selector('.nfg-calc[data-restarts="1"]', state="attached", timeout=60_000)
    state = wait_state(page, "ready", "failed")
    assert state == "ready", page.get_attribute(".nfg-calc", "data-stage")
    set_input(page, "batch", "3")
    assert wait_results(page, "live", timeout=30_000) == "live"
    raw = {**default_raw("memory"), "batch": "3"}
    assert shown_fields(page) == {o["field"]: o["value"]
                                  for o in presented("memory", raw, lang)["outputs"]}
    # 2. stall the new worker (it takes messages and never answers): no second restart, the
    # page says so, the numbers are not labelled live, and a retry button appears
    page.evaluate("""() => {
      const client = document.querySelector('.nfg-calc').nfgWidget.client;
      client.worker.postMessage = () => {};
    }""")
    set_input(page, "batch", "5")
    assert wait_state(page, "failed") == "failed"
    assert page.get_attribute(".nfg-calc", "data-stage") == "stuck"
    assert page.inner_text(".nfg-calc__status-text") == status(lang)["stuck"]
    assert results_state(page) != "live"
    retry = page.locator('.nfg-calc [data-action="retry"]')
    assert retry.is_visible() and retry.inner_text() == status(lang)["retry"]
    retry.click()
    assert wait_state(page, "ready", "failed") == "ready"
    assert wait_results(page, "live", timeout=30_000) == "live"
    raw = {**default_raw("memory"), "batch": "5"}
    assert shown_fields(page) == {o["field"]: o["value"]
                                  for o in presented("memory", raw, lang)["outputs"]}


@pytest.mark.parametrize("lang", LANGS)
def test_stalled_request_times_out_and_restarts(browser_site: Any, open_page: Any,
                                                lang: str) -> None:
    probe = open_fast(open_page, page_url(browser_site.base_url, lang, "price"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    assert wait_results(page, "live", timeout=60_000) == "live"
    page.evaluate(STALL_WORKER_JS)  # the boot worker stops answering
    set_input(page, "hours", "100")
    assert results_state(page) == "updating"
    page.wait_for_selector('.nfg-calc[data-restarts="1"]', state="attached", timeout=60_000)
    assert wait_state(page, "ready", "failed") == "ready"
    assert wait_results(page, "live", timeout=30_000) == "live"
    assert page.get_attribute('.nfg-calc [data-field="usd_total"]', "data-value") == next(
        o["value"] for o in presented("price", {**default_raw("price"), "hours": "100"},
                                      lang)["outputs"] if o["field"] == "usd_total")


HUGE = ("1e999", "9" * 309, "1" + "0" * 50)


@pytest.mark.parametrize("lang", LANGS)
def test_huge_numbers_are_refused_next_to_the_field(browser_site: Any, open_page: Any,
                                                    lang: str) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, "price"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    for text in HUGE:
        set_input(page, "hours", text)
        page.wait_for_function(
            "v => new URLSearchParams(location.search).get('hours') === v", arg=text,
            timeout=30_000)
        expected = presented("price", {**default_raw("price"), "hours": text}, lang)
        message = next(e["message"] for e in expected["errors"] if e["field"] == "hours")
        shown = page.inner_text('.nfg-calc [data-input="hours"] .nfg-calc__error').strip()
        assert shown == message
        assert results_state(page) == "error"
        assert page.input_value('.nfg-calc [name="hours"]') == text  # never a silent default
    assert not probe.console_errors, probe.console_errors


def _expect_link_outcome(page: Any, name: str, query: dict[str, str], lang: str) -> None:
    """The page reached ready or failed; with ready, the shown numbers and messages are the
    presenter's for the link's values (unknown ids named in errors, unknown names in a note)."""
    started = time.monotonic()
    state = wait_state(page, "ready", "failed")
    assert state in ("ready", "failed")
    if state == "failed":
        return
    outcome = wait_results(page, "live", "error", timeout=30_000)
    assert time.monotonic() - started < 90
    spec = calculators.calculator(name)
    names = {f.name for f in spec.fields}
    values = form_values(page)  # what the form holds (an input element drops line breaks)
    for key in ("model", "instance", "mode"):
        if key in query and key in names and "\n" not in query[key]:
            assert values[key] == query[key].strip(), (key, values[key])  # named, not replaced
    unknown = [k for k in dict.fromkeys(query) if k not in names]
    expected = present({"calculator": name, "values": values, "unknown": unknown}, lang)
    # live only when every input on screen was used: an error in a secondary input (the price
    # page's model, for its per-token cost) shows the main numbers, marked "error", not live
    clean = expected["ok"] and not expected["errors"]
    assert outcome == ("live" if clean else "error"), (query, expected["errors"])
    if expected["ok"]:
        assert shown_fields(page) == {o["field"]: o["value"] for o in expected["outputs"]}
    else:
        assert all(v is None for v in shown_fields(page).values()), query
    shown_errors = page.eval_on_selector_all(
        ".nfg-calc__error, .nfg-calc__form-error", "els => els.map(e => e.textContent.trim())")
    for error in expected["errors"]:
        assert error["message"] in shown_errors, (query, error, shown_errors)
    notes = page.eval_on_selector_all(".nfg-calc__notes li", "els => els.map(e => e.textContent)")
    assert notes == [n["text"] for n in expected["notes"]], query


BAD_LINKS = (
    ("memory", {"model": "gpt-9-ultra", "batch": "2"}),       # unknown model: named
    ("performance", {"instance": "trn9.huge", "batch": "2"}),  # unknown instance: named
    ("memory", {"mode": "quantum"}),                          # unknown mode: named
    ("price", {"hours": "10", "utm_source": "x", "evil": "<script>"}),  # ignored, named
    # must not hang (60,000 digits: the test server, like most, refuses request lines over 64 KiB)
    ("memory", {"seq_len": "9" * 60_000}),
)


@pytest.mark.parametrize("lang", LANGS)
def test_bad_share_links_end_ready_with_what_was_ignored(browser_site: Any, open_page: Any,
                                                         lang: str) -> None:
    for name, query in BAD_LINKS:
        probe = open_page(page_url(browser_site.base_url, lang, name, "?" + urlencode(query)))
        page = probe.page
        wait_mounted(page)
        _expect_link_outcome(page, name, query, lang)
        for key in ("model", "instance"):
            if key in query:  # named, not replaced
                assert page.input_value(f'.nfg-calc [name="{key}"]') == query[key]
        assert not [e for e in probe.console_errors if "pageerror" in e], probe.console_errors
        probe.page.close()


FIELD_NAMES = sorted({f.name for c in calculators.CALCULATORS.values() for f in c.fields})
VALUES = st.one_of(
    st.sampled_from(["1", "0", "-3", "1e999", "10B", "1,5", "1.500", "abc", "", "=1+1",
                     "@SUM(A1)", "inf2.xlarge", "nope", "training", "9" * 400, "１０"]),
    st.text(max_size=12),
)
LINKS = st.tuples(
    st.sampled_from(sorted(calculators.CALCULATORS)),
    st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.sampled_from(["x", "utm"])),
                    VALUES, min_size=1, max_size=4),
)


@pytest.mark.parametrize("lang", LANGS)
def test_generated_share_links_end_ready_or_failed(browser_site: Any, open_page: Any,
                                                   lang: str) -> None:
    @settings(max_examples=4, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(LINKS)
    def check(link: tuple[str, dict[str, str]]) -> None:
        name, query = link
        text = "&".join(f"{quote(k)}={quote(v)}" for k, v in query.items())
        probe = open_page(page_url(browser_site.base_url, lang, name, "?" + text))
        page = probe.page
        page.on("dialog", lambda d: pytest.fail(f"a script ran: {d.message}"))
        wait_mounted(page)
        _expect_link_outcome(page, name, query, lang)
        probe.page.close()

    check()


@pytest.mark.parametrize("lang", LANGS)
def test_slow_start_fails_with_retry_then_goes_live(browser_site: Any, open_page: Any,
                                                    lang: str) -> None:
    """A start-up that makes no progress within the limit (here 3 s: the wasm request is held
    unanswered, so no byte arrives) ends in "failed" with a message and a retry button, not a
    hang; the retry (the wasm now served, the normal limit) goes live."""
    probe = open_page()
    page = probe.page
    held: list[Any] = []

    def hold(route: Any) -> None:  # never answered: no byte arrives, no progress
        held.append(route)

    page.context.route("**/pyodide.asm.wasm", hold)
    page.context.add_init_script("window.__nfgCalcTimeouts = {startupIdleMs: 3000};")
    page.goto(page_url(browser_site.base_url, lang, "memory"), wait_until="domcontentloaded")
    assert wait_state(page, "ready", "failed") == "failed"
    assert held, "the wasm request was not held"
    assert page.get_attribute(".nfg-calc", "data-stage") == "timeout"
    assert page.inner_text(".nfg-calc__status-text") == status(lang)["stuck"]
    retry = page.locator('.nfg-calc [data-action="retry"]')
    assert retry.is_visible() and retry.inner_text() == status(lang)["retry"]
    page.context.unroute("**/pyodide.asm.wasm", hold)
    page.evaluate("() => { window.__nfgCalcTimeouts.startupIdleMs = 60000; }")
    retry.click()
    assert wait_state(page, "ready", "failed") == "ready"
    assert not retry.is_visible()
    assert wait_results(page, "live", timeout=30_000) == "live"


@pytest.mark.parametrize("lang", LANGS)
def test_exports_hold_only_validated_values(browser_site: Any, open_page: Any,
                                            lang: str) -> None:
    query = {"batch": "+4", "count": '=HYPERLINK("http://evil.example","x")',
             "recipe": "@evil"}
    probe = open_page(page_url(browser_site.base_url, lang, "memory", "?" + urlencode(query)))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    assert wait_results(page, "live", "error") == "live"  # count/recipe: training mode only
    rows = list(csv.reader(io.StringIO(download(page, "export-csv"))))
    inputs = {r[1]: r[2] for r in rows[1:] if r[0] == "input"}
    assert "count" not in inputs and "recipe" not in inputs  # not used, not exported
    assert inputs["batch"] == "'+4"  # a formula-like cell is neutralised
    for row in rows[1:]:
        assert row[2][:1] not in ("=", "+", "-", "@"), row
    body = json.loads(download(page, "export-json"))
    assert "count" not in body["values"] and body["values"]["batch"] == "+4"
    raw = {**form_values(page)}
    expected = presented("memory", raw, lang)
    assert body["values"] == expected["export_values"]
