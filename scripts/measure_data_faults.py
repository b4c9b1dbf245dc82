"""Inject every fault of tests/data/test_faults.py FAULTS into a copy of data/ and count how many
are caught — and named (file, record, field; syntax: line and column) — by calc.data_check, by the
loader (JSON api / i18n read), by the CLI (exit 2) and by the strict MkDocs build (`make build`).

Run: PYTHONPATH=$PWD .venv/bin/python scripts/measure_data_faults.py [--no-build]
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calc import api, data  # noqa: E402
from calc.data_check import DataError, check_dir  # noqa: E402


def _catalog() -> object:
    spec = importlib.util.spec_from_file_location("fault_catalog",
                                                  ROOT / "tests" / "data" / "test_faults.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    catalog = _catalog()
    build = "--no-build" not in sys.argv
    counts = {"checker": 0, "loader": 0, "cli": 0, "build": 0}
    faults = catalog.FAULTS  # type: ignore[attr-defined]
    named = catalog.names_the_fault  # type: ignore[attr-defined]
    for fault in faults:
        with tempfile.TemporaryDirectory(prefix="nfg-fault-") as tmp:
            root = catalog.faulty_copy(fault, Path(tmp))  # type: ignore[attr-defined]
            row = {}
            row["checker"] = any(named(f.message(), fault) for f in check_dir(str(root)))
            os.environ[data.DATA_DIR_ENV] = str(root)
            data.reset()
            try:
                if fault.file.startswith("i18n/"):
                    lang, stem = fault.file.split("/")[1:]
                    data.i18n(lang, stem)
                    row["loader"] = False
                else:
                    response = api.run({"schema_version": 1, "kind": "price",
                                        "params": {"instance": "trn1.32xlarge"}})
                    assert not response["ok"] and response["error"]["key"] == "data_invalid"
                    data.check()
                    row["loader"] = False
            except DataError as err:
                row["loader"] = any(named(f.message(), fault) for f in err.faults)
            env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
            cli = subprocess.run([sys.executable, "-m", "calc", "price", "--instance",
                                  "trn1.32xlarge"], capture_output=True, text=True, env=env,
                                 check=False)
            row["cli"] = cli.returncode == 2 and f"data/{fault.file}" in cli.stderr \
                if not fault.file.startswith("i18n/") else None
            if build:
                proc = subprocess.run(
                    [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                     str(Path(tmp) / "site")], capture_output=True, text=True, env=env,
                    cwd=ROOT, check=False)
                row["build"] = proc.returncode != 0 and named(proc.stdout + proc.stderr, fault)
            del os.environ[data.DATA_DIR_ENV]
            data.reset()
            for key, value in row.items():
                counts[key] += bool(value)
            print(f"{fault.name:32} {fault.kind:10} " +
                  " ".join(f"{k}={'-' if v is None else int(bool(v))}" for k, v in row.items()))
    total = len(faults)
    cli_total = sum(1 for f in faults if not f.file.startswith("i18n/"))
    print(f"\n{total} injected faults: checker {counts['checker']}/{total}, loader "
          f"{counts['loader']}/{total}, CLI {counts['cli']}/{cli_total}" +
          (f", mkdocs build {counts['build']}/{total}" if build else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
