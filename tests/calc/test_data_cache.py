"""calc.data_cache: a tree that passed its check is read back by a later process only while
every checked file and every calc module is byte for byte the same; anything else checks again."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from calc import data, data_cache, data_check


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(data_cache.DATA_DIR_ENV, raising=False)
    data.reset()
    yield tmp_path
    data.reset()


def _no_check(*_args: object, **_kwargs: object) -> object:
    raise AssertionError("the tree was checked again")


def test_a_checked_tree_is_read_back_without_checking(cache_dir: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    checked = data._checked()
    assert (cache_dir / data_cache.FILE_NAME).is_file()
    data.reset()
    monkeypatch.setattr(data_check, "check_tree", _no_check)
    assert data._checked() == checked
    assert data.model("llama-3.1-8b").params > 0


def test_changed_bytes_or_code_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"a.toml": b"x = 1\n", "b.toml": b"y = 2\n"}
    paths = sorted(files)
    before = data_cache.key(paths, files.get)
    assert data_cache.key(paths, files.get) == before
    assert data_cache.key(paths, {**files, "b.toml": b"y = 3\n"}.get) != before
    assert data_cache.key(paths, {"a.toml": b"x = 1\n"}.get) != before    # a file gone
    sources = data_cache._module_sources()
    monkeypatch.setattr(data_cache, "_module_sources",
                        lambda: [*sources, ("data_check.py", b"# a new check\n")])
    assert data_cache.key(paths, files.get) != before


def test_a_stale_or_corrupt_file_is_ignored(cache_dir: Path) -> None:
    stored = cache_dir / data_cache.FILE_NAME
    files = {"a.toml": b"x = 1\n"}
    stored.write_bytes(pickle.dumps(("another key", {"a.toml": {"x": 2}})))
    assert data_cache.load(["a.toml"], files.get) is None
    stored.write_bytes(b"\x80\x05not a pickle")
    assert data_cache.load(["a.toml"], files.get) is None
    data_cache.save(["a.toml"], files.get, {"a.toml": {"x": 1}})
    assert data_cache.load(["a.toml"], files.get) == {"a.toml": {"x": 1}}


def test_a_faulty_tree_is_never_kept(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fault = data_check.DataFault("data/x.toml", "-", "-", "bad")
    monkeypatch.setattr(data_check, "check_tree", lambda *_a, **_k: ({}, [fault]))
    with pytest.raises(data_check.DataError):
        data._checked()
    assert not (cache_dir / data_cache.FILE_NAME).exists()


def test_no_cache_for_another_tree_the_browser_or_when_switched_off(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(data_cache.DATA_DIR_ENV, str(tmp_path))
    assert data_cache.directory() is None
    monkeypatch.delenv(data_cache.DATA_DIR_ENV)
    assert data_cache.directory() == str(tmp_path)
    monkeypatch.setattr(data_cache.sys, "platform", "emscripten")
    assert data_cache.directory() is None
    monkeypatch.undo()
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, "")
    monkeypatch.delenv(data_cache.DATA_DIR_ENV, raising=False)
    assert data_cache.directory() is None


def test_an_unwritable_directory_is_not_an_error(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, str(blocker / "cache"))
    monkeypatch.delenv(data_cache.DATA_DIR_ENV, raising=False)
    data_cache.save(["a.toml"], {"a.toml": b""}.get, {"a.toml": {}})
    assert data_cache.load(["a.toml"], {"a.toml": b""}.get) is None
