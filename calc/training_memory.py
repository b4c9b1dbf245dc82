"""Training memory per device: model states (weights, grads, fp32 master, optimizer moments) under
ZeRO-0/1/2/3 over data-parallel ranks, plus activations (Korthikanti et al. 2022, arXiv 2205.05198).

Model states per device (N = params, split over t·p tensor/pipeline ranks, then over d ranks):
  ZeRO-0: (w + g + m + o)·N/(t·p)       ZeRO-1: (w + g)·N/(t·p) + (m + o)·N/(t·p·d)
  ZeRO-2: w·N/(t·p) + (g + m + o)·N/(t·p·d)     ZeRO-3: (w + g + m + o)·N/(t·p·d)
  with bytes per parameter w, g, m (fp32 master) and o (moments) from the named recipe.
Activations per device, bytes (16-bit activations, L/p layers, micro-batch b, heads a):
  no recompute:  s·b·h·L/p·(10 + 24/t + 5·a·s/(h·t))   with SP: s·b·h·L/p·(34/t + 5·a·s/(h·t))
  selective:     s·b·h·L/p·(10 + 24/t)                 with SP: s·b·h·L/p·34/t
  full:          2·s·b·h·L/p                           with SP: 2·s·b·h·L/p/t
"""

from dataclasses import dataclass, fields
from typing import Any

from . import data
from .derivation import Derivation
from .errors import CalcError
from .specs import InstanceSpec, ModelSpec

RECOMPUTE_MODES = ("none", "selective", "full")
ZERO_STAGES = (0, 1, 2, 3)
RECIPE_PREFIX = "training_bytes_per_param_"
# The recipe used when none is named, everywhere (train-memory, train's fit gate, advise-train,
# the memory page): DeepSpeed's count of 16- and 32-bit gradients, 20 B/param, the most that the
# recipes in data/ keep. A fit gate that assumed 8-bit Adam (10 B/param) or bf16 gradients would
# say "fits" for a run with the usual mixed-precision AdamW that then runs out of memory; the
# reader can name a leaner recipe.
DEFAULT_RECIPE = "deepspeed"


@dataclass(frozen=True, slots=True)
class Recipe:
    id: str
    weights_bytes_per_param: float
    grads_bytes_per_param: float
    master_bytes_per_param: float
    optimizer_bytes_per_param: float

    @property
    def bytes_per_param(self) -> float:
        return (
            self.weights_bytes_per_param
            + self.grads_bytes_per_param
            + self.master_bytes_per_param
            + self.optimizer_bytes_per_param
        )


def recipes() -> dict[str, Recipe]:
    found: dict[str, Recipe] = {}
    for raw in data.records("assumptions"):
        assumption_id = str(raw.get("id", ""))
        if not assumption_id.startswith(RECIPE_PREFIX):
            continue
        name = assumption_id.removeprefix(RECIPE_PREFIX)
        breakdown = raw.get("breakdown", {})
        found[name] = Recipe(
            id=name,
            weights_bytes_per_param=float(breakdown["weights"]),
            grads_bytes_per_param=float(breakdown["grads"]),
            master_bytes_per_param=float(breakdown["master_weights"]),
            optimizer_bytes_per_param=float(breakdown["optimizer_moments"]),
        )
    return found


def default_recipe() -> str:
    """DEFAULT_RECIPE when data/ has it, else the first recipe in name order."""
    known = recipes()
    if DEFAULT_RECIPE in known:
        return DEFAULT_RECIPE
    return sorted(known)[0]


def recipe(name: str) -> Recipe:
    known = recipes()
    if name not in known:
        raise CalcError("recipe", "unknown_choice", {"value": name, "allowed": sorted(known)})
    return known[name]


def activation_bytes_per_device(
    model: ModelSpec, *, micro_batch: int, seq_len: int, tp: int, pp: int, sp: bool,
    recompute: str,
) -> int:
    sbh = seq_len * micro_batch * model.hidden
    layers = model.layers / pp
    attention_scores = 5 * model.heads * seq_len / (model.hidden * tp)
    if recompute == "full":
        per_layer = 2 * sbh / (tp if sp else 1)
    elif sp:
        per_layer = sbh * (34 / tp + (attention_scores if recompute == "none" else 0))
    else:
        per_layer = sbh * (10 + 24 / tp + (attention_scores if recompute == "none" else 0))
    return round(per_layer * layers)


@dataclass(frozen=True, slots=True)
class TrainMemoryResult:
    model: str
    instance: str
    recipe: str
    bytes_per_param: float
    zero_stage: int
    recompute: str
    sp: bool
    tp: int
    pp: int
    dp: int
    devices: int
    devices_available: int
    micro_batch: int
    seq_len: int
    weights_bytes: int
    grads_bytes: int
    master_bytes: int
    optimizer_bytes: int
    activation_bytes: int
    overhead_bytes: int
    per_device_bytes: int
    capacity_per_device_bytes: int
    headroom_per_device_bytes: int
    fits: bool
    derivation: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def train_memory(
    model: ModelSpec,
    instance: InstanceSpec,
    *,
    count: int,
    recipe_name: str,
    zero_stage: int,
    recompute: str,
    sp: bool,
    tp: int,
    pp: int,
    dp: int | None,
    micro_batch: int,
    seq_len: int,
) -> TrainMemoryResult:
    steps = Derivation()
    chosen = recipe(recipe_name)
    available = instance.logical_cores * count
    if model.heads % tp != 0:
        raise CalcError("tp", "heads_not_divisible", {"value": model.heads, "allowed": tp})
    if pp > model.layers:   # a stage holds at least one layer
        raise CalcError("pp", "out_of_range", {"min": 1, "max": model.layers, "value": pp})
    if tp * pp > available:
        if pp == 1:
            raise CalcError("tp", "tp_exceeds_cores", {"value": tp, "max": available})
        raise CalcError("pp", "split_exceeds_cores", {"value": tp * pp, "max": available})
    if dp is None:
        dp = max(1, available // (tp * pp))
    devices = tp * pp * dp
    if devices > available:
        limit = available // (tp * pp)
        raise CalcError("dp", "out_of_range", {"min": 1, "max": limit, "value": dp})
    capacity = instance.chip.usable_memory_per_core_bytes
    if capacity is None:
        raise CalcError("instance", "memory_missing", {"value": instance.id})

    steps.add("bytes_per_param", "weights + grads + master + moments", chosen.bytes_per_param, "B")
    model_split = tp * pp
    shard = {
        "weights": dp if zero_stage >= 3 else 1,
        "grads": dp if zero_stage >= 2 else 1,
        "master": dp if zero_stage >= 1 else 1,
        "optimizer": dp if zero_stage >= 1 else 1,
    }

    def per_device(bytes_per_param: float, divisor: int) -> int:
        return round(model.params * bytes_per_param / (model_split * divisor))

    weights = steps.add("weights_bytes", "N · w / (t·p) [/d at ZeRO-3]",
                        per_device(chosen.weights_bytes_per_param, shard["weights"]), "B")
    grads = steps.add("grads_bytes", "N · g / (t·p) [/d at ZeRO ≥ 2]",
                      per_device(chosen.grads_bytes_per_param, shard["grads"]), "B")
    master = steps.add("master_bytes", "N · m / (t·p) [/d at ZeRO ≥ 1]",
                       per_device(chosen.master_bytes_per_param, shard["master"]), "B")
    optimizer = steps.add("optimizer_bytes", "N · o / (t·p) [/d at ZeRO ≥ 1]",
                          per_device(chosen.optimizer_bytes_per_param, shard["optimizer"]), "B")
    activations = steps.add(
        "activation_bytes", f"Korthikanti, recompute={recompute}, sp={sp}",
        activation_bytes_per_device(
            model, micro_batch=micro_batch, seq_len=seq_len, tp=tp, pp=pp, sp=sp,
            recompute=recompute,
        ),
        "B",
    )
    overhead = steps.add("overhead_per_core_bytes", "runtime overhead per device",
                         instance.chip.runtime_overhead_per_core_bytes, "B")
    total = steps.add("per_device_bytes", "sum of the above",
                      weights + grads + master + optimizer + activations + overhead, "B")
    steps.add("capacity_per_core_bytes", "usable memory per device", capacity, "B")
    headroom = steps.add("headroom_per_core_bytes", "capacity − per device", capacity - total, "B")
    fits = steps.add("fits", "per device ≤ capacity", headroom >= 0)
    return TrainMemoryResult(
        model=model.id,
        instance=instance.id,
        recipe=chosen.id,
        bytes_per_param=chosen.bytes_per_param,
        zero_stage=zero_stage,
        recompute=recompute,
        sp=sp,
        tp=tp,
        pp=pp,
        dp=dp,
        devices=devices,
        devices_available=available,
        micro_batch=micro_batch,
        seq_len=seq_len,
        weights_bytes=weights,
        grads_bytes=grads,
        master_bytes=master,
        optimizer_bytes=optimizer,
        activation_bytes=activations,
        overhead_bytes=overhead,
        per_device_bytes=total,
        capacity_per_device_bytes=capacity,
        headroom_per_device_bytes=headroom,
        fits=fits,
        derivation=steps.as_list(),
    )
