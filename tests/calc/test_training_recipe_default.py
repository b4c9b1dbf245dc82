"""One default optimizer recipe everywhere (review, Stop 46): train-memory's default was "the
first in name order" (8-bit Adam, 10 B/param) and train's fit gate used it too, while the memory
page's training mode used DeepSpeed's 20 B/param: the CLI said "fits" for a run with the usual
mixed-precision AdamW that the page said did not fit."""

import subprocess
import sys
from pathlib import Path

from calc_helpers import run

from calc import inputs
from calc.display import calculators
from calc.training_memory import DEFAULT_RECIPE, default_recipe, recipe

ROOT = Path(__file__).resolve().parents[2]
# 70B on two trn1.32xlarge at 8,192 tokens: fits with 8-bit Adam only (hand check below)
SETUP = {"model": "llama-3.1-70b", "instance": "trn1.32xlarge", "count": 2, "seq_len": 8192}


def test_the_default_is_the_heaviest_recipe_in_data() -> None:
    assert default_recipe() == DEFAULT_RECIPE == "deepspeed"
    assert recipe(DEFAULT_RECIPE).bytes_per_param == 20   # 2 + 6 + 4 + 8
    assert recipe("adam_8bit").bytes_per_param == 10      # 2 + 2 + 4 + 2


def test_every_entry_point_has_the_same_default() -> None:
    base = {"model": "llama-3.1-8b", "seq_len": 4096}
    for kind, params in (("train", {"instance": "trn1.32xlarge", "tokens": 10**9}),
                         ("train_memory", {"instance": "trn1.32xlarge"}),
                         ("advise_train", {"tokens": 10**9, "deadline_h": 1})):
        parsed = inputs.parse(kind, {**base, **params})
        assert parsed.get_text("recipe") == DEFAULT_RECIPE, kind
    memory_page = calculators.field(calculators.calculator("memory"), "recipe")
    assert memory_page.default == DEFAULT_RECIPE


def test_train_gate_uses_the_recipe() -> None:
    default = run("train", **SETUP, tokens=10**10)
    lean = run("train", **SETUP, tokens=10**10, recipe="adam_8bit")
    assert default["fits"] is False and default["time_s"] is None
    assert lean["fits"] is True and lean["training_layout"]["recipe"] == "adam_8bit"
    # train_memory agrees at the layout train found, and not at the default recipe
    layout = {k: lean["training_layout"][k] for k in ("tp", "pp", "zero", "recompute", "sp")}
    assert run("train_memory", **SETUP, **layout, recipe="adam_8bit")["fits"] is True
    assert run("train_memory", **SETUP, **layout)["fits"] is False


def test_advise_train_memory_count_follows_the_recipe() -> None:
    base = {"model": "llama-3.1-70b", "tokens": 10**10, "seq_len": 8192, "deadline_h": 10**6,
            "family": "neuron"}
    heavy = {o["instance"]: o for o in run("advise_train", **base)["options"]}
    lean = {o["instance"]: o for o in run("advise_train", **base, recipe="adam_8bit")["options"]}
    assert heavy["trn1.32xlarge"]["memory_count"] > lean["trn1.32xlarge"]["memory_count"]
    assert heavy["trn1.32xlarge"]["layout"]["recipe"] == DEFAULT_RECIPE


def test_cli_help_names_the_default() -> None:
    shown = subprocess.run([sys.executable, "-m", "calc", "train-memory", "--help"], cwd=ROOT,
                           capture_output=True, text=True, check=True, timeout=120).stdout
    assert "default: deepspeed" in " ".join(shown.split())
