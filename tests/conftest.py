"""Session fixtures shared by the site and browser suites.

Fixtures (use these names):
- `built_site` -> BuiltSite: the whole site (en, ja, es) built ONCE per session with `mkdocs build`
  (strict, from mkdocs.yml) into a temporary directory, with
  SITE_URL=http://127.0.0.1:<free port>/nfg/ (served under a sub-path, like a GitHub Pages project
  site). Fields: site_dir, base_url, port, build_seconds, log.
- `served_site` -> ServedSite: that build served by a threaded http.server on 127.0.0.1:<port>; the
  server's root holds `nfg` -> the site, so URLs are http://127.0.0.1:<port>/nfg/...; `.wasm` is
  served as application/wasm. Fields: base_url (ends in /nfg/), site_dir, root_dir, port.
"""

from __future__ import annotations

import atexit
import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUBPATH = "nfg"

if str(ROOT) not in sys.path:  # calc, site_macros and hooks are imported by tests
    sys.path.insert(0, str(ROOT))

# the checked data tree this session keeps (calc.data_cache): its own directory, so the session
# starts by checking the tree and never reads or writes the developer's cache; subprocesses (the
# CLI, mkdocs) inherit it
_CACHE_DIR = tempfile.mkdtemp(prefix="nfg-test-cache-")
os.environ["NFG_CACHE_DIR"] = _CACHE_DIR
atexit.register(shutil.rmtree, _CACHE_DIR, True)


@dataclass(frozen=True, slots=True)
class BuiltSite:
    site_dir: Path
    base_url: str        # http://127.0.0.1:<port>/nfg/
    port: int
    build_seconds: float
    log: str             # mkdocs' stdout + stderr


@dataclass(frozen=True, slots=True)
class ServedSite:
    base_url: str
    site_dir: Path
    root_dir: Path       # served directory: root_dir/nfg -> site_dir
    port: int


class SiteBuildError(RuntimeError):
    """mkdocs build failed; the message carries the end of its log."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build_site(site_dir: Path, site_url: str) -> tuple[float, str]:
    """Strict mkdocs build of the whole site; returns (seconds, log)."""
    env = {**os.environ, "SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    seconds = time.perf_counter() - start
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise SiteBuildError(f"mkdocs build failed ({proc.returncode}):\n{log[-6000:]}")
    return seconds, log


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/{SUBPATH}/"
    site_dir = tmp_path_factory.mktemp("site") / "site"
    seconds, log = build_site(site_dir, base_url)
    return BuiltSite(site_dir=site_dir, base_url=base_url, port=port, build_seconds=seconds,
                     log=log)


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".whl": "application/zip",
    }

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    # browsers cancel requests (e.g. the wasm pre-flight): a reset connection is not an error
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture(scope="session")
def served_site(built_site: BuiltSite, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[ServedSite]:
    root_dir = tmp_path_factory.mktemp("serve-root")
    (root_dir / SUBPATH).symlink_to(built_site.site_dir, target_is_directory=True)
    handler = functools.partial(_Handler, directory=str(root_dir))
    server = _Server(("127.0.0.1", built_site.port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield ServedSite(base_url=built_site.base_url, site_dir=built_site.site_dir,
                         root_dir=root_dir, port=built_site.port)
    finally:
        server.shutdown()
        server.server_close()
