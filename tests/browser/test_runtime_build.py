"""The browser runtime build without a browser: the py-compiled calc wheel and the copied assets."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def build_wheel() -> ModuleType:
    return _load("nfg_build_wheel_test", ROOT / "scripts" / "build_wheel.py")


@pytest.fixture(scope="module")
def built(build_wheel: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_wheel.build_wheel(ROOT, tmp_path_factory.mktemp("wheel"))


def test_wheel_is_compiled_for_pyodide_python(built: Any) -> None:
    assert built.path.name.endswith("-cp313-none-any.whl")
    names = zipfile.ZipFile(built.path).namelist()
    assert "calc/api.pyc" in names
    assert not [n for n in names if n.endswith(".py")], "py-compile drops the sources"
    data_files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "data").rglob("*.toml"))
    assert data_files and all(f"calc/{f}" in names for f in data_files)


def test_unchanged_tree_reuses_the_wheel(build_wheel: ModuleType, built: Any) -> None:
    again = build_wheel.build_wheel(ROOT, built.path.parent.parent)
    assert not again.rebuilt and again.path == built.path


def test_hash_follows_calc_and_data(build_wheel: ModuleType, tmp_path: Path) -> None:
    copy = tmp_path / "tree"
    for name in ("calc", "data"):
        shutil.copytree(ROOT / name, copy / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    before = build_wheel.content_hash(copy)
    (copy / "data" / "models.toml").write_text(
        (copy / "data" / "models.toml").read_text(encoding="utf-8") + "\n# changed\n",
        encoding="utf-8")
    assert build_wheel.content_hash(copy) != before


def test_runtime_is_copied_once_with_versions_from_package_json(tmp_path: Path) -> None:
    hook = _load("nfg_runtime_assets_test", ROOT / "hooks" / "runtime_assets.py")
    layout = hook.runtime_layout()
    pinned = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]
    assert layout.pyodide_version == pinned["pyodide"]
    assert layout.chartjs_version == pinned["chart.js"]
    assert layout.pyodide_dir == f"assets/runtime/pyodide-{pinned['pyodide']}/"
    written = hook.copy_runtime(layout, tmp_path)
    assert written == len(hook.PYODIDE_FILES) + 4  # + chart.js, wheel, snapshot, trimmed lock
    wasm = tmp_path / layout.pyodide_dir / "pyodide.asm.wasm"
    assert wasm.read_bytes()[:4] == b"\0asm"
    assert (tmp_path / layout.wheel_path).is_file()
    assert (tmp_path / layout.snapshot_path).read_bytes()[:2] == b"\x1f\x8b"  # gzip snapshot
    assert hook.copy_runtime(layout, tmp_path) == 0  # the per-language rebuilds copy nothing


def test_pyodide_version_is_not_hard_coded_in_js() -> None:
    version = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"][
        "pyodide"]
    for script in (ROOT / "docs" / "assets" / "js").glob("*.js"):
        text = script.read_text(encoding="utf-8")
        assert version not in text, f"{script.name} hard-codes the Pyodide version"
        assert "cdn.jsdelivr" not in text and "micropip" not in text.replace(
            "No micropip", "")
