"""The checked data tree kept on disk, so that a new process (the CLI) does not parse and check
the TOML files again while neither they nor calc's own code have changed.

calc.data checks the whole tree once per process before any answer (calc.data_check); parsing
the TOML is most of a CLI call's time. calc.data reads every file the check reads once, into
memory; the check runs on those bytes, and a tree that passes is written here under their key:
a SHA-256 over the Python version, the bytes of every top-level calc module (the checks and the
loaders) and every file's path and bytes (a missing file counts too). The next process reads the
files, computes the key and, when it matches, takes the stored documents without checking them:
they are what a check made of exactly those bytes. One file holds one entry, the last tree that
passed. Each document is stored as its own pickle and read back when first asked for: a CLI call
that needs the models and instances does not unpickle the measurements (most of the bytes).

Only the default data tree is kept (no NFG_DATA_DIR: tests point that at trees with injected
faults), never in the browser (Pyodide starts from a memory snapshot that already holds the
checked tree). The directory, used only when absolute: $NFG_CACHE_DIR (empty: no cache), else
$XDG_CACHE_HOME/neuron-field-guide, else ~/.cache/neuron-field-guide; created private (0700), and
a file there is read only when it belongs to this user and nobody else may write it. The stored
documents are plain TOML values, so the reader accepts no class but datetime's (a file that
names any other is not code that runs here). Every failure (no usable directory, a file that
cannot be written, read or unpickled, another key, a document that cannot be unpickled when first
asked for) falls back to checking.
"""

import hashlib
import io
import os
import pickle
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

CACHE_DIR_ENV = "NFG_CACHE_DIR"
DATA_DIR_ENV = "NFG_DATA_DIR"
FILE_NAME = "checked-data.pickle"
FORMAT = 3   # 3: one pickle per document, read when first asked for
ALLOWED_CLASSES = frozenset({("datetime", "date"), ("datetime", "datetime"), ("datetime", "time"),
                             ("datetime", "timedelta"), ("datetime", "timezone")})

Docs = dict[str, dict[str, Any]]


def directory() -> str | None:
    """Where the checked tree is kept, or None (no cache: another data tree, the browser,
    NFG_CACHE_DIR set empty, or no absolute directory to use)."""
    if os.environ.get(DATA_DIR_ENV) or sys.platform == "emscripten":
        return None
    chosen = os.environ.get(CACHE_DIR_ENV)
    if chosen is None:
        base = os.environ.get("XDG_CACHE_HOME") or ""
        if not os.path.isabs(base):   # the XDG rule: a relative value is ignored
            base = os.path.join(os.path.expanduser("~"), ".cache")
        chosen = os.path.join(base, "neuron-field-guide")
    return chosen if chosen and os.path.isabs(chosen) else None


def _module_sources() -> list[tuple[str, bytes]]:
    """(name, bytes) of every top-level calc module: the checks and the loaders."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    for name in sorted(os.listdir(here)):
        if name.endswith((".py", ".pyc")):
            with open(os.path.join(here, name), "rb", buffering=0) as handle:  # read whole
                found.append((name, handle.read()))
    return found


def key(files: Mapping[str, bytes | None]) -> str:
    """The key of a tree: these files' paths and bytes, calc's modules and the Python version."""
    digest = hashlib.sha256(f"{FORMAT}|{sys.version}".encode())
    # each file's bytes in their own update: the same digest as one update of the joined bytes,
    # without copying ~3 MB (~4 ms of cold start)
    for name, source in _module_sources():
        digest.update(b"\0module\0" + os.fsencode(name) + b"\0")
        digest.update(source)
    for path in sorted(files):
        raw = files[path]
        digest.update(b"\0data\0" + os.fsencode(path) + b"\0" + (b"-" if raw is None else b"+"))
        if raw is not None:
            digest.update(raw)
    return digest.hexdigest()


class _DataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in ALLOWED_CLASSES:
            raise pickle.UnpicklingError(f"{module}.{name} is not a TOML value")
        return super().find_class(module, name)


def _private(path: str) -> bool:
    """Owned by this user and writable by nobody else (always true where there are no owners)."""
    if not hasattr(os, "getuid"):
        return True
    info = os.stat(path)
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


class StoredTree(Mapping[str, dict[str, Any]]):
    """The documents of a stored tree, each unpickled when first read. If one cannot be read
    back, ``check_now`` checks the tree from its bytes and every document comes from that."""

    def __init__(self, entries: dict[str, bytes], check_now: Callable[[], Docs]) -> None:
        self._entries = entries
        self._docs: Docs = {}
        self._check_now = check_now

    def __getitem__(self, path: str) -> dict[str, Any]:
        doc = self._docs.get(path)
        if doc is None:
            raw = self._entries[path]   # KeyError: not a file of the tree
            try:
                doc = _DataUnpickler(io.BytesIO(raw)).load()
                if not isinstance(doc, dict):
                    raise pickle.UnpicklingError("a stored document is not a table")
            except Exception:  # truncated or foreign: check the tree instead
                self._docs = dict(self._check_now())   # the same files: the same paths
                return self._docs[path]
            self._docs[path] = doc
        return doc

    def __contains__(self, path: object) -> bool:
        return path in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def load(tree_key: str, check_now: Callable[[], Docs]) -> StoredTree | None:
    """The stored checked tree when it was stored under this key, else None. check_now: what
    to do if one of its documents cannot be read back later (check the tree)."""
    folder = directory()
    if folder is None:
        return None
    try:
        path = os.path.join(folder, FILE_NAME)
        if not (_private(folder) and _private(path)):
            return None
        with open(path, "rb") as handle:   # read as unpickled: no copy of the whole file
            stored = _DataUnpickler(handle).load()
        if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == tree_key
                and isinstance(stored[1], dict)
                and all(isinstance(name, str) and isinstance(raw, bytes)
                        for name, raw in stored[1].items())):
            return None
        return StoredTree(stored[1], check_now)
    except Exception:  # missing, truncated, foreign or not ours: check the tree instead
        return None


def save(tree_key: str, docs: Mapping[str, dict[str, Any]]) -> None:
    """Keep a tree that passed its check (atomically: a reader sees the old file or the new)."""
    folder = directory()
    if folder is None:
        return
    import tempfile  # here: only a call that saves pays for its import

    partial = None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=f"{FILE_NAME}.", suffix=".tmp", dir=folder)
        with os.fdopen(handle, "wb") as out:
            entries = {name: pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
                       for name, doc in docs.items()}
            pickle.dump((tree_key, entries), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, os.path.join(folder, FILE_NAME))
        partial = None
    except Exception:  # no cache then: the next process checks again
        pass
    finally:
        if partial is not None:
            try:
                os.remove(partial)
            except OSError:
                pass
