"""QA report G, findings 10 and 12 (second bullet): a quantization method calc knows with a
setting it has no format for names that setting, not the (supported) method; mxfp4 quantizes
routed experts only, so a dense model from such a config gets no expert dtype."""

import json
from pathlib import Path
from typing import Any

import pytest
from calc_helpers import error, run

from calc import hf_config
from calc.errors import CalcError

CONFIGS = Path(__file__).resolve().parent / "hf_configs"


def llama(quantization: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = json.loads((CONFIGS / "llama-3.2-1b.json").read_text())
    return {**config, "quantization_config": quantization}


def ct(weights: dict[str, Any], groups: int = 1) -> dict[str, Any]:
    return {"quant_method": "compressed-tensors",
            "config_groups": {f"group_{i}": {"targets": ["Linear"], "weights": weights}
                              for i in range(groups)}}


@pytest.mark.parametrize(("quantization", "named", "allowed"), [
    ({"quant_method": "fp8", "weight_block_size": [64, 64]},
     "fp8 weight_block_size [64, 64]", "[128, 128]"),
    ({"quant_method": "awq", "bits": 4, "group_size": 256}, "awq group_size 256",
     "32, 64, 128, -1"),
    ({"quant_method": "gptq", "bits": 3, "group_size": 128}, "gptq bits 3", "4, 8"),
    (ct({"num_bits": 4, "type": "int", "group_size": 256}),
     "compressed-tensors weights type int, num_bits 4, group_size 256", "int4_g128"),
    (ct({"num_bits": 8, "type": "float"}, groups=2), "compressed-tensors: 2 config_groups", "1"),
])
def test_an_unsupported_setting_is_named_not_the_method(
        quantization: dict[str, Any], named: str, allowed: str) -> None:
    with pytest.raises(CalcError) as raised:
        hf_config.parse(llama(quantization))
    message = str(raised.value)
    assert raised.value.key == "hf_unsupported_quantization_setting", message
    assert f"quantization_config {named} is not supported" in message
    assert allowed in message.split("supported: ")[-1]
    assert "method" not in message and "mxfp4" not in message   # no list of methods


def test_a_missing_bit_width_is_a_missing_key_and_an_unknown_method_names_it() -> None:
    with pytest.raises(CalcError) as raised:
        hf_config.parse(llama({"quant_method": "awq", "group_size": 128}))
    assert (raised.value.key, raised.value.params["value"]) == (
        "hf_missing_key", "quantization_config.bits")
    with pytest.raises(CalcError) as raised:
        hf_config.parse(llama({"quant_method": "bitsandbytes"}))
    assert raised.value.key == "hf_unsupported_quantization"
    assert "method bitsandbytes is not supported" in str(raised.value)


def test_the_cli_names_the_block_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from calc.cli import main

    path = tmp_path / "config.json"
    path.write_text(json.dumps(llama({"quant_method": "fp8", "weight_block_size": [64, 64]})))
    assert main(["memory", "--hf-config", str(path), "--instance", "trn2.48xlarge",
                 "--seq-len", "1024"]) == 2
    err = capsys.readouterr().err
    assert "weight_block_size [64, 64] is not supported" in err and "method fp8" not in err


def test_a_dense_mxfp4_config_has_no_expert_dtype() -> None:
    spec = hf_config.parse(llama({"quant_method": "mxfp4"}))
    assert spec.experts == 0 and spec.expert_dtype is None
    result = run("memory", hf_config=llama({"quant_method": "mxfp4"}), instance="trn2.48xlarge",
                 seq_len=1024)
    assert result["expert_dtype"] == result["dtype"] == "bf16"
    plain = run("memory", hf_config=llama({}) | {"quantization_config": None},
                instance="trn2.48xlarge", seq_len=1024)
    assert result["weights_bytes"] == plain["weights_bytes"]
    # the preset route refuses an expert dtype without experts; the config no longer implies one
    assert error("memory", model="llama-3.2-1b", instance="trn2.48xlarge", seq_len=1024,
                 expert_dtype="mxfp4")["key"] == "needs_field"


def test_an_moe_mxfp4_config_keeps_its_expert_dtype() -> None:
    config = {"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 4,
              "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
              "vocab_size": 1000, "num_local_experts": 8, "num_experts_per_tok": 2,
              "quantization_config": {"quant_method": "mxfp4"}}
    assert hf_config.parse(config).expert_dtype == "mxfp4"
