"""Serving and training frameworks as data (data/frameworks.toml): batching mode, bucketing,
supported hardware, the default per chip, and the proxy whose fitted constants stand in where a
framework has no measurements of its own."""

from dataclasses import dataclass
from functools import cache
from typing import Any

from . import data
from .errors import CalcError
from .specs import InstanceSpec

PHASES = ("inference", "training")
BATCHING_MODES = ("static", "continuous")


@dataclass(frozen=True, slots=True)
class Framework:
    id: str
    name: str
    phase: str                       # inference | training
    kind: str                        # neuron | gpu
    batching: str                    # static | continuous
    bucketing: bool                  # shapes padded to compiled buckets
    bucket_min_tokens: int           # smallest sequence bucket (powers of two from here)
    chips: tuple[str, ...]           # supported by current releases
    chips_legacy: tuple[str, ...]    # supported by older releases only
    default_for: tuple[str, ...]
    calibration_proxy: str
    default_recompute: str
    sdk_note: str
    default_max_batch: int | None = None
    allreduce: str = "ring"          # calc.collectives.ALGORITHMS: the tensor-parallel all-reduce
    single_bucket: bool = False      # compiles one sequence length: prompts and KV padded to it
    causal_skip: bool = False        # its prefill attention kernel skips the causally masked blocks
    max_num_tokens: int | None = None  # continuous batching: the token budget of one iteration,
    #                                    up to which waiting prompts are prefilled together
    #                                    (None: one prompt per prefill)
    kv_read_per_query_head: bool = False  # its decode attention kernel reads a GQA model's KV
    #                                    heads once per query head (TensorRT-LLM before XQA)
    wave_prefill: bool = False       # prefills the waiting prompts in one call, one after another,
    #                                  and returns their first tokens together (TGI on Neuron's
    #                                  transformers-neuronx backend: set by its measurements)

    def supports(self, chip_id: str) -> bool:
        return chip_id in self.chips or chip_id in self.chips_legacy


def _strings(raw: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in raw) if isinstance(raw, list) else ()


@cache
def all_frameworks() -> dict[str, Framework]:
    found: dict[str, Framework] = {}
    for raw in data.records("frameworks"):
        found[str(raw["id"])] = Framework(
            id=str(raw["id"]),
            name=str(raw["name"]),
            phase=str(raw["phase"]),
            kind=str(raw["kind"]),
            batching=str(raw["batching"]),
            bucketing=bool(raw.get("bucketing", False)),
            bucket_min_tokens=int(raw.get("bucket_min_tokens", 1)),
            chips=_strings(raw.get("chips")),
            chips_legacy=_strings(raw.get("chips_legacy")),
            default_for=_strings(raw.get("default_for")),
            calibration_proxy=str(raw.get("calibration_proxy", "")),
            default_recompute=str(raw.get("default_recompute", "none")),
            sdk_note=str(raw.get("sdk_note", "")),
            default_max_batch=int(raw["default_max_batch"]) if "default_max_batch" in raw
            else None,
            allreduce=str(raw.get("allreduce", "ring")),
            single_bucket=raw.get("single_bucket") is True,
            causal_skip=raw.get("causal_skip") is True,
            max_num_tokens=int(raw["max_num_tokens"]) if "max_num_tokens" in raw else None,
            kv_read_per_query_head=raw.get("kv_read_per_query_head") is True,
            wave_prefill=raw.get("wave_prefill") is True,
        )
    return found


def records() -> list[dict[str, Any]]:
    """The raw TOML records (for listing and the site)."""
    return data.records("frameworks")


def ids(phase: str) -> list[str]:
    return [fw.id for fw in all_frameworks().values() if fw.phase == phase]


def get(framework_id: str) -> Framework:
    found = all_frameworks().get(framework_id)
    if found is None:
        raise CalcError("framework", "unknown_choice",
                        {"value": framework_id[:40], "allowed": sorted(all_frameworks())})
    return found


def default_for(instance: InstanceSpec, phase: str = "inference") -> Framework:
    """The calculator's default framework for the instance's chip and phase. A default must run
    on the chip, like a framework the user names: no training framework in the data runs on
    Inferentia (1 or 2) or Trainium3, and no serving framework on Inferentia 1, so those are
    refused (``no_training_framework`` / ``no_inference_framework``), never estimated with a
    framework that does not run there."""
    chip = instance.chip.id
    for framework in all_frameworks().values():
        if framework.phase == phase and chip in framework.default_for:
            return framework
    for framework in all_frameworks().values():
        if framework.phase == phase and framework.supports(chip):
            return framework
    key = "no_training_framework" if phase == "training" else "no_inference_framework"
    raise CalcError("instance", key, {"value": instance.chip.name})   # no framework was named


def resolve(framework_id: str | None, instance: InstanceSpec, phase: str) -> Framework:
    """The requested framework (checked against the phase and hardware) or the default."""
    if framework_id is None:
        return default_for(instance, phase)
    framework = get(framework_id)
    if framework.phase != phase:
        raise CalcError("framework", "unknown_choice",
                        {"value": framework_id, "allowed": ids(phase)})
    if not framework.supports(instance.chip.id):
        supported = [fw.id for fw in all_frameworks().values()
                     if fw.phase == phase and fw.supports(instance.chip.id)]
        if not supported:   # training on Inferentia or Trainium3, serving on Inferentia 1
            key = "no_training_framework" if phase == "training" else "no_inference_framework"
            raise CalcError("framework", key, {"value": instance.chip.name})
        raise CalcError("framework", "framework_unsupported",
                        {"value": framework_id, "allowed": supported})
    return framework


def describe(framework: Framework) -> str:
    hardware = ", ".join(framework.chips) or "—"
    legacy = f"; older releases: {', '.join(framework.chips_legacy)}" if framework.chips_legacy \
        else ""
    return (f"{framework.name} ({framework.phase}, {framework.batching} batching"
            f"{', bucketed' if framework.bucketing else ''}; hardware: {hardware}{legacy})")
