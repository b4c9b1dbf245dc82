"""The site works under its Content-Security-Policy with zero violations, in every language: a
content page with search, the palette toggle and the language switch, then a calculator page that
boots Pyodide in its worker and recomputes after an input change.

Violations are caught three ways: `securitypolicyviolation` events (reported through a binding,
so navigations do not lose them), console messages that mention the policy, and uncaught page
errors. Self-contained (only the DOM contract of ARCHITECTURE.md §4), so it keeps working when the
calculator JavaScript is rewritten."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator
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


# If a host ever sends the policy as an HTTP header, it also governs the calculator's module worker
# (a <meta> policy does not: a dedicated worker loaded from a URL gets the policy of its own
# response). Pyodide then needs 'wasm-unsafe-eval' (WebAssembly compilation) and nothing more: no
# 'unsafe-eval'. Served here with a header on every script response, the worker included.
WORKER_POLICY = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; "
                 "base-uri 'self'")


@pytest.fixture(scope="module")
def header_policy_site(browser_site: Any, tmp_path_factory: pytest.TempPathFactory
                       ) -> Iterator[str]:
    root = tmp_path_factory.mktemp("csp-header-root")
    (root / "nfg").symlink_to(browser_site.site_dir, target_is_directory=True)

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm", ".mjs": "text/javascript",
                          ".js": "text/javascript"}

        def end_headers(self) -> None:
            if self.path.split("?")[0].endswith((".js", ".mjs")):
                self.send_header("Content-Security-Policy", WORKER_POLICY)
            super().end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass

    server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/nfg/"
    finally:
        server.shutdown()


def test_pyodide_worker_needs_only_wasm_unsafe_eval(chromium: Any,
                                                    header_policy_site: str) -> None:
    context = chromium.new_context()
    messages: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: messages.append(m.text))
    try:
        page.goto(header_policy_site + "calculators/memory/", wait_until="load")
        page.wait_for_selector('.nfg-calc[data-state="ready"], .nfg-calc[data-state="failed"]',
                               state="attached", timeout=READY_TIMEOUT_MS)
        state = page.get_attribute(".nfg-calc", "data-state")
    finally:
        context.close()
    wasm_or_eval = [m for m in messages if re.search(r"WebAssembly|unsafe-eval|eval", m)]
    assert state == "ready" and wasm_or_eval == [], messages
