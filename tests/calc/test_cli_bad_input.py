"""Bad input on the command line: a config.json that json cannot hold (a huge integer, deep
nesting), an option given an empty value, an option given twice. Each exits 2 with one line on
stderr naming the field; none gives a traceback or a silently different number."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from calc.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
MEMORY = ["memory", "--model", "llama-3.1-8b", "--instance", "inf2.xlarge", "--seq-len", "2048"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "calc", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120, check=False,
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one stderr line of a refused command (exit 2, nothing on stdout, no traceback)."""
    assert done.returncode == 2, (done.args, done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """main(argv) in this process: exit status 2 and the one stderr line."""
    assert main(argv) == 2, argv
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, (argv, captured.err)
    return lines[0]


# ---- B1, B2: a config.json that parses into something json cannot hold ----------------------

def test_hf_config_with_a_huge_integer_is_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text('{"model_type": "llama", "hidden_size": ' + "9" * 5000 + "}\n")
    line = one_error_line(cli("memory", "--hf-config", str(path), "--instance", "inf2.xlarge",
                              "--seq-len", "8"))
    assert line.startswith("error: the config.json file is not valid JSON ("), line
    assert str(path) in line and "digits" in line
    assert "set_int_max_str_digits" not in line


def test_hf_config_nested_too_deeply_is_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"model_type": "llama", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    line = one_error_line(cli("memory", "--hf-config", str(path), "--instance", "inf2.xlarge",
                              "--seq-len", "8"))
    assert line.startswith("error: the config.json file is not valid JSON ("), line
    assert str(path) in line and "nested" in line


def test_hf_config_errors_keep_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"model_type": "llama",\n "hidden_size": }\n')
    line = one_error_line(cli("memory", "--hf-config", str(path), "--instance", "inf2.xlarge",
                              "--seq-len", "8"))
    assert line == f"error: the config.json file is not valid JSON ({path}: line 2 column 17)"



@pytest.mark.parametrize("name", ["padded.json", "/dev/zero"])
def test_hf_config_larger_than_a_config_is_refused_without_reading_it_all(
        tmp_path: Path, name: str) -> None:
    """--hf-config read the whole file: /dev/zero never ended, a weights file filled memory."""
    from calc.hf_config import MAX_CONFIG_CHARS

    path = Path(name) if name.startswith("/") else tmp_path / name
    if not name.startswith("/"):
        path.write_text('{"model_type": "llama"' + " " * MAX_CONFIG_CHARS + "}\n")
    line = one_error_line(cli("memory", "--hf-config", str(path), "--instance", "inf2.xlarge",
                              "--seq-len", "8"))
    assert line == (f"error: the file {path} is too large for a config.json (at most "
                    f"{MAX_CONFIG_CHARS} characters)")


# ---- B3: an option given an empty value is refused, not read as "absent" -------------------

@pytest.mark.parametrize(("argv", "field"), [
    ([*MEMORY, "--batch", "", "--json"], "batch"),
    ([*MEMORY, "--batch=", "--json"], "batch"),
    ([*MEMORY, "--batch", "  \t", "--json"], "batch"),
    ([*MEMORY, "--bat", ""], "batch"),  # an abbreviation
    ([*MEMORY, "--tp", ""], "tp"),
    ([*MEMORY, "--dtype", ""], "dtype"),
    (["price", "--instance", "inf2.xlarge", "--hours", ""], "hours"),
    (["price", "--instance", "inf2.xlarge", "--region", ""], "region"),
    (["price", "--instance", ""], "instance"),
    (["compare", "--instances", ""], "instances"),
    (["train", "--model", "llama-3.1-8b", "--instance", "trn1.32xlarge", "--tokens", "1e9",
      "--seq-len", "4096", "--count", ""], "count"),
    (["memory", "--hf-config", "", "--instance", "inf2.xlarge", "--seq-len", "8"], "hf_config"),
])
def test_an_option_given_empty_is_refused(argv: list[str], field: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(argv, capsys)
    assert line == f"error: {field}: a value is required", line


def test_an_empty_batch_is_refused_by_the_command() -> None:
    line = one_error_line(cli(*MEMORY, "--batch", "", "--json"))
    assert line == "error: batch: a value is required"


def test_every_value_option_of_every_command_refuses_an_empty_value(
        capsys: pytest.CaptureFixture[str]) -> None:
    for command, sub in subcommands().items():
        for action in sub._actions:
            if action.option_strings and action.nargs != 0:
                line = refused([command, action.option_strings[0], " "], capsys)
                assert line == f"error: {action.dest}: a value is required", (command, line)


# ---- B4: an option given twice is refused, not "the last one wins" --------------------------

@pytest.mark.parametrize(("argv", "field"), [
    ([*MEMORY, "--batch", "1", "--batch", "8"], "batch"),
    ([*MEMORY, "--batch", "1", "--batch=8"], "batch"),
    ([*MEMORY, "--batch", "1", "--bat", "8"], "batch"),  # an abbreviation of the same option
    ([*MEMORY, "--model", "llama-3.1-70b"], "model"),
    ([*MEMORY, "--instance", "inf2.48xlarge"], "instance"),
    ([*MEMORY, "--inst", "inf2.48xlarge"], "instance"),
    ([*MEMORY, "--instance=inf2.xlarge"], "instance"),  # even the same value
    (["price", "--instance", "inf2.xlarge", "--hours", "2", "--hours", "3"], "hours"),
    (["memory", "--hf-config", "a.json", "--hf-config", "b.json", "--instance", "inf2.xlarge",
      "--seq-len", "8"], "hf_config"),
    ([*MEMORY, "--gated", "--gated"], "gated"),  # flags too: one rule for every option
    ([*MEMORY, "--json", "--json"], "json"),
])
def test_an_option_given_twice_is_refused(argv: list[str], field: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(argv, capsys)
    assert line.startswith(f"error: {field}: given twice"), line


def test_a_batch_given_twice_is_refused_by_the_command() -> None:
    line = one_error_line(cli(*MEMORY, "--batch", "1", "--batch", "8"))
    assert line == "error: batch: given twice (1, 8); give it once"


def test_every_option_of_every_command_refuses_a_second_value(
        capsys: pytest.CaptureFixture[str]) -> None:
    for command, sub in subcommands().items():
        for action in sub._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            flag = action.option_strings[0]
            once = [flag] if action.nargs == 0 else [flag, "1"]
            line = refused([command, *once, *once], capsys)
            assert line.startswith(f"error: {action.dest}: given twice"), (command, line)


# ---- what is valid stays valid ---------------------------------------------------------------

def test_options_given_once_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([*MEMORY, "--batch", "8", "--json"], [*MEMORY, "--batch=8", "--json"],
                 [*MEMORY, "--bat", "8", "--json"]):
        assert main(argv) == 0, argv
        captured = capsys.readouterr()
        assert '"fits"' in captured.out and captured.err == ""
    assert main(["price", "--instance", "inf2.xlarge", "--hours", "3"]) == 0
    assert "usd_total" in capsys.readouterr().out


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_compare_says_no_speed_where_the_peak_is_unpublished_not_no_price() -> None:
    # (hardening) g5.xlarge fp32 printed "$/1M tokens: no price" next to its $1.006/h price
    done = cli("compare", "--instances", "g5.xlarge,p5.48xlarge", "--model", "llama-3.2-1b",
               "--dtype", "fp32")
    assert done.returncode == 0, done.stderr
    assert "no price" not in done.stdout
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(
        "no speed: the accelerator's peak FLOPS for this dtype is not published" in line
        for line in lines), lines
    # the price quote's own missing figure ($/BF16-PFLOP-hour on a T4) is not the speed's
    done = cli("compare", "--instances", "g4dn.xlarge,p3dn.24xlarge", "--model", "llama-3.2-1b")
    assert done.returncode == 0 and "no speed" not in done.stdout, done.stdout
    assert done.stdout.count("tokens/s") == 2, done.stdout
