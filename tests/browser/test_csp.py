"""The site works under its Content-Security-Policy with zero violations, in every language: a
content page with search, the palette toggle and the language switch, then a calculator page that
boots Pyodide in its worker and recomputes after an input change.

Violations are caught three ways: `securitypolicyviolation` events (reported through a binding,
so navigations do not lose them), console messages that mention the policy, and uncaught page
errors. Self-contained (only the DOM contract of ARCHITECTURE.md §4), so it keeps working when the
calculator JavaScript is rewritten."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser

READY_TIMEOUT_MS = 120_000
LANGS = ("en", "ja", "es")
NEXT_LANG = {"en": "ja", "ja": "es", "es": "en"}
SEARCH_TERM = {"en": "Trainium", "ja": "Trainium", "es": "Trainium"}

LISTEN = """
document.addEventListener('securitypolicyviolation', (e) => {
  window.__nfgCsp([e.violatedDirective, e.blockedURI, e.sourceFile + ':' + e.lineNumber,
                   e.sample].join(' | '));
}, true);
"""
CSP_TEXT = re.compile(r"Content Security Policy|Content-Security-Policy|Refused to", re.I)


def _url(base_url: str, lang: str, path: str) -> str:
    return f"{base_url}{'' if lang == 'en' else lang + '/'}{path}"


@pytest.mark.parametrize("lang", LANGS)
def test_no_csp_violation(chromium: Any, browser_site: Any, lang: str) -> None:
    context = chromium.new_context()
    violations: list[str] = []
    context.expose_binding("__nfgCsp", lambda _source, text: violations.append(str(text)))
    context.add_init_script(LISTEN)
    page = context.new_page()
    page.on("console", lambda m: violations.append(f"console {m.type}: {m.text}")
            if CSP_TEXT.search(m.text) else None)
    page.on("pageerror", lambda e: violations.append(f"pageerror: {e}"))
    try:
        # a content page: search, palette, language switch
        page.goto(_url(browser_site.base_url, lang, "guide/memory/"), wait_until="load")
        assert page.locator('meta[http-equiv="Content-Security-Policy"]').count() == 1
        page.click(".md-search__input")
        page.fill(".md-search__input", SEARCH_TERM[lang])
        page.wait_for_selector(".md-search-result__item", timeout=30_000)
        page.keyboard.press("Escape")

        before = page.get_attribute("body", "data-md-color-scheme")
        page.click('form[data-md-component="palette"] label:not([hidden])')
        page.wait_for_function("b => document.body.dataset.mdColorScheme !== b", arg=before)

        other = NEXT_LANG[lang]
        page.hover(".md-select")
        with page.expect_navigation():
            page.click(f'.md-select a[hreflang="{other}"]')
        page.wait_for_load_state("load")
        assert page.get_attribute("html", "lang") == other
        assert "guide/memory" in page.url  # the switch stays on the same page

        # a calculator page: the worker boots Pyodide, one recompute
        page.goto(_url(browser_site.base_url, lang, "calculators/price/"), wait_until="load")
        page.wait_for_selector('.nfg-calc[data-state="ready"], .nfg-calc[data-state="failed"]',
                               state="attached", timeout=READY_TIMEOUT_MS)
        assert page.get_attribute(".nfg-calc", "data-state") == "ready", violations
        computed = int(page.get_attribute(".nfg-calc", "data-computed") or "0")
        page.fill('.nfg-calc [name="hours"]', "100")
        page.locator('.nfg-calc [name="hours"]').dispatch_event("change")
        page.wait_for_function(
            "n => Number(document.querySelector('.nfg-calc').dataset.computed || 0) > n",
            arg=computed, timeout=30_000)
        page.wait_for_timeout(500)  # late reports (charts, idle work)
    finally:
        context.close()
    assert violations == []
