"""Frozen, typed descriptions of models, accelerators, instances and prices (built by calc.data)."""

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ModelSpec:
    id: str                          # preset id, or "custom"
    name: str
    architecture: str                # "decoder" | "encoder"
    params: int                      # total parameter count (memory)
    active_params: int               # parameters touched per token (MoE: < params)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    gated_mlp: bool = True
    tied_embeddings: bool = False
    experts: int = 0                 # 0 = dense
    active_experts: int = 0
    max_position_embeddings: int | None = None

    @property
    def is_decoder(self) -> bool:
        return self.architecture == "decoder"

    @property
    def attention_width(self) -> int:
        """heads × head_dim: the width of the attention projections (= hidden for most models)."""
        return self.heads * self.head_dim

    @property
    def mlp_width_active(self) -> int:
        """Intermediate width touched per token (MoE: active experts × expert width)."""
        return self.intermediate * max(1, self.active_experts)


@dataclass(frozen=True, slots=True)
class ChipSpec:
    id: str
    name: str
    vendor: str                      # "aws" | "nvidia"
    kind: str                        # "neuron" | "gpu"
    cores_per_chip: int              # physical NeuronCores (1 for a GPU)
    lnc: int                         # physical cores per logical core (1 for a GPU)
    memory_bytes: int | None
    memory_bandwidth_bytes_per_s: float | None
    usable_memory_per_core_bytes: int | None    # per logical core (per GPU)
    runtime_overhead_per_core_bytes: int        # per logical core (per GPU)
    # matmul peak per logical core (per GPU), FLOP/s by dtype
    peak_flops_per_core: dict[str, float] = field(default_factory=dict)
    # chip headline dense TFLOPS as published (quoting only)
    headline_dense_tflops: dict[str, float] = field(default_factory=dict)

    @property
    def logical_cores_per_chip(self) -> int:
        return self.cores_per_chip // self.lnc


@dataclass(frozen=True, slots=True)
class InstanceSpec:
    id: str
    family: str
    kind: str                        # "neuron" | "gpu"
    chip: ChipSpec
    chip_count: int
    tp_degrees: tuple[int, ...]      # allowed tensor-parallel degrees (logical cores / GPUs)

    @property
    def logical_cores(self) -> int:
        return self.chip_count * self.chip.logical_cores_per_chip

    @property
    def memory_bandwidth_per_core_bytes_per_s(self) -> float | None:
        bandwidth = self.chip.memory_bandwidth_bytes_per_s
        return None if bandwidth is None else bandwidth / self.chip.logical_cores_per_chip


@dataclass(frozen=True, slots=True)
class PriceSpec:
    instance: str
    region: str
    kind: str                        # "on-demand" | "ri-effective" | "capacity-block"
    usd_per_hour: float | None
    missing_reason: str | None
    as_of: str
