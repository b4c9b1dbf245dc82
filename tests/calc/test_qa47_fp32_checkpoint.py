"""QA (stop 47): google/gemma-2-9b's config says float32, and every calculator sized and timed it
in fp32 without a word (it did "not fit" on inf2.8xlarge, where it fits in bf16). Serving
frameworks load a float32 checkpoint in 16 bits (vLLM dtype "auto"); the results now do so and
say it, and an fp32 asked for is kept."""

from typing import Any

import pytest
from calc_helpers import run

from calc.display import trust

GEMMA2_9B: dict[str, Any] = {
    "model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336,
    "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8,
    "head_dim": 256, "vocab_size": 256000, "torch_dtype": "float32", "sliding_window": 4096,
    "max_position_embeddings": 8192,
}
DOWNCAST = {"part": "downcast", "checkpoint": "fp32", "used": "bf16", "chip": "Inferentia2"}


def test_memory_sizes_a_float32_checkpoint_in_bf16_and_says_so() -> None:
    result = run("memory", hf_config=GEMMA2_9B, instance="inf2.8xlarge", seq_len=4096)
    assert result["dtype"] == "bf16" and result["fits"] is True
    assert result["checkpoint_fallback"] == DOWNCAST
    stored = run("memory", hf_config=GEMMA2_9B, instance="inf2.8xlarge", seq_len=4096,
                 dtype="fp32")
    assert stored["dtype"] == "fp32" and stored["checkpoint_fallback"] is None
    assert stored["weights_bytes"] == 2 * result["weights_bytes"]


def test_perf_compare_and_advise_serve_it_in_16_bits() -> None:
    perf = run("perf", hf_config=GEMMA2_9B, instance="inf2.8xlarge", input_len=512,
               output_len=128)
    assert perf["dtype"] == "bf16" and perf["checkpoint_fallback"] == DOWNCAST
    row = run("compare", hf_config=GEMMA2_9B, instances="inf2.8xlarge,g4dn.xlarge",
              input_len=512, output_len=128)["rows"]
    by_instance = {r["instance"]: r for r in row}
    # a T4 has no bf16, and vLLM will not run Gemma in fp16: it stays fp32, as stored
    assert by_instance["g4dn.xlarge"]["dtype"] == "fp32"
    assert by_instance["g4dn.xlarge"]["checkpoint_fallback"] is None


def test_a_model_vllm_will_not_run_in_fp16_runs_in_fp32_without_bf16() -> None:
    """Gemma 3 (bf16 checkpoint) on a T4: vLLM drops fp16 for it (_FLOAT16_NOT_SUPPORTED_MODELS)
    and falls back to fp32; a Llama on the same GPU runs in fp16."""
    gemma = run("memory", model="gemma-3-27b", instance="g4dn.xlarge", seq_len=1000)
    assert gemma["dtype"] == "fp32" and gemma["checkpoint_fallback"]["used"] == "fp32"
    llama = run("memory", model="llama-3.1-8b", instance="g4dn.xlarge", seq_len=1000)
    assert llama["dtype"] == "fp16"


def test_training_computes_in_bf16() -> None:
    result = run("train", hf_config=GEMMA2_9B, instance="trn1.32xlarge", count=4,
                 tokens=1_000_000_000, seq_len=4096)
    assert result["dtype"] == "bf16"


@pytest.mark.parametrize("lang", ["en", "ja", "es"])
def test_the_pages_say_it_in_every_language(lang: str) -> None:
    text = trust.text(lang, "checkpoint_fallback_downcast", checkpoint="fp32", used="bf16",
                      chip="Inferentia2")
    assert "fp32" in text and "bf16" in text and "{" not in text
