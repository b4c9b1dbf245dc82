"""Build the calc wheel for the browser: pip wheel + `pyodide py-compile` (CPython 3.13 bytecode).

Output: build/wheel/<content-hash>/neuron_field_guide-<ver>-cp313-none-any.whl
The hash covers calc/, data/ and pyproject.toml, so an unchanged tree reuses the last wheel
(the fast path `mkdocs serve` needs). The hash is a directory name, not part of the file name,
because loadPackage() needs a valid wheel file name; the served URL carries the hash.

Run: .venv/bin/python scripts/build_wheel.py   (prints the wheel path)
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "build" / "wheel"
HASHED_INPUTS = ("calc", "data", "pyproject.toml")
PYODIDE_PYTHON_MINOR = (3, 13)  # Pyodide 0.29.x runs CPython 3.13
HASH_CHARS = 12


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


def _run(cmd: list[str], cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
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
        out_dir.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(compiled[0], out_dir / compiled[0].name))


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
