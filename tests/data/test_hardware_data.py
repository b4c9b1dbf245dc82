"""Data tests for the hardware and price TOML.

Files: data/chips.toml, instances.toml, prices.toml and sources/*.toml.

Reads the TOML through calc.data_check.documents_dir (the parser, with the ja/es texts of
data/i18n/<lang>/data.toml on their records), not through the calc.data loaders.
Each check is a small function that returns a list of problems; the tests assert the list is empty,
and the self-tests at the end feed deliberately broken records to show every check can fail.
"""

from __future__ import annotations

import copy
import datetime
import math
import re
from pathlib import Path
from typing import Any

import pytest

from calc.data_check import documents_dir

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

Record = dict[str, Any]

SOURCE_KINDS = {"official-doc", "aws-page", "price-list", "secondary", "paper", "tool"}
CHIP_KINDS = {"neuron", "gpu"}
VENDORS = {"aws", "nvidia"}
TOPOLOGIES = {"ring", "2d-torus", "all-to-all", "nvlink", "pcie", "none"}
DTYPES = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "mxfp8", "mxfp4", "fp4"}
FAMILIES = {
    "inf1",
    "inf2",
    "trn1",
    "trn1n",
    "trn2",
    "trn2u",
    "trn2-ultraserver",
    "trn3-ultraserver",
    "trn3",
    "g4dn",
    "g5",
    "p3dn",
    "p4d",
    "p5",
    "p5e",
    "p5en",
    "g6",
    "g6e",
    "p6-b200",
}
PRICE_KINDS = {"on-demand", "ri-effective", "capacity-block"}
KEBAB_ID = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")
REGION = re.compile(r"^[a-z]{2}(?:-[a-z]+)+-\d$")
SPARSITY_PATTERN = re.compile(r"^\d+:\d+$")

# Stated instance TFLOPS are printed rounded (e.g. "20.8 PFLOPS" for 16 × 1,299 = 20,784 TFLOPS).
TFLOPS_TOTAL_REL_TOLERANCE = 0.005
# Chip headline TFLOPS vs cores × Tensor Engine: the headline is higher on every Neuron chip except
# Trainium3 MX (2,517 vs 8 × 315 = 2,520), so allow 1 % the other way.
CORE_SUM_OVER_HEADLINE_REL_TOLERANCE = 0.01
# Seed-document prices known to be wrong or unverified (neuron-facts.md §6 g, issue 2).
KNOWN_WRONG_PRICES_USD = (44.70, 15.50)
# On-demand prices that no source publishes: a value here would be invented.
ON_DEMAND_NOT_PUBLISHED = {
    "trn2.3xlarge",
    "trn2.48xlarge",
    "trn2u.48xlarge",
    "trn2-ultraserver",
    "trn3-gen1-ultraserver",
    "trn3-gen2-ultraserver",
    "trn3-gen1-server",
    "p5e.48xlarge",
}

MEMORY_FIELDS = ("memory_gib", "memory_gb")
BANDWIDTH_UNITS = ("gib_per_s", "gb_per_s", "tb_per_s")


# ---------------------------------------------------------------- loading


def load(name: str) -> dict[str, Any]:
    # the records with their ja/es texts from data/i18n/<lang>/data.toml (calc.data_lang)
    return documents_dir(str(DATA_DIR))[name]


def load_sources() -> dict[str, list[Record]]:
    """Source records per file name, for every data/sources/*.toml."""
    return {
        path.name: load(f"sources/{path.name}").get("source", [])
        for path in sorted((DATA_DIR / "sources").glob("*.toml"))
    }


CHIPS_TOML = load("chips.toml")
CORES: list[Record] = CHIPS_TOML["core"]
CHIPS: list[Record] = CHIPS_TOML["chip"]
INSTANCES: list[Record] = load("instances.toml")["instance"]
PRICES: list[Record] = load("prices.toml")["price"]
SOURCES_BY_FILE = load_sources()
SOURCES: dict[str, Record] = {s["id"]: s for records in SOURCES_BY_FILE.values() for s in records}
CORES_BY_ID = {c["id"]: c for c in CORES}
CHIPS_BY_ID = {c["id"]: c for c in CHIPS}
INSTANCES_BY_ID = {i["id"]: i for i in INSTANCES}


# ---------------------------------------------------------------- generic checks


def is_positive_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def is_positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def source_problems(record: Record, sources: dict[str, Record]) -> list[str]:
    """At least one source; every cited id exists and has an as_of date."""
    cited = record.get("sources")
    if not isinstance(cited, list) or not cited:
        return ["no sources"]
    problems = []
    for source_id in cited:
        source = sources.get(source_id)
        if source is None:
            problems.append(f"unknown source {source_id!r}")
        elif not isinstance(source.get("as_of"), datetime.date):
            problems.append(f"source {source_id!r} has no as_of date")
    return problems


def missing_convention_problems(record: Record) -> list[str]:
    """`<field>_missing` excludes `<field>` (per dtype for tables); `inferred` fields exist."""
    problems = []
    for key, reason in record.items():
        if not key.endswith("_missing"):
            continue
        field = key.removesuffix("_missing")
        if isinstance(reason, dict):
            table = record.get(field, {})
            for dtype, text in reason.items():
                if dtype in table:
                    problems.append(f"{field}.{dtype} is both given and missing")
                if not isinstance(text, str) or not text.strip():
                    problems.append(f"{key}.{dtype} needs a reason")
        else:
            if field in record:
                problems.append(f"{field} is both given and missing")
            if not isinstance(reason, str) or not reason.strip():
                problems.append(f"{key} needs a reason")
    inferred = record.get("inferred", [])
    for field in inferred:
        if field not in record:
            problems.append(f"inferred field {field!r} is not in the record")
    if inferred and not record.get("note"):
        problems.append("inferred fields need a note")
    return problems


def dtype_table_problems(record: Record, field: str) -> list[str]:
    table = record.get(field)
    if not isinstance(table, dict):
        return [f"{field} must be a table"]
    problems = []
    for dtype, value in table.items():
        if dtype not in DTYPES:
            problems.append(f"{field}: unknown dtype {dtype!r}")
        if not is_positive_number(value):
            problems.append(f"{field}.{dtype} must be a positive number, got {value!r}")
        elif value > 500_000:
            problems.append(f"{field}.{dtype} = {value} is out of range")
    return problems


def one_of(record: Record, fields: tuple[str, ...]) -> list[str]:
    present = [f for f in fields if f in record]
    return present


# ---------------------------------------------------------------- record checks


def core_problems(core: Record) -> list[str]:
    problems = []
    for field in (
        "id",
        "name",
        "engines",
        "tensor_dense_tflops",
        "tensor_sparse_tflops",
        "sparsity_patterns",
        "data_types",
    ):
        if field not in core:
            problems.append(f"missing {field}")
    if "tensor" not in core.get("engines", []):
        problems.append("engines must include tensor")
    for field in ("sbuf_mib", "psum_mib"):
        if field in core and not is_positive_number(core[field]):
            problems.append(f"{field} must be positive")
        if field not in core and f"{field}_missing" not in core:
            problems.append(f"{field} or {field}_missing required")
    problems += dtype_table_problems(core, "tensor_dense_tflops")
    problems += dtype_table_problems(core, "tensor_sparse_tflops")
    for pattern in core.get("sparsity_patterns", []):
        if not SPARSITY_PATTERN.match(pattern):
            problems.append(f"bad sparsity pattern {pattern!r}")
    if core.get("tensor_sparse_tflops") and not core.get("sparsity_patterns"):
        problems.append("sparse TFLOPS without sparsity patterns")
    for dtype, sparse in core.get("tensor_sparse_tflops", {}).items():
        dense = core.get("tensor_dense_tflops", {}).get(dtype)
        if dense is not None and sparse < dense:
            problems.append(f"sparse {dtype} below dense")
    return problems + missing_convention_problems(core)


def chip_problems(chip: Record, cores: dict[str, Record]) -> list[str]:
    problems = []
    for field in ("id", "name", "vendor", "kind", "memory_type", "dense_tflops", "sparse_tflops"):
        if field not in chip:
            problems.append(f"missing {field}")
    if chip.get("vendor") not in VENDORS:
        problems.append(f"vendor {chip.get('vendor')!r}")
    if chip.get("kind") not in CHIP_KINDS:
        problems.append(f"kind {chip.get('kind')!r}")
    memory = one_of(chip, MEMORY_FIELDS)
    if len(memory) != 1:
        problems.append(f"exactly one of {MEMORY_FIELDS} required, got {memory}")
    elif not is_positive_number(chip[memory[0]]) or chip[memory[0]] > 1024:
        problems.append(f"{memory[0]} out of range")
    bandwidth = one_of(chip, tuple(f"memory_bandwidth_{u}" for u in BANDWIDTH_UNITS))
    if len(bandwidth) != 1:
        problems.append(f"exactly one memory bandwidth field required, got {bandwidth}")
    elif not is_positive_number(chip[bandwidth[0]]):
        problems.append(f"{bandwidth[0]} must be positive")
    problems += dtype_table_problems(chip, "dense_tflops")
    problems += dtype_table_problems(chip, "sparse_tflops")
    if not chip.get("dense_tflops") and not chip.get("dense_tflops_missing"):
        problems.append("dense_tflops is empty without dense_tflops_missing")
    if "topology" in chip and chip["topology"] not in TOPOLOGIES:
        problems.append(f"topology {chip['topology']!r}")
    if "topology" not in chip and "topology_missing" not in chip:
        problems.append("topology or topology_missing required")
    if chip.get("kind") == "neuron":
        problems += neuron_chip_problems(chip, cores)
    elif chip.get("kind") == "gpu" and "memory_gb" not in chip:
        problems.append("GPU memory is stated by the vendor in GB: use memory_gb")
    return problems + missing_convention_problems(chip)


def neuron_chip_problems(chip: Record, cores: dict[str, Record]) -> list[str]:
    problems = []
    core = cores.get(chip.get("core", ""))
    if core is None:
        return [f"unknown core {chip.get('core')!r}"]
    cores_per_chip = chip.get("cores_per_chip")
    lnc = chip.get("lnc_default")
    if not is_positive_int(cores_per_chip):
        return ["cores_per_chip must be a positive int"]
    if lnc not in (1, 2) or cores_per_chip % lnc:
        problems.append(f"lnc_default {lnc!r} must be 1 or 2 and divide cores_per_chip")
        return problems
    if "memory_gib" not in chip:
        problems.append("Neuron memory is stated in GiB: use memory_gib")
    else:
        logical_cores = cores_per_chip // lnc
        usable = chip.get("usable_memory_per_core_gib")
        if not is_positive_number(usable):
            problems.append("usable_memory_per_core_gib must be positive")
        elif usable * logical_cores > chip["memory_gib"]:
            problems.append(
                f"usable {usable} GiB × {logical_cores} logical cores"
                f" exceeds {chip['memory_gib']} GiB"
            )
    if not is_positive_int(chip.get("runtime_overhead_per_core_mib")):
        problems.append("runtime_overhead_per_core_mib must be a positive int")
    for dtype, per_core in core["tensor_dense_tflops"].items():
        headline = chip["dense_tflops"].get(dtype)
        if headline is not None and per_core * cores_per_chip > headline * (
            1 + CORE_SUM_OVER_HEADLINE_REL_TOLERANCE
        ):
            problems.append(
                f"{dtype}: {cores_per_chip} × {per_core} exceeds the chip headline {headline}"
            )
    return problems


def logical_cores(instance: Record, chips: dict[str, Record]) -> int:
    """Logical NeuronCores at the chip's default LNC, or the GPU count."""
    chip = chips[instance["chip"]]
    if chip["kind"] == "gpu":
        return int(instance["chip_count"])
    return int(chip["cores_per_chip"] * instance["chip_count"] // chip["lnc_default"])


def instance_total_problems(instance: Record, chip: Record) -> list[str]:
    """Stored totals equal chip × count, in the unit the source used."""
    problems = []
    count = instance["chip_count"]
    for chip_field in MEMORY_FIELDS:
        if chip_field not in chip:
            continue
        field = f"accelerator_{chip_field}"
        if field not in instance:
            problems.append(f"{field} required (chip states {chip_field})")
        elif instance[field] != chip[chip_field] * count:
            problems.append(
                f"{field} = {instance[field]} but {count} × {chip[chip_field]}"
                f" = {chip[chip_field] * count}"
            )
    unit_fields = [u for u in BANDWIDTH_UNITS if f"accelerator_memory_bandwidth_{u}" in instance]
    if len(unit_fields) != 1:
        problems.append(
            f"exactly one accelerator memory bandwidth field required, got {unit_fields}"
        )
    else:
        unit = unit_fields[0]
        stored = instance[f"accelerator_memory_bandwidth_{unit}"]
        per_chip = chip.get(f"memory_bandwidth_{unit}")
        if per_chip is None:
            problems.append(f"bandwidth in {unit} but the chip is not stated in {unit}")
        elif not math.isclose(stored, per_chip * count, rel_tol=1e-9):
            problems.append(
                f"bandwidth {stored} {unit} but {count} × {per_chip} = {per_chip * count}"
            )
    for table in ("dense_tflops", "sparse_tflops"):
        for dtype, stored in instance.get(table, {}).items():
            per_chip = chip.get(table, {}).get(dtype)
            if per_chip is None:
                problems.append(f"{table}.{dtype} stored but the chip has no {dtype} figure")
            elif not math.isclose(stored, per_chip * count, rel_tol=TFLOPS_TOTAL_REL_TOLERANCE):
                problems.append(
                    f"{table}.{dtype} = {stored} but {count} × {per_chip} = {per_chip * count}"
                )
    return problems


def tp_problems(instance: Record, chips: dict[str, Record]) -> list[str]:
    degrees = instance.get("tp_degrees")
    if not isinstance(degrees, list) or not degrees or not all(is_positive_int(d) for d in degrees):
        return ["tp_degrees must be a non-empty list of positive ints"]
    problems = []
    if degrees != sorted(set(degrees)):
        problems.append("tp_degrees must be sorted and unique")
    if degrees[0] != 1:
        problems.append("tp_degrees must include 1")
    available = logical_cores(instance, chips)
    too_big = [d for d in degrees if d > available]
    if too_big:
        problems.append(f"tp_degrees {too_big} exceed {available} logical cores")
    if chips[instance["chip"]]["kind"] == "gpu" and any(d & (d - 1) for d in degrees):
        problems.append("GPU tp_degrees must be powers of two")
    return problems


def instance_problems(instance: Record, chips: dict[str, Record]) -> list[str]:
    problems = []
    for field in (
        "id",
        "family",
        "kind",
        "chip",
        "chip_count",
        "vcpu",
        "host_memory_gib",
        "interconnect",
        "tp_degrees",
    ):
        if field not in instance:
            problems.append(f"missing {field}")
    chip = chips.get(instance.get("chip", ""))
    if chip is None:
        return problems + [f"unknown chip {instance.get('chip')!r}"]
    if instance.get("family") not in FAMILIES:
        problems.append(f"family {instance.get('family')!r}")
    if instance.get("kind") != chip["kind"]:
        problems.append(f"kind {instance.get('kind')!r} differs from the chip's {chip['kind']!r}")
    for field in ("chip_count", "vcpu"):
        if not is_positive_int(instance.get(field)):
            problems.append(f"{field} must be a positive int")
    if not is_positive_number(instance.get("host_memory_gib")):
        problems.append("host_memory_gib must be positive")
    if problems:
        return problems
    if "network_gbps" in instance and not is_positive_number(instance["network_gbps"]):
        problems.append("network_gbps must be positive")
    if "network_gbps" not in instance and "network_gbps_missing" not in instance:
        problems.append("network_gbps or network_gbps_missing required")
    if "efa" in instance and not isinstance(instance["efa"], bool):
        problems.append("efa must be a boolean")
    if "efa" not in instance and "efa_missing" not in instance:
        problems.append("efa or efa_missing required")
    problems += instance_total_problems(instance, chip)
    problems += tp_problems(instance, chips)
    return problems + missing_convention_problems(instance)


def price_problems(price: Record, instances: dict[str, Record]) -> list[str]:
    problems = []
    if price.get("instance") not in instances:
        problems.append(f"unknown instance {price.get('instance')!r}")
    if not isinstance(price.get("region"), str) or not REGION.match(price["region"]):
        problems.append(f"region {price.get('region')!r}")
    if price.get("kind") not in PRICE_KINDS:
        problems.append(f"kind {price.get('kind')!r}")
    if not isinstance(price.get("as_of"), datetime.date):
        problems.append("as_of must be a date")
    has_price = "usd_per_hour" in price
    if has_price == ("usd_per_hour_missing" in price):
        problems.append("exactly one of usd_per_hour / usd_per_hour_missing")
    if has_price:
        usd = price["usd_per_hour"]
        if not is_positive_number(usd) or usd > 1000:
            problems.append(f"usd_per_hour {usd!r} out of range")
        elif any(math.isclose(usd, wrong, abs_tol=1e-9) for wrong in KNOWN_WRONG_PRICES_USD):
            problems.append(f"usd_per_hour {usd} is a known-wrong seed figure")
        if price.get("kind") == "on-demand" and price.get("instance") in ON_DEMAND_NOT_PUBLISHED:
            problems.append("no source publishes this on-demand price")
    if price.get("kind") == "ri-effective" and "term" not in price and "term_missing" not in price:
        problems.append("ri-effective needs term or term_missing")
    return problems + missing_convention_problems(price)


def source_record_problems(source: Record) -> list[str]:
    problems = []
    for field in ("id", "title", "url", "publisher", "kind", "as_of", "accessed"):
        if field not in source:
            problems.append(f"missing {field}")
    if not KEBAB_ID.match(str(source.get("id", ""))):
        problems.append(f"id {source.get('id')!r} is not kebab-case")
    if not str(source.get("url", "")).startswith(("https://", "http://")):
        problems.append("url must be http(s)")
    if source.get("kind") not in SOURCE_KINDS:
        problems.append(f"kind {source.get('kind')!r}")
    as_of, accessed = source.get("as_of"), source.get("accessed")
    if not isinstance(as_of, datetime.date) or not isinstance(accessed, datetime.date):
        problems.append("as_of and accessed must be TOML dates")
    elif as_of > accessed:
        problems.append("as_of is after accessed")
    return problems


# ---------------------------------------------------------------- tests: sources


def test_source_ids_are_unique_across_files() -> None:
    seen: dict[str, str] = {}
    duplicates = []
    for file_name, records in SOURCES_BY_FILE.items():
        for source in records:
            if source["id"] in seen:
                duplicates.append(f"{source['id']} in {seen[source['id']]} and {file_name}")
            seen[source["id"]] = file_name
    assert duplicates == []


@pytest.mark.parametrize("file_name", ["hardware.toml", "prices.toml"])
def test_source_records_are_complete(file_name: str) -> None:
    problems = {
        s.get("id"): p for s in SOURCES_BY_FILE[file_name] if (p := source_record_problems(s))
    }
    assert problems == {}


# ---------------------------------------------------------------- tests: chips and cores


@pytest.mark.parametrize("core", CORES, ids=lambda c: c["id"])
def test_core_schema(core: Record) -> None:
    assert core_problems(core) + source_problems(core, SOURCES) == []


@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: c["id"])
def test_chip_schema(chip: Record) -> None:
    assert chip_problems(chip, CORES_BY_ID) + source_problems(chip, SOURCES) == []


def test_ids_are_unique() -> None:
    for records in (CORES, CHIPS, INSTANCES):
        ids = [r["id"] for r in records]
        assert len(ids) == len(set(ids))


def test_required_chips_and_cores_are_present() -> None:
    assert {
        "neuroncore-v1",
        "neuroncore-v2",
        "neuroncore-v3",
        "neuroncore-v4",
    } <= CORES_BY_ID.keys()
    assert {
        "inferentia",
        "inferentia2",
        "trainium",
        "trainium2",
        "trainium3",
        "nvidia-t4",
        "nvidia-a10g",
        "nvidia-v100-32gb",
        "nvidia-a100-40gb",
        "nvidia-h100-80gb",
        "nvidia-h200-141gb",
    } <= CHIPS_BY_ID.keys()


def test_tp_sizing_memory_per_core_follows_the_docs() -> None:
    """Documented: 16 GiB per NC-v2, 24 per LNC=2 core on Trn2, 2 per NC-v1. Trn3 36 is inferred."""
    per_core = {c["id"]: c["usable_memory_per_core_gib"] for c in CHIPS if c["kind"] == "neuron"}
    assert per_core == {
        "inferentia": 2,
        "inferentia2": 16,
        "trainium": 16,
        "trainium2": 24,
        "trainium3": 36,
    }
    assert "usable_memory_per_core_gib" in CHIPS_BY_ID["trainium3"]["inferred"]
    assert {c["runtime_overhead_per_core_mib"] for c in CHIPS if c["kind"] == "neuron"} == {96}


def test_unpublished_gpu_figures_are_explained_not_invented() -> None:
    a10g = CHIPS_BY_ID["nvidia-a10g"]
    assert not ({"bf16", "fp16"} & a10g["dense_tflops"].keys())
    assert {"bf16", "fp16"} <= a10g["dense_tflops_missing"].keys()
    for chip_id in ("nvidia-t4", "nvidia-v100-32gb"):
        assert "bf16" not in CHIPS_BY_ID[chip_id]["dense_tflops"]
        assert "bf16" in CHIPS_BY_ID[chip_id]["dense_tflops_missing"]


def test_disagreeing_official_bandwidths_keep_both() -> None:
    for chip_id in ("trainium2", "trainium3"):
        chip = CHIPS_BY_ID[chip_id]
        assert "memory_bandwidth_tb_per_s" in chip and chip["memory_bandwidth_alt"]


# ---------------------------------------------------------------- tests: instances


@pytest.mark.parametrize("instance", INSTANCES, ids=lambda i: i["id"])
def test_instance_schema_totals_and_tp(instance: Record) -> None:
    assert instance_problems(instance, CHIPS_BY_ID) + source_problems(instance, SOURCES) == []


def test_required_instances_are_present() -> None:
    required = {
        "inf1.xlarge",
        "inf1.2xlarge",
        "inf1.6xlarge",
        "inf1.24xlarge",
        "inf2.xlarge",
        "inf2.8xlarge",
        "inf2.24xlarge",
        "inf2.48xlarge",
        "trn1.2xlarge",
        "trn1.32xlarge",
        "trn1n.32xlarge",
        "trn2.3xlarge",
        "trn2.48xlarge",
        "trn2u.48xlarge",
        "trn2-ultraserver",
        "trn3-gen1-ultraserver",
        "trn3-gen2-ultraserver",
        "g4dn.xlarge",
        "g5.xlarge",
        "g5.48xlarge",
        "p3dn.24xlarge",
        "p4d.24xlarge",
        "p5.48xlarge",
        "p5e.48xlarge",
        "p5en.48xlarge",
    }
    assert required <= INSTANCES_BY_ID.keys()


def test_logical_core_counts_used_for_tp() -> None:
    assert logical_cores(INSTANCES_BY_ID["trn2.48xlarge"], CHIPS_BY_ID) == 64
    assert logical_cores(INSTANCES_BY_ID["trn2.3xlarge"], CHIPS_BY_ID) == 4
    assert logical_cores(INSTANCES_BY_ID["inf2.48xlarge"], CHIPS_BY_ID) == 24
    assert logical_cores(INSTANCES_BY_ID["p5.48xlarge"], CHIPS_BY_ID) == 8


# ---------------------------------------------------------------- tests: prices


@pytest.mark.parametrize(
    "price", PRICES, ids=lambda p: f"{p['instance']}-{p['region']}-{p['kind']}"
)
def test_price_schema(price: Record) -> None:
    assert price_problems(price, INSTANCES_BY_ID) + source_problems(price, SOURCES) == []


def test_prices_are_unique_per_instance_region_kind() -> None:
    keys = [(p["instance"], p["region"], p["kind"]) for p in PRICES]
    assert len(keys) == len(set(keys))


def test_every_instance_has_an_on_demand_row_in_us_east_1() -> None:
    with_row = {
        p["instance"] for p in PRICES if p["kind"] == "on-demand" and p["region"] == "us-east-1"
    }
    assert sorted(INSTANCES_BY_ID.keys() - with_row) == []


def test_trn1_32xlarge_on_demand_us_east_1() -> None:
    [row] = [
        p
        for p in PRICES
        if (p["instance"], p["region"], p["kind"]) == ("trn1.32xlarge", "us-east-1", "on-demand")
    ]
    assert row["usd_per_hour"] == 21.50


# ---------------------------------------------------------------- self-tests: every check can fail


def test_checks_catch_a_wrong_memory_total() -> None:
    broken = copy.deepcopy(INSTANCES_BY_ID["inf2.48xlarge"])
    broken["accelerator_memory_gib"] = 383
    assert any("accelerator_memory_gib" in p for p in instance_problems(broken, CHIPS_BY_ID))


def test_checks_catch_a_wrong_bandwidth_total_and_unit() -> None:
    broken = copy.deepcopy(INSTANCES_BY_ID["trn2.48xlarge"])
    broken["accelerator_memory_bandwidth_tb_per_s"] = 48.0
    assert any("bandwidth" in p for p in instance_problems(broken, CHIPS_BY_ID))
    broken = copy.deepcopy(INSTANCES_BY_ID["inf2.xlarge"])
    broken["accelerator_memory_bandwidth_tb_per_s"] = broken.pop(
        "accelerator_memory_bandwidth_gib_per_s"
    )
    assert any("not stated in tb_per_s" in p for p in instance_problems(broken, CHIPS_BY_ID))


def test_checks_catch_a_tflops_total_off_by_more_than_rounding() -> None:
    broken = copy.deepcopy(INSTANCES_BY_ID["trn2.48xlarge"])
    broken["sparse_tflops"]["fp8"] = 83200  # the seed's wrong sparse figure
    assert any("sparse_tflops.fp8" in p for p in instance_problems(broken, CHIPS_BY_ID))


def test_checks_catch_tp_above_logical_cores() -> None:
    broken = copy.deepcopy(INSTANCES_BY_ID["trn2.48xlarge"])
    broken["tp_degrees"] = [1, 2, 4, 8, 16, 32, 64, 128]
    assert any("exceed 64 logical cores" in p for p in instance_problems(broken, CHIPS_BY_ID))


def test_checks_catch_unknown_chip_and_source() -> None:
    broken = copy.deepcopy(INSTANCES_BY_ID["inf1.xlarge"])
    broken["chip"] = "inferentia9"
    broken["sources"] = ["no-such-source"]
    assert instance_problems(broken, CHIPS_BY_ID) == ["unknown chip 'inferentia9'"]
    assert source_problems(broken, SOURCES) == ["unknown source 'no-such-source'"]
    assert source_problems({"sources": []}, SOURCES) == ["no sources"]


def test_checks_catch_wrong_or_invented_prices() -> None:
    base = {
        "instance": "trn2.48xlarge",
        "region": "us-east-1",
        "kind": "on-demand",
        "as_of": datetime.date(2025, 1, 1),
    }
    assert any(
        "known-wrong" in p for p in price_problems({**base, "usd_per_hour": 44.70}, INSTANCES_BY_ID)
    )
    assert any(
        "no source publishes" in p
        for p in price_problems({**base, "usd_per_hour": 40.0}, INSTANCES_BY_ID)
    )
    assert any("exactly one" in p for p in price_problems(base, INSTANCES_BY_ID))


def test_checks_catch_a_figure_both_given_and_missing() -> None:
    broken = copy.deepcopy(CHIPS_BY_ID["nvidia-a10g"])
    broken["dense_tflops"]["bf16"] = 70
    assert any("both given and missing" in p for p in chip_problems(broken, CORES_BY_ID))
    broken = copy.deepcopy(CHIPS_BY_ID["trainium3"])
    broken["inferred"] = ["no_such_field"]
    assert any("inferred field" in p for p in chip_problems(broken, CORES_BY_ID))


def test_checks_catch_usable_memory_above_capacity() -> None:
    broken = copy.deepcopy(CHIPS_BY_ID["trainium2"])
    broken["usable_memory_per_core_gib"] = 32  # the inconsistent Neuron Explorer glossary figure
    assert any("exceeds 96 GiB" in p for p in chip_problems(broken, CORES_BY_ID))
