"""Content data (issue 13, issue 10 item 7, issue 9 item 2): inferred values carry their
derivation, source conflicts keep both values with sources, every chip lists its compute data
types, the SDK support matrix is complete and sourced, every record has an as-of date, and the
freshness list catches old records. Each check can fail: see the self-tests at the end."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

import calc.data
from calc import freshness
from calc.data_check import documents_dir

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
LANGS = ("ja", "es")
Record = dict[str, Any]

COMPUTE_DTYPES = {"fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "mxfp8", "mxfp4", "int8",
                  "int4"}
ALT_EXTRA = ("_alt_ja", "_alt_es", "_alt_sources")
SOURCE_IDS = {str(s["id"]) for s in calc.data.records("sources")}
CHIPS = calc.data.records("chips")
INSTANCES = {str(r["id"]): r for r in calc.data.records("instances")}
PROVENANCE_RECORDS = [*calc.data.records("cores"), *CHIPS, *INSTANCES.values()]


def _load(name: str) -> dict[str, Any]:
    # the records with their ja/es texts from data/i18n/<lang>/data.toml (calc.data_lang)
    return documents_dir(str(DATA_DIR))[name]


# ---------------------------------------------------------------- checks (return problems)


def inferred_problems(record: Record) -> list[str]:
    """Every inferred field has a derivation in English, Japanese and Spanish."""
    problems = []
    for field in record.get("inferred", []):
        for key in ("inferred_how", *(f"inferred_how_{lang}" for lang in LANGS)):
            text = (record.get(key) or {}).get(field)
            if not isinstance(text, str) or not text.strip():
                problems.append(f"{record.get('id')}: {key}.{field} missing")
    for key in ("inferred_how", *(f"inferred_how_{lang}" for lang in LANGS)):
        extra = set(record.get(key) or {}) - set(record.get("inferred", []))
        if extra:
            problems.append(f"{record.get('id')}: {key} explains fields not inferred: {extra}")
    return problems


def alt_problems(record: Record) -> list[str]:
    """Every `<name>_alt` has ja/es text and sources that exist; it names a field of the record."""
    problems = []
    for key in record:
        if not key.endswith("_alt") or key.endswith(ALT_EXTRA):
            continue
        for suffix in ("_ja", "_es"):
            if not str(record.get(key + suffix, "")).strip():
                problems.append(f"{record.get('id')}: {key}{suffix} missing")
        sources = record.get(f"{key}_sources")
        if not sources or not set(sources) <= SOURCE_IDS:
            problems.append(f"{record.get('id')}: {key}_sources {sources!r}")
        name = key.removesuffix("_alt")
        if not any(field == name or field.startswith(name + "_") for field in record
                   if not field.startswith(key)):
            problems.append(f"{record.get('id')}: {key} names no field")
    return problems


def compute_dtype_problems(chip: Record) -> list[str]:
    """compute_dtypes: a non-empty list of known formats that covers every published peak."""
    dtypes = chip.get("compute_dtypes")
    if not isinstance(dtypes, list) or not dtypes:
        return [f"{chip.get('id')}: no compute_dtypes"]
    problems = [f"{chip['id']}: unknown dtype {d!r}" for d in dtypes if d not in COMPUTE_DTYPES]
    for table in ("dense_tflops", "sparse_tflops"):
        missing = set(chip.get(table) or {}) - set(dtypes)
        if missing:
            problems.append(f"{chip['id']}: {table} has {sorted(missing)} not in compute_dtypes")
    return problems


def qualifier_problems(record: Record) -> list[str]:
    """`<field>_up_to` / `<field>_over` are `true` and qualify a field the record has."""
    problems = []
    for key, value in record.items():
        for suffix in ("_up_to", "_over"):
            if key.endswith(suffix):
                if value is not True or key.removesuffix(suffix) not in record:
                    problems.append(f"{record.get('id')}: {key}")
    return problems


# ---------------------------------------------------------------- tests: provenance


@pytest.mark.parametrize("record", PROVENANCE_RECORDS, ids=lambda r: str(r["id"]))
def test_provenance_fields(record: Record) -> None:
    assert inferred_problems(record) + alt_problems(record) + qualifier_problems(record) == []


def test_issue_13_inferred_values_are_marked() -> None:
    """The values the issue names as inferred-but-shown-as-published are marked, with how."""
    assert "network_gbps" in INSTANCES["trn2-ultraserver"]["inferred"]
    assert "3,200" in INSTANCES["trn2-ultraserver"]["network_gbps_alt"]
    assert {"accelerator_memory_gib", "accelerator_memory_bandwidth_tb_per_s"} <= set(
        INSTANCES["trn2.3xlarge"]["inferred"])
    server = INSTANCES["trn3-gen1-server"]
    assert "inferred" in server["name"].lower()
    assert {"vcpu", "host_memory_gib", "dense_tflops", "network_gbps", "tp_degrees"} <= set(
        server["inferred"])
    for instance_id in ("trn3-gen1-ultraserver", "trn3-gen2-ultraserver"):
        assert "tp_degrees" in INSTANCES[instance_id]["inferred"]
    trainium3 = next(c for c in CHIPS if c["id"] == "trainium3")
    assert "lnc_default" in trainium3["inferred"]


def test_issue_13_conflicts_keep_both_values() -> None:
    chips = {c["id"]: c for c in CHIPS}
    assert "4.7" in chips["trainium3"]["memory_bandwidth_alt"]
    assert "2,048 GiB/s" in chips["trainium3"]["neuronlink_alt"]
    assert "144 GB" in chips["trainium3"]["memory_alt"]
    assert "820 GB/s" in chips["inferentia2"]["memory_bandwidth_alt"]
    assert chips["trainium2"]["cc_cores"] == 16 and "20" in chips["trainium2"]["cc_cores_alt"]
    assert "2.56 TB/s" in INSTANCES["trn3-gen1-ultraserver"][
        "interconnect_gib_per_s_per_chip_alt"]


def test_issue_13_figures_fixed_at_the_source() -> None:
    chips = {c["id"]: c for c in CHIPS}
    assert INSTANCES["p4d.24xlarge"]["network_gbps"] == 400
    for instance_id in ("inf1.xlarge", "inf1.2xlarge", "trn1.2xlarge"):
        assert INSTANCES[instance_id]["network_gbps_up_to"] is True
    assert "4x" in chips["trainium2"]["sparse_note"]
    assert "nki-trn2-arch-sparsity" in chips["trainium2"]["sources"]
    for instance_id in ("inf2.24xlarge", "inf2.48xlarge"):
        record = INSTANCES[instance_id]
        assert record["tp_degrees_flagged"] == [12]
        assert set(record["tp_degrees_flagged"]) <= set(record["tp_degrees"])
        for lang in LANGS:
            assert record[f"tp_degrees_flagged_note_{lang}"].strip()
    claims = {c["id"]: c for c in calc.data.records("claims")}
    assert claims["deck-trn1-ultracluster-10k"]["verdict"] == "confirmed"
    assert chips["trainium"]["ultracluster_chips"] > 10_000


# ---------------------------------------------------------------- tests: hardware (issues 10, 9)


@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: str(c["id"]))
def test_every_chip_lists_its_compute_dtypes(chip: Record) -> None:
    assert compute_dtype_problems(chip) == []


def test_gpus_without_bf16_offer_no_bf16_peak() -> None:
    chips = {c["id"]: c for c in CHIPS}
    for chip_id in ("nvidia-t4", "nvidia-v100-32gb"):
        assert "bf16" not in chips[chip_id]["compute_dtypes"]
        assert "bf16" not in chips[chip_id]["dense_tflops"]
        assert chips[chip_id]["dense_tflops_missing"]["bf16"]
    for chip_id in ("nvidia-l4", "nvidia-l40s", "nvidia-h100-80gb"):
        assert "fp8" in chips[chip_id]["compute_dtypes"]
    assert "fp4" in chips["nvidia-b200"]["compute_dtypes"]


def test_current_gpu_instances_are_present_with_prices() -> None:
    prices = {(p["instance"], p["region"], p["kind"]): p for p in calc.data.records("prices")}
    expected = {"g6.xlarge": "nvidia-l4", "g6e.xlarge": "nvidia-l40s", "p5.4xlarge":
                "nvidia-h100-80gb", "p5e.48xlarge": "nvidia-h200-141gb",
                "p5en.48xlarge": "nvidia-h200-141gb", "p6-b200.48xlarge": "nvidia-b200"}
    for instance_id, chip_id in expected.items():
        assert INSTANCES[instance_id]["chip"] == chip_id
        row = prices[(instance_id, "us-east-1", "on-demand")]
        assert row.get("usd_per_hour") or row.get("usd_per_hour_missing")
    assert INSTANCES["p5.4xlarge"]["chip_count"] == 1


# ---------------------------------------------------------------- tests: support matrix


MATRIX = _load("support_matrix.toml")


def matrix_problems(matrix: dict[str, Any]) -> list[str]:
    problems = []
    if not isinstance(matrix.get("as_of"), datetime.date):
        problems.append("no as_of date")
    statuses = set(matrix.get("status", {}))
    for status, labels in matrix.get("status", {}).items():
        if any(not str(labels.get(lang, "")).strip() for lang in ("en", *LANGS)):
            problems.append(f"status {status} needs en/ja/es")
    for row in matrix.get("row", []):
        for family in matrix["families"]:
            cell = str(row.get("cells", {}).get(family, ""))
            status, _, sdk = cell.partition(":")
            if status not in statuses or (status == "ended") != bool(sdk):
                problems.append(f"{row.get('id')}.{family}: {cell!r}")
        for key in ("component", "note"):
            for lang in LANGS:
                if not str(row.get(f"{key}_{lang}", "")).strip():
                    problems.append(f"{row.get('id')}: {key}_{lang}")
        if not row.get("sources") or not set(row["sources"]) <= SOURCE_IDS:
            problems.append(f"{row.get('id')}: sources {row.get('sources')!r}")
    return problems


def test_support_matrix_is_complete_and_sourced() -> None:
    assert matrix_problems(MATRIX) == []


def test_support_matrix_states_the_issue_13_changes() -> None:
    rows = {row["id"]: row["cells"] for row in MATRIX["row"]}
    assert rows["nxd-inference"]["inf2"] == rows["nxd-inference"]["trn1"] == "ended:2.28"
    assert rows["nxd-training"]["trn1"] == "ended:2.28"
    assert [f for f, c in rows["vllm-neuron"].items() if c != "none"] == ["trn2", "trn3"]


# ---------------------------------------------------------------- tests: freshness (item 5)


def test_every_record_has_an_as_of_date() -> None:
    undated = [f"{rec.file} {rec.record_id}" for rec in freshness.dated_records()
               if rec.as_of is None]
    assert undated == []
    assert len(freshness.dated_records()) > 300


def test_stale_list_follows_the_build_date() -> None:
    records = freshness.dated_records()
    oldest = min(rec.as_of for rec in records if rec.as_of)
    newest = max(rec.as_of for rec in records if rec.as_of)
    year = datetime.timedelta(days=freshness.MAX_AGE_DAYS)
    today = datetime.date(2026, 11, 24)
    expected = {(r.file, r.record_id) for r in records if r.as_of and r.as_of < today - year}
    assert {(r.file, r.record_id) for r in freshness.stale_records(today)} == expected
    assert freshness.stale_records(oldest + year) == []          # nothing older than the oldest
    just_after = freshness.stale_records(oldest + year + datetime.timedelta(days=1))
    assert just_after and all(r.as_of == oldest for r in just_after)
    assert len(freshness.stale_records(newest + year + datetime.timedelta(days=1))) == len(records)


# ---------------------------------------------------------------- self-tests: the checks can fail


def test_checks_catch_missing_derivation_and_alt_sources() -> None:
    record = {"id": "x", "a_gib": 1, "inferred": ["a_gib"], "inferred_how": {"a_gib": "y"},
              "b_alt": "other"}
    problems = inferred_problems(record) + alt_problems(record)
    assert any("inferred_how_ja" in p for p in problems)
    assert any("b_alt_ja" in p for p in problems)
    assert any("b_alt_sources" in p for p in problems)
    assert any("names no field" in p for p in problems)


def test_checks_catch_compute_dtypes_that_miss_a_peak() -> None:
    assert compute_dtype_problems({"id": "x", "compute_dtypes": ["fp16"],
                                   "dense_tflops": {"bf16": 1}})
    assert compute_dtype_problems({"id": "x"})
    assert qualifier_problems({"id": "x", "network_gbps_up_to": True})


def test_checks_catch_a_bad_matrix_cell() -> None:
    broken = {**MATRIX, "row": [{**MATRIX["row"][0],
                                 "cells": {**MATRIX["row"][0]["cells"], "inf2": "ended"}}]}
    assert matrix_problems(broken)


# ---------------------------------------------------------------- translations of new data texts

NEW_RECORDS = ("g6.xlarge", "g6e.xlarge", "g6e.12xlarge", "p5.4xlarge", "p6-b200.48xlarge",
               "nvidia-l4", "nvidia-l40s", "nvidia-b200")
TEXT_KEYS = ("_missing", "note", "sparse_note", "compute_dtypes_note", "tp_degrees_flagged_note")


def translation_problems(record: Record) -> list[str]:
    """Texts that reach a page (missing reasons, notes) have `_ja` and `_es` siblings."""
    problems = []
    for key, value in record.items():
        if not key.endswith(TEXT_KEYS) or not isinstance(value, str | dict):
            continue
        for lang in LANGS:
            other = record.get(f"{key}_{lang}")
            if not other or (isinstance(value, dict) and set(other) != set(value)):
                problems.append(f"{record.get('id')}: {key}_{lang}")
    return problems


@pytest.mark.parametrize("record_id", NEW_RECORDS)
def test_new_records_have_japanese_and_spanish_texts(record_id: str) -> None:
    record = INSTANCES.get(record_id) or next(c for c in CHIPS if c["id"] == record_id)
    assert translation_problems(record) == []


def test_every_compute_dtypes_note_is_translated() -> None:
    assert [p for chip in CHIPS for p in translation_problems(
        {k: v for k, v in chip.items() if k.startswith("compute_dtypes_note")} | {"id": chip["id"]})
            ] == []


def test_translation_check_can_fail() -> None:
    assert translation_problems({"id": "x", "network_gbps_missing": "y",
                                 "network_gbps_missing_ja": "z"})
