"""QA (Stop 46): train accepted 1 training token at 2,048 tokens per sequence on a million
instances (dp 32,000,000); the CLI's help promised a compiled-length default it did not use;
and a checkpoint format the chip does not keep is said on the CLI too."""

import subprocess
import sys
from pathlib import Path

from calc_helpers import error, run

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "calc", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_fewer_tokens_than_one_sequence_are_refused() -> None:
    failure = error("train", model="llama-3.2-1b", instance="trn1.32xlarge", tokens=1,
                    seq_len=2048, count=1_000_000)
    assert (failure["field"], failure["key"]) == ("tokens", "tokens_below_sequence")
    assert "2,048" in failure["message"] or "2048" in failure["message"]
    assert run("train", model="llama-3.2-1b", instance="trn1.32xlarge", tokens=2048,
               seq_len=2048)["fits"] is True
    assert error("advise_train", model="llama-3.2-1b", tokens=10, seq_len=2048,
                 deadline_h=1)["key"] == "tokens_below_sequence"
    shown = cli("train", "--model", "llama-3.2-1b", "--instance", "trn1.32xlarge",
                "--tokens", "1", "--seq-len", "2048")
    assert shown.returncode == 2 and len(shown.stderr.strip().splitlines()) == 1


def test_compiled_seq_len_help_says_what_no_value_does() -> None:
    shown = " ".join(cli("perf", "--help").stdout.split())
    assert "--input-len + --output-len" not in shown
    assert "power-of-two bucket" in shown


def test_cli_says_the_checkpoint_fallback() -> None:
    shown = cli("memory", "--model", "gpt-oss-120b", "--instance", "inf2.48xlarge",
                "--seq-len", "2048").stdout
    assert ("note: the checkpoint stores its routed experts in mxfp4, which no serving "
            "framework keeps on Inferentia2") in shown
    gpu = cli("memory", "--model", "gpt-oss-120b", "--instance", "p5.48xlarge", "--seq-len",
              "2048").stdout
    assert "no serving framework keeps" not in gpu   # the GPU keeps MXFP4: nothing to say


def test_schema_version_as_a_string_shows_its_quotes() -> None:
    from calc import api

    answer = api.run({"schema_version": "1", "kind": "price",
                      "params": {"instance": "inf2.xlarge"}})
    assert answer["ok"] is False
    assert 'schema_version "1"' in answer["error"]["message"]


def test_a_custom_moe_counts_the_same_with_or_without_a_default_field() -> None:
    """QA: the router (h · experts per layer) was counted only when a custom-shape field was
    given, even at its default value."""
    shape = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "intermediate": 14336,
             "vocab": 128256, "gated": True, "experts": 8, "active_experts": 2,
             "instance": "trn2.48xlarge", "seq_len": 1024}
    plain = run("memory", **shape)["active_params"]
    for extra in ({"attention": "gqa"}, {"shared_experts": 0}):
        assert run("memory", **shape, **extra)["active_params"] == plain, extra
    # by hand: attention + 2 active gated experts + router + norms, per layer; embeddings,
    # untied head, final norm
    per_layer = 4096 * 128 * (2 * 32 + 2 * 8) + 3 * 4096 * 14336 * 2 + 4096 * 8 + 2 * 4096
    assert plain == 32 * per_layer + 2 * 128256 * 4096 + 4096
