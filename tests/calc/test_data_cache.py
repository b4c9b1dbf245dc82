"""calc.data_cache: a tree that passed its check is read back by a later process only while
every file the check read and every calc module are byte for byte the same; anything else (or a
file that is not a plain stored tree, or not the user's own) checks again, and no failure of the
cache reaches the user."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from calc import data, data_cache, data_check
from calc.data_lang import EXTRA_FILES

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "calc", "memory", "--model", "llama-3.1-8b", "--instance",
       "inf2.48xlarge", "--dtype", "bf16", "--batch", "4", "--seq-len", "4096", "--json"]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, str(folder))
    monkeypatch.delenv(data_cache.DATA_DIR_ENV, raising=False)
    data.reset()
    yield folder
    data.reset()


def _no_check(*_args: object, **_kwargs: object) -> object:
    raise AssertionError("the tree was checked again")


def test_a_checked_tree_is_read_back_without_checking(cache_dir: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    checked = data._checked()
    assert (cache_dir / data_cache.FILE_NAME).is_file()
    assert not list(cache_dir.glob("*.tmp"))
    data.reset()
    monkeypatch.setattr(data_check, "check_tree", _no_check)
    assert data._checked() == checked
    assert data.model("llama-3.1-8b").params > 0


def test_the_check_and_the_key_read_each_file_once(cache_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A file saved while the tree is checked cannot put the old documents under the new bytes'
    key: both come from one read; the optional files the check reads are in the key too."""
    reads: list[str] = []
    original = data._read_bytes
    monkeypatch.setattr(data, "_read_bytes", lambda path: reads.append(path) or original(path))
    data._checked()
    assert reads and len(reads) == len(set(reads))
    assert set(EXTRA_FILES) <= set(reads)


def test_changed_bytes_or_code_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    files: dict[str, bytes | None] = {"a.toml": b"x = 1\n", "support_matrix.toml": b"y = 2\n"}
    before = data_cache.key(files)
    assert data_cache.key(dict(files)) == before
    assert data_cache.key({**files, "support_matrix.toml": b"y = 3\n"}) != before
    assert data_cache.key({**files, "support_matrix.toml": None}) != before   # a file gone
    sources = data_cache._module_sources()
    monkeypatch.setattr(data_cache, "_module_sources",
                        lambda: [*sources, ("data_check.py", b"# a new check\n")])
    assert data_cache.key(files) != before


def test_a_stale_corrupt_or_foreign_file_is_ignored(cache_dir: Path) -> None:
    cache_dir.mkdir(mode=0o700)
    stored = cache_dir / data_cache.FILE_NAME
    stored.write_bytes(pickle.dumps(("another key", {"a.toml": pickle.dumps({"x": 2})})))
    assert data_cache.load("a key", _no_check) is None
    stored.write_bytes(b"\x80\x05not a pickle")
    assert data_cache.load("a key", _no_check) is None
    stored.write_bytes(pickle.dumps(("a key", {"a.toml": {"run": os.system}})))
    assert data_cache.load("a key", _no_check) is None     # names a class that is not a value
    stored.write_bytes(pickle.dumps(("a key", {"a.toml": {"x": 1}})))   # format 2: not bytes
    assert data_cache.load("a key", _no_check) is None
    data_cache.save("a key", {"a.toml": {"x": 1}})
    assert data_cache.load("a key", _no_check) == {"a.toml": {"x": 1}}
    stored.chmod(0o666)                         # others may write it: not read
    assert data_cache.load("a key", _no_check) is None


def test_a_document_is_unpickled_when_first_read_and_a_bad_one_checks_the_tree(
        cache_dir: Path) -> None:
    cache_dir.mkdir(mode=0o700)
    stored = cache_dir / data_cache.FILE_NAME
    entries = {"a.toml": pickle.dumps({"x": 1}), "b.toml": pickle.dumps({"run": os.system}),
               "c.toml": b"\x80\x05truncated"}
    stored.write_bytes(pickle.dumps(("a key", entries)))
    checks: list[int] = []

    def check_now() -> dict[str, dict[str, object]]:
        checks.append(1)
        return {"a.toml": {"x": 1}, "b.toml": {"y": 2}, "c.toml": {"z": 3}}

    tree = data_cache.load("a key", check_now)
    assert tree is not None and sorted(tree) == ["a.toml", "b.toml", "c.toml"]
    assert "b.toml" in tree and "d.toml" not in tree and not checks   # nothing unpickled yet
    assert tree["a.toml"] == {"x": 1} and not checks
    assert tree["b.toml"] == {"y": 2} and checks == [1]   # a class that is not a TOML value
    assert tree["c.toml"] == {"z": 3} and checks == [1]   # every document now from the check
    stored.write_bytes(pickle.dumps(("a key", entries)))
    assert data_cache.load("a key", check_now)["c.toml"] == {"z": 3} and checks == [1, 1]


def test_a_memory_answer_reads_back_only_the_documents_it_needs(
        cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The measurements (most of the stored bytes) are not unpickled for a memory answer: a
    broken measurements entry goes unnoticed until it is read, and then the tree is checked."""
    data._checked()
    stored = cache_dir / data_cache.FILE_NAME
    tree_key, entries = pickle.loads(stored.read_bytes())
    entries["measurements.toml"] = b"\x80\x05truncated"
    stored.write_bytes(pickle.dumps((tree_key, entries)))
    data.reset()
    checks: list[int] = []
    original = data_check.check_tree
    monkeypatch.setattr(data_check, "check_tree",
                        lambda *args, **kwargs: checks.append(1) or original(*args, **kwargs))
    from calc import api

    response = api.run({"kind": "memory", "params": {"model": "llama-3.1-8b",
                                                     "instance": "inf2.48xlarge",
                                                     "seq_len": 4096}})
    assert response["ok"] and not checks
    assert data.records("measurements") and checks == [1]


def test_a_faulty_tree_is_never_kept(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fault = data_check.DataFault("data/x.toml", "-", "-", "bad")
    monkeypatch.setattr(data_check, "check_tree", lambda *_a, **_k: ({}, [fault]))
    with pytest.raises(data_check.DataError):
        data._checked()
    assert not (cache_dir / data_cache.FILE_NAME).exists()


def test_which_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(data_cache.DATA_DIR_ENV, str(tmp_path))
    assert data_cache.directory() is None                        # another data tree
    monkeypatch.delenv(data_cache.DATA_DIR_ENV)
    assert data_cache.directory() == str(tmp_path)
    with monkeypatch.context() as browser:
        browser.setattr(data_cache.sys, "platform", "emscripten")
        assert data_cache.directory() is None
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, "")
    assert data_cache.directory() is None                        # switched off
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, "relative/cache")
    assert data_cache.directory() is None
    monkeypatch.delenv(data_cache.CACHE_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert data_cache.directory() == str(tmp_path / "xdg" / "neuron-field-guide")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")           # ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_cache.directory() == str(tmp_path / "home" / ".cache" / "neuron-field-guide")
    monkeypatch.setattr(data_cache.os.path, "expanduser", lambda path: path)   # no home
    assert data_cache.directory() is None


def test_an_unwritable_directory_is_not_an_error(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(data_cache.CACHE_DIR_ENV, str(blocker / "cache"))
    monkeypatch.delenv(data_cache.DATA_DIR_ENV, raising=False)
    data_cache.save("a key", {"a.toml": {}})
    assert data_cache.load("a key", _no_check) is None


def test_a_save_that_fails_midway_leaves_nothing(cache_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise ValueError("cannot pickle")

    monkeypatch.setattr(data_cache.pickle, "dump", refuse)
    data_cache.save("a key", {"a.toml": {}})
    assert list(cache_dir.iterdir()) == []


def test_the_cli_answers_the_same_from_the_kept_tree(tmp_path: Path) -> None:
    env = {**os.environ, data_cache.CACHE_DIR_ENV: str(tmp_path / "cache")}
    env.pop(data_cache.DATA_DIR_ENV, None)
    first = subprocess.run(CLI, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert (tmp_path / "cache" / data_cache.FILE_NAME).is_file()
    second = subprocess.run(CLI, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    (tmp_path / "cache" / data_cache.FILE_NAME).write_bytes(b"garbage")
    third = subprocess.run(CLI, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert first.stdout == second.stdout == third.stdout
    assert not first.stderr and not second.stderr and not third.stderr
