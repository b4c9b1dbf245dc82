"""Write the site's service worker: <site>/sw.js from scripts/sw_template.js.

It lists every file of the built site (pages as their directory URL), relative to the site root,
and names its cache after the content hash of those files, so each build gets one new cache and
an unchanged build keeps its cache. Called by hooks/runtime_assets.py after every language is
built. Registered by docs/assets/js/sw-register.js (an external script: strict CSP friendly).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "scripts" / "sw_template.js"
SW_NAME = "sw.js"
CACHE_PREFIX = "nfg-"
IMMUTABLE_DIR = "assets/runtime/"
HASH_CHARS = 16
# not cached: the worker itself, source maps, compressed sitemaps, bench harness pages (the
# sitemap.xml files are: Material's language selector fetches them)
SKIP_SUFFIXES = (".map", ".gz")
SKIP_NAMES = {SW_NAME, "bench-bare-pyodide.html"}
# gzip files the service worker stores inflated: the memory snapshot (scripts/build_snapshot.py
# SNAPSHOT_NAME), read at every start of a calculator
INFLATE_NAMES = ("calc.snapshot.bin",)
# the offline fallback of an uncached URL: the 404 page of the deepest directory holding it
# (hooks/not_found.py writes ja/404.html and es/404.html, the default language's at the root)
NOT_FOUND_NAME = "404.html"


@dataclass(frozen=True, slots=True)
class ServiceWorker:
    path: Path
    cache_name: str
    files: int
    bytes: int


def site_files(site_dir: Path) -> list[Path]:
    return sorted(
        p for p in site_dir.rglob("*")
        if p.is_file() and p.name not in SKIP_NAMES and not p.name.endswith(SKIP_SUFFIXES)
    )


def url_path(site_dir: Path, path: Path) -> str:
    """A file's URL relative to the site root: pages as their directory URL ("ja/guide/")."""
    relative = path.relative_to(site_dir).as_posix()
    if relative == "index.html":
        return "./"
    if relative.endswith("/index.html"):
        return relative[: -len("index.html")]
    return relative


def not_found_dirs(urls: list[str]) -> list[str]:
    """The directories ("ja/", "es/", "" for the root) with a 404 page among the listed files,
    deepest first: the service worker answers an uncached URL offline with the first one that
    holds it, so a Japanese page's missing link gets the Japanese 404 page."""
    dirs = [url[: -len(NOT_FOUND_NAME)] for url in urls
            if url == NOT_FOUND_NAME or url.endswith("/" + NOT_FOUND_NAME)]
    return sorted(dirs, key=lambda d: (-d.count("/"), d))


def render(site_dir: Path) -> tuple[str, str, int, int]:
    digest = hashlib.sha256()
    urls: list[str] = []
    inflate: list[str] = []
    total = 0
    for path in site_files(site_dir):
        data = path.read_bytes()
        total += len(data)
        urls.append(url_path(site_dir, path))
        if path.name in INFLATE_NAMES:
            inflate.append(urls[-1])
        digest.update(urls[-1].encode())
        digest.update(b"\0")
        digest.update(hashlib.sha256(data).digest())
    digest.update(TEMPLATE.read_bytes())
    cache_name = CACHE_PREFIX + digest.hexdigest()[:HASH_CHARS]
    text = (TEMPLATE.read_text(encoding="utf-8")
            .replace("__CACHE_NAME__", cache_name)
            .replace("__CACHE_PREFIX__", CACHE_PREFIX)
            .replace("__IMMUTABLE_DIR__", IMMUTABLE_DIR)
            .replace("__INFLATE__", json.dumps(inflate))
            .replace("__NOT_FOUND__", json.dumps(not_found_dirs(urls), ensure_ascii=False))
            .replace("__FILES__", json.dumps(urls, indent=0, ensure_ascii=False)))
    return text, cache_name, len(urls), total


def write(site_dir: Path) -> ServiceWorker:
    text, cache_name, files, total = render(site_dir)
    target = site_dir / SW_NAME
    target.write_text(text, encoding="utf-8")
    return ServiceWorker(path=target, cache_name=cache_name, files=files, bytes=total)
