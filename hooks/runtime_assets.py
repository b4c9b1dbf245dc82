"""MkDocs hook: the calculators' browser runtime (Pyodide, Chart.js, the calc wheel) in the site.

- on_config: builds the calc wheel (scripts/build_wheel.py; fast path when calc/, data/ and
  pyproject are unchanged) and publishes the runtime layout in `config.extra["calc_runtime"]`
  (site-root-relative paths; the calculators macro turns them into page-relative URLs).
- on_config also builds the Pyodide memory snapshot with calc imported (scripts/build_snapshot.py,
  cached by input hash like the wheel) and publishes its path, its raw size and the bytes a first
  visit downloads (`download_bytes`, the total of the progress bar).
- on_post_build: copies the runtime files into the site ONCE. mkdocs-static-i18n re-runs the build
  per language into the same site_dir; files already there with the same size are skipped, so the
  12 MB runtime is written once, not three times. pyodide-lock.json is written trimmed (no
  package list: the calculators load no Pyodide packages).
- on_post_build, last, outer build only: writes the service worker
  (scripts/build_service_worker.py) with the list of every file of the site and a cache name
  from their content hash.

Versions come from node_modules/<pkg>/package.json (pinned in the root package.json + lock);
nothing here or in the JS hard-codes the Pyodide version.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

log = logging.getLogger("mkdocs.hooks.runtime_assets")

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "node_modules"
RUNTIME_DIR = "assets/runtime"
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
)
LOCK_FILE = "pyodide-lock.json"  # written trimmed: {"info": ..., "packages": {}}
CHART_FILE = "chart.umd.min.js"


class RuntimeAssetsError(RuntimeError):
    """A runtime file the calculators need is missing."""


@dataclass(frozen=True, slots=True)
class RuntimeLayout:
    pyodide_version: str
    chartjs_version: str
    pyodide_dir: str  # site-root-relative, ends with "/"
    chart_path: str
    wheel_path: str
    wheel_source: Path
    snapshot_path: str  # "" without a snapshot (mkdocs serve, NFG_SNAPSHOT=0): a normal start
    snapshot_source: Path | None
    snapshot_raw_bytes: int
    download_bytes: int  # what the worker fetches on a first visit (progress bar total)

    def as_extra(self) -> dict[str, Any]:
        return {
            "pyodide_version": self.pyodide_version,
            "chartjs_version": self.chartjs_version,
            "pyodide_dir": self.pyodide_dir,
            "chart_path": self.chart_path,
            "wheel_path": self.wheel_path,
            "snapshot_path": self.snapshot_path,
            "snapshot_raw_bytes": self.snapshot_raw_bytes,
            "download_bytes": self.download_bytes,
        }


def _package_version(name: str) -> str:
    manifest = NODE_MODULES / name / "package.json"
    if not manifest.is_file():
        raise RuntimeAssetsError(f"{manifest} is missing: run `npm ci` first")
    version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    if not isinstance(version, str) or not version:
        raise RuntimeAssetsError(f"{manifest} has no version")
    return version


def _load_script(name: str) -> Any:
    module_name = f"nfg_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, ROOT / "scripts" / f"{name}.py")
    if spec is None or spec.loader is None:
        raise RuntimeAssetsError(f"scripts/{name}.py not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def trimmed_lock() -> bytes:
    """pyodide-lock.json without its package list (122 kB -> 0.1 kB): no package is loaded."""
    source = NODE_MODULES / "pyodide" / LOCK_FILE
    lock = json.loads(source.read_text(encoding="utf-8"))
    return json.dumps({"info": lock["info"], "packages": {}}, sort_keys=True).encode()


def runtime_layout(with_snapshot: bool = True) -> RuntimeLayout:
    built = _load_script("build_wheel").build_wheel()
    snapshot = _load_script("build_snapshot").build_snapshot(built.path) if with_snapshot else None
    pyodide_version = _package_version("pyodide")
    chartjs_version = _package_version("chart.js")
    pyodide_bytes = sum((NODE_MODULES / "pyodide" / name).stat().st_size for name in PYODIDE_FILES)
    snapshot_bytes = snapshot.path.stat().st_size if snapshot else 0
    return RuntimeLayout(
        pyodide_version=pyodide_version,
        chartjs_version=chartjs_version,
        pyodide_dir=f"{RUNTIME_DIR}/pyodide-{pyodide_version}/",
        chart_path=f"{RUNTIME_DIR}/chartjs-{chartjs_version}/{CHART_FILE}",
        wheel_path=f"{RUNTIME_DIR}/calc-{built.content_hash}/{built.path.name}",
        wheel_source=built.path,
        snapshot_path=(f"{RUNTIME_DIR}/snapshot-{snapshot.content_hash}/{snapshot.path.name}"
                       if snapshot else ""),
        snapshot_source=snapshot.path if snapshot else None,
        snapshot_raw_bytes=snapshot.raw_bytes if snapshot else 0,
        download_bytes=(pyodide_bytes + len(trimmed_lock()) + built.path.stat().st_size
                        + snapshot_bytes),
    )


_layout: RuntimeLayout | None = None


_serving = False


# `mkdocs serve` rebuilds on every edit of calc/ or data/: no snapshot there (it takes ~15-30 s to
# make); the calculators then start normally. NFG_SNAPSHOT=0 does the same for a build.
def on_startup(command: str, dirty: bool) -> None:
    global _serving
    _serving = command == "serve"


def on_config(config: Any) -> Any:
    global _layout
    _layout = runtime_layout(with_snapshot=not _serving and os.environ.get("NFG_SNAPSHOT") != "0")
    config.extra["calc_runtime"] = _layout.as_extra()
    return config


def _copy_if_changed(source: Path, target: Path) -> bool:
    if not source.is_file():
        raise RuntimeAssetsError(f"{source} is missing")
    if target.is_file() and target.stat().st_size == source.stat().st_size:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return True


def copy_runtime(layout: RuntimeLayout, site_dir: Path) -> int:
    """Copy the runtime into site_dir; returns how many files were written."""
    pairs = [
        (NODE_MODULES / "pyodide" / name, site_dir / layout.pyodide_dir / name)
        for name in PYODIDE_FILES
    ]
    pairs.append((NODE_MODULES / "chart.js" / "dist" / CHART_FILE, site_dir / layout.chart_path))
    pairs.append((layout.wheel_source, site_dir / layout.wheel_path))
    if layout.snapshot_source is not None:
        pairs.append((layout.snapshot_source, site_dir / layout.snapshot_path))
    written = sum(_copy_if_changed(src, dst) for src, dst in pairs)
    lock = site_dir / layout.pyodide_dir / LOCK_FILE
    content = trimmed_lock()
    if not lock.is_file() or lock.read_bytes() != content:
        lock.write_bytes(content)
        written += 1
    return written


# Last (after mkdocs-static-i18n's on_post_build at -100, which runs the other languages' builds,
# and after the other post-build hooks: sitemaps -110): the outer build then writes the service
# worker listing the final files of every language. Inner per-language builds only copy.
@event_priority(-200)
def on_post_build(config: Any) -> None:
    layout = _layout if _layout is not None else runtime_layout()
    site_dir = Path(config.site_dir)
    written = copy_runtime(layout, site_dir)
    if written:
        log.info("runtime_assets: copied %d runtime files into %s", written, RUNTIME_DIR)
    i18n = config.plugins.get("i18n")
    if i18n is not None and getattr(i18n, "building", False):
        return
    worker = _load_script("build_service_worker").write(site_dir)
    log.info("runtime_assets: service worker %s caches %d files (%d bytes)",
             worker.cache_name, worker.files, worker.bytes)
