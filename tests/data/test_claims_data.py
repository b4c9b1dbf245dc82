"""Data tests for data/claims.toml (schema: ARCHITECTURE.md, "data/claims.toml"): seeds and
verdicts from the fixed lists, `correct` resolves to a figure (or a stated reason) through
calc.data, sources exist, explanations in en/ja/es without hand-typed figures, and every quote
appears verbatim in its seed document (shared/seeds beside the repository, found by
tests/seed_paths.py; skipped if absent, failed under CI=true).
"""

import re
from pathlib import Path
from typing import Any

import pytest
from seed_paths import require_seeds, seeds_dir

from calc import data
from calc.data_check import documents_dir

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "data" / "claims.toml"
SEEDS_DIR = seeds_dir() or ROOT.parent / "shared" / "seeds"

SEEDS = ("en-notes", "ja-deck", "en-reinvent", "es-blog")
# seed id -> file-name prefix in ../shared/seeds (000_<hash>.txt ... 003_<hash>.txt)
SEED_FILE_PREFIX = {"en-notes": "000_", "ja-deck": "001_", "en-reinvent": "002_",
                    "es-blog": "003_"}
VERDICTS = {"confirmed", "partly", "wrong", "outdated", "not-found"}
REQUIRED = ("id", "seed", "quote", "topic", "topic_ja", "topic_es", "verdict", "explanation_en",
            "explanation_ja", "explanation_es", "sources")
OPTIONAL = ("correct",)
# correct.kind -> calc.data record name (price: the on-demand us-east-1 record of an instance,
# as fact() renders it)
KIND_RECORDS = {"chip": "chips", "core": "cores", "instance": "instances", "model": "models",
                "measurement": "measurements", "assumption": "assumptions"}
PRICE_REGION = "us-east-1"
# a number followed by a unit: the table renders figures from `correct`, never from explanations
HAND_TYPED_FIGURE = re.compile(
    r"(?<![\w.-])\d[\d,.]*\s?(?:GB|GiB|TB|TiB|MB|MiB|TFLOPS|PFLOPS|PF|TOPS|Gbps|GB/s|TB/s"
    r"|USD|ms|%)(?![\w])|\$\s?\d"
)
# GPU variants are named by memory size in the chip ids (nvidia-a100-40gb, nvidia-v100-32gb):
# "A100 40 GB" / "V100 ... 32 GB" in a text that names that GPU is the variant name, not a figure
GPU_VARIANT_ID = re.compile(r"nvidia-([a-z]\d+)-(\d+)gb")


def _without_gpu_variant_names(text: str) -> str:
    for chip in data.records("chips"):
        match = GPU_VARIANT_ID.fullmatch(str(chip["id"]))
        if match and match.group(1).upper() in text:
            text = re.sub(rf"(?<![\d.]){match.group(2)}\s?GB", "", text)
    return text


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def claims() -> list[dict[str, Any]]:
    # the records with their ja/es texts from data/i18n/<lang>/data.toml (calc.data_lang)
    return list(documents_dir(str(CLAIMS.parent))["claims.toml"]["claim"])


def claim_id(claim: dict[str, Any]) -> str:
    return str(claim.get("id"))


def _field(record: dict[str, Any], field: str) -> Any:
    value: Any = record
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _missing_reason(record: dict[str, Any], field: str) -> str | None:
    """`<field>_missing = "..."`, or `<table>_missing = { <key> = "..." }` for a dotted field."""
    head, _, key = field.partition(".")
    if key:
        table = record.get(f"{head}_missing")
        reason = table.get(key) if isinstance(table, dict) else None
    else:
        reason = record.get(f"{field}_missing")
    return reason if isinstance(reason, str) and reason.strip() else None


def _correct_record(kind: str, record_id: str) -> dict[str, Any] | None:
    if kind == "price":
        for rec in data.records("prices"):
            if (rec["instance"], rec["region"], rec.get("kind", "on-demand")) == (
                    record_id, PRICE_REGION, "on-demand"):
                return rec
        return None
    return data.record(KIND_RECORDS[kind], record_id)


def test_claims_exist_and_ids_are_unique() -> None:
    ids = [claim_id(c) for c in claims()]
    assert ids
    assert len(ids) == len(set(ids))
    for identifier in ids:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", identifier), identifier


def test_every_seed_has_claims() -> None:
    assert {c["seed"] for c in claims()} == set(SEEDS)


@pytest.mark.parametrize("claim", claims(), ids=claim_id)
def test_claim_schema(claim: dict[str, Any]) -> None:
    for field in REQUIRED:
        assert field in claim, field
    assert set(claim) <= {*REQUIRED, *OPTIONAL}, set(claim) - {*REQUIRED, *OPTIONAL}
    assert claim["seed"] in SEEDS
    assert claim["verdict"] in VERDICTS
    for field in ("quote", "topic"):
        assert isinstance(claim[field], str) and claim[field].strip(), field


@pytest.mark.parametrize("claim", claims(), ids=claim_id)
def test_sources_exist(claim: dict[str, Any]) -> None:
    known = {str(s["id"]) for s in data.records("sources")}
    sources = claim["sources"]
    assert isinstance(sources, list) and sources
    for source in sources:
        assert source in known, source


@pytest.mark.parametrize("claim", [c for c in claims() if "correct" in c], ids=claim_id)
def test_correct_resolves_through_calc_data(claim: dict[str, Any]) -> None:
    correct = claim["correct"]
    assert set(correct) == {"kind", "id", "field"}, correct
    assert correct["kind"] in {*KIND_RECORDS, "price"}, correct["kind"]
    record = _correct_record(correct["kind"], correct["id"])
    assert record is not None, f"no {correct['kind']} record {correct['id']}"
    value = _field(record, correct["field"])
    if value is None:  # not published: the record must say why
        assert _missing_reason(record, correct["field"]), correct
    else:
        assert not isinstance(value, dict), f"{correct['field']} is a table, not one figure"


@pytest.mark.parametrize("claim", claims(), ids=claim_id)
def test_explanations_in_three_languages_without_hand_typed_figures(
    claim: dict[str, Any],
) -> None:
    texts = {lang: claim[f"explanation_{lang}"] for lang in ("en", "ja", "es")}
    for lang, text in texts.items():
        assert isinstance(text, str) and text.strip(), lang
        figure = HAND_TYPED_FIGURE.search(_without_gpu_variant_names(text))
        assert not figure, (lang, figure)
    assert JAPANESE.search(texts["ja"]), "explanation_ja has no Japanese text"
    assert texts["es"] != texts["en"], "explanation_es is the English text"


def _seed_texts() -> dict[str, str] | None:
    if not SEEDS_DIR.is_dir():
        return None
    texts: dict[str, str] = {}
    for seed, prefix in SEED_FILE_PREFIX.items():
        found = sorted(SEEDS_DIR.glob(f"{prefix}*.txt"))
        assert len(found) == 1, (seed, found)
        texts[seed] = found[0].read_text(encoding="utf-8")
    return texts


@pytest.mark.parametrize("claim", claims(), ids=claim_id)
def test_quote_is_verbatim_in_its_seed(claim: dict[str, Any]) -> None:
    require_seeds()  # skips locally without seeds, fails under CI=true
    texts = _seed_texts()
    assert texts is not None, SEEDS_DIR
    assert claim["quote"] in texts[claim["seed"]], claim["quote"]


def test_hand_typed_figure_pattern_catches_figures() -> None:
    # the guard above must be able to fail
    for text in ("up to 190 TFLOPS", "32 GB of HBM", "$1.97 per hour", "83.2 PF", "24 %"):
        assert HAND_TYPED_FIGURE.search(text), text
    for text in ("Inferentia2 uses HBM", "trn2.48xlarge", "NeuronCore-v3, FP16", "EFAv3",
                 "eight A100 40 GB GPUs"):
        assert not HAND_TYPED_FIGURE.search(_without_gpu_variant_names(text)), text
    assert HAND_TYPED_FIGURE.search(_without_gpu_variant_names("eight A100 with 320 GB"))
