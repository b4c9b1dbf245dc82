"""Check the data tree (data/*.toml, data/sources/*.toml, data/i18n/*/*.toml) before any answer.

Every fault names its file, its record and its field: TOML syntax (with line and column), a
missing required field, a duplicate id, an unknown reference (source, core, chip, instance, model,
measurement), a wrong type (e.g. a number stored as a string) and a value out of range (zero,
negative, NaN or infinite figures, unknown enumeration values).

calc.data runs ``check_tree`` once per process before it answers from the data (CLI, JSON api,
browser worker, build-time macros); hooks/data_check.py fails ``mkdocs build`` with the full list;
``python -m calc.data_check [DIR]`` prints it. Stdlib only.
"""

from __future__ import annotations

import datetime
import math
import os
import re
import sys
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import data_lang
from .data_tree import FILES, data_files
from .errors import CalcError

Record = dict[str, Any]
Reader = Callable[[str], bytes | None]

REQUIRED: dict[str, tuple[str, ...]] = {
    "source": ("id", "title", "url", "publisher", "kind", "as_of"),
    "core": ("id", "name", "sources"),
    "chip": ("id", "name", "vendor", "kind", "sources"),
    "instance": ("id", "family", "kind", "chip", "chip_count", "tp_degrees", "sources"),
    "price": ("instance", "region", "kind", "as_of", "sources"),
    "model": ("id", "name", "architecture", "params", "layers", "hidden", "heads", "kv_heads",
              "head_dim", "intermediate", "vocab", "sources"),
    "measurement": ("id", "model", "instance", "use", "sources"),
    "assumption": ("id", "value", "unit", "sources"),
    "term": ("id", "abbr", "en", "ja", "es"),
    "claim": ("id", "seed", "quote", "verdict", "sources"),
}
# a figure or its <field>_missing reason, one of them
ONE_OF: dict[str, tuple[tuple[str, ...], ...]] = {
    "price": (("usd_per_hour", "usd_per_hour_missing"),),
    "chip": (("memory_gib", "memory_gb"),),
}
NEURON_CHIP_REQUIRED = ("core", "cores_per_chip", "lnc_default")
# a field that qualifies another: present only with the fields it speaks of
QUALIFIES: dict[tuple[str, str], tuple[str, ...]] = {
    ("measurement", "concurrency_from"): ("concurrency", "concurrency_note"),
}

CHOICES: dict[tuple[str, str], frozenset[str]] = {
    ("source", "kind"): frozenset({"official-doc", "aws-page", "price-list", "secondary", "paper",
                                   "tool"}),
    ("chip", "kind"): frozenset({"neuron", "gpu"}),
    ("chip", "vendor"): frozenset({"aws", "nvidia"}),
    ("instance", "kind"): frozenset({"neuron", "gpu"}),
    ("price", "kind"): frozenset({"on-demand", "ri-effective", "capacity-block"}),
    ("model", "architecture"): frozenset({"decoder", "encoder"}),
    ("measurement", "use"): frozenset({"calibration", "validation", "reference"}),
    ("measurement", "arrivals"): frozenset({"evenly-spaced", "burst", "rounds", "queued"}),
    ("measurement", "concurrency_from"): frozenset({"littles-law"}),
}

POSITIVE_INTS = frozenset({
    "cores_per_chip", "lnc_default", "chip_count", "vcpu", "params", "active_params", "layers",
    "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab", "max_position_embeddings",
    "tp", "batch", "input_len", "output_len", "seq_len", "hbm_stacks", "dma_engines", "cc_cores",
    "instance_count", "dp", "pp", "micro_batch", "global_batch", "neuronlink_links",
    "output_len_requested", "output_len_sd",
    "memory_pool_chips", "prefill_chunk_tokens",
})
NON_NEGATIVE_INTS = frozenset({"experts", "active_experts", "cold_replicas"})
BOOLS = frozenset({"gated_mlp", "tied_embeddings", "efa", "network_up_to", "single_bucket"})
DATES = frozenset({"as_of", "accessed"})
TEXTS = frozenset({"id", "name", "title", "url", "publisher", "kind", "vendor", "family", "chip",
                   "core", "instance", "model", "region", "unit", "abbr", "en", "ja", "es",
                   "architecture", "use", "quote", "verdict", "seed", "arrivals",
                   "concurrency_from"})
# per-dtype figure tables: every value a positive number
FIGURE_TABLES = frozenset({"dense_tflops", "sparse_tflops", "tensor_dense_tflops",
                           "tensor_sparse_tflops", "clocks_ghz"})
# a field named with a unit holds a positive figure (ttft_s, memory_gib, usd_per_hour, ...)
UNIT_SUFFIX = re.compile(
    r"(_gib|_gb|_mib|_tb|_gbps|_per_s|_per_s_per_chip|_s|_tflops|_ghz|_per_hour|_per_cycle)$"
)
NOT_A_FIGURE_SUFFIX = ("_missing", "_alt", "_note")
SOURCE_LISTS = ("sources",)
CLAIM_KINDS = {"chip": "chip", "core": "core", "instance": "instance", "model": "model",
               "measurement": "measurement", "assumption": "assumption"}


@dataclass(frozen=True, slots=True)
class DataFault:
    file: str     # path as shown: data/prices.toml
    record: str   # price #12 (trn1.32xlarge, us-east-1, on-demand) | chip "inferentia2" | -
    field: str    # usd_per_hour | - (syntax)
    problem: str  # English

    def message(self) -> str:
        where = self.file if self.record == "-" else f"{self.file}: {self.record}"
        return where + ("" if self.field == "-" else f", field {self.field}") + f": {self.problem}"


class DataError(CalcError):
    """The data does not check: the engine refuses to answer from it."""

    def __init__(self, faults: list[DataFault]) -> None:
        self.faults = faults
        first = faults[0]
        more = f" (and {len(faults) - 1} more data faults)" if len(faults) > 1 else ""
        super().__init__("data", "data_invalid", {
            "value": first.message() + more, "file": first.file, "record": first.record,
            "data_field": first.field, "count": len(faults),
        })


# ---------------------------------------------------------------- parsing


_LINE_COLUMN = re.compile(r"at line (\d+), column (\d+)")
_HEADER = re.compile(r"^\s*\[\[([A-Za-z_]+)\]\]")
_ID_LINE = re.compile(r'^\s*id\s*=\s*"([^"]*)"')


def parse(file_label: str, raw: bytes) -> tuple[dict[str, Any] | None, list[DataFault]]:
    """(document, []) or (None, [syntax fault with line, column and the enclosing record])."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, [DataFault(file_label, "-", "-", f"not UTF-8 text (byte {err.start})")]
    try:
        return tomllib.loads(text), []
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        found = _LINE_COLUMN.search(message)
        record = "-"
        if found:
            line = int(found.group(1))
            record = _enclosing_record(text.splitlines()[:line])
        return None, [DataFault(file_label, record, "-", f"TOML syntax error: {message}")]


def _enclosing_record(lines: list[str]) -> str:
    table, record_id, start = None, None, 0
    for number, line in enumerate(lines, 1):
        header = _HEADER.match(line)
        if header:
            table, record_id, start = header.group(1), None, number
            continue
        found = _ID_LINE.match(line)
        if found and table:
            record_id = found.group(1)
    if table is None:
        return "-"
    return f'{table} "{record_id}" (from line {start})' if record_id else \
        f"{table} starting at line {start}"


# ---------------------------------------------------------------- checks


def _label(table: str, index: int, rec: Record) -> str:
    if isinstance(rec.get("id"), str):
        return f'{table} "{rec["id"]}"'
    if table == "price":
        parts = ", ".join(str(rec.get(k, "?")) for k in ("instance", "region", "kind"))
        return f"price #{index + 1} ({parts})"
    return f"{table} #{index + 1}"


def _show(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type_problem(name: str, value: Any) -> str | None:
    """Wrong type or out of range for a field, by its name; None when fine."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number (got {value})"
    if name.endswith("_table"):
        return None
    if name.endswith(NOT_A_FIGURE_SUFFIX) or name in ("note", "params_note"):
        if name.endswith("_missing") and isinstance(value, dict):
            return None
        return None if isinstance(value, str) and value.strip() else "must be non-empty text"
    if name in POSITIVE_INTS or name in NON_NEGATIVE_INTS:
        floor = 1 if name in POSITIVE_INTS else 0
        if isinstance(value, str) and _numeric_text(value):
            return f"must be a whole number, not text (got {_show(value)})"
        if not isinstance(value, int) or isinstance(value, bool):
            return f"must be a whole number (got {_show(value)})"
        if value < floor:
            return f"must be at least {floor} (got {value})"
        return None
    if name in BOOLS:
        return None if isinstance(value, bool) else f"must be true or false (got {_show(value)})"
    if name in DATES:
        ok = isinstance(value, datetime.date) and not isinstance(value, datetime.datetime)
        return None if ok else f"must be a TOML date like 2025-12-01 (got {_show(value)})"
    if name in FIGURE_TABLES:
        if not isinstance(value, dict):
            return f"must be a table of figures per data type (got {_show(value)})"
        for key, item in value.items():
            problem = _figure_problem(item)
            if problem:
                return f"{key}: {problem}"
        return None
    if UNIT_SUFFIX.search(name):
        return _figure_problem(value)
    if name in TEXTS:
        return None if isinstance(value, str) and value.strip() else \
            f"must be non-empty text (got {_show(value)})"
    return None


def _numeric_text(value: str) -> bool:
    try:
        float(value.replace("_", ""))
    except ValueError:
        return False
    return True


def _figure_problem(value: Any) -> str | None:
    if isinstance(value, str):
        kind = "a number stored as text" if _numeric_text(value) else "text"
        return f"must be a number, not {kind} (got {_show(value)})"
    if not _is_number(value):
        return f"must be a number (got {_show(value)})"
    if not math.isfinite(value):
        return f"must be a finite number (got {value})"
    if value <= 0:
        return f"must be greater than 0 (got {value})"
    return None


def _non_finite(value: Any, path: str) -> Iterable[tuple[str, Any]]:
    if isinstance(value, float) and not math.isfinite(value):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _non_finite(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _non_finite(item, f"{path}[{index}]")


def check_record(file_label: str, table: str, index: int, rec: Any) -> list[DataFault]:
    """Required fields, types and ranges of one record (no cross references)."""
    if not isinstance(rec, dict):
        return [DataFault(file_label, f"{table} #{index + 1}", "-", "must be a table")]
    label = _label(table, index, rec)
    faults: list[DataFault] = []

    def fault(field: str, problem: str) -> None:
        faults.append(DataFault(file_label, label, field, problem))

    for name in REQUIRED.get(table, ()):
        if name not in rec:
            fault(name, "required field is missing")
    for group in ONE_OF.get(table, ()):
        if not any(name in rec for name in group):
            fault(group[0], f"missing: give {group[0]} or {' / '.join(group[1:])}")
    for (qualified_table, name), needed in QUALIFIES.items():
        if table == qualified_table and name in rec:
            for other in needed:
                if other not in rec:
                    fault(other, f"required with {name} (missing)")
    if table == "chip" and rec.get("kind") == "neuron":
        for name in NEURON_CHIP_REQUIRED:
            if name not in rec:
                fault(name, "required field is missing (Neuron chip)")
    for name, value in rec.items():
        problem = _type_problem(name, value)
        if problem:
            fault(name, problem)
            continue
        for path, bad in _non_finite(value, name):
            fault(path, f"must be a finite number (got {bad})")
        allowed = CHOICES.get((table, name))
        if allowed is not None and isinstance(value, str) and value not in allowed:
            fault(name, f"{_show(value)} is not one of {', '.join(sorted(allowed))}")
    if "sources" in rec:
        sources = rec["sources"]
        if not isinstance(sources, list) or not sources or \
                not all(isinstance(s, str) and s for s in sources):
            fault("sources", f"must be a non-empty list of source ids (got {_show(sources)})")
    if table == "assumption" and "value" in rec:
        value = rec["value"]
        if not _is_number(value):
            fault("value", f"must be a number (got {_show(value)})")
        elif not math.isfinite(value) or value < 0:
            fault("value", f"must be a finite number of at least 0 (got {value})")
    if table == "instance" and isinstance(rec.get("tp_degrees"), list):
        for degree in rec["tp_degrees"]:
            if not isinstance(degree, int) or isinstance(degree, bool) or degree < 1:
                fault("tp_degrees", f"every degree must be a whole number >= 1 (got "
                                    f"{_show(degree)})")
                break
    return faults


@dataclass(frozen=True, slots=True)
class _Loaded:
    file: str
    table: str
    index: int
    rec: Record


def check_documents(docs: dict[str, dict[str, Any]], label: Callable[[str], str]
                    ) -> list[DataFault]:
    """All record checks plus duplicates and references. docs: relative path -> document."""
    faults: list[DataFault] = []
    loaded: dict[str, list[_Loaded]] = {}
    for path, doc in sorted(docs.items()):
        if path.startswith("i18n/"):
            continue
        tables = ("source",) if path.startswith("sources/") else FILES.get(path, ())
        for table in tables:
            records = doc.get(table)
            if records is None:
                faults.append(DataFault(label(path), "-", f"[[{table}]]",
                                        "required table is missing"))
                continue
            if not isinstance(records, list):
                faults.append(DataFault(label(path), "-", f"[[{table}]]",
                                        "must be an array of tables"))
                continue
            for index, rec in enumerate(records):
                faults.extend(check_record(label(path), table, index, rec))
                if isinstance(rec, dict):
                    loaded.setdefault(table, []).append(_Loaded(label(path), table, index, rec))
    ids: dict[str, set[str]] = {}
    for table, items in loaded.items():
        seen: dict[str, str] = {}
        for item in items:
            key = _identity(table, item.rec)
            if key is None:
                continue
            if key in seen:
                faults.append(DataFault(item.file, _label(table, item.index, item.rec),
                                        "id" if "id" in item.rec else "instance/region/kind",
                                        f"duplicate: {key} is already defined in {seen[key]}"))
            else:
                seen[key] = item.file
        ids[table] = {str(i.rec["id"]) for i in items if isinstance(i.rec.get("id"), str)}
    faults.extend(_references(loaded, ids))
    return faults


def _identity(table: str, rec: Record) -> str | None:
    if table == "price":
        return "/".join(str(rec.get(k)) for k in ("instance", "region", "kind"))
    value = rec.get("id")
    return value if isinstance(value, str) else None


def _references(loaded: dict[str, list[_Loaded]], ids: dict[str, set[str]]) -> list[DataFault]:
    faults: list[DataFault] = []
    # field -> table whose ids it names, per record table
    refs: dict[str, tuple[tuple[str, str], ...]] = {
        "chip": (("core", "core"),),
        "instance": (("chip", "chip"),),
        "price": (("instance", "instance"),),
        "measurement": (("model", "model"), ("instance", "instance"), ("chip", "chip")),
    }
    for table, items in loaded.items():
        for item in items:
            rec = item.rec
            where = _label(table, item.index, rec)

            def unknown(field: str, what: str, value: Any, file: str = item.file,
                        where: str = where) -> None:
                faults.append(DataFault(file, where, field, f"unknown {what} id {_show(value)}"))

            for field, target in refs.get(table, ()):
                value = rec.get(field)
                if isinstance(value, str) and value not in ids.get(target, set()):
                    unknown(field, target, value)
            sources = rec.get("sources")
            if isinstance(sources, list):
                for source in sources:
                    if isinstance(source, str) and source not in ids.get("source", set()):
                        unknown("sources", "source", source)
            if table == "core" and isinstance(rec.get("used_in"), list):
                for chip in rec["used_in"]:
                    if chip not in ids.get("chip", set()):
                        unknown("used_in", "chip", chip)
            if table == "assumption" and isinstance(rec.get("fitted_on"), list):
                for meas in rec["fitted_on"]:
                    if meas not in ids.get("measurement", set()):
                        unknown("fitted_on", "measurement", meas)
            correct = rec.get("correct") if table == "claim" else None
            if isinstance(correct, dict) and correct.get("kind") in CLAIM_KINDS:
                target = CLAIM_KINDS[str(correct["kind"])]
                if correct.get("id") not in ids.get(target, set()):
                    unknown("correct.id", target, correct.get("id"))
    return faults


# ---------------------------------------------------------------- the whole tree


def check_tree(read: Reader, paths: list[str], label: Callable[[str], str]
               ) -> tuple[dict[str, dict[str, Any]], list[DataFault]]:
    """Parse and check every path; (documents that parsed, faults)."""
    docs: dict[str, dict[str, Any]] = {}
    faults: list[DataFault] = []
    for path in paths:
        raw = read(path)
        if raw is None:
            faults.append(DataFault(label(path), "-", "-", "file is missing"))
            continue
        doc, syntax = parse(label(path), raw)
        faults.extend(syntax)
        if doc is not None:
            docs[path] = doc
    for path in data_lang.EXTRA_FILES:  # optional files whose texts data/i18n/<lang> may hold
        raw = read(path)
        doc = None if raw is None else parse(label(path), raw)[0]
        if doc is not None:
            docs[path] = doc
    faults.extend(data_lang.apply(docs, label))  # texts of data/i18n/<lang>/data.toml
    if not any(f.problem.startswith("TOML syntax") for f in faults):
        faults.extend(check_documents(docs, label))
    else:  # record checks still run on the files that parsed
        faults.extend(f for f in check_documents(docs, label) if "unknown" not in f.problem)
    return docs, list(dict.fromkeys(faults))  # one line per distinct fault


def check_dir(root: str) -> list[DataFault]:
    """Every fault in a data directory on disk."""
    return _tree_dir(root)[1]


def documents_dir(root: str) -> dict[str, dict[str, Any]]:
    """Every data file of a directory on disk that parses (relative path -> document), with the
    texts of data/i18n/<lang>/data.toml put onto their records (calc.data_lang)."""
    return _tree_dir(root)[0]


def _tree_dir(root: str) -> tuple[dict[str, dict[str, Any]], list[DataFault]]:

    def read(path: str) -> bytes | None:
        full = os.path.join(root, *path.split("/"))
        if not os.path.isfile(full):
            return None
        with open(full, "rb") as handle:
            return handle.read()

    def list_dir(path: str) -> list[str]:
        full = os.path.join(root, *path.split("/"))
        return os.listdir(full) if os.path.isdir(full) else []

    return check_tree(read, data_files(list_dir), lambda p: f"data/{p}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = args[0] if args else os.environ.get("NFG_DATA_DIR") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    faults = check_dir(root)
    for fault in faults:
        print(fault.message(), file=sys.stderr)
    print(f"{len(faults)} data faults in {root}", file=sys.stderr if faults else sys.stdout)
    return 1 if faults else 0


if __name__ == "__main__":
    raise SystemExit(main())
