"""QA (stop 47): advise's text named no dtype and cut its lists at 15 without saying so."""

import pytest

from calc.advise_text import summary
from calc.cli import main


def out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0, argv
    return capsys.readouterr().out


def test_advise_text_names_each_options_dtype(capsys: pytest.CaptureFixture[str]) -> None:
    text = out(["advise", "--model", "gpt-oss-20b", "--input-len", "1024", "--output-len",
                "256", "--request-rate", "2"], capsys)
    rows = [line for line in text.splitlines() if " tp=" in line and "TTFT" in line]
    assert rows
    assert all(line.split()[1] in ("bf16", "fp16", "fp8", "fp32", "int8") for line in rows), rows


def option(n: int) -> dict[str, object]:
    return {"instance": f"i{n}", "dtype": "bf16", "tp_degree": 1, "batch": 1,
            "instance_count": 1, "ttft_s": 0.1, "tpot_s": 0.01, "output_tokens_per_s": 10.0,
            "usd_per_million_output_tokens": 1.0, "fleet_usd_per_hour": 1.0}


@pytest.mark.parametrize(("options", "rejected", "said"), [
    (20, 0, ["... and 5 more options"]),
    (15, 17, ["... and 2 more rejected setups"]),
    (15, 15, []),
])
def test_a_cut_list_says_how_many_more(options: int, rejected: int, said: list[str]) -> None:
    result = {"ranked_by": "fleet_usd_per_hour", "options": [option(n) for n in range(options)],
              "rejected": [{"instance": f"r{n}", "reason": {"key": "does_not_fit", "params": {}}}
                           for n in range(rejected)]}
    text = summary("advise", result, limit=15)
    for phrase in said:
        assert phrase in text
    assert ("more" in text) is bool(said)


def fields(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition("  ")
        found[name.strip()] = value.strip()
    return found


def test_memory_text_names_the_total_and_the_kv_dtype(capsys: pytest.CaptureFixture[str]) -> None:
    moe = fields(out(["memory", "--model", "mixtral-8x7b", "--instance", "trn1.32xlarge",
                      "--seq-len", "4096"], capsys))
    assert moe["params"] == "46,702,792,704" and moe["kv_dtype"] == "bf16"
    assert "expert_dtype" in moe
    dense = fields(out(["memory", "--model", "llama-3.1-8b", "--instance", "trn1.32xlarge",
                        "--seq-len", "4096"], capsys))
    assert "expert_dtype" not in dense   # a dense model has no routed experts


def test_train_text_shows_its_layout_and_whose_peak(capsys: pytest.CaptureFixture[str]) -> None:
    shown = fields(out(["train", "--model", "llama-3.1-8b", "--instance", "trn1.32xlarge",
                        "--count", "4", "--tokens", "1e10", "--seq-len", "4096"], capsys))
    assert shown["training_layout"].startswith("TP 1 x PP 8 x DP 16, ZeRO-1")
    assert "peak_flops_per_s (one instance)" in shown


def test_an_error_that_does_not_name_its_option_is_prefixed_with_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--model", "gpt-oss-20b", "--instance", "trn2.48xlarge",
                 "--expert-dtype", "mxfp4", "--seq-len", "1000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --expert-dtype: mxfp4 is not supported") and err.count("\n") == 1
    assert main(["memory", "--model", "llama-3.1-8b", "--instance", "trn2.48xlarge",
                 "--seq-len", "1000", "--batch", "0"]) == 2
    assert capsys.readouterr().err.startswith("error: batch must be")   # names it already


def test_a_field_inside_another_word_does_not_count_as_named() -> None:
    from calc.cli import _naming_option

    assert _naming_option("tp", "must be an output of x") == "--tp: must be an output of x"
    assert _naming_option("dtype", "kv_dtype fp3 is unknown") == "--dtype: kv_dtype fp3 is unknown"
    assert _naming_option("tp", "tp must be 1") == "tp must be 1"
