"""MkDocs hook: the calculators' browser runtime (Pyodide, Chart.js, the calc wheel) in the site.

- on_config: builds the calc wheel (scripts/build_wheel.py; fast path when calc/, data/ and
  pyproject are unchanged) and publishes the runtime layout in `config.extra["calc_runtime"]`
  (site-root-relative paths; the calculators macro turns them into page-relative URLs).
- on_post_build: copies the runtime files into the site ONCE. mkdocs-static-i18n re-runs the build
  per language into the same site_dir; files already there with the same size are skipped, so the
  12 MB runtime is written once, not three times.

Versions come from node_modules/<pkg>/package.json (pinned in the root package.json + lock);
nothing here or in the JS hard-codes the Pyodide version.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.runtime_assets")

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "node_modules"
RUNTIME_DIR = "assets/runtime"
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
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

    def as_extra(self) -> dict[str, str]:
        return {
            "pyodide_version": self.pyodide_version,
            "chartjs_version": self.chartjs_version,
            "pyodide_dir": self.pyodide_dir,
            "chart_path": self.chart_path,
            "wheel_path": self.wheel_path,
        }


def _package_version(name: str) -> str:
    manifest = NODE_MODULES / name / "package.json"
    if not manifest.is_file():
        raise RuntimeAssetsError(f"{manifest} is missing: run `npm ci` first")
    version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    if not isinstance(version, str) or not version:
        raise RuntimeAssetsError(f"{manifest} has no version")
    return version


def _load_build_wheel() -> Any:
    spec = importlib.util.spec_from_file_location(
        "nfg_build_wheel", ROOT / "scripts" / "build_wheel.py"
    )
    if spec is None or spec.loader is None:
        raise RuntimeAssetsError("scripts/build_wheel.py not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("nfg_build_wheel", module)
    spec.loader.exec_module(module)
    return module


def runtime_layout() -> RuntimeLayout:
    build_wheel = _load_build_wheel()
    built = build_wheel.build_wheel()
    pyodide_version = _package_version("pyodide")
    chartjs_version = _package_version("chart.js")
    return RuntimeLayout(
        pyodide_version=pyodide_version,
        chartjs_version=chartjs_version,
        pyodide_dir=f"{RUNTIME_DIR}/pyodide-{pyodide_version}/",
        chart_path=f"{RUNTIME_DIR}/chartjs-{chartjs_version}/{CHART_FILE}",
        wheel_path=f"{RUNTIME_DIR}/calc-{built.content_hash}/{built.path.name}",
        wheel_source=built.path,
    )


_layout: RuntimeLayout | None = None


def on_config(config: Any) -> Any:
    global _layout
    _layout = runtime_layout()
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
    return sum(_copy_if_changed(src, dst) for src, dst in pairs)


def on_post_build(config: Any) -> None:
    layout = _layout if _layout is not None else runtime_layout()
    written = copy_runtime(layout, Path(config.site_dir))
    if written:
        log.info("runtime_assets: copied %d runtime files into %s", written, RUNTIME_DIR)
