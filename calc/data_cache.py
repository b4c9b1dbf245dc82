"""The checked data tree kept on disk, so that a new process (the CLI) does not parse and check
the TOML files again while neither they nor calc's own code have changed.

calc.data checks the whole tree once per process before any answer (calc.data_check); parsing
the TOML is most of a CLI call's time. After a tree passes, its parsed files are written here
under a key: a SHA-256 over the Python version, the source of every top-level calc module (the
checks and the loaders) and every checked file's path and bytes. The next process computes the
key from the same bytes and, when it matches, takes the stored files without checking them:
they are the files a check passed, byte for byte. One file holds one entry, the last tree that
passed.

Only the default data tree is kept (no NFG_DATA_DIR: tests point that at trees with injected
faults), never in the browser (Pyodide starts from a memory snapshot that already holds the
checked tree). The directory: $NFG_CACHE_DIR (empty: no cache), else
$XDG_CACHE_HOME/neuron-field-guide, else ~/.cache/neuron-field-guide. Every failure (no
directory, a file that cannot be written, read or unpickled, another key) falls back to checking.
"""

import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from typing import Any

CACHE_DIR_ENV = "NFG_CACHE_DIR"
DATA_DIR_ENV = "NFG_DATA_DIR"
FILE_NAME = "checked-data.pickle"
FORMAT = 1

Docs = dict[str, dict[str, Any]]


def directory() -> str | None:
    """Where the checked tree is kept, or None (no cache: another data tree, the browser, or
    NFG_CACHE_DIR set empty)."""
    if os.environ.get(DATA_DIR_ENV) or sys.platform == "emscripten":
        return None
    chosen = os.environ.get(CACHE_DIR_ENV)
    if chosen is not None:
        return chosen or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "neuron-field-guide")


def _module_sources() -> list[tuple[str, bytes]]:
    """(name, bytes) of every top-level calc module: the checks and the loaders."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    for name in sorted(os.listdir(here)):
        if name.endswith((".py", ".pyc")):
            with open(os.path.join(here, name), "rb") as handle:
                found.append((name, handle.read()))
    return found


def key(paths: Sequence[str], read: Callable[[str], bytes | None]) -> str:
    digest = hashlib.sha256(f"{FORMAT}|{sys.version}".encode())
    for name, source in _module_sources():
        digest.update(b"\0module\0" + name.encode() + b"\0" + source)
    for path in paths:
        raw = read(path)
        digest.update(b"\0data\0" + path.encode() + b"\0"
                      + (b"-" if raw is None else b"+" + raw))
    return digest.hexdigest()


def load(paths: Sequence[str], read: Callable[[str], bytes | None]) -> Docs | None:
    """The stored checked tree when its key matches these files' bytes, else None."""
    folder = directory()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, FILE_NAME), "rb") as handle:
            stored = pickle.load(handle)
        if not (isinstance(stored, tuple) and len(stored) == 2
                and stored[0] == key(paths, read) and isinstance(stored[1], dict)):
            return None
        return stored[1]
    except Exception:  # a missing, truncated or foreign file: check the tree instead
        return None


def save(paths: Sequence[str], read: Callable[[str], bytes | None], docs: Docs) -> None:
    """Keep a tree that passed its check (atomically: a reader sees the old file or the new)."""
    folder = directory()
    if folder is None:
        return
    target = os.path.join(folder, FILE_NAME)
    partial = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(partial, "wb") as handle:
            pickle.dump((key(paths, read), docs), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, target)
    except OSError:
        try:
            os.remove(partial)
        except OSError:
            pass
