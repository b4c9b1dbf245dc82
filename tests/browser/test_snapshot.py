"""The calculators start from a Pyodide memory snapshot (issue 12); any snapshot failure falls
back to a normal start; the download shows a progress bar whose label Python formatted.

Browser tests are marked `browser`; the build checks below them run without a browser."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from calc.display import strings, units

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_MS = 120_000
CLIENT = "document.querySelector('.nfg-calc').nfgWidget.client"
BUILD_ID_OFFSET = 16  # makeMemorySnapshot header: magic, offset, length, 0, then the BUILD_ID


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _snapshot_file(site_dir: Path) -> Path:
    found = sorted((site_dir / "assets" / "runtime").glob("snapshot-*/calc.snapshot.bin"))
    assert len(found) == 1, found
    return found[0]


def _open(chromium: Any, url: str, route: Any = None) -> tuple[Any, Any]:
    context = chromium.new_context(service_workers="block")
    if route is not None:
        context.route("**/calc.snapshot.bin", route)
    page = context.new_page()
    page.goto(url, wait_until="domcontentloaded")
    return context, page


def _start(page: Any) -> dict[str, Any]:
    page.wait_for_selector('.nfg-calc[data-state="ready"], .nfg-calc[data-state="failed"]',
                           timeout=READY_TIMEOUT_MS, state="attached")
    return dict(page.evaluate(
        f"(() => {{ const c = {CLIENT}; return {{state: c.status.state,"
        " snapshot: c.startedFromSnapshot, error: c.snapshotError}; })()"))


def _recomputes(page: Any) -> None:
    before = page.get_attribute(".nfg-calc", "data-computed") or "0"
    page.fill('.nfg-calc [name="batch"]', "5")
    page.wait_for_function(
        "b => (document.querySelector('.nfg-calc').dataset.computed || '0') !== b",
        arg=before, timeout=READY_TIMEOUT_MS)


@pytest.mark.browser
def test_calculator_starts_from_the_snapshot(browser_site: Any, chromium: Any) -> None:
    context, page = _open(chromium, browser_site.base_url + "ja/calculators/memory/")
    try:
        started = _start(page)
        assert started == {"state": "ready", "snapshot": True, "error": None}
        _recomputes(page)
    finally:
        context.close()


def _corrupt_gzip(site_dir: Path) -> bytes:
    return b"\x1f\x8b\x08\x00" + bytes(range(256)) * 64  # a gzip header, then garbage


def _other_build_id(site_dir: Path) -> bytes:
    raw = bytearray(gzip.decompress(_snapshot_file(site_dir).read_bytes()))
    for i in range(BUILD_ID_OFFSET, BUILD_ID_OFFSET + 32):
        raw[i] ^= 0xFF  # the snapshot of another Pyodide build
    return gzip.compress(bytes(raw), compresslevel=1)


FALLBACKS = {
    "missing": (lambda site_dir: None, "HTTP 404"),
    "corrupted": (_corrupt_gzip, ""),
    "other-pyodide-build": (_other_build_id, "build id mismatch"),
}


@pytest.mark.browser
@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_snapshot_failure_falls_back_to_a_normal_start(browser_site: Any, chromium: Any,
                                                       case: str) -> None:
    make_body, reason = FALLBACKS[case]
    body = make_body(browser_site.site_dir)

    def route(r: Any) -> None:
        if body is None:
            r.fulfill(status=404, body="not found")
        else:
            r.fulfill(status=200, body=body, content_type="application/octet-stream")

    context, page = _open(chromium, browser_site.base_url + "es/calculators/memory/", route)
    try:
        started = _start(page)
        assert started["state"] == "ready"
        assert started["snapshot"] is False
        assert started["error"] and reason.lower() in started["error"].lower(), started
        _recomputes(page)
    finally:
        context.close()


PROGRESS_PROBE = """
window.__nfgProgress = [];
new MutationObserver(() => {
  const bar = document.querySelector(".nfg-calc__progress");
  if (bar && !bar.hidden) window.__nfgProgress.push(bar.value);
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["value", "hidden"] });
"""


def _served_download_bytes(site_dir: Path, runtime: ModuleType) -> int:
    """What a first visit fetches, from the files the build wrote (not from build/, which other
    tests may have rebuilt since): Pyodide's files (the lock trimmed), the wheel, the snapshot."""
    root = site_dir / runtime.RUNTIME_DIR
    (pyodide,) = root.glob("pyodide-*")
    (wheel,) = root.glob("calc-*/*.whl")
    (snapshot,) = root.glob("snapshot-*/*")
    return (sum((pyodide / name).stat().st_size for name in runtime.PYODIDE_FILES)
            + (pyodide / runtime.LOCK_FILE).stat().st_size
            + wheel.stat().st_size + snapshot.stat().st_size)


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "ja", "es"])
def test_download_progress_in_the_page_language(browser_site: Any, chromium: Any,
                                                lang: str) -> None:
    runtime = _load("nfg_runtime_assets_snapshot_test", ROOT / "hooks" / "runtime_assets.py")
    total = _served_download_bytes(browser_site.site_dir, runtime)
    size_text = units.quantity(total, "B", lang)
    label = strings.ui(lang, "download")["label"].replace("{size}", size_text)
    context = chromium.new_context(service_workers="block")
    context.add_init_script(PROGRESS_PROBE)
    try:
        page = context.new_page()
        prefix = "" if lang == "en" else f"{lang}/"
        page.goto(f"{browser_site.base_url}{prefix}calculators/price/",
                  wait_until="domcontentloaded")
        bar = page.locator(".nfg-calc__progress")
        assert bar.get_attribute("max") == str(total)
        assert page.locator(".nfg-calc__progress-label").text_content() == label
        assert bar.get_attribute("aria-label") == label
        # the prerendered result is there and usable (its inputs can be edited) meanwhile
        assert page.locator(".nfg-calc__outputs:not([hidden]) dd[data-value]").count() > 0
        assert _start(page)["state"] == "ready"
        values = [int(v) for v in page.evaluate("window.__nfgProgress")]
        assert values and values == sorted(values), values
        assert values[-1] == total, (values[-1], total)  # every byte counted, no double count
        assert bar.is_hidden()
    finally:
        context.close()


# ---- the build (no browser) ---------------------------------------------------------------


def test_snapshot_is_built_once_per_input(tmp_path: Path) -> None:
    build_wheel = _load("nfg_build_wheel_snap_test", ROOT / "scripts" / "build_wheel.py")
    build_snapshot = _load("nfg_build_snapshot_test", ROOT / "scripts" / "build_snapshot.py")
    wheel = build_wheel.build_wheel().path
    first = build_snapshot.build_snapshot(wheel)
    again = build_snapshot.build_snapshot(wheel)
    assert not again.rebuilt and again.path == first.path
    assert first.path.read_bytes()[:2] == b"\x1f\x8b"  # gzip
    raw = gzip.decompress(first.path.read_bytes())
    assert len(raw) == first.raw_bytes
    lock = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())
    assert lock["info"]["python"].startswith("3.13")
    changed = tmp_path / wheel.name
    changed.write_bytes(wheel.read_bytes() + b"\0")
    assert build_snapshot.input_hash(changed) != first.content_hash


def test_service_worker_lists_every_page_under_the_site_root(tmp_path: Path) -> None:
    sw = _load("nfg_build_service_worker_snap_test", ROOT / "scripts" / "build_service_worker.py")
    site = tmp_path / "site"
    for path in ("index.html", "ja/index.html", "ja/guide/memory/index.html", "404.html",
                 "assets/runtime/pyodide-0/pyodide.asm.wasm", "assets/x.js.map", "sitemap.xml"):
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(path, encoding="utf-8")
    first = sw.write(site)
    text = (site / "sw.js").read_text(encoding="utf-8")
    files = json.loads(text.split("const FILES = ", 1)[1].split(";\n", 1)[0])
    assert set(files) == {"./", "ja/", "ja/guide/memory/", "404.html", "sitemap.xml",
                          "assets/runtime/pyodide-0/pyodide.asm.wasm"}
    assert sw.write(site).cache_name == first.cache_name  # same build, same cache
    (site / "ja" / "index.html").write_text("changed", encoding="utf-8")
    assert sw.write(site).cache_name != first.cache_name  # new build, new cache
