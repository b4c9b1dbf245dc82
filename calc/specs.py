"""Frozen, typed descriptions of models, accelerators, instances and prices (built by calc.data)."""

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A model's architecture and checkpoint precision (data/models.toml, or a custom shape)."""

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
    # ---- MoE (calc.model_shape): routed experts live in the MoE layers only
    expert_intermediate: int = 0     # width of one routed expert (0: = intermediate)
    shared_experts: int = 0          # always-active experts per MoE layer
    shared_expert_intermediate: int = 0  # width of one shared expert (0: = expert width)
    dense_layers: int = 0            # layers of an MoE model with a dense MLP of width intermediate
    # ---- attention (calc.kv)
    attention: str = "gqa"           # "gqa" (MHA/MQA/GQA) | "mla" (DeepSeek latent attention)
    q_lora_rank: int = 0             # MLA: query down-projection rank (0: plain q_proj)
    kv_lora_rank: int = 0            # MLA: latent KV width cached per token and layer
    qk_rope_head_dim: int = 0        # MLA: decoupled RoPE key width cached per token and layer
    qk_nope_head_dim: int = 0        # MLA
    v_head_dim: int = 0              # MLA
    local_layers: int = 0            # layers that keep only a window of tokens
    local_window: int = 0            # tokens a local layer keeps (sliding window / chunk size)
    local_kind: str = ""             # "sliding" | "chunked" | "" (no local layers)
    # ---- checkpoint precision (calc.model_shape.weight_precision); None = not stated
    checkpoint_dtype: str | None = None  # unquantized parts: embeddings, norms, router, biases
    linear_dtype: str | None = None      # quantized linear layers outside the routed experts
    expert_dtype: str | None = None      # routed expert matrices
    # vLLM refuses float16 for it (numerical instability: Gemma 2 and 3, vllm/config/model.py
    # _FLOAT16_NOT_SUPPORTED_MODELS): where a chip has no bf16 it runs in fp32 (calc.dtype_gate)
    fp16_unstable: bool = False
    # the hash, computed once: a spec keys many caches (footprints, KV layouts, the advisor's
    # kept evaluations) and hashing its 36 fields each time cost ~8 % of a search
    _hash: int | None = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __hash__(self) -> int:
        cached = self._hash
        if cached is None:
            cached = hash(tuple(getattr(self, name) for name in _MODEL_HASHED))
            object.__setattr__(self, "_hash", cached)
        return cached

    @property
    def is_decoder(self) -> bool:
        return self.architecture == "decoder"

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def moe_layers(self) -> int:
        """Layers with routed experts (all layers but dense_layers; 0 for a dense model)."""
        return self.layers - self.dense_layers if self.experts else 0

    @property
    def expert_width(self) -> int:
        """Intermediate width of one routed expert."""
        return self.expert_intermediate or self.intermediate

    @property
    def shared_expert_width(self) -> int:
        return self.shared_expert_intermediate or self.expert_width

    @property
    def global_layers(self) -> int:
        """Layers that attend to (and cache) every token."""
        return self.layers - self.local_layers

    @property
    def default_dtype(self) -> str:
        """The checkpoint's dtype for the linear layers (bf16 when the checkpoint says nothing)."""
        return self.linear_dtype or self.checkpoint_dtype or "bf16"

    @property
    def attention_width(self) -> int:
        """heads × head_dim: the width of the attention projections (= hidden for most models)."""
        return self.heads * self.head_dim

    @property
    def mlp_width_active(self) -> int:
        """Intermediate width touched per token in an MoE layer (active experts × expert width +
        shared experts × their width); a dense model: intermediate."""
        if not self.experts:
            return self.intermediate
        return (self.expert_width * self.active_experts
                + self.shared_experts * self.shared_expert_width)


_MODEL_HASHED: tuple[str, ...] = tuple(
    name for name, spec in ModelSpec.__dataclass_fields__.items() if spec.hash is not False)


@dataclass(frozen=True, slots=True)
class ChipSpec:
    """An accelerator chip: cores, memory and peak FLOPS (data/chips.toml)."""

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
    """An EC2 instance type: its chips and allowed TP degrees (data/instances.toml)."""

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
    """One hourly price of an instance in a region (data/prices.toml)."""

    instance: str
    region: str
    kind: str                        # "on-demand" | "ri-effective" | "capacity-block"
    usd_per_hour: float | None
    missing_reason: str | None
    as_of: str
