"""QA (stop 47): train's chosen layout said sequence parallelism at TP 1, where it splits
nothing."""

from calc_helpers import run


def test_sequence_parallelism_only_with_tensor_parallelism() -> None:
    result = run("train", model="llama-3.1-8b", instance="trn1.32xlarge", count=4,
                 tokens=10_000_000_000, seq_len=4096)
    layout = result["training_layout"]
    assert layout is not None
    assert layout["sp"] is (layout["tp"] > 1), layout
