"""Views beside the widget's outputs follow data-results too (QA report F3, F8, F2):
- F3: the advisor's options table, Pareto chart, count and links are struck through (the chart
  dimmed) while the results do not answer the inputs (updating, error, stale), and shown not at
  all while the widget has removed its numbers (cleared) or a link's own inputs were never
  answered: a share link with an error never shows the prerendered defaults' options;
- F8: the pin table's current column compares the pinned inputs with the inputs on screen and is
  struck through (input rows too) when the results do not answer them; with the numbers removed
  it shows none of another setup;
- F2: a `pin=` the page refused is not carried to the other language's page.
Expected text comes from calc.display.present in CPython."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from browser_expect import presented, query_values
from test_calculators import page_url, set_input
from test_links_pins import pin_column, ready
from test_trust_page import wait_results
from ux_helpers import ux_page_fixture  # noqa: F401 - the `ux_page` fixture (desktop)

from calc.display import present

pytestmark = pytest.mark.browser

ROWS = ".nfg-adv__table tbody tr"
# the computed text-decoration line of every element matching a selector
LINES_JS = "els => els.map(e => getComputedStyle(e).textDecorationLine)"


def computed_once(page: Any) -> None:
    page.wait_for_function(
        "() => Number(document.querySelector('.nfg-calc').dataset.computed || 0) > 0",
        timeout=60_000)


def struck(page: Any, selector: str) -> list[bool]:
    return ["line-through" in line for line in page.eval_on_selector_all(selector, LINES_JS)]


def shown_rows(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(ROWS, "els => els.map(e => e.dataset.row)"))


def visible(page: Any, selector: str) -> bool:
    """Shown to the reader: displayed and not visibility:hidden (CSS), with a size."""
    return bool(page.eval_on_selector(selector, """el => {
      const box = el.getBoundingClientRect();
      return getComputedStyle(el).visibility !== 'hidden' && box.width > 0 && box.height > 0;
    }"""))


def row_texts(page: Any) -> list[dict[str, str]]:
    return list(page.eval_on_selector_all(ROWS, """rows => rows.map(tr => Object.fromEntries(
      [...tr.querySelectorAll('td[data-field]')].filter(td => td.querySelector('.nfg-adv__text'))
        .map(td => [td.dataset.field, td.querySelector('.nfg-adv__text').textContent])))"""))


def assert_options_of(page: Any, lang: str) -> None:
    """Live, and the table shows the options CPython presents for the inputs in the address."""
    assert wait_results(page, "live") == "live"
    page.wait_for_function("() => { const r = document.querySelector('.nfg-calc');"
                           " return r.dataset.advisorComputed === r.dataset.computed; }",
                           timeout=30_000)
    expected = presented("advisor", query_values(page.url), lang)["advisor"]
    assert expected["rows"], expected["message"]
    assert shown_rows(page) == [r["id"] for r in expected["rows"]]
    assert row_texts(page) == [{k: c["text"] for k, c in r["cells"].items()}
                               for r in expected["rows"]]
    assert page.inner_text(".nfg-adv__count").strip() == expected["count_text"]
    assert visible(page, ".nfg-adv__table")
    assert not any(struck(page, f"{ROWS} td"))


def assert_no_options(page: Any) -> None:
    """Neither the table nor the chart shows anything: no rows, no count, no speed links."""
    assert shown_rows(page) == [], shown_rows(page)
    assert page.eval_on_selector_all('a[data-link="speed"]', "els => els.length") == 0
    assert page.inner_text(".nfg-adv__count").strip() == ""
    assert not visible(page, ".nfg-adv__table")
    assert not visible(page, ".nfg-adv__chart")


# ---- F3: the advisor's options ------------------------------------------------------------------

def test_advisor_options_are_struck_while_an_input_is_refused(browser_site: Any,
                                                              ux_page: Any) -> None:
    page = ux_page(page_url(browser_site.base_url, "es", "advisor"))
    ready(page)
    defaults = presented("advisor", {}, "es")["advisor"]
    assert shown_rows(page) == [r["id"] for r in defaults["rows"]]
    assert not any(struck(page, f"{ROWS} td"))
    # "Longitud de salida" = 0: refused next to the field; the options of 256 stay, struck
    set_input(page, "output_len", "0")
    assert wait_results(page, "error") == "error"
    page.wait_for_function(
        "() => document.querySelector('.nfg-calc [data-input=\"output_len\"] .nfg-calc__error')"
        ".textContent.trim() !== ''", timeout=30_000)
    assert shown_rows(page) == [r["id"] for r in defaults["rows"]]  # readable, not removed
    cells = struck(page, f"{ROWS} td")
    assert cells and all(cells), cells
    links = struck(page, f'{ROWS} a[data-link="speed"]')
    assert links and all(links), links
    assert all(struck(page, ".nfg-adv__count"))
    assert float(page.eval_on_selector(".nfg-adv__chart", "e => getComputedStyle(e).opacity")) < 1
    # at full contrast: struck, never faded
    assert float(page.eval_on_selector(".nfg-adv__table", "e => getComputedStyle(e).opacity")) == 1
    # a value that is read: live again, the options of the new inputs, plain
    set_input(page, "output_len", "128")
    page.wait_for_function("() => new URLSearchParams(location.search).get('output_len') === '128'",
                           timeout=60_000)
    assert_options_of(page, "es")
    assert not page.errors, page.errors


@pytest.mark.parametrize("query", [
    "?input_len=1e9",
    "?request_rate=0",
    "?request_rate=2&tokens_per_day=1000",
])
def test_a_link_with_an_error_shows_no_default_options(browser_site: Any, ux_page: Any,
                                                       query: str) -> None:
    page = ux_page(page_url(browser_site.base_url, "en", "advisor", query))
    # never the defaults' options, not even before Python has run
    page.wait_for_selector(".nfg-calc[data-mounted]", state="attached", timeout=30_000)
    assert not visible(page, ".nfg-adv__table")
    ready(page)
    computed_once(page)
    assert wait_results(page, "error") == "error"
    page.wait_for_timeout(300)  # the advisor script follows the widget's answer
    assert_no_options(page)
    assert not page.errors, page.errors


def test_a_link_with_an_error_shows_its_own_options_once_fixed(browser_site: Any,
                                                               ux_page: Any) -> None:
    page = ux_page(page_url(browser_site.base_url, "ja", "advisor", "?request_rate=0"))
    ready(page)
    computed_once(page)
    assert wait_results(page, "error") == "error"
    assert_no_options(page)
    set_input(page, "request_rate", "2")
    page.wait_for_function("() => new URLSearchParams(location.search).get('request_rate') === '2'",
                           timeout=60_000)
    assert_options_of(page, "ja")
    assert not page.errors, page.errors


# ---- F8: the pin table's current column --------------------------------------------------------

def input_row(page: Any, name: str) -> tuple[str, str, bool] | None:
    """(pinned, current, current struck) of the pin table's row for input `name`, or None."""
    row = page.evaluate("""name => {
      const row = document.querySelector(`.nfg-calc__pin tr[data-input="${name}"]`);
      if (!row) return null;
      const current = row.cells[2];
      return [row.cells[1].textContent, current.textContent,
              getComputedStyle(current).textDecorationLine.includes('line-through')];
    }""", name)
    return None if row is None else (str(row[0]), str(row[1]), bool(row[2]))


def current_outputs(page: Any) -> dict[str, str]:
    return pin_column(page, "current")


def test_pin_current_column_follows_the_inputs_on_screen(browser_site: Any,
                                                         ux_page: Any) -> None:
    page = ux_page(page_url(browser_site.base_url, "en", "memory"))
    ready(page)
    page.click(".nfg-calc__pin-button")   # pinned at batch 1 (the defaults)
    page.wait_for_selector(".nfg-calc__pin:not([hidden]) tbody tr", timeout=10_000)
    set_input(page, "batch", "4")
    assert wait_results(page, "live") == "live"
    page.wait_for_function("() => new URLSearchParams(location.search).get('batch') === '4'",
                           timeout=30_000)
    assert input_row(page, "batch") == ("1", "4", False)
    live = {o["field"]: o["text"] for o in presented(
        "memory", query_values(page.url), "en")["outputs"]}
    assert current_outputs(page) == live
    # a refused value: the row says what the field says, struck with the numbers of batch 4
    set_input(page, "batch", "x")
    assert wait_results(page, "error") == "error"
    assert input_row(page, "batch") == ("1", "x", True)
    assert current_outputs(page) == live
    assert all(struck(page, ".nfg-calc__pin-current"))
    # another preset: a model row at once (its option text); the old setup's numbers removed
    model = page.eval_on_selector('.nfg-calc [name="model"]', """s => {
      const o = [...s.options].find(o => o.value !== s.value && o.value !== 'custom');
      return [o.value, o.textContent];
    }""")
    first = page.eval_on_selector('.nfg-calc [name="model"]',
                                  "s => s.options[s.selectedIndex].textContent")
    set_input(page, "model", model[0])
    row = input_row(page, "model")
    assert row is not None and row[:2] == (first, model[1]) and row[2], row
    assert wait_results(page, "error") == "error"   # batch x still refused
    page.wait_for_timeout(300)
    assert set(current_outputs(page).values()) == {""}, current_outputs(page)
    assert input_row(page, "batch") == ("1", "x", True)
    assert not page.errors, page.errors


def test_pin_link_with_a_refused_input_shows_no_default_numbers(browser_site: Any,
                                                                ux_page: Any) -> None:
    page = ux_page(page_url(browser_site.base_url, "en", "memory", "?batch=abc&pin=batch%3D4"))
    ready(page)
    page.wait_for_selector(".nfg-calc__pin:not([hidden]) tbody tr[data-field]", timeout=60_000)
    computed_once(page)
    assert wait_results(page, "error") == "error"
    page.wait_for_timeout(300)
    assert input_row(page, "batch") == ("4", "abc", True)
    assert set(current_outputs(page).values()) == {""}, current_outputs(page)
    pinned = dict(page.eval_on_selector_all(
        ".nfg-calc__pin tbody tr[data-field]",
        "rows => rows.map(r => [r.dataset.field,"
        " r.querySelector('.nfg-calc__pin-pinned').textContent])"))
    assert pinned == {o["field"]: o["text"] for o in present(
        {"calculator": "memory", "values": {"batch": "4"}}, "en")["outputs"]}
    assert not page.errors, page.errors


# ---- F2: a refused pin stays on its page -------------------------------------------------------

def test_a_refused_pin_is_not_carried_to_another_language(browser_site: Any,
                                                          ux_page: Any) -> None:
    page = ux_page(page_url(browser_site.base_url, "es", "price", "?hours=5&pin=hours%3D1.500"))
    ready(page)
    page.wait_for_selector('.nfg-calc__notes li[data-note="pin_invalid"]', state="attached",
                           timeout=60_000)
    assert wait_results(page, "live") == "live"
    link = '.md-header a[hreflang="en"]'
    page.dispatch_event(link, "focusin")   # the switcher writes the state into the link
    href = str(page.get_attribute(link, "href"))
    query = dict(parse_qsl(urlsplit(href).query, keep_blank_values=True))
    assert "pin" not in query, href
    assert query.get("hours") == "5", href
    # followed: the English page pins nothing and says nothing about a pin
    page.eval_on_selector(link, "a => a.click()")
    target = page_url(browser_site.base_url, "en", "price")
    page.wait_for_url(re.compile("^" + re.escape(target) + "\\?"), timeout=20_000)
    assert "pin" not in query_values(page.url), page.url
    ready(page)
    computed_once(page)
    assert wait_results(page, "live") == "live"
    page.wait_for_timeout(500)   # a restored pin would have appeared by now
    assert page.evaluate("() => document.querySelector('.nfg-calc__pin').hidden")
    assert not page.eval_on_selector_all('.nfg-calc__notes li[data-note="pin_invalid"]',
                                         "els => els.length")
    assert not page.errors, page.errors
