"""Offline after one visit (issue 12): the service worker caches every page and the calculators'
runtime; a new build replaces the cache as a whole; page links never name SITE_URL's host.

The site is served under /nfg/ (a sub-path, like a GitHub Pages project site)."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import http.server
import importlib.util
import json
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from calc import display
from calc.display import calculators

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LANGS = display.LANGS
CALCULATORS = tuple(calculators.CALCULATORS)
READY_TIMEOUT_MS = 120_000
SW_TIMEOUT_MS = 180_000
# one input per calculator, changed offline: the worker must answer (data-computed increments)
OFFLINE_INPUT = {"memory": ("batch", "3"), "performance": ("batch", "3"), "price": ("hours", "77"),
                 "advisor": ("request_rate", "3")}
# what shows the worker's answer: result values, or the advisor's table rows
ANSWER_SELECTOR = {"advisor": ".nfg-adv__table tbody tr[data-row]"}
OUTPUT_SELECTOR = ".nfg-calc__outputs:not([hidden]) dd[data-value]"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def site_pages(site_dir: Path) -> list[str]:
    """Every page of the site as a URL path under the site root ("", "ja/guide/memory/")."""
    pages = []
    for html in sorted(site_dir.rglob("index.html")):
        relative = html.parent.relative_to(site_dir).as_posix()
        if relative.startswith("assets") or relative.startswith("search"):
            continue
        pages.append("" if relative == "." else relative + "/")
    return pages


def calc_url(base_url: str, lang: str, name: str) -> str:
    return f"{base_url}{'' if lang == 'en' else lang + '/'}calculators/{name}/"


def wait_ready(page: Any) -> str:
    page.wait_for_selector('.nfg-calc[data-state="ready"], .nfg-calc[data-state="failed"]',
                           timeout=READY_TIMEOUT_MS, state="attached")
    return str(page.get_attribute(".nfg-calc", "data-state"))


def wait_controlled(page: Any) -> None:
    """The service worker is installed (every file cached), active and controls the page."""
    page.wait_for_function(
        "navigator.serviceWorker.controller !== null"
        " && navigator.serviceWorker.controller.state === 'activated'",
        timeout=SW_TIMEOUT_MS, polling=250)


def poll(page: Any, expression: str, arg: Any = None, timeout_ms: int = SW_TIMEOUT_MS) -> None:
    """Wait until an async expression (a Promise) is truthy: page.evaluate awaits it, while
    wait_for_function would take the Promise object itself as truthy."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(250)


SW_CACHE_NAME_JS = """() => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = (event) => resolve(event.data);
  navigator.serviceWorker.controller.postMessage({ type: "cache-name" }, [channel.port2]);
})"""


def cache_names(page: Any) -> list[str]:
    return list(page.evaluate("caches.keys()"))


def change_input_and_wait(page: Any, name: str, value: str) -> None:
    before = page.get_attribute(".nfg-calc", "data-computed") or "0"
    selector = f'.nfg-calc [name="{name}"]'
    page.fill(selector, value)
    page.wait_for_function(
        "before => (document.querySelector('.nfg-calc').dataset.computed || '0') !== before",
        arg=before, timeout=READY_TIMEOUT_MS)


def test_every_page_and_calculator_work_offline_after_one_visit(
        browser_site: Any, chromium: Any) -> None:
    context = chromium.new_context(bypass_csp=True)  # the tests poll with string expressions
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        page.goto(calc_url(browser_site.base_url, "en", "memory"))
        assert wait_ready(page) == "ready"
        wait_controlled(page)
        names = cache_names(page)
        assert len([n for n in names if n.startswith("nfg-")]) == 1, names

        context.set_offline(True)
        pages = site_pages(browser_site.site_dir)
        assert len(pages) >= 3 * 20, pages
        for path in pages:
            response = page.goto(browser_site.base_url + path, wait_until="domcontentloaded")
            assert response is not None and response.ok, path
            assert page.locator("article h1").count() >= 1, path
        for lang in LANGS:
            for name in CALCULATORS:
                page.goto(calc_url(browser_site.base_url, lang, name),
                          wait_until="domcontentloaded")
                assert wait_ready(page) == "ready", (lang, name)
                assert page.get_attribute("html", "lang") == lang
                field, value = OFFLINE_INPUT[name]
                change_input_and_wait(page, field, value)
                answer = ANSWER_SELECTOR.get(name, OUTPUT_SELECTOR)
                assert page.locator(answer).count() > 0, (lang, name)
    finally:
        context.close()
    assert not errors, errors


class _SwitchableHandler(http.server.SimpleHTTPRequestHandler):
    """Serves whichever build `state["dir"]` names, under /nfg/ (a new deployment in place)."""

    state: dict[str, str] = {}
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript",
                      ".js": "text/javascript", ".whl": "application/zip"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=self.state["dir"], **kwargs)

    def translate_path(self, path: str) -> str:
        if path.startswith("/nfg/"):
            path = "/" + path[len("/nfg/"):]
        return super().translate_path(path)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")  # a deployment is seen at once
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def two_builds(browser_site: Any, tmp_path: Path) -> Iterator[tuple[str, dict[str, str], Path,
                                                                   Path]]:
    """Build A (the site as built) and build B (one page changed, its service worker regenerated
    by the build's own last step), served in turn on one origin (a deployment in place)."""
    sw_builder = _load("nfg_build_service_worker_test",
                       ROOT / "scripts" / "build_service_worker.py")
    build_a = tmp_path / "a"
    build_b = tmp_path / "b"
    shutil.copytree(browser_site.site_dir, build_a, symlinks=True)
    shutil.copytree(browser_site.site_dir, build_b, symlinks=True)
    page_b = build_b / "guide" / "memory" / "index.html"
    page_b.write_text(page_b.read_text(encoding="utf-8").replace(
        "</h1>", ' <span id="nfg-build-b">B</span></h1>', 1), encoding="utf-8")
    sw_builder.write(build_b)
    # a later deployment: without a newer Last-Modified, http.server answers the browser's
    # update check with 304 (the copies were made within the same second)
    later = (build_a / "sw.js").stat().st_mtime + 60
    os.utime(build_b / "sw.js", (later, later))
    handler = type("Handler", (_SwitchableHandler,), {"state": {"dir": str(build_a)}})
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/nfg/"
    try:
        yield base_url, handler.state, build_a, build_b
    finally:
        server.shutdown()
        server.server_close()


def _cache_name(site_dir: Path) -> str:
    match = re.search(r'const CACHE = "([^"]+)"', (site_dir / "sw.js").read_text(encoding="utf-8"))
    assert match
    return match.group(1)


def test_a_new_build_replaces_the_cache_as_a_whole(two_builds: Any, chromium: Any) -> None:
    base_url, state, build_a, build_b = two_builds
    cache_a, cache_b = _cache_name(build_a), _cache_name(build_b)
    assert cache_a != cache_b
    context = chromium.new_context(bypass_csp=True)  # the tests poll with string expressions
    try:
        page = context.new_page()
        page.goto(base_url + "guide/memory/")
        wait_controlled(page)
        assert cache_names(page) == [cache_a]
        assert page.evaluate(SW_CACHE_NAME_JS) == cache_a

        state["dir"] = str(build_b)  # deploy build B
        page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update())")
        poll(page, "navigator.serviceWorker.getRegistration().then(r => !!r.waiting)")
        # while a page of build A is open, build A serves it, whole and unchanged
        page.reload()
        assert page.locator("#nfg-build-b").count() == 0
        assert sorted(cache_names(page)) == sorted([cache_a, cache_b])
        page.close()  # no page of build A left: build B's worker activates

        # watch from a page of this origin OUTSIDE the worker's scope (not a client of build A,
        # so it does not keep build A's worker in charge)
        page = context.new_page()
        page.goto(base_url.replace("/nfg/", "/outside-the-scope"))
        poll(page, "cache => caches.keys().then(k => k.length === 1 && k[0] === cache)", cache_b)
        page.goto(base_url + "reference/chips/")
        assert page.evaluate(SW_CACHE_NAME_JS) == cache_b
        context.set_offline(True)
        page.goto(base_url + "guide/memory/")
        assert page.locator("#nfg-build-b").count() == 1  # build B, from build B's cache
    finally:
        context.close()


def test_built_pages_do_not_name_the_site_url_host(browser_site: Any) -> None:
    """canonical and hreflang links are page-relative: served elsewhere, nothing points back."""
    host = re.escape(browser_site.base_url.split("/nfg/")[0])
    for html in sorted(browser_site.site_dir.rglob("*.html")):
        text = html.read_text(encoding="utf-8")
        found = re.findall(rf'(?:href|src)="{host}[^"]*"', text)
        assert not found, (html, found[:3])
    sw = (browser_site.site_dir / "sw.js").read_text(encoding="utf-8")
    assert not re.search(host, sw)


def test_served_from_another_host_no_errors(browser_site: Any, chromium: Any,
                                            tmp_path: Path) -> None:
    """The same build served on another origin (and at the site root): no console errors and no
    request to SITE_URL's origin (before: the language selector fetched its sitemaps there)."""
    handler = type("Handler", (_SwitchableHandler,), {"state": {"dir": str(browser_site.site_dir)}})
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    other = f"http://localhost:{server.server_address[1]}/nfg/"
    site_origin = browser_site.base_url.split("/nfg/")[0]
    context = chromium.new_context(service_workers="block", bypass_csp=True)
    errors: list[str] = []
    foreign: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        context.on("request", lambda r: foreign.append(r.url)
                   if r.url.startswith(site_origin) else None)
        for path in ("", "ja/guide/memory/", "es/reference/chips/"):
            page.goto(other + path, wait_until="networkidle")
        assert not foreign, foreign
        assert not errors, errors
    finally:
        context.close()
        server.shutdown()
        server.server_close()


# ---- the memory snapshot: stored inflated by the service worker, read from its cache -----------

CLIENT_JS = """() => { const c = document.querySelector('.nfg-calc').nfgWidget.client;
  return {state: c.status.state, snapshot: c.startedFromSnapshot, fromCache: c.readFromCache,
          error: c.snapshotError}; }"""
# the snapshot entry of the site's cache: its marker header, size and SHA-256 (hex)
CACHED_SNAPSHOT_JS = """async () => {
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      if (!request.url.endsWith('/calc.snapshot.bin')) continue;
      const response = await cache.match(request);
      const bytes = await response.arrayBuffer();
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      return {inflated: response.headers.get('X-Nfg-Inflated'), length: bytes.byteLength,
              sha256: [...digest].map((b) => b.toString(16).padStart(2, '0')).join('')};
    }
  }
  return null;
}"""


def _snapshot_path(site_dir: Path) -> Path:
    (found,) = sorted((site_dir / "assets" / "runtime").glob("snapshot-*/calc.snapshot.bin"))
    return found


def _first_and_repeat_visit(context: Any, url: str) -> tuple[dict[str, Any], dict[str, Any],
                                                              dict[str, Any] | None]:
    """The client's start on a first visit (until the service worker controls the page), the
    cache's snapshot entry, and the client's start on a repeat visit (a new tab), recomputing."""
    page = context.new_page()
    page.goto(url)
    assert wait_ready(page) == "ready"
    first = page.evaluate(CLIENT_JS)
    wait_controlled(page)
    entry = page.evaluate(CACHED_SNAPSHOT_JS)
    page.close()
    page = context.new_page()
    page.goto(url)
    assert wait_ready(page) == "ready"
    repeat = page.evaluate(CLIENT_JS)
    change_input_and_wait(page, "batch", "3")
    assert page.locator(OUTPUT_SELECTOR).count() > 0
    return first, repeat, entry


def test_a_repeat_visit_reads_the_snapshot_inflated_from_the_cache(browser_site: Any,
                                                                   chromium: Any) -> None:
    inflated = gzip.decompress(_snapshot_path(browser_site.site_dir).read_bytes())
    context = chromium.new_context(bypass_csp=True)  # the tests poll with string expressions
    try:
        first, repeat, entry = _first_and_repeat_visit(
            context, calc_url(browser_site.base_url, "ja", "memory"))
    finally:
        context.close()
    assert first == {"state": "ready", "snapshot": True, "fromCache": False, "error": None}
    assert entry == {"inflated": "1", "length": len(inflated),
                     "sha256": hashlib.sha256(inflated).hexdigest()}
    assert repeat == {"state": "ready", "snapshot": True, "fromCache": True, "error": None}


def test_a_snapshot_that_does_not_inflate_is_cached_as_it_came(browser_site: Any, chromium: Any,
                                                               tmp_path: Path) -> None:
    """A corrupted snapshot: the service worker still installs (the file stored as served), and
    both visits fall back to a normal start."""
    build = tmp_path / "corrupted"
    shutil.copytree(browser_site.site_dir, build, symlinks=True)
    corrupted = b"\x1f\x8b\x08\x00" + bytes(range(256)) * 64  # a gzip header, then garbage
    _snapshot_path(build).write_bytes(corrupted)
    sw_builder = _load("nfg_build_service_worker_snap",
                       ROOT / "scripts" / "build_service_worker.py")
    sw_builder.write(build)
    handler = type("Handler", (_SwitchableHandler,), {"state": {"dir": str(build)}})
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = chromium.new_context(bypass_csp=True)
    try:
        first, repeat, entry = _first_and_repeat_visit(
            context, f"http://127.0.0.1:{server.server_address[1]}/nfg/es/calculators/memory/")
    finally:
        context.close()
        server.shutdown()
        server.server_close()
    assert (first["state"], first["snapshot"], first["fromCache"]) == ("ready", False, False)
    assert entry == {"inflated": None, "length": len(corrupted),
                     "sha256": hashlib.sha256(corrupted).hexdigest()}
    assert (repeat["state"], repeat["snapshot"], repeat["fromCache"]) == ("ready", False, True)
    assert first["error"] and repeat["error"]


# ---- scripts stored again after install: the runtime script gets a module code cache ----------

def _runtime_script_events(trace: Path, name: str) -> list[dict[str, Any]]:
    """The data of V8's `name` events (v8.compileModule: cacheRejected, consumedCacheSize when a
    code cache was offered; v8.produceModuleCache: producedCacheSize) for Pyodide's runtime
    script (pyodide.asm.js, imported as a module by the calculators' worker) in a Chromium
    trace."""
    events = json.loads(trace.read_text(encoding="utf-8"))
    events = events["traceEvents"] if isinstance(events, dict) else events
    return [event["args"]["data"] for event in events
            if event.get("name") == name
            and str(event.get("args", {}).get("data", {}).get("url", "")).endswith(
                "/pyodide.asm.js")]


@contextlib.contextmanager
def _traced(chromium: Any, trace: Path) -> Iterator[None]:
    """A Chromium trace (category devtools.timeline, where V8's compile events are) of the
    block, written to `trace`; stopped whatever happens."""
    chromium.start_tracing(path=str(trace), categories=["devtools.timeline"])
    try:
        yield
    finally:
        chromium.stop_tracing()


def test_the_first_visit_primes_the_runtime_scripts_module_code_cache(
        browser_site: Any, chromium: Any, tmp_path: Path) -> None:
    """Chromium's install-time code cache is a classic script's, which a module import rejects:
    the service worker stores every script again once installed, and the first visit, once the
    service worker controls it, imports the runtime script in a throwaway module worker
    (assets/js/calc-prime.js), which makes its module code cache. The repeat visit compiles the
    script from that cache; the later visit too."""
    url = calc_url(browser_site.base_url, "en", "memory")
    context = chromium.new_context(bypass_csp=True)  # the tests poll with string expressions
    first = tmp_path / "first.json"
    traces: list[Path] = []
    try:
        page = context.new_page()
        with _traced(chromium, first):
            page.goto(url)
            assert wait_ready(page) == "ready"
            wait_controlled(page)
            page.wait_for_function("window.__nfgCalcBoot.codeCache !== undefined",
                                   timeout=SW_TIMEOUT_MS, polling=250)
        assert page.evaluate("window.__nfgCalcBoot.codeCache") == "primed"
        page.close()
        for visit in ("repeat", "later"):
            traces.append(tmp_path / f"{visit}.json")
            page = context.new_page()
            with _traced(chromium, traces[-1]):
                page.goto(url)
                assert wait_ready(page) == "ready"
            # a repeat visit primes nothing: the service worker controlled it from the start
            assert page.evaluate("window.__nfgCalcBoot.codeCache") is None
            page.close()
    finally:
        context.close()
    # the first visit: the calculator's import (from the network) and the priming import
    # (through the service worker), neither offered a classic-script cache; a module cache made
    compiles = _runtime_script_events(first, "v8.compileModule")
    assert len(compiles) == 2 and not any(c.get("cacheRejected") for c in compiles), compiles
    # V8 may write the module cache just after the trace window closes (seen once in CI under
    # load): a production inside the window must have a size; the repeat and later visits below
    # consuming a module cache prove that the first visit made one
    produced = _runtime_script_events(first, "v8.produceModuleCache")
    assert all(p.get("producedCacheSize", 0) > 0 for p in produced), produced
    for trace in traces:
        compiles = _runtime_script_events(trace, "v8.compileModule")
        assert compiles and all(c.get("cacheRejected") is False
                                and c.get("consumedCacheSize", 0) > 0 for c in compiles), compiles
