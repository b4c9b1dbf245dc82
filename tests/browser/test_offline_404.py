"""Offline, a missing page gets the 404 page of its language (the service worker used to answer
every uncached URL with the root 404.html, English, whatever the reader's language). The site is
served under /nfg/ (a sub-path): the 404 pages are found relative to the worker's scope."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

SW_TIMEOUT_MS = 180_000
# an uncached URL -> the language of the page that answers it offline
MISSING = {"ja/no-such-page/": "ja", "ja/guide/no-such-page/": "ja", "es/no-such-page/": "es",
           "es/reference/no-such-page/": "es", "no-such-page/": "en", "guide/no-such-page/": "en"}


def test_offline_missing_page_is_in_the_urls_language(browser_site: Any, chromium: Any) -> None:
    context = chromium.new_context(bypass_csp=True)  # the test polls with a string expression
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        page.goto(browser_site.base_url + "ja/")
        page.wait_for_function(  # installed (every file cached), active, controlling the page
            "navigator.serviceWorker.controller !== null"
            " && navigator.serviceWorker.controller.state === 'activated'",
            timeout=SW_TIMEOUT_MS, polling=250)
        context.set_offline(True)
        answered = {}
        for path in MISSING:
            response = page.goto(browser_site.base_url + path, wait_until="domcontentloaded")
            assert response is not None and response.ok, path   # not the browser's error page
            answered[path] = page.get_attribute("html", "lang")
            # the 404 page's own assets come from the cache too: its navigation is in place
            assert page.locator(".md-header").count() == 1, path
        assert answered == MISSING
    finally:
        context.close()
    assert not errors, errors
