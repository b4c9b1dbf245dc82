"""The trust (issue 9) and models (issue 10) params on the one-parse design (issue 16): declared
once in calc.inputs.PARAMS, checked once by inputs.parse, handlers compute on the Request."""

import json
from pathlib import Path
from typing import Any

import pytest

from calc import api, dtype_gate, inputs
from calc.display import calculators
from calc.errors import CalcError

CONFIGS = Path(__file__).parent / "hf_configs"


def respond(kind: str, **params: Any) -> dict[str, Any]:
    return api.run({"schema_version": 1, "kind": kind, "params": params})


def test_every_kind_param_is_declared_once_in_the_schema() -> None:
    for kind, accepted in inputs.KIND_PARAMS.items():
        for name in accepted:
            assert name in inputs.PARAMS, (kind, name)
    for name in ("objective", "price_fallback", "expert_dtype", "hf_config",
                 *inputs.CUSTOM_SHAPE_FIELDS):
        assert name in inputs.PARAMS
    for name in ("hf_config", *inputs.CUSTOM_SHAPE_FIELDS):
        assert inputs.PARAMS[name].model, name
    assert inputs.PARAMS["hf_config"].type == "json"


def test_dtype_is_optional_in_the_schema_and_the_handler_picks_it() -> None:
    for kind in ("memory", "perf", "train", "compare"):
        assert inputs.KIND_PARAMS[kind]["dtype"] is inputs.OPTIONAL
    t4 = respond("memory", model="llama-3.1-8b", instance="g4dn.xlarge", seq_len=1024)
    assert t4["ok"] and t4["result"]["dtype"] == "fp16"  # chip default: T4 has no bf16
    inf2 = respond("memory", model="llama-3.1-8b", instance="inf2.xlarge", seq_len=1024)
    assert inf2["ok"] and inf2["result"]["dtype"] == "bf16"


def test_checkpoint_precision_is_the_default_where_the_chip_has_it() -> None:
    config = json.loads((CONFIGS / "deepseek-v3.json").read_text(encoding="utf-8"))
    spec = inputs.parse("memory", {"hf_config": config, "instance": "p5.48xlarge",
                                   "seq_len": 4096})
    assert spec.model is not None
    h100 = respond("memory", hf_config=config, instance="p5.48xlarge", seq_len=4096)
    assert h100["ok"], h100
    assert h100["result"]["dtype"] == spec.model.default_dtype != "bf16"
    assert h100["result"]["checkpoint_fallback"] is None
    given = respond("memory", hf_config=config, instance="p5.48xlarge", seq_len=4096,
                    dtype="bf16")
    assert given["ok"] and given["result"]["weights_bytes"] > h100["result"]["weights_bytes"]
    # Trainium2 keeps no block-scaled FP8 weights (the DeepSeek-V3 port dequantizes them to
    # BF16 at load; data/chips.toml weight_formats): the chip's default, and said so
    trn2 = respond("memory", hf_config=config, instance="trn2.48xlarge", seq_len=4096)
    assert trn2["ok"] and trn2["result"]["dtype"] == "bf16"
    assert trn2["result"]["checkpoint_fallback"] == {
        "part": "weights", "checkpoint": spec.model.default_dtype, "used": "bf16",
        "chip": "Trainium2"}


def test_new_params_are_checked_in_the_one_parse() -> None:
    with pytest.raises(CalcError) as error:
        inputs.parse("perf", {"model": "llama-3.1-8b", "instance": "inf2.xlarge",
                              "input_len": 8, "output_len": 8, "objective": "speed"})
    assert (error.value.field, error.value.key) == ("objective", "unknown_choice")
    with pytest.raises(CalcError) as error:
        inputs.parse("price", {"instance": "inf2.xlarge", "price_fallback": "maybe"})
    assert error.value.field == "price_fallback"
    with pytest.raises(CalcError) as error:
        inputs.parse("memory", {"model": "llama-3.1-8b", "instance": "inf2.xlarge",
                                "seq_len": 8, "expert_dtype": "fp7"})
    assert (error.value.field, error.value.key) == ("expert_dtype", "unknown_choice")
    with pytest.raises(CalcError) as error:  # hf_config and a preset: one model only
        inputs.parse("memory", {"model": "llama-3.1-8b", "hf_config": {}, "instance":
                                "inf2.xlarge", "seq_len": 8})
    assert error.value.key == "not_with_field"
    req = inputs.parse("perf", {"model": "llama-3.1-8b", "instance": "inf2.xlarge",
                                "input_len": "8", "output_len": 8})
    assert req.values["objective"] == "latency" and req.get_int("input_len") == 8
    assert req.echo["input_len"] == "8"  # as sent: only for echoing into suggestions


def test_expert_dtype_is_checked_against_the_hardware() -> None:
    req = inputs.parse("memory", {"model": "mixtral-8x7b", "instance": "g4dn.xlarge",
                                  "seq_len": 8, "expert_dtype": "bf16"})
    with pytest.raises(CalcError) as error:
        dtype_gate.expert_dtype_for(req, req.instance())
    assert (error.value.field, error.value.key) == ("expert_dtype", "dtype_not_supported")
    # (hardening) a dense model has no experts: the dtype would have no effect, so it is refused
    req = inputs.parse("memory", {"model": "llama-3.1-8b", "instance": "inf2.xlarge",
                                  "seq_len": 8, "expert_dtype": "mxfp4"})
    with pytest.raises(CalcError) as error:
        dtype_gate.expert_dtype_for(req, req.instance())
    assert (error.value.field, error.value.key) == ("expert_dtype", "needs_field")


def test_suggestions_echo_the_request_with_one_change() -> None:
    response = respond("memory", model="llama-3.1-70b", instance="inf2.xlarge", seq_len="4096",
                       batch=1)
    assert response["ok"] and response["result"]["fits"] is False
    suggestions = response["result"]["suggestions"]
    assert suggestions
    for suggestion in suggestions:
        assert suggestion["params"]["model"] == "llama-3.1-70b"
        check = respond("memory", **suggestion["params"])
        assert check["ok"] and check["result"]["fits"], suggestion


def test_calculator_pages_still_derive_from_the_schema() -> None:
    calculators.check()
    for calc_spec in calculators.CALCULATORS.values():
        for field in calc_spec.fields:
            field.control()
