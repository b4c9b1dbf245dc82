"""Build-time prerender and the worker in Chromium show identical text (issue 16).

For every calculator, every mode and every language: the text of every result field and every
derivation row, as the page shows it
- prerendered (calc.display.present in the mkdocs build, read before Python starts), and
- recomputed by the worker (calc.display.present in Pyodide, moved into the DOM by the JS),
is the same; modes that are not prerendered are compared with CPython's present() for the same
form values. Input parsing in the page language goes through the same path (es "1,5e9").
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_expect import default_raw, presented
from test_calculators import page_url, set_input, wait_state

from calc import display
from calc.display import calculators

pytestmark = pytest.mark.browser

TEXTS_JS = """
root => ({
  outputs: Object.fromEntries([...root.querySelectorAll('.nfg-calc__outputs:not([hidden]) dd')]
    .map(dd => [dd.dataset.field, dd.textContent])),
  math: [...root.querySelectorAll('.nfg-calc__math tbody tr')]
    .map(tr => [tr.cells[0].textContent, tr.cells[2].textContent]),
})
"""


def _texts(page: Any) -> dict[str, Any]:
    return dict(page.query_selector(".nfg-calc").evaluate(TEXTS_JS))


def _expected(name: str, raw: dict[str, str], lang: str) -> dict[str, Any]:
    shown = presented(name, raw, lang)
    return {"outputs": {o["field"]: o["text"] for o in shown["outputs"]},
            "math": [[row["label"], row["text"]] for row in shown["derivation"]]}


def _wait_computed(page: Any, after: int) -> int:
    page.wait_for_function(
        "n => Number(document.querySelector('.nfg-calc').dataset.computed || 0) > n",
        arg=after, timeout=30_000)
    return int(page.get_attribute(".nfg-calc", "data-computed") or 0)


@pytest.mark.parametrize("lang", display.LANGS)
@pytest.mark.parametrize("name", tuple(calculators.CALCULATORS))
def test_prerender_and_worker_show_identical_text(browser_site: Any, open_page: Any, name: str,
                                                  lang: str) -> None:
    spec = calculators.calculator(name)
    probe = open_page()
    page = probe.page
    held: list[Any] = []  # Python's wasm is held until the built text is read (no race)

    def hold(route: Any) -> None:
        held.append(route)

    page.context.route("**/pyodide.asm.wasm", hold)
    page.goto(page_url(browser_site.base_url, lang, name), wait_until="domcontentloaded")
    built = _texts(page)  # the HTML as the build wrote it
    assert page.get_attribute(".nfg-calc", "data-state") in ("prerendered", "loading")
    for route in held:
        route.continue_()
    page.context.unroute("**/pyodide.asm.wasm", hold)
    assert built["outputs"] and all(built["outputs"].values()), built
    assert built == _expected(name, default_raw(name), lang)

    assert wait_state(page, "ready", "failed") == "ready"
    computed = _wait_computed(page, 0)  # the worker's own answer for the same inputs
    assert _texts(page) == built

    for mode in spec.modes[1:]:  # the other modes: worker text == CPython present()
        set_input(page, "mode", mode.id)
        computed = _wait_computed(page, computed)
        raw = {**default_raw(name), "mode": mode.id}
        assert _texts(page) == _expected(name, raw, lang), (name, mode.id, lang)
    assert not probe.console_errors, probe.console_errors


LOCALIZED_TOKENS = {"en": "1.5e9", "ja": "１５億", "es": "1,5e9"}


@pytest.mark.parametrize("lang", display.LANGS)
def test_typed_numbers_are_read_in_the_page_language(browser_site: Any, open_page: Any,
                                                     lang: str) -> None:
    probe = open_page(page_url(browser_site.base_url, lang, "performance"))
    page = probe.page
    assert wait_state(page, "ready", "failed") == "ready"
    computed = _wait_computed(page, 0)
    set_input(page, "mode", "training")
    computed = _wait_computed(page, computed)
    set_input(page, "tokens", LOCALIZED_TOKENS[lang])
    _wait_computed(page, computed)
    shown = page.get_attribute('.nfg-calc [data-field="total_flops"]', "data-value")
    raw = {**default_raw("performance"), "mode": "training", "tokens": "1500000000"}
    expected = next(o for o in presented("performance", raw, lang)["outputs"]
                    if o["field"] == "total_flops")
    assert shown == expected["value"]
    assert page.inner_text('.nfg-calc [data-field="total_flops"]') == expected["text"]
    assert not probe.console_errors, probe.console_errors
