"""Shared helpers for the calc tests: api calls and synthetic specs."""

from typing import Any

from calc import api
from calc.specs import ChipSpec, InstanceSpec, ModelSpec
from calc.units import BYTES_PER_GIB, BYTES_PER_MIB


def run(kind: str, **params: Any) -> dict[str, Any]:
    response = api.run({"schema_version": 1, "kind": kind, "params": params})
    assert response["ok"], response
    result: dict[str, Any] = response["result"]
    return result


def error(kind: str, **params: Any) -> dict[str, Any]:
    response = api.run({"schema_version": 1, "kind": kind, "params": params})
    assert not response["ok"], response
    failure: dict[str, Any] = response["error"]
    return failure


def synthetic_model(**overrides: Any) -> ModelSpec:
    fields: dict[str, Any] = dict(
        id="synthetic", name="synthetic", architecture="decoder", params=1_000_000_000,
        active_params=1_000_000_000, layers=16, hidden=2048, heads=16, kv_heads=4, head_dim=128,
        intermediate=8192, vocab=32000,
    )
    fields.update(overrides)
    return ModelSpec(**fields)


def synthetic_chip(**overrides: Any) -> ChipSpec:
    fields: dict[str, Any] = dict(
        id="chip", name="Chip", vendor="aws", kind="neuron", cores_per_chip=2, lnc=1,
        memory_bytes=32 * BYTES_PER_GIB, memory_bandwidth_bytes_per_s=820.0 * BYTES_PER_GIB,
        usable_memory_per_core_bytes=16 * BYTES_PER_GIB,
        runtime_overhead_per_core_bytes=96 * BYTES_PER_MIB,
        peak_flops_per_core={"bf16": 92e12, "fp16": 92e12, "fp8": 92e12, "fp32": 23e12},
        headline_dense_tflops={"bf16": 190.0},
    )
    fields.update(overrides)
    return ChipSpec(**fields)


def synthetic_instance(chip_count: int, chip: ChipSpec | None = None) -> InstanceSpec:
    chip = chip or synthetic_chip()
    cores = chip_count * chip.logical_cores_per_chip
    degrees = tuple(d for d in (1, 2, 4, 8, 16, 32, 64, 128) if d <= cores)
    return InstanceSpec(
        id=f"synthetic.{chip_count}", family="synthetic", kind=chip.kind, chip=chip,
        chip_count=chip_count, tp_degrees=degrees,
    )


def multiplied_params(model: ModelSpec) -> int:
    """The parameters a token is multiplied by, by hand: the active ones less an input embedding
    table not tied to the LM head (a lookup, no FLOPs; vocab × hidden)."""
    return model.active_params - (0 if model.tied_embeddings else model.vocab * model.hidden)


def streamed_params(model: ModelSpec, tokens: int) -> int:
    """The active parameters one step of ``tokens`` tokens reads, by hand: the untied input
    embedding only as the rows of its tokens."""
    if model.tied_embeddings:
        return model.active_params
    return multiplied_params(model) + min(model.vocab, tokens) * model.hidden


def prefill_projection_flops(model: ModelSpec, tokens: int, prompts: int) -> int:
    """A prefill's projection FLOPs by hand: every token through the layers, the LM head
    (vocab × hidden) for each prompt's last token only."""
    head = model.vocab * model.hidden
    return 2 * ((multiplied_params(model) - head) * tokens + head * prompts)
