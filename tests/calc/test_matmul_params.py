"""The parameters a token is multiplied by (calc.model_shape.matmul_params) and the LM head a
prompt runs once per sequence (review, stop 47). Figures by hand from the presets' configs."""

import pytest
from calc_helpers import synthetic_model

from calc import data, model_shape, serving


@pytest.mark.parametrize(("model_id", "active", "multiplied"), [
    # gpt-oss model card: 3.61 B and 5.13 B active, the input embedding (201,088 × 2,880 =
    # 579,133,440) not counted
    ("gpt-oss-20b", 4_187_440_704, 3_608_307_264),
    ("gpt-oss-120b", 5_711_982_912, 5_132_849_472),
    # Llama 3.1 8B: untied, 128,256 × 4,096 = 525,336,576 looked up
    ("llama-3.1-8b", 8_030_261_248, 7_504_924_672),
    # Llama 3.2 1B ties its embeddings to the LM head: nothing to take out
    ("llama-3.2-1b", 1_235_814_400, 1_235_814_400),
])
def test_matmul_params_take_out_an_untied_input_embedding(model_id: str, active: int,
                                                         multiplied: int) -> None:
    model = data.model(model_id)
    assert model.active_params == active
    assert model_shape.matmul_params(model) == multiplied


def test_a_custom_shape_with_fewer_params_than_its_vocab_implies_keeps_its_linear_layers() -> None:
    """--params below the shape: the table taken out is at most what lies outside the linear
    layers, so the FLOPs never fall below the linear layers' (before: a 1-parameter model)."""
    model = synthetic_model(params=2_000_000_000, active_params=2_000_000_000, hidden=8192,
                            heads=64, kv_heads=8, vocab=256_000)
    linear = model_shape.weight_groups(model)["linear"]
    assert model_shape.matmul_params(model) >= linear
    assert model_shape.input_embedding_params(model) <= model_shape.weight_groups(model)[
        "unquantized"]


def test_a_prompt_runs_the_lm_head_for_its_last_token_only() -> None:
    """Llama 3.1 8B, 2 prompts of 1,000 tokens: 2 · ((N_mm − V·h) · 2,000 + V·h · 2)."""
    model = data.model("llama-3.1-8b")
    head = 128_256 * 4096
    expected = 2 * ((7_504_924_672 - head) * 2000 + head * 2)
    assert serving.prefill_matmul_flops(model, 1, 2000, 2) == expected
    # a decode step multiplies every sequence's token by the LM head: 2 · N_mm · B
    instance = data.instance("p5.48xlarge")
    roof = serving.decode_roofline(model, instance, tp=1, dtype="bf16", kv_dtype="bf16",
                                   batch=2, context=100)
    peak = instance.chip.peak_flops_per_core["bf16"]
    assert roof.projection_compute_s == pytest.approx(2 * 7_504_924_672 * 2 / peak)
