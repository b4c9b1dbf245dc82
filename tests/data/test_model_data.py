"""Data tests for models, measurements, assumptions, glossary and their sources (data/*.toml).

Reads the TOML with tomllib directly (no calc import), so a broken engine cannot hide broken data.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
SOURCE_KINDS = {"official-doc", "aws-page", "price-list", "secondary", "paper", "tool"}
MY_SOURCE_FILES = ("models.toml", "measurements.toml", "tools.toml")
MEASUREMENT_USES = {"calibration", "validation", "reference"}


@cache
def load(relative_path: str) -> dict[str, Any]:
    with (DATA_DIR / relative_path).open("rb") as handle:
        return tomllib.load(handle)


def models() -> list[dict[str, Any]]:
    return load("models.toml")["model"]


def measurements() -> list[dict[str, Any]]:
    return load("measurements.toml")["measurement"]


def assumptions() -> dict[str, dict[str, Any]]:
    return {rec["id"]: rec for rec in load("assumptions.toml")["assumption"]}


def glossary() -> list[dict[str, Any]]:
    return load("glossary.toml")["term"]


@cache
def sources_by_file() -> dict[str, list[dict[str, Any]]]:
    return {
        path.name: tomllib.loads(path.read_text(encoding="utf-8"))["source"]
        for path in sorted((DATA_DIR / "sources").glob("*.toml"))
    }


def all_source_ids() -> set[str]:
    return {src["id"] for recs in sources_by_file().values() for src in recs}


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# Parameter count from the architecture: embeddings (+ untied lm_head) + attention projections
# (GQA, or MLA with its low-rank projections) + MLP (3 matrices if gated, else 2): dense layers of
# width intermediate, MoE layers with experts_counted routed experts of width expert_intermediate
# and shared experts. Ignores norms, biases, routers and learned positions (<1%).
def estimated_params(model: dict[str, Any], experts_counted: int) -> int:
    h, d, i = model["hidden"], model["head_dim"], model["intermediate"]
    m = 3 if model["gated_mlp"] else 2
    embeddings = model["vocab"] * h * (1 if model["tied_embeddings"] else 2)
    if model.get("attention") == "mla":
        rope, nope, v = model["qk_rope_head_dim"], model["qk_nope_head_dim"], model["v_head_dim"]
        q_rank, kv_rank, heads = model["q_lora_rank"], model["kv_lora_rank"], model["heads"]
        attention = (h * q_rank + q_rank * heads * (nope + rope) + h * (kv_rank + rope)
                     + kv_rank * heads * (nope + v) + heads * v * h)
    else:
        attention = h * model["heads"] * d * 2 + h * model["kv_heads"] * d * 2
    layers = model["layers"]
    if not model["experts"]:
        return embeddings + layers * (attention + m * h * i)
    dense_layers = model.get("dense_layers", 0)
    expert_width = model.get("expert_intermediate") or i
    shared_width = model.get("shared_expert_intermediate") or expert_width
    moe = experts_counted * m * h * expert_width + model.get("shared_experts", 0) * m * h * (
        shared_width)
    return (embeddings + layers * attention + dense_layers * m * h * i
            + (layers - dense_layers) * moe)


# ---- sources ----------------------------------------------------------------


def test_source_ids_unique_across_all_files() -> None:
    seen: dict[str, str] = {}
    for file_name, recs in sources_by_file().items():
        for src in recs:
            assert src["id"] not in seen, f"{src['id']} in {file_name} and {seen.get(src['id'])}"
            seen[src["id"]] = file_name


@pytest.mark.parametrize("file_name", MY_SOURCE_FILES)
def test_source_records_schema(file_name: str) -> None:
    recs = sources_by_file()[file_name]
    assert recs, f"{file_name} has no sources"
    for src in recs:
        assert re.fullmatch(r"[a-z0-9][a-z0-9.\-]*", src["id"]), src["id"]
        assert src["title"].strip() and src["publisher"].strip()
        assert src["url"].startswith("https://"), src["id"]
        assert src["kind"] in SOURCE_KINDS, src["id"]
        assert isinstance(src["as_of"], dt.date) and isinstance(src["accessed"], dt.date)
        assert src["as_of"] <= src["accessed"], src["id"]


@pytest.mark.parametrize("file_name", ["models.toml", "measurements.toml", "assumptions.toml"])
def test_every_record_cites_existing_sources(file_name: str) -> None:
    known = all_source_ids()
    for rec in next(iter(v for v in load(file_name).values() if isinstance(v, list))):
        assert rec["sources"], rec["id"]
        missing = [src for src in rec["sources"] if src not in known]
        assert not missing, f"{rec['id']} cites unknown sources {missing}"


# ---- models ----------------------------------------------------------------

MODEL_INT_FIELDS = ("params", "active_params", "layers", "hidden", "heads", "kv_heads", "head_dim",
                    "intermediate", "vocab", "max_position_embeddings")
REQUIRED_PRESETS = {
    "bert-base", "bert-large", "opt-30b", "opt-66b", "llama-2-7b", "llama-2-13b", "llama-2-70b",
    "llama-3-8b", "llama-3-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.3-70b",
    "mistral-7b", "mixtral-8x7b", "gpt-oss-120b",
}


def test_required_presets_present_and_ids_unique() -> None:
    ids = [m["id"] for m in models()]
    assert len(ids) == len(set(ids))
    assert REQUIRED_PRESETS <= set(ids), REQUIRED_PRESETS - set(ids)
    assert len(ids) >= 16


@pytest.mark.parametrize("model", models(), ids=lambda m: m["id"])
def test_model_schema_and_types(model: dict[str, Any]) -> None:
    assert model["architecture"] in {"decoder", "encoder"}
    assert model["name"].strip() and model["family"].strip()
    for field in MODEL_INT_FIELDS:
        assert is_int(model[field]) and model[field] > 0, field
    for field in ("experts", "active_experts"):
        assert is_int(model[field]) and model[field] >= 0, field
    for field in ("gated_mlp", "tied_embeddings"):
        assert isinstance(model[field], bool), field
    assert model["params_note"].startswith("computed from config")


@pytest.mark.parametrize("model", models(), ids=lambda m: m["id"])
def test_dense_and_moe_parameter_rules(model: dict[str, Any]) -> None:
    if model["experts"] == 0:
        assert model["active_experts"] == 0
        assert model["active_params"] == model["params"]
    else:
        assert model["experts"] > model["active_experts"] > 0
        assert 0 < model["active_params"] < model["params"]


@pytest.mark.parametrize("model", models(), ids=lambda m: m["id"])
def test_attention_shapes(model: dict[str, Any]) -> None:
    assert model["heads"] % model["kv_heads"] == 0
    if model["hidden"] != model["heads"] * model["head_dim"]:
        assert "head_dim" in model.get("note", ""), "hidden ≠ heads × head_dim needs a note"


@pytest.mark.parametrize("model", models(), ids=lambda m: m["id"])
def test_parameter_count_matches_architecture(model: dict[str, Any]) -> None:
    total = estimated_params(model, model["experts"])
    assert abs(total / model["params"] - 1) < 0.03, (total, model["params"])
    if model["experts"]:
        active = estimated_params(model, model["active_experts"])
        assert abs(active / model["active_params"] - 1) < 0.03, (active, model["active_params"])


# ---- measurements ----------------------------------------------------------------

MEASUREMENT_INT_FIELDS = ("tp", "dp", "pp", "batch", "micro_batch", "global_batch", "input_len",
                          "output_len", "seq_len", "instance_count")


def test_measurement_ids_unique() -> None:
    ids = [m["id"] for m in measurements()]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("meas", measurements(), ids=lambda m: m["id"])
def test_measurement_schema(meas: dict[str, Any]) -> None:
    model_ids = {m["id"] for m in models()}
    instance_ids = {i["id"] for i in load("instances.toml")["instance"]}
    chip_ids = {c["id"] for c in load("chips.toml")["chip"]}
    assert meas["model"] in model_ids
    assert meas["instance"] in instance_ids
    if "chip" in meas:
        assert meas["chip"] in chip_ids
    assert meas["use"] in MEASUREMENT_USES
    assert meas.get("kind", "inference") in {"inference", "training"}
    numeric = [k for k in meas if k.endswith(("_s", "_per_s"))]
    assert numeric, "a measurement needs at least one measured value"
    for field in numeric:
        assert is_number(meas[field]) and meas[field] > 0, field
    for field in MEASUREMENT_INT_FIELDS:
        if field in meas:
            assert is_int(meas[field]) and meas[field] > 0, field
    for field in meas.get("inferred", []):
        assert field in meas, f"inferred field {field} is absent"
    for field in (k for k in meas if k.endswith("_missing")):
        assert isinstance(meas[field], str) and meas[field].strip()
        assert field.removesuffix("_missing") not in meas


def test_calibration_set_is_balanced() -> None:
    cal = [m for m in measurements() if m["use"] == "calibration"]
    assert len({m["model"] for m in cal}) >= 5
    assert {m["batch"] for m in cal} == {1, 8}
    for meas in cal:
        if meas["instance"].startswith(("p", "g")):  # GPU calibration rows fit the gpu_* set
            continue
        assert meas["instance"].startswith("inf2.")
        for field in ("tp", "input_len", "output_len", "dtype", "ttft_s", "tpot_s",
                      "output_tokens_per_s"):
            assert field in meas, (meas["id"], field)
    assert any(m["use"] == "validation" for m in measurements())


# Published throughput must agree with batch × output_len / (TTFT + (output_len − 1) × TPOT):
# catches transcription slips (ms vs s, swapped columns) in the rows we score.
@pytest.mark.parametrize(
    "meas",
    [m for m in measurements() if m["use"] != "reference"
     and {"ttft_s", "tpot_s", "output_tokens_per_s", "output_len"} <= m.keys()],
    ids=lambda m: m["id"],
)
def test_scored_rows_are_self_consistent(meas: dict[str, Any]) -> None:
    seconds = meas["ttft_s"] + (meas["output_len"] - 1) * meas["tpot_s"]
    implied = meas["batch"] * meas["output_len"] / seconds
    assert abs(implied / meas["output_tokens_per_s"] - 1) < 0.25


def test_training_rows_tokens_follow_sequences() -> None:
    rows = [m for m in measurements() if m.get("kind") == "training"]
    assert rows
    for meas in rows:
        assert meas["tokens_per_s"] == pytest.approx(meas["sequences_per_s"] * meas["seq_len"])


# ---- assumptions ----------------------------------------------------------------

REQUIRED_ASSUMPTIONS = {
    "mfu_training_neuron_default", "mfu_training_gpu_default", "decode_memory_efficiency",
    "prefill_compute_efficiency", "collective_hop_latency_s", "gpu_runtime_overhead_bytes",
    "neuron_runtime_overhead_per_core_bytes", "training_bytes_per_param_eleutherai",
    "training_bytes_per_param_llm_analysis", "training_bytes_per_param_deepspeed",
    "training_bytes_per_param_adam_8bit", "hours_per_month",
}


def test_assumption_records() -> None:
    recs = load("assumptions.toml")["assumption"]
    assert len({r["id"] for r in recs}) == len(recs)
    assert REQUIRED_ASSUMPTIONS <= assumptions().keys()
    for rec in recs:
        # a fitted constant may sit at its bound 0 (e.g. no fixed latency beyond the roofline)
        minimum_ok = rec["value"] >= 0 if "fitted_by" in rec else rec["value"] > 0
        assert is_number(rec["value"]) and minimum_ok, rec["id"]
        assert rec["unit"].strip() and rec["note"].strip(), rec["id"]
        if rec["unit"] == "fraction":
            assert rec["value"] <= 1, rec["id"]
        if rec["unit"] == "B":
            assert is_int(rec["value"]), f"{rec['id']}: bytes must be an integer"


def test_assumption_values_follow_their_definitions() -> None:
    recs = assumptions()
    assert recs["hours_per_month"]["value"] == 365 * 24 / 12
    assert recs["neuron_runtime_overhead_per_core_bytes"]["value"] == 96 * 2**20
    expected = {"eleutherai": 16, "llm_analysis": 18, "deepspeed": 20, "adam_8bit": 10}
    for name, total in expected.items():
        rec = recs[f"training_bytes_per_param_{name}"]
        assert rec["value"] == total == sum(rec["breakdown"].values())
    assert recs["mfu_training_gpu_default"]["value"] == pytest.approx(150 / 312, abs=0.005)


# ---- glossary ----------------------------------------------------------------

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_glossary_size_and_uniqueness() -> None:
    terms = glossary()
    assert 30 <= len(terms) <= 45
    assert len({t["id"] for t in terms}) == len(terms)
    assert len({t["abbr"] for t in terms}) == len(terms)


@pytest.mark.parametrize("term", glossary(), ids=lambda t: t["id"])
def test_glossary_term_has_three_languages(term: dict[str, Any]) -> None:
    assert term["abbr"].strip() == term["abbr"] and term["abbr"]
    for lang in ("en", "ja", "es"):
        text = term[lang]
        assert isinstance(text, str) and text.strip(), lang
        assert "\n" not in text and '"' not in text, lang
    assert JAPANESE.search(term["ja"]) and ("です" in term["ja"] or "ます" in term["ja"])
    assert not JAPANESE.search(term["en"]) and not JAPANESE.search(term["es"])


# ---- issue 10: architecture fields of the newer presets ------------------------------------

OPTIONAL_INT_FIELDS = ("expert_intermediate", "shared_experts", "shared_expert_intermediate",
                       "dense_layers", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim",
                       "qk_nope_head_dim", "v_head_dim", "local_layers", "local_window")
WEIGHT_FORMATS = {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp8_block128", "mxfp4",
                  "int4_g32", "int4_g64", "int4_g128"}
NEW_PRESETS = {"deepseek-v3", "deepseek-r1", "qwen3-235b-a22b", "qwen3-30b-a3b", "gemma-3-27b",
               "llama-4-scout", "llama-4-maverick", "llama-3.2-1b", "llama-3.2-3b"}


def test_issue_10_presets_present() -> None:
    assert NEW_PRESETS <= {m["id"] for m in models()}


@pytest.mark.parametrize("model", models(), ids=lambda m: m["id"])
def test_optional_architecture_fields(model: dict[str, Any]) -> None:
    for field in OPTIONAL_INT_FIELDS:
        if field in model:
            assert is_int(model[field]) and model[field] >= 0, field
    assert model.get("attention", "gqa") in {"gqa", "mla"}
    if model.get("attention") == "mla":
        for field in ("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"):
            assert model[field] > 0, field
        assert model["head_dim"] == model["qk_nope_head_dim"] + model["qk_rope_head_dim"]
    assert 0 <= model.get("local_layers", 0) <= model["layers"]
    if model.get("local_layers"):
        assert model["local_window"] > 0 and model["local_kind"] in {"sliding", "chunked"}
    assert model.get("dense_layers", 0) < model["layers"] or not model["experts"]
    for field in ("checkpoint_dtype", "linear_dtype", "expert_dtype"):
        if field in model:
            assert model[field] in WEIGHT_FORMATS, field
    if model["id"] in NEW_PRESETS:
        assert model["config_copy"].startswith("tests/calc/hf_configs/")
        assert (DATA_DIR.parent / model["config_copy"]).is_file()
        assert is_int(model["params_published"]) and model["params_published_scope"]
