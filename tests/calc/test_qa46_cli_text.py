"""QA report G, findings 7 and 11: the CLI text never shows a non-zero result as a bare zero
("$0.0000", "0.00 µs", "0.00 GiB"), and a negative number in any form float() reads ("-1e3",
"-inf") is a value of its option, which then gets the normal range message (not argparse's
"expected one argument")."""

import re

import pytest

from calc.advise_text import _seconds
from calc.cli import _format, main

BARE_ZERO = re.compile(r"(?<![\d.])0\.0+(?![\d.]*[1-9])(?!\d)")


def out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0, argv
    return capsys.readouterr().out


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2, argv
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured
    return captured.err


def lines(text: str, *fields: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in fields:
            found[name] = value.strip()
    return found


def test_small_costs_and_times_are_not_shown_as_zero(capsys: pytest.CaptureFixture[str]) -> None:
    shown = lines(out(["train", "--model", "llama-3.2-1b", "--instance", "trn1.32xlarge",
                       "--tokens", "16", "--seq-len", "16", "--count", "1000000"], capsys),
                  "time_s", "cost_usd", "error_band")
    assert shown["time_s"] == "0.0945 ns"     # one 16-token sequence over a million instances
    assert shown["cost_usd"] == "$5.64e-07"
    assert not BARE_ZERO.search(shown["error_band"]), shown["error_band"]
    total = lines(out(["price", "--instance", "trn1.32xlarge", "--hours", "1e-300"], capsys),
                  "usd_total")["usd_total"]
    assert total == "$2.15e-299"
    cost = lines(out(["train", "--model", "llama-3.2-1b", "--instance", "p5.48xlarge",
                      "--tokens", "1000", "--seq-len", "128"], capsys), "cost_usd")["cost_usd"]
    assert cost.startswith("$0.0000") and cost != "$0.0000" and not BARE_ZERO.search(cost)


def test_small_memory_is_not_shown_as_zero_gib(capsys: pytest.CaptureFixture[str]) -> None:
    shown = lines(out(["memory", "--model", "llama-3.2-1b", "--instance", "trn1.32xlarge",
                       "--seq-len", "16"], capsys), "kv_cache_bytes", "weights_bytes")
    assert shown["kv_cache_bytes"] == "0.000488 GiB"   # 512 KiB
    assert shown["weights_bytes"] == "2.30 GiB"        # the usual 2 decimals


@pytest.mark.parametrize(("value", "text"), [
    (8.25e-12, "0.00825 ns"), (1e-9, "1.00 ns"), (2.5e-6, "2.50 µs"), (0.5, "500.00 ms"),
    (12.0, "12.00 s"), (1e-300, "1.00e-300 s"),
])
def test_durations_use_a_unit_that_shows_the_value(value: float, text: str) -> None:
    assert _format(value, "time_s") == text


def test_usd_keeps_four_decimals_and_shows_smaller_amounts_in_digits() -> None:
    assert _format(12.5, "usd_per_hour") == "$12.5000"
    assert _format(0.0042, "cost_usd") == "$0.0042"
    assert _format(0.00003, "cost_usd") == "$0.0000300"
    assert _format(0.0, "cost_usd") == "$0.0000"      # a true zero stays zero


def test_advise_targets_below_a_microsecond_are_not_zero(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _seconds(1e-9) == "1.0 ns"
    text = out(["advise", "--model", "llama-3.2-1b", "--input-len", "128", "--output-len", "128",
                "--ttft-max", "1e-9", "--family", "neuron"], capsys)
    assert "ttft_max_s 1.0 ns" in text and "0.0 µs" not in text


@pytest.mark.parametrize(("typed", "said"), [
    ("-1e3", "hours must be a number greater than 0"),
    ("-1E+3", "hours must be a number greater than 0"),
    ("-.5", "hours must be a number greater than 0"),
    ("-1_000", "hours must be a number greater than 0"),
    ("-inf", "hours must be a finite number (got -inf)"),
    ("-Infinity", "hours must be a finite number (got -Infinity)"),
    ("-nan", "hours must be a finite number (got -nan)"),
    ("-1e400", "hours must be a number greater than 0"),
])
def test_a_negative_number_in_any_form_is_a_value(
        typed: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(["price", "--instance", "trn1.32xlarge", "--hours", typed], capsys)
    assert said in err and "expected one argument" not in err


def test_a_huge_negative_whole_number_is_below_the_minimum(
        capsys: pytest.CaptureFixture[str]) -> None:
    for typed in ("-1e400", "-1e999999999999999999999", "-1e3"):
        err = refused(["memory", "--model", "llama-3.2-1b", "--instance", "trn1.32xlarge",
                       "--seq-len", "16", "--batch", typed], capsys)
        assert "batch must be a whole number of at least 1" in err, (typed, err)


def test_an_option_is_still_not_a_value(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(["price", "--instance", "trn1.32xlarge", "--hours", "-x"], capsys)
    assert "expected one argument" in err
