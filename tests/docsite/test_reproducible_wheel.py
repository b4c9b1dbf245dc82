"""The calc wheel is reproducible: two builds from the same tree are byte-identical (fixed
SOURCE_DATE_EPOCH times, hash-based .pyc, sorted entries), and the wheel holds the data."""

from __future__ import annotations

import importlib.util
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.site


def _builder():
    spec = importlib.util.spec_from_file_location("nfg_build_wheel",
                                                  ROOT / "scripts" / "build_wheel.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_two_builds_are_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    builder = _builder()
    first = builder.build_wheel(build_dir=tmp_path / "one")
    time.sleep(2.1)  # zip times have 2 s resolution: a clock-dependent build would differ
    second = builder.build_wheel(build_dir=tmp_path / "two")
    assert first.rebuilt and second.rebuilt
    assert first.path.name == second.path.name
    assert first.path.read_bytes() == second.path.read_bytes()
    with zipfile.ZipFile(first.path) as wheel:
        infos = wheel.infolist()
        names = [info.filename for info in infos]
        assert "calc/data/prices.toml" in names and "calc/data_check.pyc" in names
        assert {info.date_time for info in infos} == {(2025, 1, 1, 0, 0, 0)}
        dist_info = [n for n in names if ".dist-info/" in n]
        assert names[-len(dist_info):] == dist_info  # metadata last, the rest sorted
        assert names[: -len(dist_info)] == sorted(names[: -len(dist_info)])


def test_source_date_epoch_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01
    built = _builder().build_wheel(build_dir=tmp_path / "epoch")
    with zipfile.ZipFile(built.path) as wheel:
        assert {i.date_time for i in wheel.infolist()} == {(2026, 1, 1, 0, 0, 0)}
