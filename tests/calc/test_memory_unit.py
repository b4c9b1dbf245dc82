"""Memory-fit rules on synthetic specs: the KV-head rule, encoders, MoE, TP choice."""

import pytest
from calc_helpers import synthetic_instance, synthetic_model

from calc import memory
from calc.errors import CalcError
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


def test_kv_layout_rejects_heads_not_divisible_by_tp() -> None:
    with pytest.raises(CalcError) as caught:
        memory.kv_layout(synthetic_model(heads=32, kv_heads=8), 24)
    assert caught.value.key == "heads_not_divisible"


def test_kv_cache_formula_is_gqa_aware() -> None:
    model = synthetic_model(layers=2, head_dim=64, heads=8, kv_heads=2)
    result = fit(model, batch=3, seq_len=10, tp=1)
    # 2 · L · head_dim · s · b · B · kv_heads = 2·2·64·10·3·2·2
    assert result.kv_cache_bytes == 2 * 2 * 64 * 10 * 3 * 2 * 2
    replicated = fit(model, batch=3, seq_len=10, tp=8)
    assert replicated.kv_cache_bytes == 2 * 2 * 64 * 10 * 3 * 2 * 8
    assert replicated.kv_heads_per_core == 1
    assert replicated.kv_cache_per_core_bytes * 8 == replicated.kv_cache_bytes


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
