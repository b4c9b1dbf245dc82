"""Injected data faults: every kind is caught by calc.data_check, by the loader at every entry
point (JSON api, CLI, i18n reads) and by the build hook, and the message names file, record and
field (a syntax error: file, line and column).

Each fault copies data/ to a temporary directory, edits one record there and points the loader at
the copy with NFG_DATA_DIR. The catalog FAULTS is also used by scripts/measure_data_faults.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from calc import api, data
from calc.data_check import DataError, check_dir

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


@dataclass(frozen=True)
class Fault:
    name: str
    kind: str      # syntax | missing | duplicate | reference | type | range
    file: str      # relative to data/
    apply: Callable[[Path], None]
    record: str    # expected in the message ("line" for syntax errors)
    field: str     # expected in the message


def _edit(path: Path, anchor: str, old: str, new: str) -> None:
    """Replace the regex `old` once inside the [[...]] block that contains `anchor`."""
    text = path.read_text("utf-8")
    at = text.index(anchor)
    start = text.rfind("[[", 0, at)
    end = text.find("\n[[", at)
    end = len(text) if end < 0 else end
    block, count = re.subn(old, new, text[start:end], count=1, flags=re.M)
    assert count == 1, f"{path.name}: {old!r} not found near {anchor!r}"
    path.write_text(text[:start] + block + text[end:], "utf-8")


def _append(path: Path, extra: str) -> None:
    path.write_text(path.read_text("utf-8") + extra, "utf-8")


def _copy_block(path: Path, anchor: str, into: Path | None = None) -> None:
    text = path.read_text("utf-8")
    at = text.index(anchor)
    start = text.rfind("[[", 0, at)
    end = text.find("\n[[", at)
    block = text[start:] if end < 0 else text[start:end]
    _append(into or path, "\n" + block.rstrip() + "\n")


def edit(file: str, anchor: str, old: str, new: str) -> Callable[[Path], None]:
    return lambda root: _edit(root / file, anchor, old, new)


INF2 = 'id = "inf2.48xlarge"'
TRN1 = 'id = "trn1.32xlarge"'
LLAMA = 'id = "llama-3.1-8b"'
INF2_CHIP = 'id = "inferentia2"'
PRICE = 'instance = "trn1.32xlarge"\nregion = "us-east-1"\nkind = "on-demand"'
PRICE_LABEL = "price #"
MEAS = 'id = "inf2-llama-3-8b-tp24-b1-128-8064"'
SRC = 'id = "neuron-inferentia-arch"'
MFU = 'id = "mfu_training_neuron_default"'
LITTLE = 'id = "inf2-tgi-neuron-llama-3.3-70b-tp24-cb8-max-1500-250"'

FAULTS: list[Fault] = [
    # TOML syntax: file + line and column
    Fault("syntax-instances", "syntax", "instances.toml",
          edit("instances.toml", INF2, r"^chip_count = (\d+)$", r"chip_count = = \1"),
          "line", "-"),
    Fault("syntax-prices", "syntax", "prices.toml",
          lambda r: _append(r / "prices.toml", '\n[[price]\ninstance = "x"\n'), "line", "-"),
    Fault("syntax-models", "syntax", "models.toml",
          edit("models.toml", LLAMA, r'^name = "([^"]*)"$', r'name = "\1'), "line", "-"),
    Fault("syntax-sources", "syntax", "sources/hardware.toml",
          edit("sources/hardware.toml", SRC, r"^as_of = (.*)$", r"as_of = 2025-13-45"),
          "line", "-"),
    Fault("syntax-i18n", "syntax", "i18n/ja/errors.toml",
          lambda r: _append(r / "i18n/ja/errors.toml", "\nbroken = \n"), "line", "-"),
    # missing required fields
    Fault("missing-chip-count", "missing", "instances.toml",
          edit("instances.toml", INF2, r"^chip_count = \d+\n", ""),
          'instance "inf2.48xlarge"', "chip_count"),
    Fault("missing-instance-chip", "missing", "instances.toml",
          edit("instances.toml", TRN1, r'^chip = "[^"]*"\n', ""),
          'instance "trn1.32xlarge"', "chip"),
    Fault("missing-model-layers", "missing", "models.toml",
          edit("models.toml", LLAMA, r"^layers = \d+\n", ""), 'model "llama-3.1-8b"', "layers"),
    Fault("missing-price-and-reason", "missing", "prices.toml",
          edit("prices.toml", PRICE, r"^usd_per_hour = .*\n", ""), PRICE_LABEL, "usd_per_hour"),
    Fault("missing-price-instance", "missing", "prices.toml",
          edit("prices.toml", PRICE, r'^instance = "trn1.32xlarge"\n', ""), PRICE_LABEL,
          "instance"),
    Fault("missing-sources", "missing", "chips.toml",
          edit("chips.toml", INF2_CHIP, r"^sources = .*\n", ""), 'chip "inferentia2"',
          "sources"),
    Fault("missing-source-url", "missing", "sources/hardware.toml",
          edit("sources/hardware.toml", SRC, r"^url = .*\n", ""),
          'source "neuron-inferentia-arch"', "url"),
    # duplicates
    Fault("duplicate-instance", "duplicate", "instances.toml",
          lambda r: _copy_block(r / "instances.toml", INF2), 'instance "inf2.48xlarge"', "id"),
    Fault("duplicate-model", "duplicate", "models.toml",
          lambda r: _copy_block(r / "models.toml", LLAMA), 'model "llama-3.1-8b"', "id"),
    Fault("duplicate-source-across-files", "duplicate", "sources/tools.toml",
          lambda r: _copy_block(r / "sources/hardware.toml", SRC, r / "sources/tools.toml"),
          'source "neuron-inferentia-arch"', "id"),
    Fault("duplicate-price-row", "duplicate", "prices.toml",
          lambda r: _copy_block(r / "prices.toml", PRICE), PRICE_LABEL, "instance/region/kind"),
    # unknown references
    Fault("unknown-source-instance", "reference", "instances.toml",
          edit("instances.toml", INF2, r'^sources = \["', 'sources = ["no-such-source", "'),
          'instance "inf2.48xlarge"', "sources"),
    Fault("unknown-source-price", "reference", "prices.toml",
          edit("prices.toml", PRICE, r'^sources = \["', 'sources = ["no-such-source", "'),
          PRICE_LABEL, "sources"),
    Fault("unknown-chip", "reference", "instances.toml",
          edit("instances.toml", INF2, r'^chip = "[^"]*"', 'chip = "inferentia9"'),
          'instance "inf2.48xlarge"', "chip"),
    Fault("unknown-core", "reference", "chips.toml",
          edit("chips.toml", INF2_CHIP, r'^core = "[^"]*"', 'core = "neuroncore-v9"'),
          'chip "inferentia2"', "core"),
    Fault("unknown-price-instance", "reference", "prices.toml",
          edit("prices.toml", PRICE, r'^instance = "[^"]*"', 'instance = "trn9.32xlarge"'),
          PRICE_LABEL, "instance"),
    Fault("unknown-measurement-model", "reference", "measurements.toml",
          edit("measurements.toml", MEAS, r'^model = "[^"]*"', 'model = "llama-9"'),
          'measurement "inf2-llama-3-8b-tp24-b1-128-8064"', "model"),
    Fault("unknown-measurement-instance", "reference", "measurements.toml",
          edit("measurements.toml", MEAS, r'^instance = "[^"]*"', 'instance = "inf9.48xlarge"'),
          'measurement "inf2-llama-3-8b-tp24-b1-128-8064"', "instance"),
    # wrong types
    Fault("string-price", "type", "prices.toml",
          edit("prices.toml", PRICE, r"^usd_per_hour = (.*)$", r'usd_per_hour = "\1"'),
          PRICE_LABEL, "usd_per_hour"),
    Fault("string-chip-count", "type", "instances.toml",
          edit("instances.toml", INF2, r"^chip_count = (\d+)$", r'chip_count = "\1"'),
          'instance "inf2.48xlarge"', "chip_count"),
    Fault("string-params", "type", "models.toml",
          edit("models.toml", LLAMA, r"^params = (\d+)$", r'params = "\1"'),
          'model "llama-3.1-8b"', "params"),
    Fault("string-memory", "type", "chips.toml",
          edit("chips.toml", INF2_CHIP, r"^memory_gib = (\d+)$", r'memory_gib = "\1"'),
          'chip "inferentia2"', "memory_gib"),
    Fault("string-date", "type", "prices.toml",
          edit("prices.toml", PRICE, r"^as_of = (.*)$", r'as_of = "\1"'), PRICE_LABEL, "as_of"),
    Fault("string-bool", "type", "models.toml",
          edit("models.toml", LLAMA, r"^gated_mlp = (\w+)$", r'gated_mlp = "\1"'),
          'model "llama-3.1-8b"', "gated_mlp"),
    Fault("float-layers", "type", "models.toml",
          edit("models.toml", LLAMA, r"^layers = (\d+)$", r"layers = \1.5"),
          'model "llama-3.1-8b"', "layers"),
    # out of range
    Fault("zero-price", "range", "prices.toml",
          edit("prices.toml", PRICE, r"^usd_per_hour = .*$", "usd_per_hour = 0.0"),
          PRICE_LABEL, "usd_per_hour"),
    Fault("negative-price", "range", "prices.toml",
          edit("prices.toml", PRICE, r"^usd_per_hour = .*$", "usd_per_hour = -21.5"),
          PRICE_LABEL, "usd_per_hour"),
    Fault("nan-price", "range", "prices.toml",
          edit("prices.toml", PRICE, r"^usd_per_hour = .*$", "usd_per_hour = nan"),
          PRICE_LABEL, "usd_per_hour"),
    Fault("inf-price", "range", "prices.toml",
          edit("prices.toml", PRICE, r"^usd_per_hour = .*$", "usd_per_hour = inf"),
          PRICE_LABEL, "usd_per_hour"),
    Fault("zero-chip-count", "range", "instances.toml",
          edit("instances.toml", INF2, r"^chip_count = \d+$", "chip_count = 0"),
          'instance "inf2.48xlarge"', "chip_count"),
    Fault("negative-layers", "range", "models.toml",
          edit("models.toml", LLAMA, r"^layers = \d+$", "layers = -32"),
          'model "llama-3.1-8b"', "layers"),
    Fault("zero-kv-heads", "range", "models.toml",
          edit("models.toml", LLAMA, r"^kv_heads = \d+$", "kv_heads = 0"),
          'model "llama-3.1-8b"', "kv_heads"),
    Fault("zero-bandwidth", "range", "chips.toml",
          edit("chips.toml", INF2_CHIP, r"^memory_bandwidth_gib_per_s = \d+$",
               "memory_bandwidth_gib_per_s = 0"),
          'chip "inferentia2"', "memory_bandwidth_gib_per_s"),
    Fault("nan-tflops", "range", "chips.toml",
          edit("chips.toml", INF2_CHIP, r"bf16 = \d+", "bf16 = nan"),
          'chip "inferentia2"', "dense_tflops"),
    Fault("negative-ttft", "range", "measurements.toml",
          edit("measurements.toml", MEAS, r"^ttft_s = .*$", "ttft_s = -0.03"),
          'measurement "inf2-llama-3-8b-tp24-b1-128-8064"', "ttft_s"),
    Fault("nan-assumption", "range", "assumptions.toml",
          edit("assumptions.toml", MFU, r"^value = .*$", "value = nan"),
          'assumption "mfu_training_neuron_default"', "value"),
    Fault("unknown-price-kind", "range", "prices.toml",
          edit("prices.toml", PRICE, r'^kind = "on-demand"', 'kind = "spot"'),
          PRICE_LABEL, "kind"),
    Fault("unknown-concurrency-from", "range", "measurements.toml",
          edit("measurements.toml", LITTLE, r'^concurrency_from = "[^"]*"',
               'concurrency_from = "guessed"'),
          'measurement "inf2-tgi-neuron-llama-3.3-70b-tp24-cb8-max-1500-250"', "concurrency_from"),
    Fault("littles-law-without-its-derivation", "missing", "measurements.toml",
          edit("measurements.toml", LITTLE, r"^concurrency_note = .*$", ""),
          'measurement "inf2-tgi-neuron-llama-3.3-70b-tp24-cb8-max-1500-250"', "concurrency_note"),
    Fault("zero-tp-degree", "range", "instances.toml",
          edit("instances.toml", INF2, r"^tp_degrees = \[", "tp_degrees = [0, "),
          'instance "inf2.48xlarge"', "tp_degrees"),
]


def faulty_copy(fault: Fault, tmp: Path) -> Path:
    root = tmp / "data"
    shutil.copytree(DATA, root)
    fault.apply(root)
    return root


def names_the_fault(message: str, fault: Fault) -> bool:
    if f"data/{fault.file}" not in message:
        return False
    if fault.record == "line":
        return bool(re.search(r"line \d+, column \d+", message))
    return fault.record in message and f"field {fault.field}" in message


@pytest.fixture
def use_data(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    def point(root: Path) -> None:
        monkeypatch.setenv(data.DATA_DIR_ENV, str(root))
        data.reset()

    yield point
    monkeypatch.delenv(data.DATA_DIR_ENV, raising=False)
    data.reset()


def test_typed_markers_must_be_text() -> None:
    """concurrency_from and arrivals are words, not flags: `true` would otherwise pass the
    choice check and read as a stated load."""
    from calc.data_check import check_record
    row = {"id": "m", "model": "x", "instance": "y", "use": "reference", "sources": ["s"],
           "concurrency": 3, "concurrency_note": "Little's law", "concurrency_from": True,
           "arrivals": True}
    fields = {fault.field for fault in check_record("measurements.toml", "measurement", 0, row)}
    assert fields == {"concurrency_from", "arrivals"}


def test_catalog_covers_every_kind_and_the_clean_data_checks() -> None:
    assert {f.kind for f in FAULTS} == {"syntax", "missing", "duplicate", "reference", "type",
                                        "range"}
    assert len(FAULTS) >= 35 and len({f.name for f in FAULTS}) == len(FAULTS)
    assert check_dir(str(DATA)) == []


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_checker_names_file_record_and_field(fault: Fault, tmp_path: Path) -> None:
    messages = [f.message() for f in check_dir(str(faulty_copy(fault, tmp_path)))]
    assert any(names_the_fault(m, fault) for m in messages), messages


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_loader_refuses_to_answer(fault: Fault, tmp_path: Path,
                                  use_data: Callable[[Path], None]) -> None:
    use_data(faulty_copy(fault, tmp_path))
    if fault.file.startswith("i18n/"):
        lang, stem = fault.file.split("/")[1:]
        with pytest.raises(DataError) as caught:
            data.i18n(lang, stem)
        assert names_the_fault(str(caught.value), fault), str(caught.value)
        return
    response = api.run({"schema_version": 1, "kind": "price",
                        "params": {"instance": "trn1.32xlarge"}})
    assert not response["ok"]
    error = response["error"]
    assert error["key"] == "data_invalid" and error["field"] == "data"
    assert error["params"]["count"] >= 1
    # the api shows the first fault; the full list must name this one
    with pytest.raises(DataError) as caught:
        data.check()
    messages = [f.message() for f in caught.value.faults]
    assert any(names_the_fault(m, fault) for m in messages), messages


CLI_FAULTS = [f for f in FAULTS if f.name in (
    "syntax-instances", "nan-price", "duplicate-price-row", "string-price", "missing-chip-count")]


@pytest.mark.parametrize("fault", CLI_FAULTS, ids=lambda f: f.name)
def test_cli_exits_2_with_one_line(fault: Fault, tmp_path: Path) -> None:
    root = faulty_copy(fault, tmp_path)
    env = {**os.environ, data.DATA_DIR_ENV: str(root), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "calc", "price", "--instance", "trn1.32xlarge"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: data error: ")
    assert f"data/{fault.file}" in lines[0]


@pytest.mark.site
@pytest.mark.parametrize("fault", [f for f in FAULTS if f.name in
                                   ("syntax-i18n", "nan-price", "unknown-source-instance")],
                         ids=lambda f: f.name)
def test_build_fails_and_names_the_fault(fault: Fault, tmp_path: Path) -> None:
    root = faulty_copy(fault, tmp_path)
    env = {**os.environ, data.DATA_DIR_ENV: str(root), "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=False, timeout=600)
    assert proc.returncode != 0
    assert names_the_fault(proc.stdout + proc.stderr, fault), (proc.stdout + proc.stderr)[-3000:]
