"""Read data/*.toml (tomllib) lazily and turn records into specs; every loader is cached.

Location: ``importlib.resources.files("calc") / "data"`` inside the wheel (found by path when the
package is a plain directory, as in site-packages and Pyodide), else <repo>/data.
Override: the environment variable NFG_DATA_DIR (a directory laid out like data/) wins over both;
tests point it at a copy with injected faults and call ``reset()``.

Before any answer the whole tree is parsed and checked once per process (calc.data_check; a tree
whose bytes passed in an earlier process is read back from calc.data_cache instead): a file
that does not parse, a missing field, a duplicate id, an unknown reference, a wrong type or an
out-of-range figure raises DataError (a CalcError, key ``data_invalid``) naming file, record and
field, so the CLI exits 2 with that line, the JSON api answers ok=false and the build fails.
"""

import os
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from . import data_cache
from .data_lang import EXTRA_FILES, overlay_lang
from .data_tree import data_files
from .errors import CalcError
from .specs import ChipSpec, InstanceSpec, ModelSpec, PriceSpec
from .units import FLOPS_PER_TFLOP, rate_bytes_per_s, size_bytes

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

Record = dict[str, Any]

# record name -> (file, TOML array-of-tables key)
_TABLES: dict[str, tuple[str, str]] = {
    "chips": ("chips.toml", "chip"),
    "cores": ("chips.toml", "core"),
    "instances": ("instances.toml", "instance"),
    "prices": ("prices.toml", "price"),
    "models": ("models.toml", "model"),
    "measurements": ("measurements.toml", "measurement"),
    "assumptions": ("assumptions.toml", "assumption"),
    "glossary": ("glossary.toml", "term"),
    "claims": ("claims.toml", "claim"),
    "api_prices": ("api_prices.toml", "api_price"),              # advisor (issue 11)
    "framework_support": ("framework_support.toml", "framework"),  # advisor (issue 11)
    "frameworks": ("frameworks.toml", "framework"),   # calc.frameworks; fact("framework", ...)
}
RECORD_NAMES = (*_TABLES, "sources")


DATA_DIR_ENV = "NFG_DATA_DIR"


@cache
def _data_root() -> str | None:
    """$NFG_DATA_DIR, <package>/data (the wheel: files("calc")/"data" of a regular package) or
    <repo>/data. os.path, not pathlib/importlib.resources: those imports cost ~40 ms of CLI cold
    start."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return os.path.abspath(override)
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "data"), os.path.join(os.path.dirname(here), "data")):
        if os.path.isdir(candidate):
            return candidate
    return None


def _resource(relative_path: str) -> "Traversable":
    from importlib.resources import files  # zip imports and other loaders only

    node = files("calc") / "data"
    for part in relative_path.split("/"):
        node = node / part
    return node


def _read_bytes(relative_path: str) -> bytes | None:
    root = _data_root()
    if root is None:
        node = _resource(relative_path)
        return node.read_bytes() if node.is_file() else None
    path = os.path.join(root, *relative_path.split("/"))
    if not os.path.isfile(path):
        return None
    with open(path, "rb", buffering=0) as handle:   # read whole: no buffer to copy through
        return handle.read()


def _source_files() -> list[str]:
    root = _data_root()
    if root is None:
        folder = _resource("sources")
        names = [entry.name for entry in folder.iterdir()] if folder.is_dir() else []
    else:
        folder_path = os.path.join(root, "sources")
        names = os.listdir(folder_path) if os.path.isdir(folder_path) else []
    return sorted(name for name in names if name.endswith(".toml"))


def _list_dir(relative_path: str) -> list[str]:
    root = _data_root()
    if root is None:
        folder = _resource(relative_path)
        return [entry.name for entry in folder.iterdir()] if folder.is_dir() else []
    path = os.path.join(root, *relative_path.split("/"))
    return os.listdir(path) if os.path.isdir(path) else []


@cache
def _checked() -> Mapping[str, dict[str, Any]]:
    """Every data file parsed and checked (once per process); DataError on any fault."""
    # i18n files are checked when first read (_toml) and by the build (hooks/data_check.py)
    # (but i18n/<lang>/data.toml: the data texts in <lang>, put onto their records; calc.data_lang)
    paths = [path for path in data_files(_list_dir)
             if not path.startswith("i18n/") or overlay_lang(path) is not None]
    # every file the check reads, read once: the check and the cache key see the same bytes
    files = {path: _read_bytes(path) for path in (*paths, *EXTRA_FILES)}
    tree_key = data_cache.key(files)

    def check_now() -> dict[str, dict[str, Any]]:
        return _check(files, paths, tree_key)

    # these bytes passed a check in an earlier process (a stored document that cannot be read
    # back has the tree checked now instead)
    stored = data_cache.load(tree_key, check_now)
    return check_now() if stored is None else stored


def _check(files: dict[str, bytes | None], paths: list[str], tree_key: str
           ) -> dict[str, dict[str, Any]]:
    """Parse and check the tree from these bytes; keep it on disk if it passes."""
    from .data_check import DataError, check_tree

    unkeyed: list[str] = []

    def read(path: str) -> bytes | None:
        if path in files:
            return files[path]
        unkeyed.append(path)   # a file the key does not cover: this tree is not kept
        return _read_bytes(path)

    docs, faults = check_tree(read, paths, lambda path: f"data/{path}")
    if faults:
        raise DataError(faults)
    if not unkeyed:
        data_cache.save(tree_key, docs)
    return docs


def check() -> None:
    """Raise DataError (file, record, field) unless the whole data tree checks."""
    _checked()


_RESET_HOOKS: list[Callable[[], None]] = []


def on_reset(hook: Callable[[], None]) -> None:
    """Have reset() call hook too: for a cache of figures computed from the data elsewhere."""
    _RESET_HOOKS.append(hook)


def reset() -> None:
    """Forget every cached file, record and spec (after NFG_DATA_DIR changes), and whatever
    was computed from them (on_reset hooks)."""
    for cached in (_data_root, _checked, _toml, records, i18n, _by_id, _single, model, chip,
                   instance, _regions):
        cached.cache_clear()
    for hook in _RESET_HOOKS:
        hook()


@cache
def _toml(relative_path: str) -> dict[str, Any]:
    docs = _checked()
    if relative_path in docs:
        return docs[relative_path]
    raw = _read_bytes(relative_path)  # a file outside the checked tree
    if raw is None:
        return {}
    from .data_check import DataError, parse

    doc, faults = parse(f"data/{relative_path}", raw)
    if doc is None:
        raise DataError(faults)
    return doc


@cache
def records(name: str) -> list[Record]:
    """Plain dicts as in the TOML (dates as datetime.date). name: see RECORD_NAMES."""
    if name == "sources":
        found: list[Record] = []
        for file_name in _source_files():
            found.extend(_toml(f"sources/{file_name}").get("source", []))
        return found
    if name not in _TABLES:
        raise KeyError(f"unknown record set {name!r}; known: {', '.join(RECORD_NAMES)}")
    file_name, table = _TABLES[name]
    return list(_toml(file_name).get(table, []))


def document(relative_path: str) -> dict[str, Any]:
    """A checked data file as a dict, its data texts in every language on its records
    (e.g. "support_matrix.toml"; calc.data_lang)."""
    return _toml(relative_path)


@cache
def i18n(lang: str, file: str) -> dict[str, Any]:
    """data/i18n/<lang>/<file>.toml as a dict (file without or with the .toml suffix)."""
    stem = file.removesuffix(".toml")
    return _toml(f"i18n/{lang}/{stem}.toml")


@cache
def _by_id(name: str) -> dict[str, Record]:
    return {str(record["id"]): record for record in records(name) if "id" in record}


def record(name: str, record_id: str) -> Record | None:
    return _by_id(name).get(record_id)


@cache
def _single(name: str, record_id: str) -> Record | None:
    """One record by id. The whole tree is parsed and checked first (a file that does not parse
    must not answer), so this is the full-parse record (it used to parse only its block)."""
    found = record(name, record_id)
    return None if found is None else dict(found)


# ---------------------------------------------------------------- assumptions


def assumption(assumption_id: str) -> Record:
    found = record("assumptions", assumption_id)
    if found is None:
        raise LookupError(f"data/assumptions.toml has no assumption {assumption_id!r}")
    return found


def assumption_value(assumption_id: str) -> float:
    value = assumption(assumption_id).get("value")
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise LookupError(f"assumption {assumption_id!r} has no numeric value")
    return float(value)


# ---------------------------------------------------------------- models


def model_ids() -> list[str]:
    return list(_by_id("models"))


@cache
def model(model_id: str) -> ModelSpec:
    raw = _single("models", model_id)
    if raw is None:
        raise CalcError("model", "unknown_model", {"value": model_id, "allowed": model_ids()})
    heads = int(raw["heads"])
    hidden = int(raw["hidden"])
    params = int(raw["params"])
    return ModelSpec(
        id=model_id,
        name=str(raw.get("name", model_id)),
        architecture=str(raw.get("architecture", "decoder")),
        params=params,
        active_params=int(raw.get("active_params", params)),
        layers=int(raw["layers"]),
        hidden=hidden,
        heads=heads,
        kv_heads=int(raw.get("kv_heads", heads)),
        head_dim=int(raw.get("head_dim", hidden // heads)),
        intermediate=int(raw.get("intermediate", 4 * hidden)),
        vocab=int(raw.get("vocab", 0)),
        gated_mlp=bool(raw.get("gated_mlp", False)),
        tied_embeddings=bool(raw.get("tied_embeddings", False)),
        experts=int(raw.get("experts", 0)),
        active_experts=int(raw.get("active_experts", 0)),
        max_position_embeddings=_optional_int(raw.get("max_position_embeddings")),
        fp16_unstable=bool(raw.get("fp16_unstable", False)),
        **_model_extras(raw),
    )


# optional architecture fields of data/models.toml -> ModelSpec fields (calc.specs)
_MODEL_INT_EXTRAS = (
    "expert_intermediate", "shared_experts", "shared_expert_intermediate", "dense_layers",
    "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
    "local_layers", "local_window",
)
_MODEL_STR_EXTRAS = ("attention", "local_kind", "checkpoint_dtype", "linear_dtype",
                     "expert_dtype")


def _model_extras(raw: Record) -> dict[str, Any]:
    extras: dict[str, Any] = {k: int(raw[k]) for k in _MODEL_INT_EXTRAS if k in raw}
    extras.update({k: str(raw[k]) for k in _MODEL_STR_EXTRAS if k in raw})
    return extras


def _optional_int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


# ---------------------------------------------------------------- chips and instances


def _tflops_table(raw: Any) -> dict[str, float]:
    if not isinstance(raw, dict):
        return {}
    return {
        str(dtype): float(value)
        for dtype, value in raw.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


@cache
def chip(chip_id: str) -> ChipSpec:
    raw = _single("chips", chip_id)
    if raw is None:
        raise LookupError(f"data/chips.toml has no chip {chip_id!r}")
    kind = str(raw.get("kind", "neuron"))
    cores_per_chip = int(raw.get("cores_per_chip", 1))
    lnc = int(raw.get("lnc_default", 1)) if kind == "neuron" else 1
    memory_bytes = size_bytes(raw, "memory")
    bandwidth = rate_bytes_per_s(raw, "memory_bandwidth")
    usable = size_bytes(raw, "usable_memory_per_core")
    if usable is None and kind == "gpu":
        usable = memory_bytes
    headline = _tflops_table(raw.get("dense_tflops"))
    if kind == "neuron":
        overhead_physical = size_bytes(raw, "runtime_overhead_per_core")
        if overhead_physical is None:
            overhead_physical = round(assumption_value("neuron_runtime_overhead_per_core_bytes"))
        overhead = overhead_physical * lnc
        core_raw = _single("cores", str(raw.get("core", "")))
        per_physical = _tflops_table(core_raw.get("tensor_dense_tflops") if core_raw else None)
        if not per_physical:  # fall back to the chip headline split over its cores
            per_physical = {k: v / cores_per_chip for k, v in headline.items()}
        peak = {k: v * FLOPS_PER_TFLOP * lnc for k, v in per_physical.items()}
    else:
        overhead = round(assumption_value("gpu_runtime_overhead_bytes"))
        peak = {k: v * FLOPS_PER_TFLOP for k, v in headline.items()}
    return ChipSpec(
        id=chip_id,
        name=str(raw.get("name", chip_id)),
        vendor=str(raw.get("vendor", "")),
        kind=kind,
        cores_per_chip=cores_per_chip,
        lnc=lnc,
        memory_bytes=memory_bytes,
        memory_bandwidth_bytes_per_s=bandwidth,
        usable_memory_per_core_bytes=usable,
        runtime_overhead_per_core_bytes=overhead,
        peak_flops_per_core=peak,
        headline_dense_tflops=headline,
    )


def instance_ids() -> list[str]:
    return list(_by_id("instances"))


@cache
def instance(instance_id: str) -> InstanceSpec:
    raw = _single("instances", instance_id)
    if raw is None:
        raise CalcError(
            "instance", "unknown_instance", {"value": instance_id, "allowed": instance_ids()}
        )
    spec_chip = chip(str(raw["chip"]))
    chip_count = int(raw["chip_count"])
    logical = chip_count * spec_chip.logical_cores_per_chip
    degrees = raw.get("tp_degrees")
    if isinstance(degrees, list) and degrees:
        tp_degrees = tuple(sorted({int(d) for d in degrees if int(d) <= logical}))
    else:
        tp_degrees = tuple(d for d in (1, 2, 4, 8, 16, 32, 64, 128, 256) if d <= logical)
    return InstanceSpec(
        id=instance_id,
        family=str(raw.get("family", "")),
        kind=str(raw.get("kind", spec_chip.kind)),
        chip=spec_chip,
        chip_count=chip_count,
        tp_degrees=tp_degrees,
    )


# ---------------------------------------------------------------- prices


def regions() -> list[str]:
    return list(_regions())


@cache
def _regions() -> tuple[str, ...]:
    return tuple(sorted({str(p.get("region")) for p in records("prices")}))


def price(instance_id: str, region: str, kind: str = "on-demand") -> PriceSpec | None:
    """The newest matching price record, or None when there is none at all."""
    matches = [
        p
        for p in records("prices")
        if p.get("instance") == instance_id and p.get("region") == region and p.get("kind") == kind
    ]
    if not matches:
        return None
    newest = max(matches, key=lambda p: str(p.get("as_of", "")))
    value = newest.get("usd_per_hour")
    usd = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    reason = newest.get("usd_per_hour_missing")
    return PriceSpec(
        instance=instance_id,
        region=region,
        kind=kind,
        usd_per_hour=usd,
        missing_reason=None if usd is not None else str(reason or "not published"),
        as_of=str(newest.get("as_of", "")),
    )
