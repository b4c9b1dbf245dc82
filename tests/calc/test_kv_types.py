"""KV cache bytes by attention type, computed by hand from the published shapes.

GQA (Llama 3.2 1B: 16 layers, 8 KV heads × 64), MLA (DeepSeek-V3: 61 layers, latent 512 + RoPE
key 64), sliding window (Gemma 3 27B: 52 local layers with a 1,024 window + 10 global, 16 KV
heads × 128; gpt-oss-120b: 18 local layers of 128 tokens + 18 global, 8 KV heads × 64),
chunked attention (Llama 4 Scout: 36 chunked layers of 8,192 tokens + 12 global, 8 × 128).
BF16 KV = 2 bytes per element.
"""

import pytest
from calc_helpers import run, synthetic_model
from hypothesis import given, settings
from hypothesis import strategies as st

from calc import data, kv

B = 2  # bytes per bf16 element


def kv_bytes(layers_tokens: list[tuple[int, int]], elements_per_token_layer: int,
             batch: int) -> int:
    return sum(layers * tokens for layers, tokens in layers_tokens) * batch * (
        elements_per_token_layer) * B


@pytest.mark.parametrize("seq_len", [100, 1024, 5000, 131072])
def test_gqa_llama_3_2_1b(seq_len: int) -> None:
    result = run("memory", model="llama-3.2-1b", instance="trn2.48xlarge", seq_len=seq_len,
                 batch=3, tp=4)
    assert result["kv_cache_bytes"] == 2 * 16 * 8 * 64 * seq_len * 3 * B
    assert result["kv_bytes_per_token"] == 2 * 16 * 8 * 64 * B == 32768
    # tp 4 divides 8 KV heads: 2 heads per core, no replication
    assert result["kv_cache_per_core_bytes"] == 2 * 16 * 2 * 64 * seq_len * 3 * B
    assert result["kv_cache_replicated_bytes"] == result["kv_cache_bytes"]


def test_gqa_replication_beyond_the_kv_heads() -> None:
    result = run("memory", model="llama-3.2-1b", instance="trn2.48xlarge", seq_len=1000, tp=32)
    assert result["kv_cache_bytes"] == 2 * 16 * 8 * 64 * 1000 * B      # one copy
    assert result["kv_cache_per_core_bytes"] == 2 * 16 * 1 * 64 * 1000 * B   # 1 head per core
    assert result["kv_cache_replicated_bytes"] == 32 * result["kv_cache_per_core_bytes"]


@pytest.mark.parametrize("tp", [1, 8, 64])
def test_mla_deepseek_v3_latent_is_replicated_on_every_core(tp: int) -> None:
    result = run("memory", model="deepseek-v3", instance="trn2.48xlarge", seq_len=4096,
                 batch=2, tp=tp)
    per_copy = 61 * (512 + 64) * 4096 * 2 * B
    assert result["kv_cache_bytes"] == per_copy
    assert result["kv_cache_per_core_bytes"] == per_copy
    assert result["kv_cache_replicated_bytes"] == tp * per_copy
    assert result["kv_bytes_per_token"] == 61 * 576 * B == 70272
    assert result["kv_rule"] == "mla_latent_replicated"


@pytest.mark.parametrize("seq_len", [512, 1024, 32768])
def test_sliding_window_gemma_3_27b(seq_len: int) -> None:
    result = run("memory", model="gemma-3-27b", instance="trn2.48xlarge", seq_len=seq_len,
                 batch=1, tp=16)
    per_token_layer = 2 * 16 * 128
    expected = kv_bytes([(10, seq_len), (52, min(seq_len, 1024))], per_token_layer, 1)
    assert result["kv_cache_bytes"] == expected
    assert result["kv_bytes_per_token"] is None
    assert result["kv_cache_per_core_bytes"] == expected // 16  # one KV head per core


def test_gpt_oss_alternating_layers_halve_the_long_context_cache() -> None:
    result = run("memory", model="gpt-oss-120b", instance="p5.48xlarge", seq_len=131072)
    expected = kv_bytes([(18, 131072), (18, 128)], 2 * 8 * 64, 1)
    assert result["kv_cache_bytes"] == expected
    full = kv_bytes([(36, 131072)], 2 * 8 * 64, 1)
    assert 1.99 < full / expected < 2.0   # the old estimate was about 2× too high


@pytest.mark.parametrize("seq_len", [4096, 8192, 100000])
def test_chunked_attention_llama_4_scout(seq_len: int) -> None:
    result = run("memory", model="llama-4-scout", instance="trn2.48xlarge", seq_len=seq_len,
                 tp=8)
    expected = kv_bytes([(12, seq_len), (36, min(seq_len, 8192))], 2 * 8 * 128, 1)
    assert result["kv_cache_bytes"] == expected


def test_bytes_per_token_by_layer_type_for_the_perf_model() -> None:
    spec = data.model("gemma-3-27b")
    by_type = kv.bytes_per_token_by_layer_type(spec, "bf16")
    assert by_type == {"global": 10 * 2 * 16 * 128 * B, "local": 52 * 2 * 16 * 128 * B}
    assert kv.bytes_per_token_per_layer(spec, "bf16") == 2 * 16 * 128 * B
    mla = data.model("deepseek-v3")
    assert kv.bytes_per_token_by_layer_type(mla, "fp8") == {"global": 61 * 576}


def test_mistral_v0_1_window_caps_only_beyond_4096_tokens() -> None:
    short = run("memory", model="mistral-7b", instance="inf2.48xlarge", seq_len=4096)
    long = run("memory", model="mistral-7b", instance="inf2.48xlarge", seq_len=8192)
    assert short["kv_cache_bytes"] == 2 * 32 * 8 * 128 * 4096 * B
    assert long["kv_cache_bytes"] == short["kv_cache_bytes"]


def test_encoders_have_no_kv() -> None:
    spec = data.model("bert-base")
    assert kv.unique_bytes(spec, "bf16", 4, 512) == 0
    assert kv.bytes_per_token(spec, "bf16") == 0


# ---- properties ------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    layers=st.integers(1, 64), local=st.integers(0, 64), window=st.integers(1, 10_000),
    kv_heads=st.sampled_from([1, 2, 4, 8]), seq_len=st.integers(1, 50_000),
    batch=st.integers(1, 16), tp=st.sampled_from([1, 2, 4, 8, 16, 32]),
    mla=st.booleans(),
)
def test_kv_properties(layers: int, local: int, window: int, kv_heads: int, seq_len: int,
                       batch: int, tp: int, mla: bool) -> None:
    local = min(local, layers)
    shape = dict(layers=layers, heads=32, kv_heads=kv_heads, head_dim=128,
                 local_layers=local, local_window=window if local else 0,
                 local_kind="sliding" if local else "")
    if mla:
        shape.update(attention="mla", kv_lora_rank=512, qk_rope_head_dim=64, kv_heads=32)
    model = synthetic_model(**shape)
    unique = kv.unique_bytes(model, "bf16", batch, seq_len)
    per_core = kv.per_core_bytes(model, tp, "bf16", batch, seq_len)
    full = synthetic_model(**{**shape, "local_layers": 0, "local_window": 0, "local_kind": ""})
    assert unique <= kv.unique_bytes(full, "bf16", batch, seq_len)     # windows only shrink
    assert per_core * tp >= unique                                     # replication ≥ one copy
    assert kv.unique_bytes(model, "bf16", batch, seq_len + 1) >= unique  # monotone in s
    if seq_len <= window or not local:
        assert unique == kv.unique_bytes(full, "bf16", batch, seq_len)
    if mla:
        assert per_core == unique
