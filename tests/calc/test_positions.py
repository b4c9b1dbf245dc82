"""A sequence longer than the model's maximum positions is answered and said: engine field,
CLI line, page note in every language (a fit next to "max_seq_len 4,096" said nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from calc import data
from calc.api import run
from calc.display import LANGS, present, trust
from calc.display.numbers import number
from calc.positions import beyond_max_positions

ROOT = Path(__file__).resolve().parents[2]
LLAMA2 = data.model("llama-2-7b")   # max_position_embeddings 4,096


def test_the_limit_only_when_exceeded() -> None:
    assert LLAMA2.max_position_embeddings == 4096
    assert beyond_max_positions(LLAMA2, 4096) is None
    assert beyond_max_positions(LLAMA2, 4097) == 4096
    unstated = data.model("bert-base")
    if unstated.max_position_embeddings is None:
        assert beyond_max_positions(unstated, 10**6) is None


@pytest.mark.parametrize(("kind", "params", "expected"), [
    ("memory", {"seq_len": 8192}, 4096),
    ("memory", {"seq_len": 4096}, None),
    ("perf", {"input_len": 4000, "output_len": 97}, 4096),   # prompt + output
    ("perf", {"input_len": 4000, "output_len": 96}, None),
    ("train", {"seq_len": 8192, "count": 1, "tokens": 10**9}, 4096),
    ("train_memory", {"seq_len": 8192, "count": 1}, 4096),
])
def test_every_calculator_carries_it(kind: str, params: dict[str, int],
                                     expected: int | None) -> None:
    instance = "inf2.xlarge" if kind in ("memory", "perf") else "trn1.32xlarge"
    response = run({"kind": kind, "params": {"model": "llama-2-7b", "instance": instance,
                                             **params}})
    assert response["ok"], response
    assert response["result"]["beyond_max_positions"] == expected


def test_cli_says_it_only_when_it_applies() -> None:
    def memory(seq_len: str) -> str:
        return subprocess.run([sys.executable, "-m", "calc", "memory", "--model", "llama-2-7b",
                               "--instance", "inf2.xlarge", "--seq-len", seq_len], cwd=ROOT,
                              capture_output=True, text=True, check=True, timeout=120).stdout
    long = memory("8192")
    assert "longer than the model's maximum positions (4,096 tokens, counting" in long
    assert long.count("4,096 tokens") == 1 and "beyond_max_positions" not in long  # said once
    assert "maximum positions" not in memory("1024")


@pytest.mark.parametrize("lang", LANGS)
def test_page_note_in_every_language(lang: str) -> None:
    long = present({"calculator": "memory",
                    "values": {"model": "llama-2-7b", "seq_len": "8192"}}, lang)
    notes = [n["text"] for n in long["notes"] if n["key"] == "beyond_positions"]
    assert notes == [trust.text(lang, "beyond_positions", max=number(4096, lang, 6))], notes
    assert "{" not in notes[0]
    short = present({"calculator": "memory",
                     "values": {"model": "llama-2-7b", "seq_len": "2048"}}, lang)
    assert not [n for n in short["notes"] if n["key"] == "beyond_positions"]


@pytest.mark.parametrize(("kind", "params"), [
    ("advise", {"input_len": 8000, "output_len": 100}),
    ("advise_train", {"seq_len": 8192, "tokens": 10**9, "deadline_h": 100}),
    ("compare", {"input_len": 8000, "output_len": 100, "instances": ["inf2.48xlarge"]}),
    ("perf", {"instance": "inf2.48xlarge", "input_len": 128, "output_len": 128,
              "compiled_seq_len": 8192}),
])
def test_the_advisors_compare_and_compiled_graphs_carry_it(kind: str,
                                                          params: dict[str, object]) -> None:
    """QA pass D finding 8 / pass C F7: the advisor answered 8,000-token prompts for a 4,096-
    position model with no note; a graph compiled longer than the model's positions said
    nothing."""
    response = run({"kind": kind, "params": {"model": "llama-2-7b", **params}})
    assert response["ok"], response
    assert response["result"]["beyond_max_positions"] == 4096


@pytest.mark.parametrize("lang", LANGS)
def test_the_advisor_page_says_it(lang: str) -> None:
    shown = present({"calculator": "advisor",
                     "values": {"model": "llama-2-7b", "input_len": "8000"}}, lang)
    notes = [n["text"] for n in shown["notes"] if n["key"] == "beyond_positions"]
    assert notes == [trust.text(lang, "beyond_positions", max=number(4096, lang, 6))]


def test_cli_advise_says_it_in_words() -> None:
    done = subprocess.run([sys.executable, "-m", "calc", "advise", "--model", "llama-2-7b",
                           "--input-len", "8000", "--output-len", "100"], cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=300).stdout
    assert "note: the sequence is longer than the model's maximum positions (4,096 tokens, " \
        "counting any RoPE scaling its config declares)" in done


@pytest.mark.parametrize("lang", LANGS)
def test_training_memory_where_no_training_framework_runs_says_so(lang: str) -> None:
    """QA pass D finding 14: train-memory answered for Inferentia with no word that nothing in
    the guide trains there (train refuses it)."""
    result = run({"kind": "train_memory", "params": {"model": "llama-3.1-8b",
                                                     "instance": "inf2.48xlarge",
                                                     "seq_len": 2048}})["result"]
    assert result["no_training_framework"] == "Inferentia2"
    trn1 = run({"kind": "train_memory", "params": {"model": "llama-3.1-8b",
                                                   "instance": "trn1.32xlarge",
                                                   "seq_len": 2048}})["result"]
    assert trn1["no_training_framework"] is None
    shown = present({"calculator": "memory", "values": {"mode": "training"}}, lang)
    notes = [n["text"] for n in shown["notes"] if n["key"] == "no_training_framework"]
    assert notes == [trust.text(lang, "no_training_framework", chip="Inferentia2")]
