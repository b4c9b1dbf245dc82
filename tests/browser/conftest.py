"""Fixtures for the browser suite: one built site served on 127.0.0.1 under /nfg/, one Chromium.

Uses the session fixture `served_site` from tests/conftest.py (site engineer: .base_url ending in
"/nfg/", .site_dir) when it exists; otherwise (or with NFG_MKDOCS_CONFIG=<config> for local
debugging) this module builds the site itself with SITE_URL pointing at its own local server.
"""

from __future__ import annotations

import functools
import http.server
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PREFIX = "/nfg/"

if str(ROOT) not in sys.path:  # calc and site_macros, imported by the expectations
    sys.path.insert(0, str(ROOT))


@dataclass(frozen=True, slots=True)
class ServedSite:
    base_url: str  # http://127.0.0.1:<port>/nfg/
    site_dir: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _PrefixHandler(http.server.SimpleHTTPRequestHandler):
    """Serves `directory` under /nfg/ (the site_url path), like GitHub Pages would."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".whl": "application/zip",
    }

    def translate_path(self, path: str) -> str:
        if path.startswith(PREFIX):
            path = "/" + path[len(PREFIX):]
        elif path != PREFIX.rstrip("/"):
            return str(Path(self.directory) / "__outside_prefix__")
        return super().translate_path(path)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    # the worker cancels the wasm pre-flight after 4 bytes: a reset connection is expected
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


def _serve(site_dir: Path, port: int) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_PrefixHandler, directory=str(site_dir))
    server = _QuietServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _build(site_dir: Path, base_url: str) -> None:
    env = {**os.environ, "SITE_URL": base_url, "NO_MKDOCS_2_WARNING": "1"}
    # NFG_MKDOCS_CONFIG: another config (e.g. one that INHERITs mkdocs.yml) for local debugging
    config = os.environ.get("NFG_MKDOCS_CONFIG", "mkdocs.yml")
    strict = ["--strict"] if config == "mkdocs.yml" else []
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", config, *strict,
         "--site-dir", str(site_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")


@pytest.fixture(scope="session")
def browser_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[ServedSite]:
    request.getfixturevalue("chromium")  # skip (or fail under CI=true) before building anything
    if os.environ.get("NFG_MKDOCS_CONFIG") is None:
        try:  # the shared session build from tests/conftest.py (site engineer), when present
            provided = request.getfixturevalue("served_site")
        except pytest.FixtureLookupError:
            provided = None
        if provided is not None:
            yield ServedSite(base_url=str(provided.base_url), site_dir=Path(provided.site_dir))
            return
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}{PREFIX}"
    site_dir = tmp_path_factory.mktemp("browser-site")
    _build(site_dir, base_url)
    server = _serve(site_dir, port)
    try:
        yield ServedSite(base_url=base_url, site_dir=site_dir)
    finally:
        server.shutdown()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing and CI=true: the browser suite must run")
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class PageProbe:
    """A page plus what it logged and requested."""

    page: Any
    console_errors: list[str]
    requests: list[str]


@pytest.fixture
def open_page(chromium: Any) -> Iterator[Any]:
    contexts: list[Any] = []

    def _open(url: str | None = None, wasm_fails: bool = False) -> PageProbe:
        context = chromium.new_context()
        contexts.append(context)
        page = context.new_page()
        probe = PageProbe(page=page, console_errors=[], requests=[])
        page.on("console", lambda m: probe.console_errors.append(m.text) if m.type == "error"
                else None)
        page.on("pageerror", lambda e: probe.console_errors.append(f"pageerror: {e}"))
        # the page's own requests; the service worker's (it caches the whole site for offline
        # use after the first visit, issue 12) are not the page's
        context.on("request", lambda r: probe.requests.append(r.url)
                   if getattr(r, "service_worker", None) is None else None)
        context.on("response", lambda r: probe.console_errors.append(f"HTTP {r.status} {r.url}")
                   if r.status >= 400 else None)
        if wasm_fails:
            context.route("**/pyodide.asm.wasm", lambda route: route.abort())
        if url is not None:
            page.goto(url, wait_until="domcontentloaded")
        return probe

    yield _open
    for context in contexts:
        context.close()
