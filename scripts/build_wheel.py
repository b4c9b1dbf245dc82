"""Build the calc wheel for the browser: pip wheel + `pyodide py-compile` (CPython 3.13 bytecode).

Output: build/wheel/<content-hash>/neuron_field_guide-<ver>-cp313-none-any.whl
The hash covers calc/, data/ and pyproject.toml, so an unchanged tree reuses the last wheel
(the fast path `mkdocs serve` needs). The hash is a directory name, not part of the file name,
because loadPackage() needs a valid wheel file name; the served URL carries the hash.

Reproducible: every step runs with SOURCE_DATE_EPOCH (from the environment, else a fixed date),
so hatchling writes fixed zip times and py_compile writes hash-based .pyc files (no source mtime);
the compiled wheel is then rewritten with sorted entries, that fixed time, fixed permissions and a
fixed compression level. Building twice gives byte-identical wheels (tested).

Run: .venv/bin/python scripts/build_wheel.py   (prints the wheel path)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "build" / "wheel"
HASHED_INPUTS = ("calc", "data", "pyproject.toml")
PYODIDE_PYTHON_MINOR = (3, 13)  # Pyodide 0.29.x runs CPython 3.13
HASH_CHARS = 12
# 2025-01-01T00:00:00Z: the wheel's file times when SOURCE_DATE_EPOCH is not set
DEFAULT_SOURCE_DATE_EPOCH = 1735689600
ZIP_MIN_EPOCH = 315532800  # 1980-01-01, the earliest time a zip entry can hold


class WheelBuildError(RuntimeError):
    """The wheel could not be built or compiled."""


@dataclass(frozen=True, slots=True)
class BuiltWheel:
    path: Path
    content_hash: str
    rebuilt: bool


def _input_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for name in HASHED_INPUTS:
        target = root / name
        if target.is_file():
            files.append(target)
        elif target.is_dir():
            files.extend(
                p
                for p in target.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
            )
    return sorted(files)


def content_hash(root: Path = ROOT) -> str:
    digest = hashlib.sha256()
    for path in _input_files(root):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:HASH_CHARS]


def _pyodide_cli() -> Path:
    candidate = Path(sys.executable).parent / "pyodide"
    if candidate.exists():
        return candidate
    found = shutil.which("pyodide")
    if found is None:
        raise WheelBuildError("the `pyodide` CLI (pyodide-build) is not installed")
    return Path(found)


def source_date_epoch() -> int:
    raw = os.environ.get("SOURCE_DATE_EPOCH", "")
    return max(int(raw), ZIP_MIN_EPOCH) if raw.strip().isdigit() else DEFAULT_SOURCE_DATE_EPOCH


def normalize_wheel(path: Path, epoch: int) -> None:
    """Rewrite a wheel deterministically: sorted names, fixed time, mode 0644, deflate level 6."""
    date_time = time.gmtime(epoch)[:6]
    with zipfile.ZipFile(path) as source:
        entries = sorted(((info.filename, source.read(info)) for info in source.infolist()
                          if not info.is_dir()),
                         key=lambda entry: (".dist-info/" in entry[0], entry[0]))  # metadata last
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as target:
        for name, payload in entries:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(info, payload, compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
    tmp.replace(path)


def _run(cmd: list[str], cwd: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(source_date_epoch())}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise WheelBuildError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")


def _compile(root: Path, out_dir: Path) -> Path:
    with tempfile.TemporaryDirectory(prefix="nfg-wheel-") as tmp:
        tmp_dir = Path(tmp)
        _run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "--quiet", "-w", str(tmp_dir), str(root)],
            cwd=root,
        )
        pure = sorted(tmp_dir.glob("*-py3-none-any.whl"))
        if len(pure) != 1:
            raise WheelBuildError(f"expected one py3-none-any wheel, found {pure}")
        _run([str(_pyodide_cli()), "py-compile", str(pure[0])], cwd=tmp_dir)
        tag = f"cp{PYODIDE_PYTHON_MINOR[0]}{PYODIDE_PYTHON_MINOR[1]}-none-any"
        compiled = sorted(tmp_dir.glob(f"*-{tag}.whl"))
        if len(compiled) != 1:
            raise WheelBuildError(f"py-compile did not write a {tag} wheel")
        normalize_wheel(compiled[0], source_date_epoch())
        out_dir.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copyfile(compiled[0], out_dir / compiled[0].name))


def build_wheel(root: Path = ROOT, build_dir: Path = BUILD_DIR) -> BuiltWheel:
    if sys.version_info[:2] != PYODIDE_PYTHON_MINOR:
        raise WheelBuildError(
            f"py-compile needs CPython {PYODIDE_PYTHON_MINOR[0]}.{PYODIDE_PYTHON_MINOR[1]} "
            f"(Pyodide 0.29's Python); this is {sys.version_info[0]}.{sys.version_info[1]}"
        )
    key = content_hash(root)
    out_dir = build_dir / key
    existing = sorted(out_dir.glob("*-cp313-none-any.whl")) if out_dir.is_dir() else []
    if len(existing) == 1:
        return BuiltWheel(path=existing[0], content_hash=key, rebuilt=False)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    for stale in build_dir.glob("*") if build_dir.is_dir() else []:
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    return BuiltWheel(path=_compile(root, out_dir), content_hash=key, rebuilt=True)


def main() -> int:
    try:
        built = build_wheel()
    except WheelBuildError as err:
        print(f"build_wheel: {err}", file=sys.stderr)
        return 1
    print(built.path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
