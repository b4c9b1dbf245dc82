"""Build the Pyodide memory snapshot the calculators start from (gzip-compressed).

Output: build/snapshot/<hash>/calc.snapshot.bin  (gzip of Pyodide's makeMemorySnapshot() bytes)
The hash covers the wheel's content hash, the Pyodide version (its package.json and its
pyodide.asm.wasm), scripts/build_snapshot.mjs and scripts/snapshot_warmup.py: an unchanged tree
reuses the last snapshot (like the wheel), so a build makes it at most once.

Needs `node` (20+) and node_modules/pyodide. The browser decompresses it with DecompressionStream
(gzip files are served as they are by static hosts; the raw snapshot is ~20 MB, gzip ~5 MB).

Run: .venv/bin/python scripts/build_snapshot.py <wheel>   (prints the snapshot path)
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "build" / "snapshot"
PYODIDE_DIR = ROOT / "node_modules" / "pyodide"
SCRIPT = ROOT / "scripts" / "build_snapshot.mjs"
WARMUP = ROOT / "scripts" / "snapshot_warmup.py"
SNAPSHOT_NAME = "calc.snapshot.bin"
HASH_CHARS = 12
TIMEOUT_S = 600


class SnapshotBuildError(RuntimeError):
    """node or Pyodide could not make the snapshot."""


@dataclass(frozen=True, slots=True)
class BuiltSnapshot:
    path: Path  # gzip file
    content_hash: str
    raw_bytes: int  # size after decompression (what loadPyodide receives)
    rebuilt: bool


def input_hash(wheel: Path, pyodide_dir: Path = PYODIDE_DIR) -> str:
    digest = hashlib.sha256()
    for path in (wheel, pyodide_dir / "package.json", pyodide_dir / "pyodide.asm.wasm",
                 SCRIPT, WARMUP):
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:HASH_CHARS]


def _raw_size(path: Path) -> int:
    size_file = path.with_suffix(".size")
    return int(size_file.read_text(encoding="ascii").strip())


def _make(wheel: Path, pyodide_dir: Path, out_dir: Path) -> Path:
    node = shutil.which("node")
    if node is None:
        raise SnapshotBuildError("`node` is not on PATH (needed to make the Pyodide snapshot)")
    with tempfile.TemporaryDirectory(prefix="nfg-snapshot-") as tmp:
        raw = Path(tmp) / "calc.snapshot"
        proc = subprocess.run(
            [node, str(SCRIPT), str(pyodide_dir), str(wheel), str(WARMUP), str(raw)],
            cwd=ROOT, capture_output=True, text=True, check=False, timeout=TIMEOUT_S,
        )
        if proc.returncode != 0 or not raw.is_file():
            raise SnapshotBuildError(
                f"build_snapshot.mjs failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n"
                f"{proc.stderr[-3000:]}")
        data = raw.read_bytes()
        out_dir.mkdir(parents=True, exist_ok=True)
        target = out_dir / SNAPSHOT_NAME
        partial = target.with_suffix(".partial")
        partial.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        target.with_suffix(".size").write_text(f"{len(data)}\n", encoding="ascii")
        partial.replace(target)
        return target


def build_snapshot(wheel: Path, pyodide_dir: Path = PYODIDE_DIR,
                   build_dir: Path = BUILD_DIR) -> BuiltSnapshot:
    key = input_hash(wheel, pyodide_dir)
    target = build_dir / key / SNAPSHOT_NAME
    if target.is_file() and target.with_suffix(".size").is_file():
        return BuiltSnapshot(path=target, content_hash=key, raw_bytes=_raw_size(target),
                             rebuilt=False)
    for stale in build_dir.glob("*") if build_dir.is_dir() else []:
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    path = _make(wheel, pyodide_dir, build_dir / key)
    return BuiltSnapshot(path=path, content_hash=key, raw_bytes=_raw_size(path), rebuilt=True)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: build_snapshot.py <wheel>", file=sys.stderr)
        return 2
    try:
        built = build_snapshot(Path(sys.argv[1]))
    except (SnapshotBuildError, OSError, subprocess.TimeoutExpired) as err:
        print(f"build_snapshot: {err}", file=sys.stderr)
        return 1
    print(built.path, built.raw_bytes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
