"""Share links with a pin or a repeated input, in the three languages (QA pass A, items 2 and 4):
- a link with a valid pin restores the pinned column and names nothing as ignored;
- a pin that cannot be restored is announced (the presenter's pin_invalid note in the page
  language), no pinned column appears (never the default setup) and the link keeps its pin;
- an input given twice in the link is refused next to its field (given_twice, localized label,
  both values), no number is shown, and the address keeps both values until the reader edits it.
Expected text comes from calc.display.present in CPython."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_expect import default_raw, presented, query_values
from test_calculators import page_url, set_input, shown_fields, wait_state
from test_trust_page import wait_results
from ux_helpers import ux_page_fixture  # noqa: F401 - the `ux_page` fixture (desktop)

from calc.display import LANGS, present

pytestmark = pytest.mark.browser


def ready(page: Any) -> None:
    assert wait_state(page, "ready", "failed") == "ready", page.inner_text(".nfg-calc__status")


def computed_once(page: Any) -> None:
    """The worker answered at least once (notes and errors are from the live presenter)."""
    page.wait_for_function(
        "() => Number(document.querySelector('.nfg-calc').dataset.computed || 0) > 0",
        timeout=60_000)
    wait_results(page, "live", "error", timeout=60_000)


def notes(page: Any) -> list[tuple[str, str]]:
    return [tuple(n) for n in page.eval_on_selector_all(
        ".nfg-calc__notes li", "els => els.map(e => [e.dataset.note, e.textContent])")]


def pin_box_shown(page: Any) -> bool:
    return bool(page.evaluate(
        "() => { const b = document.querySelector('.nfg-calc__pin'); return !!b && !b.hidden; }"))


def all_query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


@pytest.mark.parametrize("lang", LANGS)
def test_pin_links(browser_site: Any, ux_page: Any, lang: str) -> None:
    # 1. a real pin link: restored, and "pin" is not called ignored
    page = ux_page(page_url(browser_site.base_url, lang, "memory"))
    ready(page)
    page.click(".nfg-calc__pin-button")
    page.wait_for_function("() => new URLSearchParams(location.search).has('pin')")
    set_input(page, "batch", "4")
    page.wait_for_function("() => new URLSearchParams(location.search).get('batch') === '4'",
                           timeout=30_000)
    link = page.url
    other = ux_page(link)
    ready(other)
    other.wait_for_selector(".nfg-calc__pin:not([hidden]) tbody tr", timeout=30_000)
    computed_once(other)
    assert notes(other) == [(n["key"], n["text"])
                            for n in presented("memory", {**query_values(link)}, lang)["notes"]]
    assert not [n for n in notes(other) if n[0] in ("ignored", "pin_invalid")], notes(other)
    # 2. pins that cannot be restored: announced, nothing pinned, the link keeps its pin
    for pin in ("garbage", "batch=abc"):
        query = {"batch": "4", "pin": pin}
        url = page_url(browser_site.base_url, lang, "memory",
                       "?batch=4&pin=" + pin.replace("=", "%3D"))
        bad = ux_page(url)
        ready(bad)
        computed_once(bad)
        expected = present({"calculator": "memory", "values": {"batch": "4"},
                            "link": {"pin": [pin]}}, lang)
        want = [(n["key"], n["text"]) for n in expected["notes"]]
        bad.wait_for_function(
            "() => !!document.querySelector('.nfg-calc__notes li[data-note=\"pin_invalid\"]')",
            timeout=30_000)
        assert notes(bad) == want, (pin, notes(bad), want)
        assert any(k == "pin_invalid" for k, _ in want)
        bad.wait_for_timeout(500)  # the pinned column would have appeared by now
        assert not pin_box_shown(bad), pin
        assert query_values(bad.url)["pin"] == query["pin"]
        # the current numbers are the link's own
        assert shown_fields(bad) == {o["field"]: o["value"] for o in presented(
            "memory", {**default_raw("memory"), "batch": "4"}, lang)["outputs"]}
        assert not bad.errors, bad.errors
    assert not page.errors and not other.errors, (page.errors, other.errors)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("name", "field", "first", "second", "fixed"), [
    ("memory", "batch", "2", "4", "3"),
    ("price", "hours", "730", "1", "100"),
])
def test_an_input_given_twice_is_refused(browser_site: Any, ux_page: Any, lang: str,
                                         name: str, field: str, first: str, second: str,
                                         fixed: str) -> None:
    page = ux_page(page_url(browser_site.base_url, lang, name,
                                  f"?{field}={first}&{field}={second}"))
    ready(page)
    computed_once(page)
    assert wait_results(page, "error") == "error"
    expected = present({"calculator": name, "values": {field: first},
                        "link": {"twice": {field: [first, second]}}}, lang)
    message = next(e["message"] for e in expected["errors"] if e["field"] == field)
    shown = page.inner_text(f'.nfg-calc [data-input="{field}"] .nfg-calc__error').strip()
    assert shown == message
    assert all(v is None for v in shown_fields(page).values())  # no number for either value
    page.wait_for_timeout(400)  # past the address update
    assert all_query(page.url)[field] == [first, second]  # a copied link says the same
    # the reader types the value meant: one value, computed and live
    set_input(page, field, fixed)
    page.wait_for_function(
        "([f, v]) => new URLSearchParams(location.search).getAll(f).join() === v",
        arg=[field, fixed], timeout=30_000)
    assert wait_results(page, "live") == "live"
    assert shown_fields(page) == {o["field"]: o["value"] for o in presented(
        name, {**default_raw(name), field: fixed}, lang)["outputs"]}
    assert not page.errors, page.errors


@pytest.mark.parametrize("lang", LANGS)
def test_a_secondary_request_refused_keeps_its_last_good_outputs(browser_site: Any,
                                                                 ux_page: Any,
                                                                 lang: str) -> None:
    # (QA pass A, item 6) price, Training mode: instances 0 is refused by the run request only;
    # its cost and time turned into "—" while the other outputs kept their last good values
    page = ux_page(page_url(browser_site.base_url, lang, "price", "?mode=training"))
    ready(page)
    computed_once(page)
    before = shown_fields(page)
    assert before.get("cost_usd") and before.get("time_s"), before
    set_input(page, "count", "0")
    assert wait_results(page, "error") == "error"
    page.wait_for_function(
        "() => document.querySelector('.nfg-calc [data-input=\"count\"] .nfg-calc__error')"
        ".textContent.trim() !== ''", timeout=30_000)
    assert shown_fields(page) == before


def pin_column(page: Any, column: str) -> dict[str, str]:
    """{output field: text} of the pin table's "pinned" or "current" column."""
    return dict(page.eval_on_selector_all(
        ".nfg-calc__pin tbody tr[data-field]",
        "(rows, cls) => rows.map(r => [r.dataset.field, r.querySelector(cls).textContent])",
        f".nfg-calc__pin-{column}"))


def pinned_texts(page: Any) -> dict[str, str]:
    return pin_column(page, "pinned")


def test_the_pin_button_pins_only_numbers_that_answer_the_inputs(browser_site: Any,
                                                                 ux_page: Any) -> None:
    """It pinned the last good result, struck-through numbers of other inputs included; and the
    pinned table's current column was shown plain while the results were struck through."""
    page = ux_page(page_url(browser_site.base_url, "es", "memory"))
    ready(page)
    button = ".nfg-calc__pin-button"
    set_input(page, "batch", "abc")
    wait_results(page, "error")
    assert page.is_disabled(button)
    set_input(page, "batch", "4")
    wait_results(page, "live")
    assert not page.is_disabled(button)
    page.click(button)
    page.wait_for_selector(".nfg-calc__pin:not([hidden]) tbody tr", timeout=10_000)
    want = {o["field"]: o["text"] for o in presented(
        "memory", {**default_raw("memory"), "batch": "4"}, "es")["outputs"]}
    assert pinned_texts(page) == want
    set_input(page, "batch", "x")
    wait_results(page, "error")
    lines = page.eval_on_selector_all(
        ".nfg-calc__pin-current", "els => els.map(e => getComputedStyle(e).textDecorationLine)")
    assert lines and all("line-through" in line for line in lines), lines
    assert not page.is_disabled(button)   # unpinning stays possible
    assert not page.errors, page.errors


DROP_FIRST_PIN_RESTORE = """
window.__nfgCalcTimeouts = {requestMs: 6000, pingEveryMs: 1000, pongMs: 5000};
window.__nfgDropped = 0;
const nfgSend = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message, ...rest) {
  const request = message && message.type === "present" && message.request;
  if (!window.__nfgDropped && request && Array.isArray(request.unknown)
      && request.unknown.includes("batch")) {   // the pin's restore request: never answered
    window.__nfgDropped = 1;
    return undefined;
  }
  return nfgSend.call(this, message, ...rest);
};
"""


def test_a_pin_restore_cut_off_by_a_worker_restart_is_done_after_it(browser_site: Any,
                                                                    ux_page: Any) -> None:
    """The restore request of a link's pin is lost when the worker restarts (here it is never
    answered, so it times out and the worker restarts): the pin was dropped without a word; it
    is now restored once the worker is ready again."""
    page = ux_page("about:blank")
    page.context.add_init_script(DROP_FIRST_PIN_RESTORE)
    page.goto(page_url(browser_site.base_url, "ja", "memory", "?batch=2&pin=batch%3D4"),
              wait_until="domcontentloaded")
    page.wait_for_selector('.nfg-calc[data-restarts="1"]', state="attached", timeout=90_000)
    assert page.evaluate("() => window.__nfgDropped") == 1
    page.wait_for_selector(".nfg-calc__pin:not([hidden]) tbody tr", timeout=60_000)
    want = {o["field"]: o["text"] for o in presented(
        "memory", {**default_raw("memory"), "batch": "4"}, "ja")["outputs"]}
    assert pinned_texts(page) == want
    assert query_values("?" + query_values(page.url)["pin"])["batch"] == "4"
    assert not [n for n in notes(page) if n[0] == "pin_invalid"]
