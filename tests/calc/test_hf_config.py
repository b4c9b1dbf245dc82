"""calc.hf_config: model types, transformers' defaults, hand-counted parameters, precision, errors
and the --hf-config CLI option (one line, exit 2 on bad files)."""

import json
from pathlib import Path
from typing import Any

import pytest
from calc_helpers import error, run

from calc import hf_config, model_shape
from calc.cli import main
from calc.errors import CalcError

CONFIGS = Path(__file__).resolve().parent / "hf_configs"


def small(model_type: str, **overrides: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "model_type": model_type, "hidden_size": 64, "num_hidden_layers": 4,
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
        "vocab_size": 1000, "tie_word_embeddings": False,
    }
    config.update(overrides)
    return config


# per layer, h = 64, head_dim 16, 4 q heads, 2 kv heads: q, o 64·64 each; k, v 64·32 each
ATTENTION = 2 * 64 * 64 + 2 * 64 * 32
MLP = 3 * 64 * 128
EMBEDDINGS = 2 * 1000 * 64


def test_llama_count_by_hand() -> None:
    spec = hf_config.parse(small("llama"))
    assert spec.params == EMBEDDINGS + 64 + 4 * (ATTENTION + MLP + 2 * 64)
    assert spec.active_params == spec.params


def test_qwen2_has_qkv_biases_and_unknown_keys_are_ignored() -> None:
    spec = hf_config.parse(small("qwen2", some_future_key={"x": 1}, rope_theta=1e6))
    assert spec.params == EMBEDDINGS + 64 + 4 * (ATTENTION + MLP + 2 * 64 + 64 + 2 * 32)


def test_olmo2_qk_norms_span_the_projections() -> None:
    spec = hf_config.parse(small("olmo2"))
    assert spec.params == EMBEDDINGS + 64 + 4 * (ATTENTION + MLP + 2 * 64 + 64 + 32)


def test_gemma2_defaults_four_norms_tied_and_alternating_windows() -> None:
    config = small("gemma2")
    del config["tie_word_embeddings"]
    spec = hf_config.parse(config)
    assert spec.tied_embeddings is True
    assert spec.head_dim == 256          # Gemma2Config default head_dim
    attention = 2 * 64 * 4 * 256 + 2 * 64 * 2 * 256
    assert spec.params == 1000 * 64 + 64 + 4 * (attention + MLP + 4 * 64)
    assert (spec.local_layers, spec.local_window, spec.local_kind) == (2, 4096, "sliding")


def test_gemma3_nested_text_config_takes_transformers_defaults() -> None:
    """The keys google/gemma-3-4b-it's text_config leaves out (heads, vocab) take
    Gemma3TextConfig's defaults; the shape's own size keys must be in the file (QA stop 47:
    {"model_type": "gemma3"} alone was a 2.6 B model)."""
    spec = hf_config.parse({"model_type": "gemma3",
                            "text_config": {"hidden_size": 64, "num_hidden_layers": 26,
                                            "intermediate_size": 128},
                            "vision_config": {"hidden_size": 8}})
    # Gemma3TextConfig: 26 layers, 8 heads, 4 KV heads, head_dim 256, vocab 262208, window 4096
    assert (spec.layers, spec.heads, spec.kv_heads, spec.head_dim) == (26, 8, 4, 256)
    assert spec.vocab == 262208 and spec.tied_embeddings
    assert spec.local_layers == 26 - 4 and spec.local_window == 4096   # layers 6, 12, 18, 24


def test_qwen2_moe_shared_expert_and_gate() -> None:
    spec = hf_config.parse(small("qwen2_moe", num_experts=4, num_experts_per_tok=2,
                                 moe_intermediate_size=32, shared_expert_intermediate_size=96))
    expert = 3 * 64 * 32
    moe = 4 * expert + 3 * 64 * 96 + 64 * 4 + 64     # experts, shared, router, shared gate
    per_layer = ATTENTION + 64 + 2 * 32 + 2 * 64 + moe
    assert spec.params == EMBEDDINGS + 64 + 4 * per_layer
    assert spec.active_params == spec.params - 4 * 2 * expert


def test_deepseek_v2_lite_without_q_lora() -> None:
    config = small("deepseek_v2", num_key_value_heads=4, kv_lora_rank=16, qk_rope_head_dim=8,
                   qk_nope_head_dim=16, v_head_dim=16, q_lora_rank=None, n_routed_experts=4,
                   n_shared_experts=2, num_experts_per_tok=2, moe_intermediate_size=32,
                   first_k_dense_replace=1)
    spec = hf_config.parse(config)
    attention = (64 * 4 * 24 + 64 * (16 + 8) + 16 * 4 * (16 + 16) + 4 * 16 * 64)
    assert model_shape.attention_params_per_layer(spec) == attention
    expert = 3 * 64 * 32
    norms = 2 * 64 + 16
    total = (EMBEDDINGS + 64 + 4 * (attention + norms) + 1 * MLP
             + 3 * (4 * expert + 2 * expert + 64 * 4))
    assert spec.params == total
    assert spec.dense_layers == 1 and spec.moe_layers == 3
    assert spec.active_params == total - 3 * 2 * expert


def test_phi3_and_mistral_sliding_windows() -> None:
    assert hf_config.parse(small("phi3", sliding_window=2047)).local_layers == 4
    assert hf_config.parse(small("mistral", sliding_window=None)).local_layers == 0
    assert hf_config.parse(small("mistral")).local_window == 4096   # MistralConfig default
    qwen = small("qwen3", use_sliding_window=False, sliding_window=4096, head_dim=16)
    assert hf_config.parse(qwen).local_layers == 0


def test_granite_and_mixtral_parse() -> None:
    assert hf_config.parse(small("granite", tie_word_embeddings=True)).tied_embeddings
    mixtral = hf_config.parse(small("mixtral", num_local_experts=8, num_experts_per_tok=2))
    assert mixtral.experts == 8 and mixtral.expert_width == 128


@pytest.mark.parametrize(("quantization", "linear", "expert"), [
    ({"quant_method": "fp8", "weight_block_size": [128, 128]}, "fp8_block128", None),
    ({"quant_method": "fp8"}, "fp8", None),
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, "int4_g128",
     None),
    ({"quant_method": "gptq", "bits": 4, "group_size": 64}, "int4_g64", None),
    # mxfp4 quantizes routed experts only: a dense model keeps no expert dtype (QA #12;
    # an MoE config keeps it: test_qa46_hf_config)
    ({"quant_method": "mxfp4"}, None, None),
    ({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "targets": ["Linear"], "weights": {"num_bits": 8, "type": "float",
                                           "strategy": "channel"}}}}, "fp8", None),
    ({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "group_size": 128,
                                           "strategy": "group"}}}}, "int4_g128", None),
])
def test_quantization_config(quantization: dict[str, Any], linear: str | None,
                             expert: str | None) -> None:
    spec = hf_config.parse(small("llama", quantization_config=quantization,
                                 torch_dtype="float16"))
    assert spec.checkpoint_dtype == "fp16"
    assert spec.linear_dtype == linear and spec.expert_dtype == expert


def test_awq_int4_bytes_include_group_scales() -> None:
    spec = hf_config.parse(small("llama", quantization_config={
        "quant_method": "awq", "bits": 4, "group_size": 128}, torch_dtype="float16"))
    groups = model_shape.weight_groups(spec)
    linear_bits = groups["linear"] * (4 * 128 + 16 + 4)
    expected = -(-linear_bits // (128 * 8)) + 2 * groups["unquantized"]
    assert model_shape.weights_bytes(spec, model_shape.weight_precision(spec)) == expected


@pytest.mark.parametrize(("config", "key", "named"), [
    ({"model_type": "mamba", "hidden_size": 768}, "hf_unsupported_model_type", "mamba"),
    ({"model_type": "jamba"}, "hf_unsupported_model_type", "jamba"),
    ({"hidden_size": 4}, "hf_missing_key", "model_type"),
    ([1, 2], "hf_config_not_object", ""),
    ({"model_type": "llama", "hidden_size": 64}, "hf_missing_key", "num_hidden_layers"),
    (small("llama", vocab_size="big"), "hf_bad_integer", "vocab_size"),
    (small("llama", num_hidden_layers=10**9), "hf_bad_integer", "num_hidden_layers"),
    (small("gemma3_text", sliding_window=8, sliding_window_pattern=0), "hf_bad_integer",
     "sliding_window_pattern"),
    (small("llama", num_key_value_heads=3), "hf_kv_heads_not_divisor", "num_key_value_heads"),
    (small("llama", tie_word_embeddings="yes"), "hf_bad_flag", "tie_word_embeddings"),
    (small("mixtral", num_local_experts=4, num_experts_per_tok=8),
     "hf_experts_per_token_too_many", "8 experts"),
    ({"model_type": "bert", "hidden_size": 768}, "hf_encoder_model_type", "encoder"),
    (small("qwen2", rope_scaling={"type": "yarn", "factor": "four"}), "hf_bad_value",
     "rope_scaling"),
    (small("llama", quantization_config={"quant_method": "bitsandbytes"}),
     "hf_unsupported_quantization", "bitsandbytes"),
])
def test_bad_configs_give_one_clear_error(config: Any, key: str, named: str) -> None:
    with pytest.raises(CalcError) as raised:
        hf_config.parse(config)
    assert raised.value.key == key and raised.value.field == "hf_config"
    message = str(raised.value)
    assert "\n" not in message and named in message


def test_api_field_and_exclusivity() -> None:
    config = json.loads((CONFIGS / "llama-3.2-1b.json").read_text())
    result = run("memory", hf_config=config, instance="inf2.xlarge", seq_len=1024)
    assert result["params"] == 1_235_814_400
    assert error("memory", hf_config=config, model="llama-3.2-1b", instance="inf2.xlarge",
                 seq_len=8)["key"] == "not_with_field"
    assert error("memory", hf_config={"model_type": "mamba"}, instance="inf2.xlarge",
                 seq_len=8)["key"] == "hf_unsupported_model_type"


@pytest.mark.parametrize("argv", [
    ["memory", "--instance", "trn2.48xlarge", "--seq-len", "4096"],
    ["perf", "--instance", "trn2.48xlarge", "--input-len", "128", "--output-len", "16"],
    ["train", "--instance", "trn2.48xlarge", "--tokens", "1000000000", "--seq-len", "4096"],
    ["compare", "--instances", "trn2.48xlarge,p5.48xlarge"],
])
def test_cli_hf_config_option(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    path = str(CONFIGS / "qwen3-30b-a3b.json")
    assert main([*argv, "--hf-config", path, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("content", "fragment"), [
    ("{not json", "not valid JSON"),
    ('{"model_type": "mamba", "hidden_size": 768}', "mamba"),
    ('{"model_type": "llama"}', "hidden_size"),
    (None, "cannot read"),
])
def test_cli_bad_files_exit_2_with_one_line(tmp_path: Path, content: str | None, fragment: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    if content is not None:
        path.write_text(content)
    code = main(["memory", "--instance", "trn2.48xlarge", "--seq-len", "8", "--hf-config",
                 str(path)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0] and lines[0].startswith("error: ")


# The older presets' params were computed by hand from their configs (data/models.toml
# params_note); the parser must reproduce them from the same fields.
@pytest.mark.parametrize(("model_id", "model_type", "extra"), [
    ("llama-3.1-8b", "llama", {"rope_theta": 500000.0}),
    ("llama-2-70b", "llama", {}),
    ("mistral-7b", "mistral", {"sliding_window": 4096}),
    ("mixtral-8x7b", "mixtral", {"num_local_experts": 8, "num_experts_per_tok": 2,
                                 "sliding_window": None}),
    ("qwen3-32b", "qwen3", {"use_sliding_window": False, "sliding_window": None}),
])
def test_parser_reproduces_the_older_presets(model_id: str, model_type: str,
                                             extra: dict[str, Any]) -> None:
    from calc import data

    spec = data.model(model_id)
    config = {"model_type": model_type, "hidden_size": spec.hidden,
              "num_hidden_layers": spec.layers, "num_attention_heads": spec.heads,
              "num_key_value_heads": spec.kv_heads, "head_dim": spec.head_dim,
              "intermediate_size": spec.intermediate, "vocab_size": spec.vocab,
              "tie_word_embeddings": spec.tied_embeddings,
              "max_position_embeddings": spec.max_position_embeddings, **extra}
    parsed = hf_config.parse(config)
    assert (parsed.params, parsed.active_params) == (spec.params, spec.active_params)
    assert (parsed.local_layers, parsed.local_window) == (spec.local_layers, spec.local_window)


# ---- custom models with the issue-10 shape fields (calc.custom_shape) ----------------------

QWEN3_30B_SHAPE = dict(layers=48, hidden=2048, heads=32, kv_heads=4, head_dim=128,
                       intermediate=6144, vocab=151936, gated=True, experts=128,
                       active_experts=8, expert_intermediate=768)


def test_custom_moe_with_expert_width_matches_the_preset() -> None:
    from calc import data

    preset = data.model("qwen3-30b-a3b")
    result = run("memory", instance="trn2.48xlarge", seq_len=1024, **QWEN3_30B_SHAPE)
    qk_norms = preset.layers * 2 * preset.head_dim   # per-head q/k norms: not in custom shapes
    assert result["params"] == preset.params - qk_norms
    assert result["active_params"] == preset.active_params - qk_norms
    without_width = run("memory", instance="trn2.48xlarge", seq_len=1024,
                        **{**QWEN3_30B_SHAPE, "expert_intermediate": None})
    assert without_width["params"] > 7 * result["params"]   # what the old form gave: ~8× off


def test_custom_mla_and_sliding_window_kv() -> None:
    mla = run("memory", instance="trn2.48xlarge", seq_len=1000, layers=4, hidden=512, heads=8,
              head_dim=96, vocab=1000, attention="mla", kv_lora_rank=128, qk_rope_head_dim=32)
    assert mla["kv_cache_bytes"] == 4 * (128 + 32) * 1000 * 2
    local = run("memory", instance="trn2.48xlarge", seq_len=1000, layers=4, hidden=512, heads=8,
                kv_heads=2, vocab=1000, local_layers=3, local_window=100)
    assert local["kv_cache_bytes"] == (1 * 1000 + 3 * 100) * 2 * 2 * 64 * 2
    bad = error("memory", instance="trn2.48xlarge", seq_len=8, layers=4, hidden=512, heads=8,
                local_layers=5, local_window=100)
    assert bad["field"] == "local_layers" and bad["key"] == "out_of_range"
    assert error("memory", instance="trn2.48xlarge", seq_len=8, layers=4, hidden=512, heads=8,
                 attention="mla", qk_rope_head_dim=32)["field"] == "kv_lora_rank"


def test_cli_custom_shape_options(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["memory", "--instance", "trn2.48xlarge", "--seq-len", "64", "--layers", "48",
            "--hidden", "2048", "--heads", "32", "--kv-heads", "4", "--head-dim", "128",
            "--intermediate", "6144", "--vocab", "151936", "--gated", "--experts", "128",
            "--active-experts", "8", "--expert-intermediate", "768", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["params"] < 31e9


@pytest.mark.parametrize(("name", "key", "value"), [
    ("llama-4-scout-17b-16e.json", "moe_layers", [999, -1]),     # made the model dense
    ("llama-4-scout-17b-16e.json", "layer_types", ["chunked_attention"] * 3),   # was ignored
    ("qwen3-30b-a3b.json", "mlp_only_layers", [48]),
    ("deepseek-v3.json", "first_k_dense_replace", 1000),           # every layer dense
    ("deepseek-v3.json", "qk_rope_head_dim", 100_000),             # head_dim above its limit
])
def test_values_that_would_silently_change_the_model_are_refused(name: str, key: str,
                                                                 value: object) -> None:
    """QA pass D finding 13."""
    config = json.loads((CONFIGS / name).read_text())
    target = config.get("text_config", config) if key not in config else config
    target[key] = value
    failure = error("memory", hf_config=config, instance="trn1.32xlarge", seq_len=128)
    assert (failure["field"], failure["key"], failure["params"]["value"]) == (
        "hf_config", "hf_bad_value", key)


def test_a_byte_order_mark_is_no_content(tmp_path: Path) -> None:
    """QA pass D finding 12: a UTF-8 BOM config.json was "not valid JSON" (CLI) / "not a JSON
    object" (page)."""
    import subprocess
    import sys

    from calc.display import present

    text = (CONFIGS / "llama-3.2-1b.json").read_text()
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    done = subprocess.run([sys.executable, "-m", "calc", "memory", "--hf-config", str(path),
                           "--instance", "inf2.xlarge", "--seq-len", "8", "--json"],
                          cwd=CONFIGS.parents[2], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["params"] == 1_235_814_400
    shown = present({"calculator": "memory",
                     "values": {"model": "custom", "hf_config": "\ufeff" + text}}, "en")
    assert shown["ok"] and not shown["errors"]


@pytest.mark.parametrize("text_config", [None, {"hidden_size": 5376, "num_hidden_layers": 62}])
def test_a_gemma3_config_without_its_size_keys_is_refused(text_config: object) -> None:
    config: dict[str, Any] = {"model_type": "gemma3"}
    if text_config is not None:
        config["text_config"] = text_config
    with pytest.raises(CalcError) as caught:
        hf_config.parse(config)
    assert caught.value.key == "hf_missing_key"


@pytest.mark.parametrize(("rope", "expected"), [
    # Qwen2.5-7B-Instruct's model card: YaRN factor 4 over 32,768 positions -> 131,072
    ({"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}, 131072),
    ({"rope_type": "yarn", "factor": 2}, 65536),         # original = the stated maximum
    ({"rope_type": "linear", "factor": 8.0}, 32768),     # other types keep the stated maximum
    (None, 32768),
])
def test_yarn_rope_scaling_extends_the_maximum_positions(rope: Any, expected: int) -> None:
    """QA stop 47: a YaRN config was said to need RoPE scaling beyond 32,768 tokens."""
    spec = hf_config.parse(small("qwen2", max_position_embeddings=32768, rope_scaling=rope))
    assert spec.max_position_embeddings == expected


def test_a_number_in_quotes_is_named_as_such() -> None:
    """QA stop 47: "hidden_size": "4096" got 'must be a whole number from 1 to 1,048,576'."""
    with pytest.raises(CalcError) as caught:
        hf_config.parse(small("llama", hidden_size="4096"))
    assert caught.value.key == "hf_quoted_number" and "quotes" in str(caught.value)
    with pytest.raises(CalcError) as caught:
        hf_config.parse(small("llama", hidden_size="big"))
    assert caught.value.key == "hf_bad_integer"


def test_a_key_missing_from_a_nested_config_is_named_under_text_config() -> None:
    with pytest.raises(CalcError) as caught:
        hf_config.parse({"model_type": "gemma3"})
    assert caught.value.params["value"] == "text_config.hidden_size"
    with pytest.raises(CalcError) as caught:
        hf_config.parse({"model_type": "llama"})
    assert caught.value.params["value"] == "hidden_size"


@pytest.mark.parametrize("lang", ["en", "ja", "es"])
def test_a_multimodal_config_says_its_figures_are_the_language_models(lang: str) -> None:
    """Gemma 3 and Llama 4 configs carry a vision_config that calc does not count: the page says
    so next to the figures, in the reader's language; a text-only config gets no such note."""
    from calc.display import present
    from calc.display.strings import ui

    expected = ui(lang, "trust")["config_language_model_only"].replace("{parts}", "vision_config")
    for name, multimodal in (("gemma-3-27b-it.json", True), ("llama-3.2-1b.json", False)):
        text = (CONFIGS / name).read_text()
        assert bool(hf_config.uncounted_parts(json.loads(text))) is multimodal
        for calculator in ("memory", "performance"):
            shown = present({"calculator": calculator,
                             "values": {"model": "custom", "hf_config": text,
                                        "instance": "trn2.48xlarge"}}, lang)
            assert shown["ok"], shown["errors"]
            notes = [n["text"] for n in shown["notes"] if n["key"] == "config_language_model_only"]
            assert notes == ([expected] if multimodal else [])
    # a preset model: no note even with a leftover config in the form
    shown = present({"calculator": "memory", "values": {
        "model": "llama-3.1-8b", "hf_config": (CONFIGS / "gemma-3-27b-it.json").read_text()}}, lang)
    assert not [n for n in shown["notes"] if n["key"] == "config_language_model_only"]


def test_the_cli_notes_a_multimodal_config(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(CONFIGS / "gemma-3-27b-it.json")
    assert main(["memory", "--instance", "trn2.48xlarge", "--seq-len", "8",
                 "--hf-config", path]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == (
        "note: this config.json is multimodal: the figures are for its language model only; "
        "the vision encoder (vision_config) and its projector are not counted")
    assert main(["memory", "--instance", "trn2.48xlarge", "--seq-len", "8", "--hf-config",
                 str(CONFIGS / "llama-3.2-1b.json")]) == 0
    assert "multimodal" not in capsys.readouterr().out
    # --json keeps to the result object
    assert main(["memory", "--instance", "trn2.48xlarge", "--seq-len", "8", "--hf-config", path,
                 "--json"]) == 0
    json.loads(capsys.readouterr().out)
