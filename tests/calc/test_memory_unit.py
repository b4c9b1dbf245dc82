"""Memory-fit rules on synthetic specs: the KV-head rule, encoders, MoE, TP choice."""

import pytest
from calc_helpers import synthetic_chip, synthetic_instance, synthetic_model

from calc import memory
from calc.errors import CalcError
from calc.specs import InstanceSpec
from calc.units import BYTES_PER_GIB


def fit(model=None, instance=None, **overrides):  # type: ignore[no-untyped-def]
    arguments = dict(dtype="bf16", kv_dtype=None, batch=1, seq_len=1024, tp=None)
    arguments.update(overrides)
    return memory.fit(model or synthetic_model(), instance or synthetic_instance(16), **arguments)


@pytest.mark.parametrize(
    ("heads", "kv_heads", "tp", "rule", "kv_heads_eff"),
    [
        (32, 8, 32, "replicate_to_tp_degree", 32),   # NxDI example: 8 KV heads at tp=32 -> 32
        (32, 8, 4, "replicate_to_tp_degree", 8),     # kv_heads % tp == 0: no replication
        (32, 32, 8, "replicate_to_tp_degree", 32),   # MHA
        (48, 8, 12, "convert_to_mha", 48),           # 12 % 8 != 0 and 8 % 12 != 0
    ],
)
def test_kv_layout_follows_nxdi_rule(
    heads: int, kv_heads: int, tp: int, rule: str, kv_heads_eff: int
) -> None:
    model = synthetic_model(heads=heads, kv_heads=kv_heads)
    assert memory.kv_layout(model, tp) == (rule, kv_heads_eff)


# neuronx-distributed modules/qkv_linear / gqa.py comment: tp_degree = 32,
# num_attention_heads 56 -> 64, num_key_value_heads 8 -> 32 (REPLICATE_TO_TP_DEGREE).
@pytest.mark.parametrize(
    ("heads", "kv_heads", "tp", "padding", "rule", "kv_heads_eff"),
    [
        (56, 8, 32, 8, "replicate_to_tp_degree", 32),   # the neuronx-distributed example
        (64, 8, 24, 8, "replicate_to_tp_degree", 24),   # Llama-2-70B on inf2 at TP24
        (64, 8, 12, 8, "convert_to_mha", 72),           # 12 % 8 != 0: MHA on the padded layout
        (32, 32, 24, 16, "convert_to_mha", 48),         # MHA model: K/V follow the padded Q
        (32, 8, 8, 0, "replicate_to_tp_degree", 8),     # divisible: no padding
    ],
)
def test_padded_layout_matches_neuronx_distributed_head_counts(
    heads: int, kv_heads: int, tp: int, padding: int, rule: str, kv_heads_eff: int
) -> None:
    model = synthetic_model(heads=heads, kv_heads=kv_heads, hidden=heads * 128)
    assert memory.head_padding(model, tp) == padding
    assert (heads + padding) % tp == 0
    assert memory.kv_layout(model, tp) == (rule, kv_heads_eff)
    assert memory.padding_params(model, tp) == 2 * model.layers * model.hidden * 128 * padding


def _inf2_like(chip_count: int) -> InstanceSpec:
    """Synthetic instance with the inf2.48xlarge TP degrees (12 and 24 are not powers of two)."""
    return InstanceSpec(id="inf2-like", family="synthetic", kind="neuron", chip=synthetic_chip(),
                        chip_count=chip_count, tp_degrees=(1, 2, 4, 8, 12, 24))


def test_unpadded_degree_is_preferred_when_a_smaller_padded_one_also_fits() -> None:
    # 36 heads: TP 8 needs 4 padding heads, TP 12 divides. Weights sized so both fit.
    model = synthetic_model(heads=36, kv_heads=4, hidden=36 * 128, params=60 * 10**9,
                            active_params=60 * 10**9)
    result = memory.fit(model, _inf2_like(12), dtype="bf16", kv_dtype=None, batch=1,
                        seq_len=512)
    padded_8 = memory.fit(model, _inf2_like(12), dtype="bf16", kv_dtype=None, batch=1,
                          seq_len=512, tp=8)
    assert padded_8.fits and padded_8.head_padding == 4 and not padded_8.heads_divisible
    assert result.min_tp_degree == 12 and result.heads_divisible and result.head_padding == 0
    assert result.min_tp_degree_with_head_padding == 8
    assert result.recommended_tp_degree == 12


def test_padded_degrees_are_used_when_no_unpadded_degree_fits() -> None:
    # 64 heads: TP 1..8 divide but cannot hold 140 GB; TP 12 and 24 fit with padding
    model = synthetic_model(heads=64, kv_heads=8, hidden=8192, layers=80,
                            params=70 * 10**9, active_params=70 * 10**9)
    result = memory.fit(model, _inf2_like(12), dtype="bf16", kv_dtype=None, batch=1,
                        seq_len=256)
    assert result.fits and result.min_tp_degree == 12
    assert result.min_tp_degree_with_head_padding == 12
    assert result.head_padding == 8 and result.heads_divisible is False


def test_kv_cache_formula_is_gqa_aware() -> None:
    model = synthetic_model(layers=2, head_dim=64, heads=8, kv_heads=2)
    result = fit(model, batch=3, seq_len=10, tp=1)
    # 2 · L · head_dim · s · b · B · kv_heads = 2·2·64·10·3·2·2
    assert result.kv_cache_bytes == 2 * 2 * 64 * 10 * 3 * 2 * 2
    replicated = fit(model, batch=3, seq_len=10, tp=8)
    assert replicated.kv_cache_bytes == result.kv_cache_bytes  # one copy, unique bytes
    assert replicated.kv_cache_replicated_bytes == 2 * 2 * 64 * 10 * 3 * 2 * 8
    assert replicated.kv_heads_per_core == 1
    assert replicated.kv_cache_per_core_bytes * 8 == replicated.kv_cache_replicated_bytes


def test_encoder_has_no_kv_cache() -> None:
    result = fit(synthetic_model(architecture="encoder"))
    assert result.kv_cache_bytes == 0
    assert result.kv_rule == "no_kv_cache"


def test_moe_memory_uses_total_params() -> None:
    dense = fit(synthetic_model(params=10**10, active_params=10**10), tp=8)
    moe = fit(synthetic_model(params=10**10, active_params=2 * 10**9, experts=8,
                              active_experts=2), tp=8)
    assert moe.weights_bytes == dense.weights_bytes == 2 * 10**10


def test_int4_weights_round_up_to_whole_bytes() -> None:
    result = fit(synthetic_model(params=3), tp=1, dtype="int4")
    assert result.weights_bytes == 2


def test_recommended_tp_leaves_ten_percent_headroom() -> None:
    result = fit(synthetic_model(params=30 * 10**9), seq_len=4096, batch=4)
    assert result.recommended_tp_degree is not None
    assert result.min_tp_degree is not None
    assert result.recommended_tp_degree >= result.min_tp_degree
    assert result.headroom_per_core_bytes >= 0.10 * result.capacity_per_core_bytes
    smaller = [d for d in result.tp_degrees_allowed if d < result.recommended_tp_degree]
    for degree in smaller:
        other = fit(synthetic_model(params=30 * 10**9), seq_len=4096, batch=4, tp=degree)
        assert other.headroom_per_core_bytes < 0.10 * other.capacity_per_core_bytes


def test_max_batch_and_max_seq_len_are_the_largest_that_fit() -> None:
    model = synthetic_model(params=20 * 10**9)
    result = fit(model, tp=4, batch=2, seq_len=2048)
    assert result.max_batch >= 1
    assert fit(model, tp=4, batch=result.max_batch, seq_len=2048).fits
    assert not fit(model, tp=4, batch=result.max_batch + 1, seq_len=2048).fits
    assert fit(model, tp=4, batch=2, seq_len=result.max_seq_len).fits
    assert not fit(model, tp=4, batch=2, seq_len=result.max_seq_len + 1).fits
    assert result.max_batch_per_instance == result.max_batch * result.replicas


def test_tp_must_be_allowed_by_the_instance() -> None:
    with pytest.raises(CalcError) as caught:
        fit(tp=3)
    assert caught.value.key == "tp_not_allowed"
    assert caught.value.params["allowed"] == [1, 2, 4, 8, 16, 32]


def test_nothing_fits_reports_no_min_tp() -> None:
    result = fit(synthetic_model(params=10**12), instance=synthetic_instance(1))
    assert not result.fits
    assert result.min_tp_degree is None
    assert result.per_core_bytes > 16 * BYTES_PER_GIB


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b"])
def test_params_from_architecture_reproduces_published_counts(model_id: str) -> None:
    # Published totals (model cards / config.json, data/models.toml): bias-free gated models.
    from calc import data
    from calc.inputs import params_from_architecture

    spec = data.model(model_id)
    computed = params_from_architecture(
        layers=spec.layers, hidden=spec.hidden, heads=spec.heads, kv_heads=spec.kv_heads,
        head_dim=spec.head_dim, intermediate=spec.intermediate, vocab=spec.vocab,
        gated=spec.gated_mlp, tied=spec.tied_embeddings, experts=spec.experts,
    )
    assert computed == spec.params


def test_moe_architecture_needs_active_experts() -> None:
    from calc_helpers import error

    failure = error("memory", instance="trn1.32xlarge", seq_len=128, layers=2, hidden=64,
                    heads=4, experts=8)
    assert (failure["field"], failure["key"]) == ("active_experts", "missing_field")
