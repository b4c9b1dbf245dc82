"""Issue 9 through the CLI: fit gate, data types per hardware, answers where one exists,
TP for an objective, and every option explained (unit and default)."""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from calc.cli import OPTIONS, build_parser

ROOT = Path(__file__).resolve().parents[2]
NUMERIC_OPTIONS = {"params", "active-params", "layers", "hidden", "heads", "kv-heads",
                   "head-dim", "intermediate", "vocab", "experts", "active-experts", "tp",
                   "batch", "seq-len", "input-len", "output-len", "hours", "count", "tokens",
                   "mfu", "zero", "pp", "dp"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "calc", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120, check=False,
    )


def subparsers(only: str | None = None) -> dict[str, argparse.ArgumentParser]:
    parser = build_parser(only)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_of_every_subcommand_has_help_with_default_and_unit() -> None:
    for command, sub in subparsers().items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            text = action.help or ""
            assert text.strip(), (command, action.dest)
            assert "(default: " in text or "(required)" in text, (command, action.dest, text)
            name = action.option_strings[0][2:] if action.option_strings else action.dest
            if name in NUMERIC_OPTIONS:
                assert re.search(r"\[[^\]]+\]", text), (command, name, "no [unit]")


def test_the_parser_of_one_command_is_that_command_of_the_full_parser() -> None:
    """request_from_args builds only the named command's parser (a cold-start saving): the same
    options, help and usage as in the parser of every command, and nothing else."""
    full = subparsers()
    assert len(full) >= 10
    for command, sub in full.items():
        alone = subparsers(command)
        assert list(alone) == [command]
        assert alone[command].format_help() == sub.format_help(), command
        assert alone[command].format_usage() == sub.format_usage(), command
    with pytest.raises(ValueError):
        build_parser("nonsense")
    argv = ["memory", "--model", "llama-3.1-8b", "--instance", "inf2.xlarge", "--seq-len", "8"]
    assert vars(build_parser().parse_args(argv)) == vars(build_parser("memory").parse_args(argv))


def test_option_registry_covers_every_option() -> None:
    for sub in subparsers().values():
        for action in sub._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag not in ("--help", "--json"):
                    assert flag[2:] in OPTIONS, flag


def test_help_is_printed_with_units_and_defaults() -> None:
    done = cli("perf", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "--objective" in text and "(default: latency for perf, cost for compare)" in text
    assert "[tokens]" in text and "(default: 1)" in text


def test_setup_that_does_not_fit_has_no_speed_or_cost() -> None:
    done = cli("perf", "--model", "llama-3.1-8b", "--instance", "g4dn.xlarge", "--batch", "32",
               "--input-len", "1024", "--output-len", "1024", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["fits"] is False
    for field in ("ttft_s", "tpot_s", "output_tokens_per_s", "usd_per_million_output_tokens"):
        assert result[field] is None
    assert result["fit_reason"]["key"] == "does_not_fit_any_tp"
    assert result["suggestions"] and all("params" in s for s in result["suggestions"])
    text = cli("perf", "--model", "llama-3.1-70b", "--instance", "inf2.xlarge", "--input-len",
               "128", "--output-len", "128")
    assert text.returncode == 0
    assert text.stdout.startswith("does not fit")
    assert "suggestion" in text.stdout
    compare = cli("compare", "--model", "llama-3.1-70b", "--instances",
                  "inf2.xlarge,inf2.48xlarge", "--json")
    rows = {row["instance"]: row for row in json.loads(compare.stdout)["rows"]}
    assert rows["inf2.xlarge"]["usd_per_million_output_tokens"] is None
    assert rows["inf2.48xlarge"]["usd_per_million_output_tokens"] is not None
    train = cli("train", "--model", "llama-3.1-70b", "--instance", "trn1.32xlarge", "--tokens",
                "1000000000", "--seq-len", "4096", "--json")
    assert json.loads(train.stdout)["cost_usd"] is None


def test_unsupported_dtype_exits_2_naming_the_supported_ones() -> None:
    done = cli("perf", "--model", "llama-3.1-8b", "--instance", "g4dn.xlarge", "--dtype",
               "bf16", "--input-len", "8", "--output-len", "8")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "bf16" in lines[0] and "fp16" in lines[0]
    listing = cli("list", "instances", "--json")
    items = {item["id"]: item for item in json.loads(listing.stdout)["items"]}
    assert "bf16" not in items["g4dn.xlarge"]["dtypes_supported"]
    assert items["g4dn.xlarge"]["default_dtype"] == "fp16"
    assert "fp8" in items["trn2.48xlarge"]["dtypes_supported"]


def test_answers_where_an_honest_one_exists() -> None:
    a10g = json.loads(cli("perf", "--model", "llama-3.1-8b", "--instance", "g5.xlarge",
                          "--input-len", "128", "--output-len", "128", "--json").stdout)
    assert a10g["tpot_s"] > 0 and a10g["peak_is_proxy"] is True
    fallback = cli("price", "--instance", "p5e.48xlarge")
    assert fallback.returncode == 0
    assert "capacity-block" in fallback.stdout and "n/a" not in fallback.stdout
    unpriced = cli("compare", "--model", "llama-3.1-8b", "--instances",
                   "trn2.48xlarge,p5e.48xlarge")
    assert unpriced.returncode == 0
    assert "n/a" not in unpriced.stdout and "price not published" in unpriced.stdout


def test_objective_picks_the_tp_and_says_why() -> None:
    args = ("perf", "--model", "llama-3.1-70b", "--instance", "trn2.48xlarge", "--input-len",
            "2048", "--output-len", "256", "--json")
    latency = json.loads(cli(*args, "--objective", "latency").stdout)
    cost = json.loads(cli(*args, "--objective", "cost").stdout)
    assert latency["tp_degree"] > cost["tp_degree"]
    assert latency["tp_other_objective"]["tp"] == cost["tp_degree"]
    assert cost["tp_other_objective"]["tp"] == latency["tp_degree"]
    bad = cli(*args, "--objective", "speed")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_dtypes_command_lists_what_the_hardware_has() -> None:
    done = cli("dtypes", "--instance", "p3dn.24xlarge", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # the checkpoint storage formats the calculators accept are listed too (QA, Stop 46)
    assert result["dtypes_supported"] == ["fp32", "fp16", "int8", "int4", "mxfp4", "int4_g32",
                                          "int4_g64", "int4_g128"]
    assert result["default_dtype"] == "fp16"


def test_compare_rows_without_an_estimate_say_why_in_words() -> None:
    # a row the serving model refuses printed its message key ("framework_unsupported")
    done = cli("compare", "--model", "llama-3.1-8b", "--instances", "p5.48xlarge,inf1.xlarge",
               "--framework", "vllm-neuron", "--input-len", "128", "--output-len", "128")
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    assert "vllm-neuron does not run on this hardware" in rows["p5.48xlarge"]
    assert "no LLM serving framework in this guide runs on Inferentia" in rows["inf1.xlarge"]
    assert "_" not in rows["p5.48xlarge"].split("no estimate:")[1].split("choose")[0]


def test_compare_refuses_an_encoder_once() -> None:
    done = cli("compare", "--model", "bert-base", "--instances", "inf2.xlarge,g5.xlarge")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("error: bert-base is an encoder model: it has no "
                                   "token-by-token decode")


def test_help_only_names_options_the_command_has() -> None:
    """QA pass D finding 11: memory --tp's default was "chosen for --objective", an option
    memory does not have (train-memory's real default is 1)."""
    for command, parser in subparsers().items():
        own = {opt for action in parser._actions for opt in action.option_strings}
        for action in parser._actions:
            said = re.sub(r"`[^`]*`", "", action.help or "")   # `another command --x`: not ours
            for named in re.findall(r"--[a-z][a-z-]+", said):
                assert named in own, (command, action.option_strings, named)
    tp_help = subparsers("train-memory")["train-memory"]._option_string_actions["--tp"].help
    assert tp_help is not None and "(default: 1)" in tp_help


def test_summary_numbers_have_no_exponent_in_the_readable_range() -> None:
    """QA pass D finding 12: "1.142e+04 tokens/s" next to "2,036 tokens/s"; a 1 µs target
    read "0.0 ms"."""
    from calc.advise_text import _seconds
    from calc.cli import _format

    assert _format(11420.0, "output_tokens_per_s") == "11,420"
    assert _format(401.63, "output_tokens_per_s") == "401.6"
    assert _format(0.012345, "mfu") == "0.01235"
    assert _format(2.5e-6, "ttft_s") == "2.50 µs" and _seconds(1e-6) == "1.0 µs"
