"""Presets vs their config.json copies (tests/calc/hf_configs/) and their published sizes.

Published figures (data/models.toml params_published, data/sources/models.toml): DeepSeek-V3/R1
671B (arXiv:2412.19437, model card), Qwen3-235B-A22B 235B, Qwen3-30B-A3B 30.5B (model cards),
Gemma 3 27B "27B" (arXiv:2503.19786), Llama 4 Scout 109B / Maverick 400B with the vision encoder
(Meta's announcement), Llama 3.2 1.23B / 3.21B (model card), gpt-oss 116.83B / 20.91B and
checkpoints of 60.8 GiB / 12.8 GiB (OpenAI model card, Table 1).
"""

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from calc_helpers import run

from calc import data, hf_config, model_shape
from calc.units import BYTES_PER_GIB

ROOT = Path(__file__).resolve().parents[2]
PRESETS = [raw for raw in data.records("models") if "config_copy" in raw]


def config_of(raw: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / raw["config_copy"]).read_text(encoding="utf-8"))
    return loaded


def llama4_vision_params(vision: dict[str, Any], text_hidden: int) -> int:
    """Llama4VisionModel + projector (transformers modeling_llama4.py): unfold-conv patch
    embedding, class and position embeddings, pre/post LayerNorms, encoder layers (q, k, v, o
    and fc1, fc2 with biases, two LayerNorms), pixel-shuffle MLP (no biases), projector."""
    h, inter = vision["hidden_size"], vision["intermediate_size"]
    patches = (vision["image_size"] // vision["patch_size"]) ** 2 + 1
    layer = 4 * (h * h + h) + (h * inter + inter) + (inter * h + h) + 2 * 2 * h
    return (
        vision["num_channels"] * vision["patch_size"] ** 2 * h + h + patches * h + 2 * 2 * h
        + vision["num_hidden_layers"] * layer
        + inter * vision["projector_input_dim"]
        + vision["projector_output_dim"] * vision["projector_output_dim"]
        + vision["vision_output_dim"] * text_hidden
    )


def test_every_issue_10_preset_has_a_config_copy() -> None:
    ids = {raw["id"] for raw in PRESETS}
    assert {"deepseek-v3", "deepseek-r1", "qwen3-235b-a22b", "qwen3-30b-a3b", "gemma-3-27b",
            "llama-4-scout", "llama-4-maverick", "llama-3.2-1b", "llama-3.2-3b",
            "gpt-oss-120b", "gpt-oss-20b"} <= ids


@pytest.mark.parametrize("raw", PRESETS, ids=lambda r: r["id"])
def test_preset_equals_its_config(raw: dict[str, Any]) -> None:
    preset = data.model(raw["id"])
    parsed = hf_config.parse(config_of(raw))
    assert dataclasses.replace(parsed, id=preset.id, name=preset.name) == preset


@pytest.mark.parametrize("raw", PRESETS, ids=lambda r: r["id"])
def test_preset_and_config_give_identical_results(raw: dict[str, Any]) -> None:
    for kind, extra in (("memory", {"seq_len": 16384, "batch": 2}),
                        ("perf", {"input_len": 1024, "output_len": 128})):
        for instance in ("trn2.48xlarge", "p5.48xlarge"):
            by_preset = run(kind, model=raw["id"], instance=instance, **extra)
            by_config = run(kind, hf_config=config_of(raw), instance=instance, **extra)
            by_config["model"] = by_preset["model"]
            # suggestions echo the request as sent (issue 9): the model named as given
            for suggestion in by_config.get("suggestions", []):
                echoed = suggestion["params"]
                assert echoed.pop("hf_config") == config_of(raw)
                suggestion["params"] = {"model": raw["id"], **echoed}
            assert by_config == by_preset, (kind, instance)


@pytest.mark.parametrize("raw", [r for r in PRESETS if "params_published" in r],
                         ids=lambda r: r["id"])
def test_parameter_count_within_one_percent_of_published(raw: dict[str, Any]) -> None:
    counted = data.model(raw["id"]).params
    if raw["params_published_scope"] == "language model + vision encoder":
        config = config_of(raw)
        counted += llama4_vision_params(config["vision_config"],
                                        config["text_config"]["hidden_size"])
    else:
        assert raw["params_published_scope"] == "language model"
    assert abs(counted / raw["params_published"] - 1) < 0.01, (counted, raw["params_published"])


def test_llama_4_scout_with_vision_matches_the_checkpoint_tensor_count() -> None:
    # language model 107,769,861,120 (calc.hf_config) + vision 871,932,416 (above)
    config = config_of(data.record("models", "llama-4-scout") or {})
    vision = llama4_vision_params(config["vision_config"], 5120)
    assert vision == 871_932_416
    assert data.model("llama-4-scout").params == 107_769_861_120


@pytest.mark.parametrize("model_id", ["gpt-oss-120b", "gpt-oss-20b"])
def test_gpt_oss_weights_match_the_published_checkpoint_size(model_id: str) -> None:
    raw = data.record("models", model_id) or {}
    result = run("memory", model=model_id, instance="p5.48xlarge", seq_len=1024)
    assert result["expert_dtype"] == "mxfp4" and result["dtype"] == "bf16"
    # published to 0.1 GiB: ours must round to the same figure
    assert round(result["weights_bytes"] / BYTES_PER_GIB, 1) == raw["checkpoint_size_gib"]


def test_deepseek_v3_fp8_weights_are_one_byte_per_linear_weight_plus_block_scales() -> None:
    spec = data.model("deepseek-v3")
    precision = model_shape.weight_precision(spec)
    assert precision == model_shape.WeightPrecision("bf16", "fp8_block128", "fp8_block128")
    groups = model_shape.weight_groups(spec)
    quantized = groups["linear"] + groups["expert"]
    # one fp32 scale (4 B) per 128 × 128 block
    expected = quantized + -(-quantized * 4 // (128 * 128)) + 2 * groups["unquantized"]
    assert model_shape.weights_bytes(spec, precision) == expected
    # the unquantized part is the embeddings, LM head, norms, router and score biases
    assert groups["unquantized"] == (2 * spec.vocab * spec.hidden + spec.hidden
                                     + spec.layers * (2 * spec.hidden + spec.kv_lora_rank
                                                      + spec.q_lora_rank)
                                     + spec.moe_layers * (spec.hidden + 1) * spec.experts)


def test_overrides_change_only_what_they_name() -> None:
    base = run("memory", model="gpt-oss-120b", instance="p5.48xlarge", seq_len=1024)
    bf16_rest = run("memory", model="gpt-oss-120b", instance="p5.48xlarge", seq_len=1024,
                    dtype="bf16")
    assert bf16_rest["weights_bytes"] == base["weights_bytes"]  # bf16 is the checkpoint's rest
    all_bf16 = run("memory", model="gpt-oss-120b", instance="p5.48xlarge", seq_len=1024,
                   expert_dtype="bf16")
    assert all_bf16["weights_bytes"] == 2 * data.model("gpt-oss-120b").params
    fp8_kv = run("memory", model="gpt-oss-120b", instance="p5.48xlarge", seq_len=1024,
                 kv_dtype="fp8")
    assert fp8_kv["kv_cache_bytes"] * 2 == base["kv_cache_bytes"]
    assert fp8_kv["weights_bytes"] == base["weights_bytes"]
    deepseek_bf16 = run("memory", model="deepseek-v3", instance="p5.48xlarge", seq_len=1024,
                        dtype="bf16")
    assert deepseek_bf16["weights_bytes"] == 2 * data.model("deepseek-v3").params
    assert deepseek_bf16["expert_dtype"] == "bf16"


def test_results_carry_active_params() -> None:
    result = run("memory", model="qwen3-30b-a3b", instance="p5.48xlarge", seq_len=1024)
    assert result["active_params"] == data.model("qwen3-30b-a3b").active_params
    assert result["active_params"] < result["params"]
    speed = run("perf", model="qwen3-30b-a3b", instance="p5.48xlarge", input_len=128,
                output_len=16)
    training = run("train", model="qwen3-30b-a3b", instance="p5.48xlarge", tokens=10**9,
                   seq_len=4096)
    assert speed["active_params"] == training["active_params"] == result["active_params"]
