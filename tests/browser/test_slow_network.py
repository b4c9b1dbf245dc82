"""Issue 17, item 4, on a real slow link: the built site served at 1.6 Mbit/s (200,000 bytes/s for
all of a page's requests together, like one slow connection). The first visit downloads the
whole runtime (about 19 MB, some 95 s) under the normal start-up limit: the page shows its
progress in bytes and stages in the reader's language, keeps the prerendered result usable, and
goes live instead of timing out.

The three languages run at once, each on its own throttled server (its own origin, so no cache
or service worker is shared), so the test takes one download's time, not three."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from test_calculators import page_url

from calc import data, display

pytestmark = pytest.mark.browser

BYTES_PER_S = 200_000  # 1.6 Mbit/s
CHUNK_BYTES = 16_384
LIVE_TIMEOUT_MS = 400_000  # the download alone takes ~95 s; three Pythons then start at once
PROGRESS_PROBE = """
window.__nfgSlow = {values: [], texts: []};
new MutationObserver(() => {
  const root = document.querySelector(".nfg-calc");
  const bar = document.querySelector(".nfg-calc__progress");
  if (bar && !bar.hidden) window.__nfgSlow.values.push(Number(bar.value));
  const text = document.querySelector(".nfg-calc__status-text");
  if (root && root.dataset.state === "loading" && text) {
    window.__nfgSlow.texts.push(text.textContent);
  }
}).observe(document, { subtree: true, attributes: true, childList: true, characterData: true });
"""


class _Bucket:
    """One link's bandwidth, shared by every request to the same server."""

    def __init__(self, bytes_per_s: int) -> None:
        self.bytes_per_s = bytes_per_s
        self.lock = threading.Lock()
        self.next_free = time.monotonic()

    def take(self, size: int) -> None:
        with self.lock:
            start = max(self.next_free, time.monotonic())
            self.next_free = start + size / self.bytes_per_s
            wait = self.next_free - time.monotonic()
        if wait > 0:
            time.sleep(wait)


class _SlowHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript",
                      ".js": "text/javascript", ".whl": "application/zip"}

    def __init__(self, *args: Any, bucket: _Bucket, **kwargs: Any) -> None:
        self.bucket = bucket
        super().__init__(*args, **kwargs)

    def copyfile(self, source: BinaryIO, outputfile: BinaryIO) -> None:  # type: ignore[override]
        while chunk := source.read(CHUNK_BYTES):
            self.bucket.take(len(chunk))
            outputfile.write(chunk)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a browser cancelling a request is not an error


@pytest.fixture()
def slow_sites(browser_site: Any, tmp_path: Path) -> Iterator[dict[str, str]]:
    """One throttled server per language over the same build, served under /nfg/."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "nfg").symlink_to(Path(browser_site.site_dir), target_is_directory=True)
    servers = {}
    for lang in display.LANGS:
        handler = functools.partial(_SlowHandler, directory=str(root),
                                    bucket=_Bucket(BYTES_PER_S))
        server = _QuietServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers[lang] = server
    try:
        yield {lang: f"http://127.0.0.1:{s.server_address[1]}/nfg/" for lang, s in servers.items()}
    finally:
        for server in servers.values():
            server.shutdown()
        shutil.rmtree(root, ignore_errors=True)


def test_slow_link_shows_progress_and_goes_live(chromium: Any, slow_sites: dict[str, str]) -> None:
    contexts, pages = [], {}
    try:
        for lang, base_url in slow_sites.items():
            context = chromium.new_context(service_workers="block")
            context.add_init_script(PROGRESS_PROBE)
            contexts.append(context)
            page = context.new_page()
            page.goto(page_url(base_url, lang, "memory"), wait_until="domcontentloaded",
                      timeout=60_000)
            pages[lang] = page
        started = time.monotonic()
        for lang, page in pages.items():
            # the prerendered result is usable while the runtime downloads
            assert page.locator(".nfg-calc__outputs:not([hidden]) dd[data-value]").count() > 0
            remaining = max(1_000, LIVE_TIMEOUT_MS - int((time.monotonic() - started) * 1000))
            page.wait_for_selector('.nfg-calc[data-state="ready"], .nfg-calc[data-state="failed"]',
                                   timeout=remaining, state="attached")
            assert page.get_attribute(".nfg-calc", "data-state") == "ready", (
                lang, page.get_attribute(".nfg-calc", "data-stage"))
        elapsed_s = time.monotonic() - started
        for lang, page in pages.items():
            probe = page.evaluate("window.__nfgSlow")
            values = [int(v) for v in probe["values"]]
            total = int(page.get_attribute(".nfg-calc__progress", "max") or 0)
            # progress in bytes, many steps, never backwards, up to every byte of the download
            assert len(set(values)) >= 20, (lang, len(set(values)))
            assert values == sorted(values) and values[-1] == total, (lang, values[-5:], total)
            # the stages, in the page's language
            strings = data.i18n(lang, "calculators")["status"]
            assert strings["runtime-download"] in probe["texts"], (lang, set(probe["texts"]))
        # it really was slow: more than the 45 s start-up limit of a page with no progress
        assert elapsed_s > total / BYTES_PER_S * 0.8, elapsed_s
    finally:
        for context in contexts:
            context.close()
