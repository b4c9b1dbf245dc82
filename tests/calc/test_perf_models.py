"""The serving model reads the model's real shape (issue 10 engine): weights streamed per decode
step at each group's own storage precision (MXFP4 experts, FP8-block linears), MoE experts
touched, and the KV read per step from calc.kv (MLA latent, sliding windows). Expectations are
computed by hand from the presets' config figures."""

import pytest
from calc_helpers import run

from calc import data, serving

# gpt-oss-120b (data/models.toml): 36 layers, hidden 2880, 64 query / 8 KV heads of 64, 128
# experts of width 2880 (4 active), experts in MXFP4 (4.25 bits), everything else bf16.
OSS_EXPERT_PARAMS = 3 * 2880 * 2880                      # 24,883,200 per expert and layer
OSS_EXPERT_BYTES = OSS_EXPERT_PARAMS * 4.25 / 8          # 13,219,200 B in MXFP4
OSS_ATTENTION = 36 * 2880 * 64 * (2 * 64 + 2 * 8)        # 955,514,880 q/k/v/o matrices
OSS_ROUTED = 36 * 128 * OSS_EXPERT_PARAMS                # 114,661,785,600
OSS_REST = 116_829_156_672 - OSS_ROUTED - OSS_ATTENTION  # embeddings, norms, router, biases
OSS_FIXED_BYTES = 2 * (OSS_ATTENTION + OSS_REST)         # 4,334,742,144 B in bf16
OSS_TABLE = 201_088 * 2880                               # 579,133,440: the untied input embedding


def oss_fixed_streamed(tokens: int) -> int:
    """The bf16 bytes a step of `tokens` tokens reads outside the experts: the input embedding
    table only as its tokens' rows (a lookup)."""
    return OSS_FIXED_BYTES - 2 * OSS_TABLE + 2 * 2880 * tokens


def test_hand_figures_are_the_presets() -> None:
    assert OSS_EXPERT_BYTES == 13_219_200
    assert OSS_FIXED_BYTES == 4_334_742_144


def test_gpt_oss_120b_decode_bytes_at_batch_1_and_64() -> None:
    model = data.model("gpt-oss-120b")
    # B = 1: 4 experts per layer → 4,334,742,144 − 2 · 579,133,440 (the embedding table) +
    # 2 · 2880 (its one row) + 36 · 4 · 13,219,200 = 5,080,045,824 B
    one = serving.streamed_weight_bytes(model, 1, "bf16", 1)
    assert one == pytest.approx(5_080_045_824)
    assert one == pytest.approx(oss_fixed_streamed(1) + 36 * 4 * OSS_EXPERT_BYTES)
    # B = 64: 128 · (1 − (124/128)^64) = 111.22 experts per layer
    touched = 128 * (1 - (124 / 128) ** 64)
    assert touched == pytest.approx(111.2215, abs=1e-3)
    many = serving.streamed_weight_bytes(model, 1, "bf16", 64)
    assert many == pytest.approx(oss_fixed_streamed(64) + 36 * touched * OSS_EXPERT_BYTES)
    assert many == pytest.approx(56.10e9, rel=1e-3)
    # the old reading (active params × 2 bytes) overstated batch-1 decode by 2.25×
    assert 2 * model.active_params / one == pytest.approx(2.248, abs=1e-3)


def test_gpt_oss_kv_read_is_window_capped() -> None:
    model = data.model("gpt-oss-120b")
    # TP 8: one KV head per core → 2 · 64 elements · 2 B = 256 B per token and layer;
    # context 4096: 18 full layers · 4096 + 18 sliding layers · 128 = 76,032 token-layers
    assert serving.kv_read_bytes_per_core(model, 8, "bf16", 1, 4096) == 76_032 * 256
    assert serving.kv_read_bytes_per_core(model, 8, "bf16", 8, 4096) == 8 * 76_032 * 256
    # attention FLOPs follow the same window: Σ layers min(context, window)
    assert serving.attention_token_layers(model, 4096) == 76_032
    assert serving.attention_token_layers(model, 100) == 36 * 100


def test_deepseek_v3_mla_kv_read_per_token() -> None:
    model = data.model("deepseek-v3")
    # MLA: latent 512 + RoPE key 64 per token and layer, bf16 → 1,152 B; 61 layers → 70,272 B
    # per token, the whole latent on every core whatever the TP degree
    for tp in (1, 8, 32):
        assert serving.kv_read_bytes_per_core(model, tp, "bf16", 1, 1) == 70_272
        assert serving.kv_read_bytes_per_core(model, tp, "bf16", 4, 1000) == 4 * 1000 * 70_272
    assert serving.kv_read_bytes_per_core(model, 8, "fp8", 1, 1000) == 1000 * 35_136


def test_deepseek_v3_streams_fp8_block_linears_and_touched_experts() -> None:
    model = data.model("deepseek-v3")
    # one routed expert: 3 · 7168 · 2048 = 44,040,192 parameters at 8 + 32/16384 bits
    expert_bytes = 44_040_192 * (8 + 32 / 16384) / 8
    one = serving.streamed_weight_bytes(model, 8, "fp8_block128", 1)
    many = serving.streamed_weight_bytes(model, 8, "fp8_block128", 64)
    # 58 MoE layers: the difference is 58 · (E_touched(64) − 8) experts, and 63 more bf16 rows
    # of the input embedding (7,168 wide) looked up
    touched = 256 * (1 - (248 / 256) ** 64)
    assert many - one == pytest.approx(58 * (touched - 8) * expert_bytes + 63 * 7168 * 2,
                                       rel=1e-9)
    # active weights ≈ 37.5 B parameters, mostly FP8: about 1 byte each, not 2
    assert one < 1.2 * model.active_params


def test_perf_decode_uses_the_real_bytes() -> None:
    answer = run("perf", model="gpt-oss-120b", instance="p5.48xlarge", batch=1, input_len=128,
                 output_len=128, tp=8)
    steps = {s["key"]: s["value"] for s in answer["derivation"]}
    assert answer["fits"] is True
    assert steps["experts_touched_decode"] == pytest.approx(4.0)
    # bandwidth-bound tokens/s uses the streamed bytes at batch 1 (one replica at TP 8)
    bandwidth = data.instance("p5.48xlarge").memory_bandwidth_per_core_bytes_per_s
    assert bandwidth is not None
    expected = 1 * 8 * bandwidth / 5_080_045_824
    assert answer["bandwidth_bound_tokens_per_s"] == pytest.approx(expected, rel=1e-6)
