"""Every bad input becomes CalcError(field, key, params); api.run turns it into ok=false."""

import pytest
from calc_helpers import error

from calc import api, inputs
from calc.errors import _ENGLISH, CalcError

BASE = dict(model="llama-3.1-8b", instance="inf2.48xlarge", seq_len=128)


@pytest.mark.parametrize(
    ("overrides", "field", "key"),
    [
        ({"batch": "abc"}, "batch", "must_be_number"),
        ({"batch": 0}, "batch", "must_be_positive_int"),
        ({"batch": -3}, "batch", "must_be_positive_int"),
        ({"batch": 1.5}, "batch", "must_be_positive_int"),
        ({"batch": True}, "batch", "must_be_number"),
        ({"batch": float("nan")}, "batch", "must_be_finite"),
        ({"batch": float("inf")}, "batch", "must_be_finite"),
        ({"batch": 10**30}, "batch", "out_of_range"),
        ({"seq_len": None}, "seq_len", "missing_field"),
        ({"model": "gpt-7"}, "model", "unknown_model"),
        ({"instance": "inf9.huge"}, "instance", "unknown_instance"),
        ({"dtype": "fp12"}, "dtype", "unknown_choice"),
        ({"tp": 3}, "tp", "tp_not_allowed"),
        ({"tp": 48}, "tp", "tp_not_allowed"),
        ({"bogus": 1}, "bogus", "unknown_field"),
        ({"layers": 32}, "layers", "not_with_field"),   # with the preset model: one source
    ],
)
def test_memory_input_errors(overrides: dict[str, object], field: str, key: str) -> None:
    params = {**BASE, **overrides}
    if params.get("seq_len") is None:
        params.pop("seq_len")
    failure = error("memory", **params)
    assert (failure["field"], failure["key"]) == (field, key)
    assert failure["message"] and "\n" not in failure["message"]


def test_training_memory_still_requires_heads_divisible_by_tp() -> None:
    failure = error("train_memory", model="llama-3.1-8b", instance="trn1.32xlarge", seq_len=512,
                    tp=3)
    assert (failure["field"], failure["key"]) == ("tp", "heads_not_divisible")


def test_architecture_errors() -> None:
    arch = dict(instance="inf2.48xlarge", seq_len=128, layers=2, hidden=100, heads=3)
    assert error("memory", **arch)["key"] == "hidden_not_divisible"
    assert error("memory", **{**arch, "hidden": 96, "kv_heads": 2})["key"] == (
        "kv_heads_not_divisible"
    )
    assert error("memory", instance="inf2.48xlarge", seq_len=128)["key"] == "model_required"


def test_request_envelope_errors() -> None:
    assert api.run([])["error"]["key"] == "bad_request"
    assert api.run({"kind": "memory", "params": 5})["error"]["key"] == "bad_request"
    assert api.run({"kind": "fly", "params": {}})["error"]["key"] == "unknown_kind"
    assert api.run({"schema_version": 2, "kind": "memory"})["error"]["key"] == (
        "bad_schema_version"
    )


def test_error_message_is_one_english_line_for_every_key() -> None:
    for key in _ENGLISH:
        message = str(CalcError("batch", key, {"value": 1, "min": 1, "max": 2, "allowed": [1],
                                               "heads": 4, "experts": 8}))
        assert message and "\n" not in message and "{" not in message


def test_integer_parser_accepts_numeric_strings() -> None:
    assert inputs.integer({"batch": " 16 "}, "batch") == 16
    assert inputs.integer({"batch": 16.0}, "batch") == 16
    assert inputs.number({"hours": "2.5"}, "hours", maximum=10) == 2.5


def test_an_integer_string_is_read_exactly_not_through_a_float() -> None:
    # (hardening) "1.0000000000000001" is 1.0 as a float; read exactly it is not whole
    assert inputs.integer({"batch": "1e3"}, "batch") == 1000
    assert inputs.integer({"batch": "12.0"}, "batch") == 12
    assert inputs.integer({"batch": "1_000"}, "batch") == 1000
    for text in ("1.0000000000000001", "123456789012345678.9", "1e-3"):
        with pytest.raises(CalcError) as caught:
            inputs.integer({"tokens": text}, "tokens")
        assert caught.value.key == "must_be_positive_int", text
    with pytest.raises(CalcError) as caught:
        inputs.integer({"tokens": "999999999999999999.5"}, "tokens")
    assert caught.value.key == "must_be_positive_int"
    assert error("train", model="llama-3.2-1b", instance="trn1.32xlarge", seq_len=2048,
                 tokens="999999999999999999.5")["key"] == "must_be_positive_int"


def test_a_typed_number_beyond_float_range_is_out_of_range_as_typed() -> None:
    with pytest.raises(CalcError) as caught:
        inputs.integer({"batch": "1e400"}, "batch")
    assert (caught.value.key, caught.value.params["value"]) == ("out_of_range", "1e400")
    with pytest.raises(CalcError) as caught:
        inputs.number({"hours": "1e400"}, "hours", maximum=10)
    # number()'s minimum is exclusive: "greater than 0 and at most 10", never "between"
    assert (caught.value.key, caught.value.params["value"]) == ("out_of_range_above", "1e400")
    with pytest.raises(CalcError) as caught:
        inputs.number({"hours": "nan"}, "hours", maximum=10)
    assert (caught.value.key, caught.value.params["value"]) == ("must_be_finite", "nan")


@pytest.mark.parametrize(("extra", "field", "key"), [
    ({"shared_experts": 2}, "shared_experts", "needs_field"),
    ({"expert_intermediate": 128}, "expert_intermediate", "needs_field"),
    ({"dense_layers": 2}, "dense_layers", "needs_field"),
    ({"kv_lora_rank": 64}, "kv_lora_rank", "needs_field"),
    ({"qk_rope_head_dim": 16}, "qk_rope_head_dim", "needs_field"),
    ({"local_window": 128}, "local_window", "needs_field"),
    ({"local_layers": 0, "local_window": 128}, "local_window", "needs_field"),
    ({"attention": "mla", "kv_heads": 2, "kv_lora_rank": 64, "qk_rope_head_dim": 16},
     "kv_heads", "not_with_field"),
])
def test_a_shape_field_without_what_it_applies_to_is_refused_not_ignored(
        extra: dict[str, object], field: str, key: str) -> None:
    # (hardening) these used to exit 0 with the same answer as without them
    failure = error("memory", layers=8, hidden=512, heads=8, instance="inf2.xlarge",
                    seq_len=1024, **extra)
    assert (failure["field"], failure["key"]) == (field, key)



def test_a_config_json_context_of_zero_tokens_is_refused() -> None:
    # (hardening) max_position_embeddings 0 was accepted: memory then said max_seq_len 0, fits
    assert error("memory", hf_config={"model_type": "llama", "hidden_size": 512,
                                      "num_hidden_layers": 2, "num_attention_heads": 8,
                                      "intermediate_size": 1024, "vocab_size": 1000,
                                      "max_position_embeddings": 0},
                 instance="inf2.xlarge", seq_len=8)["key"] == "hf_bad_integer"


def test_a_limit_message_names_the_real_limit_and_a_choice_is_read_like_text() -> None:
    # (hardening) max_count / max_batch / pp said "between 1 and 4611686018427387904"
    for kind, params, field, limit in (
        ("advise_train", {"model": "llama-3.2-1b", "tokens": 10**6, "seq_len": 2048,
                          "deadline_h": 10, "max_count": "1e21"}, "max_count", 1_000_000),
        ("advise", {"model": "llama-3.2-1b", "input_len": 128, "output_len": 128,
                    "request_rate": 1, "max_batch": "1e30"}, "max_batch", 1_048_576),
        ("train_memory", {"model": "llama-3.2-1b", "instance": "trn1.32xlarge",
                          "seq_len": 2048, "pp": "1e21"}, "pp", 10_000),
    ):
        failure = error(kind, **params)
        assert (failure["field"], failure["key"], failure["params"]["max"]) == (
            field, "out_of_range", limit)
    # " bf16" was refused as "bf16 is not one of [..., 'bf16', ...]"; ids are read stripped
    assert inputs.choice({"dtype": " bf16 "}, "dtype", ("bf16", "fp16")) == "bf16"



def test_an_integer_text_is_read_with_pythons_number_syntax_at_any_exponent() -> None:
    # (review) a decimal exponent beyond decimal's range raised InvalidOperation (a traceback
    # in the CLI); Decimal alone also took stray underscores and read "0e31" as out of range
    for text, key in (("1e999999999999999999999", "out_of_range"),
                      ("1e-999999999999999999999", "must_be_positive_int"),
                      ("_5_", "must_be_number"), ("1__0", "must_be_number"),
                      ("5_._0", "must_be_number"), ("1_e_3", "must_be_number"),
                      ("Infinity", "must_be_finite")):
        with pytest.raises(CalcError) as caught:
            inputs.integer({"experts": text}, "experts", minimum=0)
        assert caught.value.key == key, text
    assert inputs.integer({"experts": "0e31"}, "experts", minimum=0) == 0
    with pytest.raises(CalcError) as caught:
        inputs.number({"hours": "1e999999999999999999999"}, "hours", maximum=10)
    assert caught.value.key == "out_of_range_above"   # exclusive minimum: never "between"
    assert error("price", instance="trn1.32xlarge",
                 hours="1e999999999999999999999")["key"] == "out_of_range_above"


def test_one_line_messages_show_numbers_and_lists_plainly() -> None:
    """QA pass D finding 12: "greater than 0.0", "between 0.0 and 1000000000000.0", and
    "known regions: ['ap-southeast-4', ...]" (a Python list) in CLI messages."""
    assert str(CalcError("hours", "must_be_positive_number", {"min": 0.0})) == \
        "hours must be a number greater than 0"
    ranged = CalcError("budget_usd", "out_of_range", {"min": 0.0, "max": 1e12, "value": 1e13})
    assert str(ranged) == ("budget_usd must be between 0 and 1000000000000 "
                           "(got 10000000000000)")
    assert str(CalcError("mfu", "out_of_range", {"min": 0.0, "max": 1.0, "value": 1.5})) == \
        "mfu must be between 0 and 1 (got 1.5)"
    region = CalcError("region", "unknown_region", {"value": "mars-1", "allowed": ["a", "b"]})
    assert str(region) == "no price data for region mars-1; known regions: a, b"
