"""One engine step, prefill and serving under load: the physics shared by perf, compare, price
and the calibration (see /docs guide "How the calculators work").

Ideal (efficiency 1) terms of one step on one replica of t cores:
  memory_s    = (weight bytes streamed / t + KV bytes read per core) / BW_core
                weights streamed = every weight outside the routed experts at its own storage
                dtype + moe_layers × experts read × bytes per expert (experts at their own
                precision, e.g. MXFP4); KV read = calc.kv.per_core_bytes (MLA latent, sliding
                windows capped); experts read = on GPU and in prefill
                E_touched = E × (1 − (1 − k/E)^tokens) per layer (uniform routing; tokens = padded
                batch in decode, padded batch × padded prompt in prefill), in a Neuron decode step
                as NxD loads them (nxd_experts_loaded: E when B·k ≥ E, else B·k)
  compute_s   = projections 2 · N_mm · tokens / (t · P_matmul dtype)   (N_mm: active params
                without an untied input embedding, calc.model_shape.matmul_params; a prefill
                runs the LM head for each prompt's last token only: prefill_matmul_flops)
              + attention FLOPs / (t · P_bf16)   (attention FLOPs = 4 · Σ_layers
                min(context, window) · width · tokens; a prompt on a framework whose kernel skips
                the causally masked blocks (Framework.causal_skip, FlashAttention): 4 · width ·
                causal_attention_pairs; precision per phase: only the projections run in a
                lower-precision dtype; attention stays at bf16)
  collectives = 2 all-reduces per layer × L, each as the framework runs it (calc/collectives.py):
                ring (NCCL, Neuron collectives): 2 · ceil(log2 t) latency steps × c_hop
                  + 2 · (t − 1)/t × tokens · h · 2 bytes / link bandwidth per chip;
                one-shot (TensorRT-LLM, vLLM on NVLink, small messages): c_custom
                  + (t − 1) × tokens · h · 2 bytes / link; two-stage (vLLM): 2 · c_custom
                  + 2 · (t − 1)/t × tokens · h · 2 bytes / link   (the bandwidth term grows with
                batch × hidden; omitted where the link bandwidth is not published)
step time = max(weights_s / η_mem, projections_s / η_comp) + max(kv_s / η_mem, attention_s / η_comp)
            + collectives + fixed
            (memory_s = weights_s + kv_s, compute_s = projections_s + attention_s: the projections'
            GEMMs and the attention kernels run one after the other, each bound by what it reads
            or by its FLOPs, so a large batch's KV reads add to its projection FLOPs instead of
            hiding under them; in prefill kv_s = 0)
            (+ in decode on GPU, x_expert · routed-expert bytes / t / BW_core: the routed experts'
            weights stream slower than the dense ones; x_expert fitted, 0 where the MoE rows do not
            need it; on Neuron, t_mm · the routed experts' matmul instructions per core: NxD loads
            every expert when B·k ≥ E, else B·k experts, one per token and choice, and their small
            matmuls cost per 128 × 128 instruction more than their bytes: t_mm fitted)
fixed: decode = the framework's per-step cost (scheduler, sampling, launch); prefill = that plus a
prefill latency of the hardware group per prefill pass (per request where prompts are prefilled
one at a time; a chunked prefill pays both once per model call, n · (t_fixed + s_f)), plus for
an MoE model t_GB · G, the expert
blocks' traffic G in GB at a fitted time per GB (the Neuron serving stacks' MoE prefills take
several times what their FLOPs and bytes explain). NxD's MoE layer (neuronx-distributed
modules/moe/expert_mlps_v2.py forward / forward_blockwise, model_utils.DEFAULT_BLOCK_SIZE = 512)
prefills T tokens in N = min(⌈(T·k − (E − 1)) / 512⌉ + E − 1, T·k) blocks of 512 token rows, each
block one expert: the worst-case count, run whether the blocks are full or padding; with
T·k < 512 every expert runs all T tokens (forward_all_experts). Per block it moves one expert's
weight shard and its token rows: G = Σ_MoE layers N · (expert bytes / t + rows · h · 2 B) / 10⁹.

Buckets: a framework with bucketing pads the batch to the compiled batch and sequence lengths to
the compiled sequence bucket (powers of two from the framework's minimum, or the compiled length);
a deployment compiled with one sequence bucket (Workload.single_bucket; unset, the
framework's default, Framework.single_bucket: TGI on Neuron) pads every prompt and the KV cache
to the compiled length (e.g. optimum-neuron's NxD backend: enable_bucketing False by
default, removed in huggingface/optimum-neuron 71aded3f "explicitly remove bucketing").
Static batching: TTFT = prefill(batch); TPOT = step(batch); e2e = TTFT + (s_out − 1) · TPOT.
Continuous batching at concurrency C (requests in flight, closed loop), of which
B = min(C, compiled batch) run and the rest wait for a slot:
  cycle = B · t_prefill(1 request) + (s_out − 1) · t_step(B, padded)   (a running request's life)
  throughput per replica = B · s_out / cycle;  ρ = B · t_prefill / cycle (engine share of prefill)
  wait  = (B − 1)/B · (t_step / 2 + ρ/(1 − ρ) · t_prefill / 2)   (the running step, then queued
          prefills; first order)  +  (C − B) · cycle / B   (waiting for a slot)
  TTFT = t_prefill + wait;  TPOT = (cycle − t_prefill − running wait) / (s_out − 1)
  (the running wait at most (B − 1) · t_prefill, so that TPOT ≥ t_step at short outputs)
  open loop with evenly spaced arrivals at a rate r per replica (Workload.evenly_spaced_rate_per_s;
  C from Little's law): wait = t_step / 2 (no queued prefills: each ends before the next
  arrival); each arrival's prefill stops the running decodes once, ρ = r · t_prefill:
  TPOT = t_step / (1 − ρ), at most (and, at ρ ≥ 1, equal to) the saturated TPOT, the TPOT above
  with the running batch full (compiled batch, else the framework's limit) at that batch's step
  time; without a limit, ρ ≥ 1 keeps the closed loop at C. ρ reported = min(ρ, the full batch's
  ρ); e2e = TTFT + (s_out − 1) · TPOT; throughput = C · s_out / e2e. An overloaded rate's
  queue outside the batch is not modelled: TTFT stays t_prefill + t_step / 2.
  A finite run of N requests whose first A = min(C, N) are sent at once (or min(cap − 1, N),
  Workload.burst_arrivals, where the source states the load generator's cap), each later one as a
  request completes (Workload.burst_run_requests: guidellm 0.1.0's throughput profile; burst_run):
  the A run in waves of W = min(A, running limit), a wave's prompts prefilled in P passes one
  after another (first tokens at i · t_pass), a wave T_wave = P · t_pass + (s_out − 1) · t_step
  after the one before (m = ⌊A/W⌋ full waves and a last one of the rest); means over the N
  requests: TTFT = (A/N) · (mean wave start + (P + 1)/2 · t_pass) + (1 − A/N) · TTFT(closed
  loop), TPOT = (A/N) · (t_step + (P − 1)/2 · t_pass / (s_out − 1)) + (1 − A/N) · TPOT(closed
  loop); a server that returns a prefill call's first tokens together (Framework.wave_prefill:
  TGI on transformers-neuronx, set per measurement) gives the whole wave its first tokens at
  P · t_pass and no wait before the second, and its waves stay aligned (elsewhere only the first
  W are a burst); an aligned wave lasts until its longest request ends (output lengths drawn with
  a spread σ, Workload.output_len_sd: s_out + σ · e(w) for w requests, calc.order_statistics);
  with aligned waves and N ≤ A the throughput is the A's tokens over their time; elsewhere, with
  all N sent at once (N ≤ A) and a run that ended with its last request, it is the queued run's
  below with B = min(⌈N⌉, the running limit).
  LLMPerf's rounds (C sent at once, the next C when all have finished) are such runs with
  N = A = C.
  A run of N requests of equal lengths queued at once and served B (the requests in flight) at a
  time until the last has completed (Workload.queued_requests: trtllm-bench's offline throughput)
  takes g = ⌈N / B⌉ generations, the last of r = N − (g − 1) B at its own batch: throughput =
  N · s_out / ((g − 1) · cycle(B) + cycle(r)) (queued_run_throughput; cycle = the steady closed
  loop's, as above).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from . import collectives, data, dtypes, kv, memory, model_shape, order_statistics
from .errors import CalcError
from .flops import peak_flops_per_core
from .frameworks import Framework, all_frameworks
from .specs import InstanceSpec, ModelSpec
from .units import BYTES_PER_GB, BYTES_PER_GIB

ALL_REDUCES_PER_LAYER = 2
ACTIVATION_BYTES = 2  # all-reduced activations are 16-bit
MOE_BLOCK_TOKENS = 512  # NxD blockwise MoE: token rows per block (model_utils.DEFAULT_BLOCK_SIZE)
TILE = 128  # NeuronCore Tensor Engine: 128 × 128 stationary tile per matmul instruction
SECONDS_PER_NS = 1e-9

# hardware groups with their own calibrated constants (fitted in this order), and where a group
# without enough measurements borrows from. Inf2 and Trn1 share NeuronCore-v2 and the same HBM
# bandwidth per core: one group (fitting them apart was tried and predicts left-out sources worse).
GROUPS = ("neuron-v2", "trainium2", "trainium3", "gpu")
GROUP_FALLBACK: dict[str, str] = {"trainium2": "neuron-v2", "trainium3": "trainium2"}
GROUP_PREFIX: dict[str, str] = {"neuron-v2": "", "trainium2": "trn2_", "trainium3": "trn3_",
                                "gpu": "gpu_"}


def hardware_group(instance: InstanceSpec) -> str:
    """The constant set of an instance: NeuronCore-v2 (Inf2, Trn1; Inferentia v1 borrows it),
    Trainium2, Trainium3 or GPU."""
    if instance.kind == "gpu":
        return "gpu"
    if instance.chip.id in ("trainium2", "trainium3"):
        return instance.chip.id
    return "neuron-v2"


@dataclass(frozen=True, slots=True)
class Efficiency:
    decode_memory: float             # achieved fraction of peak memory bandwidth
    prefill_compute: float           # achieved fraction of peak matmul FLOP/s
    collective_hop_latency_s: float  # latency per step of one all-reduce (2·ceil(log2 t) steps)
    prefill_fixed_latency_s: float = 0.0  # latency of a prefill pass beyond the roofline
    prefill_half_tokens: float = 0.0  # prefill tokens at which the matmul efficiency is half η_comp
    prefill_expert_s_per_gb: float = 0.0  # prefill time per GB of MoE expert-block traffic
    decode_expert_extra: float = 0.0  # decode: extra time of routed-expert weights, × their ideal
    decode_expert_matmul_ns: float = 0.0  # decode (NxD): ns per routed-expert matmul instruction
    custom_allreduce_step_s: float = 0.0  # latency per step of a framework's NVLink all-reduce
    first_request_extra_s: float = 0.0  # a server started without warm-up: its first requests'
    #                                     extra time, per replica (scores cold runs; not in perf)

    @staticmethod
    def from_data(group: str = "neuron-v2") -> "Efficiency":
        """The fitted constants of a hardware group (or instance kind: neuron | gpu)."""
        return Efficiency.from_prefix(efficiency_prefix(group))

    @staticmethod
    def from_prefix(prefix: str) -> "Efficiency":
        """The constants stored under one assumption-id prefix (a group's, or a framework's set
        on a group): the first REQUIRED_ASSUMPTIONS must exist, a later term absent is 0."""
        return Efficiency(**{
            field: (data.assumption_value(prefix + name) if index < REQUIRED_ASSUMPTIONS
                    else optional_assumption(prefix + name))
            for index, (field, name) in enumerate(EFFICIENCY_ASSUMPTIONS)})

    def fitted_values(self) -> tuple[float, ...]:
        """The constants in EFFICIENCY_ASSUMPTIONS order (calibration.FITTED_IDS)."""
        return tuple(getattr(self, field) for field, _ in EFFICIENCY_ASSUMPTIONS)


# Efficiency field <- assumption name (the id without its prefix), in the order the calibration
# fits and stores them; the first REQUIRED_ASSUMPTIONS are in every fitted set
EFFICIENCY_ASSUMPTIONS: tuple[tuple[str, str], ...] = (
    ("decode_memory", "decode_memory_efficiency"),
    ("collective_hop_latency_s", "collective_hop_latency_s"),
    ("prefill_compute", "prefill_compute_efficiency"),
    ("prefill_fixed_latency_s", "prefill_fixed_latency_s"),
    ("prefill_half_tokens", "prefill_half_tokens"),
    ("prefill_expert_s_per_gb", "prefill_expert_s_per_gb"),
    ("decode_expert_extra", "decode_expert_extra"),
    ("decode_expert_matmul_ns", "decode_expert_matmul_ns"),
    ("custom_allreduce_step_s", "custom_allreduce_step_s"),
    ("first_request_extra_s", "first_request_extra_s"),
)
REQUIRED_ASSUMPTIONS = 4


def optional_assumption(assumption_id: str) -> float:
    """A fitted term that older data may not hold yet: 0 (the term is off) when absent."""
    if data.record("assumptions", assumption_id) is None:
        return 0.0
    return data.assumption_value(assumption_id)


def efficiency_prefix(group: str) -> str:
    """Assumption-id prefix of a hardware group's constants (NeuronCore-v2: no prefix)."""
    return GROUP_PREFIX.get(group, "")


def step_assumption_id(framework_id: str, group: str) -> str:
    return f"framework_step_s_{framework_id.replace('-', '_')}_{group.replace('-', '_')}"


def step_fixed_s(framework: Framework, group: str) -> tuple[float, str, bool]:
    """(per-step fixed cost, assumption id used, fitted on this framework and group?). Falls back
    along the group chain, then to the framework's calibration proxy; 0 when nothing is fitted."""
    seen: set[str] = set()
    candidate: Framework | None = framework
    first = True
    while candidate is not None and candidate.id not in seen:
        seen.add(candidate.id)
        chain = group
        while True:
            assumption_id = step_assumption_id(candidate.id, chain)
            if data.record("assumptions", assumption_id) is not None:
                return data.assumption_value(assumption_id), assumption_id, first and chain == group
            if chain not in GROUP_FALLBACK:
                break
            chain = GROUP_FALLBACK[chain]
        first = False
        candidate = all_frameworks().get(candidate.calibration_proxy)
    return 0.0, "", False


def allreduce_steps(tp: int) -> int:
    """Latency steps of one small-message ring all-reduce over t ranks: 2·ceil(log2 t)."""
    return collectives.ring_steps(tp)


def link_bytes_per_s(instance: InstanceSpec) -> float | None:
    """NeuronLink / interconnect bandwidth per chip as published (None when not recorded)."""
    raw = data.record("instances", instance.id) or {}
    gib = raw.get("interconnect_gib_per_s_per_chip")
    if isinstance(gib, int | float):
        return float(gib) * BYTES_PER_GIB
    gb = raw.get("interconnect_gb_per_s_per_chip")
    if isinstance(gb, int | float):
        return float(gb) * BYTES_PER_GB
    return None


def has_nvlink(instance: InstanceSpec) -> bool:
    """The GPUs are joined by NVLink (the instance record's interconnect says so): calc runs
    the custom all-reduce kernels of TensorRT-LLM and vLLM only there (calc/collectives.py)."""
    raw = data.record("instances", instance.id) or {}
    return str(raw.get("interconnect", "")).startswith("NVLink")


def layer_all_reduce(model: ModelSpec, instance: InstanceSpec, tp: int, tokens: float,
                     algorithm: str = collectives.RING) -> collectives.AllReduce:
    """One of the per-layer all-reduces of `tokens` tokens' activations (tokens · h · 2 B)."""
    message = tokens * model.hidden * ACTIVATION_BYTES
    return collectives.all_reduce(algorithm, tp, message, nvlink=has_nvlink(instance))


def collective_bandwidth_s(model: ModelSpec, instance: InstanceSpec, tp: int,
                           tokens: float, algorithm: str = collectives.RING) -> float:
    """Bandwidth term of the per-layer all-reduces: 2 · L · bytes per chip / link (ring:
    2·(t−1)/t · tokens · h · 2 B; one-shot: (t − 1) · tokens · h · 2 B)."""
    return _bandwidth_s(model, instance, layer_all_reduce(model, instance, tp, tokens, algorithm))


def _bandwidth_s(model: ModelSpec, instance: InstanceSpec, one: collectives.AllReduce) -> float:
    """2 · L · one all-reduce's bytes per chip / link; 0 without a published link figure."""
    link = link_bytes_per_s(instance)
    if one.bytes_per_chip <= 0 or link is None or link <= 0:
        return 0.0
    return ALL_REDUCES_PER_LAYER * model.layers * one.bytes_per_chip / link


def experts_touched(experts: int, active: int, tokens: float) -> float:
    """Expected distinct experts per layer that `tokens` tokens touch, each routed to `active`
    of `experts` (uniform routing): E · (1 − (1 − k/E)^tokens)."""
    if experts <= 0:
        return 0.0
    return experts * (1.0 - float((1.0 - active / experts) ** tokens))


def streamed_weight_bytes(model: ModelSpec, tp: int, dtype: str, tokens: float,
                          experts: float | None = None) -> float:
    """Weight bytes one step of `tokens` tokens reads (whole replica, before the split over t):
    every weight outside the routed experts, an untied input embedding only as the rows of the
    step's tokens (calc.model_shape.input_embedding_params) (LM head, norms and router at the
    unquantized dtype; attention, dense and shared MLPs at the linear dtype; padded query heads
    included) + moe_layers · E_touched(tokens) (or `experts` given) · bytes of one expert at the
    experts' own storage precision (e.g. gpt-oss MXFP4 experts with bf16 attention;
    calc.model_shape.weight_precision)."""
    precision = model_shape.weight_precision(model, dtype)
    groups = model_shape.weight_groups(model, memory.padding_params(model, tp))
    # an untied input embedding is looked up, not streamed: the rows of the step's tokens
    table = model_shape.input_embedding_params(model)
    rows = min(table, math.ceil(tokens) * model.hidden)
    fixed = (dtypes.bytes_for(groups["unquantized"] - table + rows, precision.unquantized)
             + dtypes.bytes_for(groups["linear"], precision.linear))
    if model.experts <= 0 or model.active_experts <= 0 or groups["expert"] <= 0:
        return float(fixed + dtypes.bytes_for(groups["expert"], precision.expert))
    return float(fixed) + routed_expert_bytes(model, dtype, tokens, experts)


def routed_expert_bytes(model: ModelSpec, dtype: str, tokens: float,
                        experts: float | None = None) -> float:
    """Bytes of the routed experts a step of `tokens` tokens reads (whole replica):
    moe_layers · E_touched(tokens) (or `experts` given, per layer) · bytes of one expert (0 for a
    dense model)."""
    if model.experts <= 0 or model.active_experts <= 0:
        return 0.0
    touched = experts_touched(model.experts, model.active_experts, tokens) \
        if experts is None else experts
    per_expert = model_shape.bytes_per_expert(model, model_shape.weight_precision(model, dtype))
    return float(model.moe_layers * touched * per_expert)


def decode_experts_read(model: ModelSpec, instance: InstanceSpec, batch: int) -> float:
    """Routed experts a decode step of `batch` tokens reads per MoE layer: on Neuron as NxD loads
    them (nxd_experts_loaded), on GPU the distinct experts uniform routing touches."""
    if instance.kind == "neuron":
        return nxd_experts_loaded(model.experts, model.active_experts, batch)
    return experts_touched(model.experts, model.active_experts, batch)


def nxd_experts_loaded(experts: int, active: int, tokens: int) -> int:
    """Routed experts an NxD token-generation step loads per MoE layer for `tokens` tokens
    (neuronx-distributed modules/moe/expert_mlps_v2.py forward, DEFAULT_SELECTIVE_LOADING_THRESHOLD
    = 1.0): T·k ≥ E runs every expert on every token (forward_all_experts); below it each token
    loads its own k experts (forward_selective_loading: T·k loads, none shared)."""
    if experts <= 0 or active <= 0:
        return 0
    return experts if tokens * active >= experts else tokens * active


def expert_matmuls_per_core(model: ModelSpec, tp: int, loads: int) -> int:
    """Matmul instructions the routed experts of one NxD decode step issue per core: each loaded
    expert's gate/up (h × 2f/t; h × f/t without a gate) and down (f/t × h) projections in
    128 × 128 tiles of the NeuronCore's Tensor Engine, over every MoE layer:
    L_MoE · loads · ⌈h/128⌉ · (⌈2f/t/128⌉ + ⌈f/t/128⌉)."""
    if loads <= 0 or model.moe_layers <= 0:
        return 0
    width = model.expert_width / tp
    up = model_shape.mlp_matrices(model) - 1          # gate and up (gated MLP) or up alone
    tiles = -(-model.hidden // TILE) * (math.ceil(up * width / TILE) + math.ceil(width / TILE))
    return int(model.moe_layers * loads * tiles)


def expert_blocks(experts: int, active: int, tokens: int) -> tuple[int, int]:
    """(blocks, token rows per block) of an MoE prefill of `tokens` tokens (NxD): the worst-case
    block count min(⌈(T·k − (E − 1)) / B⌉ + E − 1, T·k) at B = 512 rows; with T·k < B every expert
    runs all T tokens (E blocks of T rows); with T·k < E each token loads its own k experts
    (T·k blocks of one row: forward_selective_loading)."""
    if experts <= 0 or active <= 0 or tokens <= 0:
        return 0, 0
    routed = tokens * active
    if routed < experts:          # selective loading: each token loads its own k experts
        return routed, 1
    if routed < MOE_BLOCK_TOKENS:
        return experts, tokens
    blocks = -(-(routed - (experts - 1)) // MOE_BLOCK_TOKENS) + experts - 1
    return min(blocks, routed), MOE_BLOCK_TOKENS


def expert_block_gb(model: ModelSpec, tp: int, dtype: str, tokens: int) -> float:
    """GB the expert blocks of one prefill move per core: Σ over MoE layers of blocks × (one
    expert's weight bytes / t + token rows × h × 2 B); 0 for a dense model."""
    blocks, rows = expert_blocks(model.experts, model.active_experts, tokens)
    if blocks == 0 or model.moe_layers <= 0:
        return 0.0
    per_expert = model_shape.bytes_per_expert(model, model_shape.weight_precision(model, dtype))
    per_block = per_expert / tp + rows * model.hidden * ACTIVATION_BYTES
    return model.moe_layers * blocks * per_block / BYTES_PER_GB


def kv_read_bytes_per_core(model: ModelSpec, tp: int, kv_dtype: str, batch: int,
                           context: int, per_query_head: bool = False) -> int:
    """KV bytes one core reads in a decode step: what it holds for `batch` sequences at
    `context` tokens (calc.kv.per_core_bytes: GQA its share of the replicated heads, MLA the
    whole latent on every core, sliding-window layers capped at their window). A kernel that
    reads the cache once per query head (per_query_head: one thread block per sequence and
    query head, no sharing within a GQA group) reads a core's KV heads ⌊⌈H_q / t⌉ / max(1,
    H_kv,eff / t)⌋ times over (H_kv,eff: the KV heads after replication, calc.kv.kv_layout)."""
    held = kv.per_core_bytes(model, tp, kv_dtype, batch, context)
    if not per_query_head or model.attention == "mla" or not model.is_decoder:
        return held
    kv_heads_per_core = kv.kv_layout(model, tp)[1] // tp
    query_heads_per_core = -(-model.heads // tp)
    return held * max(1, query_heads_per_core // max(1, kv_heads_per_core))


def attention_token_layers(model: ModelSpec, context: int) -> int:
    """Σ over layers of the context tokens each layer attends to (local layers: their window)."""
    return sum(group.layers * group.tokens(context) for group in kv.layer_groups(model))


def causal_attention_pairs(model: ModelSpec, prompt: int) -> int:
    """Σ over layers of the (query, key) pairs a causal prompt of p tokens attends to when the
    kernel skips the masked blocks (FlashAttention-2): each token attends to itself and the ones
    before it, p(p + 1)/2 in a full-attention layer; in a sliding-window layer to at most w of them,
    w(w + 1)/2 + (p − w) · w for w < p; in a chunked layer (Llama 4) to those of its own chunk of
    c tokens, ⌊p/c⌋ · c(c + 1)/2 + r(r + 1)/2 with r = p mod c."""
    total = 0
    for group in kv.layer_groups(model):
        if group.window is None or group.window >= prompt:
            pairs = prompt * (prompt + 1) // 2
        elif model.local_kind == "chunked":
            chunks, rest = divmod(prompt, group.window)
            pairs = chunks * group.window * (group.window + 1) // 2 + rest * (rest + 1) // 2
        else:
            w = group.window
            pairs = w * (w + 1) // 2 + (prompt - w) * w
        total += group.layers * pairs
    return total


def padded_matmul_params(model: ModelSpec, tp: int) -> int:
    """The parameters a token multiplies by (calc.model_shape.matmul_params: no untied input
    embedding) with the padded query heads' projections."""
    return model_shape.matmul_params(model) + memory.padding_params(model, tp)


def prefill_matmul_flops(model: ModelSpec, tp: int, tokens: float, prompts: float) -> float:
    """The projections' FLOPs of a prefill call of `tokens` tokens over `prompts` prompts: every
    token through the layers, the LM head for each prompt's last token only (the position that
    is sampled: vLLM's LogitsProcessor prunes the hidden states to the selected tokens, NxD
    Inference and transformers-neuronx gather the last token before the LM head, TensorRT-LLM
    without gather_context_logits)."""
    head = model_shape.lm_head_params(model)
    return 2.0 * ((padded_matmul_params(model, tp) - head) * tokens + head * prompts)


def attention_width(model: ModelSpec, tp: int) -> int:
    return (model.heads + memory.head_padding(model, tp)) * model.head_dim


def seq_bucket(length: int, framework: Framework | None, compiled: int | None = None,
               single: bool = False) -> int:
    """The sequence length a compiled graph runs for `length` tokens: the next power-of-two
    bucket from the framework's minimum (capped at the compiled maximum `compiled` when that
    covers the request); a deployment with one bucket (`single`) runs the compiled length;
    frameworks without bucketing run the length itself."""
    if single and compiled is not None and compiled >= length:
        return compiled
    if framework is None or not framework.bucketing:
        return length
    bucket = max(1, framework.bucket_min_tokens)
    while bucket < length:
        bucket *= 2
    if compiled is not None and compiled >= length:
        bucket = min(bucket, compiled)
    return bucket


def batch_bucket(batch: int, framework: Framework | None, compiled: int | None = None) -> int:
    if compiled is not None and framework is not None and framework.bucketing:
        return max(batch, compiled)
    return batch


def _bandwidth_per_core(instance: InstanceSpec) -> float:
    bandwidth = instance.memory_bandwidth_per_core_bytes_per_s
    if bandwidth is None or bandwidth <= 0:
        raise CalcError("instance", "bandwidth_missing", {"value": instance.id})
    return bandwidth


def _attention_peak(instance: InstanceSpec, dtype: str) -> float:
    """Peak for attention: bf16 (fp32 models: fp32)."""
    return peak_flops_per_core(instance, "fp32" if dtype == "fp32" else "bf16")[1]


@dataclass(frozen=True, slots=True)
class Roofline:
    """Ideal (efficiency 1) terms of one step on one replica."""

    memory_s: float
    compute_s: float
    collective_hops: int
    collective_bandwidth_s: float = 0.0
    custom_allreduce_steps: int = 0  # the framework's own NVLink all-reduce steps (c_custom)
    allreduce_algorithm: str = "none"  # the all-reduce one layer runs (calc/collectives.py)
    is_prefill: bool = False
    tokens: float = 0   # prefill: one call's prompt tokens (k · s_in, or k · c chunked; k may be
    #                     fractional)
    expert_block_gb: float = 0.0  # prefill: GB the MoE expert blocks move (weights + token rows)
    expert_stream_s: float = 0.0  # decode (GPU): routed-expert bytes per core / peak bandwidth
    expert_matmuls: int = 0       # decode (NxD): routed-expert matmul instructions per core
    kv_memory_s: float = 0.0      # decode: the KV-cache read share of memory_s (attention)
    attention_compute_s: float = 0.0  # the attention share of compute_s (at the BF16 peak)
    passes: int = 1               # prefill: the model calls these terms add up (chunked prefill:
    #                               one per chunk, each of `tokens` and each paying the fixed costs)

    @property
    def weights_memory_s(self) -> float:
        """The weights' share of memory_s (what the projections stream)."""
        return self.memory_s - self.kv_memory_s

    @property
    def projection_compute_s(self) -> float:
        """The projections' share of compute_s."""
        return self.compute_s - self.attention_compute_s

    def core_s(self, memory_scale: float, compute_scale: float) -> float:
        """The kernels' time: the projections bound by the weights they stream or by their
        FLOPs, then attention bound by the KV cache it reads or by its FLOPs (separate kernels,
        one after the other), each term times its 1 / η (memory_scale, compute_scale)."""
        return (max(self.weights_memory_s * memory_scale,
                    self.projection_compute_s * compute_scale)
                + max(self.kv_memory_s * memory_scale, self.attention_compute_s * compute_scale))

    def compute_efficiency(self, efficiency: Efficiency) -> float:
        """η_comp, ramped for prefill: η · T / (T + T_half) (small prompts fill the matmul
        units poorly)."""
        if self.is_prefill and efficiency.prefill_half_tokens > 0:
            return efficiency.prefill_compute * self.tokens / (
                self.tokens + efficiency.prefill_half_tokens)
        return efficiency.prefill_compute

    def collective_s(self, efficiency: Efficiency) -> float:
        """The layers' all-reduces: latency steps at c_hop (ring) or c_custom (the framework's own
        kernels) plus their bytes over the link."""
        return (self.collective_hops * efficiency.collective_hop_latency_s
                + self.custom_allreduce_steps * efficiency.custom_allreduce_step_s
                + self.collective_bandwidth_s)

    def time_s(self, efficiency: Efficiency, step_fixed: float = 0.0) -> float:
        # a prefill of several calls (chunked) pays the per-call costs once per call
        fixed = self.passes * step_fixed + (
            self.passes * efficiency.prefill_fixed_latency_s
            + self.expert_block_gb * efficiency.prefill_expert_s_per_gb
            if self.is_prefill else
            self.expert_stream_s * efficiency.decode_expert_extra
            + self.expert_matmuls * efficiency.decode_expert_matmul_ns * SECONDS_PER_NS)
        return (
            self.core_s(1.0 / efficiency.decode_memory, 1.0 / self.compute_efficiency(efficiency))
            + self.collective_s(efficiency)
            + fixed
        )

    def bound(self, efficiency: Efficiency) -> str:
        """What limits the kernels' time: each kernel's larger term (projections: weights or
        FLOPs; attention: KV reads or FLOPs), summed by kind; the larger sum names the bound."""
        memory_scale = 1.0 / efficiency.decode_memory
        compute_scale = 1.0 / self.compute_efficiency(efficiency)
        by_kind = {"bandwidth": 0.0, "compute": 0.0}
        for reads, flops in ((self.weights_memory_s, self.projection_compute_s),
                             (self.kv_memory_s, self.attention_compute_s)):
            reads_s, flops_s = reads * memory_scale, flops * compute_scale
            if flops_s > reads_s:
                by_kind["compute"] += flops_s
            else:
                by_kind["bandwidth"] += reads_s
        return "compute" if by_kind["compute"] > by_kind["bandwidth"] else "bandwidth"


def decode_roofline(
    model: ModelSpec, instance: InstanceSpec, *, tp: int, dtype: str, kv_dtype: str,
    batch: int, context: int, allreduce: str = collectives.RING,
    kv_per_query_head: bool = False,
) -> Roofline:
    """One decode step of `batch` sequences (already padded) at KV length `context`. On Neuron
    (NxD's MoE layer) the routed experts are loaded as nxd_experts_loaded says and their cost
    beyond the bytes is per matmul instruction; on GPU E_touched experts stream, each once.
    kv_per_query_head: the attention kernel reads the KV cache once per query head
    (kv_read_bytes_per_core)."""
    read = decode_experts_read(model, instance, batch)
    expert_bytes = routed_expert_bytes(model, dtype, batch, read)
    matmuls = expert_matmuls_per_core(model, tp, int(read)) \
        if instance.kind == "neuron" and expert_bytes > 0 else 0
    weights = streamed_weight_bytes(model, tp, dtype, batch, read) / tp
    kv_read = kv_read_bytes_per_core(model, tp, kv_dtype, batch, context, kv_per_query_head)
    _, peak = peak_flops_per_core(instance, dtype)
    attention = 4 * attention_token_layers(model, context) * attention_width(model, tp) * batch
    linear = 2 * padded_matmul_params(model, tp) * batch
    reduce = layer_all_reduce(model, instance, tp, batch, allreduce)
    bandwidth, attention_peak = _bandwidth_per_core(instance), _attention_peak(instance, dtype)
    return Roofline(
        memory_s=(weights + kv_read) / bandwidth,
        compute_s=(linear / peak + attention / attention_peak) / tp,
        kv_memory_s=kv_read / bandwidth,
        attention_compute_s=attention / attention_peak / tp,
        collective_hops=ALL_REDUCES_PER_LAYER * model.layers * reduce.ring_steps,
        collective_bandwidth_s=_bandwidth_s(model, instance, reduce),
        custom_allreduce_steps=ALL_REDUCES_PER_LAYER * model.layers * reduce.custom_steps,
        allreduce_algorithm=reduce.algorithm,
        expert_stream_s=0.0 if matmuls else expert_bytes / tp / bandwidth,
        expert_matmuls=matmuls,
    )


def prefill_roofline(
    model: ModelSpec, instance: InstanceSpec, *, tp: int, dtype: str, batch: float, input_len: int,
    allreduce: str = collectives.RING, causal_skip: bool = False, chunk: int | None = None,
    chunk_cache: int | None = None,
) -> Roofline:
    """Prefill of `batch` prompts of `input_len` tokens (padded; with `chunk`, the prompt's own
    length). Causal attention is counted over the full square (the Neuron frameworks' kernels are
    not checked; the fitted prefill efficiency takes up what they skip), or, where the framework's
    kernel skips the masked blocks (causal_skip: FlashAttention), over the unmasked half.
    With `chunk` (chunked prefill), each prompt runs as n = ⌈input_len / chunk⌉ model calls of
    `chunk` tokens (the last padded): the terms of the n calls summed (passes = n), tokens = one
    call's. Call k's queries attend to the cache and to their own chunk: on the full square to
    `chunk_cache` cached positions (a graph that reads the whole compiled cache, masked, as NxD's
    chunked-prefill graph in optimum-neuron does), or to the k · chunk before it when None; with
    causal_skip to the k · chunk before it and causally within the chunk. Each call's read of
    the cached keys is left out of memory_s (a few % of the weights' bytes for these shapes)."""
    if chunk is not None and chunk > 0:
        calls = [_prefill_call(model, instance, tp=tp, dtype=dtype, batch=batch,
                               input_len=chunk, allreduce=allreduce, causal_skip=causal_skip,
                               context_before=k * chunk, cache=chunk_cache)
                 for k in range(-(-input_len // chunk))]
        return _summed_calls(calls)
    return _prefill_call(model, instance, tp=tp, dtype=dtype, batch=batch, input_len=input_len,
                         allreduce=allreduce, causal_skip=causal_skip)


def _summed_calls(calls: list["Roofline"]) -> "Roofline":
    """The model calls of one chunked prefill as one Roofline: every time term summed, the
    tokens of one call (the matmul ramp sees each call), passes = the calls."""
    first = calls[0]
    return replace(
        first,
        memory_s=sum(c.memory_s for c in calls), compute_s=sum(c.compute_s for c in calls),
        attention_compute_s=sum(c.attention_compute_s for c in calls),
        collective_hops=sum(c.collective_hops for c in calls),
        collective_bandwidth_s=sum(c.collective_bandwidth_s for c in calls),
        custom_allreduce_steps=sum(c.custom_allreduce_steps for c in calls),
        expert_block_gb=sum(c.expert_block_gb for c in calls),
        passes=sum(c.passes for c in calls))


def _prefill_call(
    model: ModelSpec, instance: InstanceSpec, *, tp: int, dtype: str, batch: float, input_len: int,
    allreduce: str = collectives.RING, causal_skip: bool = False, context_before: int = 0,
    cache: int | None = None,
) -> Roofline:
    """One prefill model call of `batch` prompts of `input_len` new tokens after
    `context_before` cached ones; on the full square its queries attend to `cache` cached
    positions when given, else to the `context_before` (prefill_roofline)."""
    tokens = batch * input_len
    weights = streamed_weight_bytes(model, tp, dtype, tokens) / tp
    _, peak = peak_flops_per_core(instance, dtype)
    linear = prefill_matmul_flops(model, tp, tokens, batch)
    keys = context_before if cache is None else cache
    pairs = (causal_attention_pairs(model, context_before + input_len)
             - causal_attention_pairs(model, context_before)) if causal_skip \
        else attention_token_layers(model, keys + input_len) * input_len
    attention = 4 * pairs * attention_width(model, tp) * batch
    reduce = layer_all_reduce(model, instance, tp, tokens, allreduce)
    attention_peak = _attention_peak(instance, dtype)
    return Roofline(
        memory_s=weights / _bandwidth_per_core(instance),
        compute_s=(linear / peak + attention / attention_peak) / tp,
        attention_compute_s=attention / attention_peak / tp,
        collective_hops=ALL_REDUCES_PER_LAYER * model.layers * reduce.ring_steps,
        collective_bandwidth_s=_bandwidth_s(model, instance, reduce),
        custom_allreduce_steps=ALL_REDUCES_PER_LAYER * model.layers * reduce.custom_steps,
        allreduce_algorithm=reduce.algorithm,
        is_prefill=True,
        tokens=tokens,
        expert_block_gb=expert_block_gb(model, tp, dtype, round(tokens))
        if instance.kind == "neuron" else 0.0,   # NxD's blockwise MoE: Neuron only
    )


@dataclass(frozen=True, slots=True)
class Workload:
    """What is served: requests in flight (static: the batch), lengths, compiled shapes."""

    batch: int
    input_len: int
    output_len: int
    compiled_batch: int | None = None
    compiled_seq_len: int | None = None
    single_bucket: bool | None = None  # one sequence bucket: prompts and KV at the compiled
    #                                    length (None: as the framework compiles by default)
    evenly_spaced_rate_per_s: float | None = None  # open loop at a constant arrival rate
    burst_run_requests: float | None = None  # a finite run of this many requests whose first
    #                                          ones are sent at once (guidellm 0.1 throughput)
    burst_arrivals: float | None = None  # how many are sent at once (None: `batch`, the C)
    output_len_sd: float | None = None  # spread of the output lengths the load generator draws
    #                                     (normal; None: every request generates output_len)
    queued_requests: float | None = None  # a finite run of this many requests queued at once and
    #                                       served min(`batch`, running limit) at a time until the
    #                                       last has completed (trtllm-bench throughput)
    prefill_chunk_tokens: int | None = None  # chunked prefill: each prompt in model calls of this
    #                                          many tokens, the last padded (None: whole prompts);
    #                                          optimum-neuron's, one prompt per call: a framework
    #                                          whose token budget packs chunks of several prompts
    #                                          into one call is not modelled
    burst_run_timed: bool = False  # the burst run stopped at the tool's time limit, not after
    #                                its last request: its N are the requests completed by then


def check_compiled_shapes(batch: int, input_len: int, output_len: int,
                          compiled_batch: int | None, compiled_seq_len: int | None) -> None:
    """A server compiled for a smaller batch, or a shorter sequence than prompt + output, cannot
    serve the request as asked (a TGI server would cut the prompt): say so, do not estimate."""
    if compiled_batch is not None and compiled_batch < batch:
        raise CalcError("compiled_batch", "compiled_too_small",
                        {"min": batch, "value": compiled_batch})
    if compiled_seq_len is not None and compiled_seq_len < input_len + output_len:
        raise CalcError("compiled_seq_len", "compiled_too_small",
                        {"min": input_len + output_len, "value": compiled_seq_len})


@dataclass(frozen=True, slots=True)
class Serving:
    prefill: Roofline
    decode: Roofline
    padded_batch: int
    padded_input_len: int
    padded_context: int
    prefill_s: float        # one prefill as the engine runs it (static: the whole batch)
    step_s: float           # one decode step
    ttft_s: float
    tpot_s: float
    e2e_s: float
    output_tokens_per_s_per_replica: float
    prefill_share: float    # ρ: fraction of engine time in prefill (continuous batching)
    queue_wait_s: float
    running_batch: int = 0  # continuous: C, the requests the engine runs at once (static: b)
    running_limit: int | None = None  # continuous: the most it runs at once (compiled batch,
    #                                   else the framework's default_max_batch; None: no limit)
    cycle_s: float = 0.0    # continuous closed loop: one request's life in the running batch
    prompts_per_prefill: float = 1.0  # prompts in prefill_s: static, the batch; continuous, the k
    #                                waiting prompts one pass runs together (prompts_per_prefill)
    ttft_prefills: tuple[tuple[float, "Roofline"], ...] = ()  # the prefill passes in ttft_s,
    #                                (weight, pass); () = one `prefill` (burst runs: burst_run)


def prompts_per_prefill(running: int, out: int, prompt_tokens: int,
                        max_num_tokens: int | None) -> float:
    """k, the prompts a continuous-batching engine prefills together in one pass, on average: a
    request lives s_out iterations (its prefill and s_out − 1 decode steps), so in the closed loop
    with `running` requests about C / s_out finish per iteration, and the prompts that replace them
    wait for the next pass, which admits them up to its token budget (max_num_tokens, e.g.
    TensorRT-LLM's scheduler; chunked prefill fills it with part of a prompt):
    k = max(1, min(N_tok / s_in, C / s_out)). Passes alternate between ⌊k⌋ and ⌈k⌉ prompts; a
    pass's time is roughly affine in its prompts, so the pass of the mean k costs about the mean
    (where the budget binds, vLLM and SGLang fill it with a chunk of a prompt; TensorRT-LLM,
    without chunked context, runs whole prompts: not told apart). Without a budget (the Neuron
    frameworks) one prompt per prefill."""
    if not max_num_tokens:
        return 1.0
    return max(1.0, min(max_num_tokens / max(1, prompt_tokens), running / max(1, out)))


def running_cycle(running: int, prefill_s: float, step_s: float, out: int,
                  batched: float = 1.0) -> tuple[float, float, float]:
    """Continuous batching, closed loop with `running` requests in the batch, their prompts
    prefilled `batched` (k) at a time in passes of prefill_s, so each prompt costs the engine
    t_prefill / k: a request's life (cycle = running · t_prefill / k + (s_out − 1) · t_step), the
    engine's share of prefill ρ and the wait of a new request for the running step and the
    queued prompts' share (first order), at most the other requests' share less the rest of its
    own pass ((C − k) · t_prefill / k), so that TPOT stays ≥ t_step (ρ → 1 at short outputs)."""
    per_prompt = prefill_s / batched
    cycle = running * per_prompt + (out - 1) * step_s
    share = running * per_prompt / cycle
    wait = (running - 1) / running * (
        step_s / 2 + share / max(1e-9, 1.0 - share) * per_prompt / 2
    )
    return cycle, share, min(wait, (running - batched) * per_prompt)


def closed_loop_tpot(cycle: float, prefill_s: float, wait: float, step_s: float,
                     out: int) -> float:
    """TPOT of the closed loop of running_cycle: the request's life after its first token,
    (cycle − t_prefill − wait) / (s_out − 1); one output token: the decode step."""
    return (cycle - prefill_s - wait) / (out - 1) if out > 1 else step_s


def burst_run(*, in_flight: float, limit: int | None, run_requests: float,
              prefill_pass: Callable[[float], Roofline], steady_prefill: Roofline,
              efficiency: Efficiency, step_fixed: float, out: int, step_s: float,
              steady_ttft: float, steady_tpot: float, max_num_tokens: int | None,
              prompt_tokens: int, first_tokens_together: bool = False, out_sd: float = 0.0,
              ) -> tuple[float, float, tuple[tuple[float, Roofline], ...], float | None]:
    """Mean TTFT and TPOT over a finite run of N requests whose first A = min(in_flight, N) are
    sent at once, each later one when a request completes (guidellm 0.1.0's throughput profile:
    no rate, at most its concurrency cap less one in flight: in_flight is that, where the source
    states the cap, else the C in flight; LLMPerf's rounds: N = A = C, every request in a burst);
    the prefill passes inside that mean TTFT, (weight, pass) pairs, for the prefill fit; and,
    with aligned waves and every request in the burst (N ≤ A), the run's output tokens/s: the
    A's tokens over the time they take (else None; with N ≤ A on a staggered server serve()
    takes the run's length from queued_run_throughput, unless the tool's time limit stopped the
    run: Workload.burst_run_timed).
    The engine runs the A in waves of W = min(A, running limit): m = ⌊A / W⌋ full waves and a
    last one of r = A − m W, where the waves stay aligned: a server that returns a prefill
    call's first tokens together (below); elsewhere the first tokens come one by one, the
    requests finish and free their slots one by one, and past the first wave the requests join
    as in the closed loop: only the first W are a burst. A wave of w requests is prefilled in
    P = w / n passes of n = min(W, N_tok / s_in) prompts (one without a budget), one after
    another: the i-th pass's requests get their first token at i · t_pass (mean
    (P + 1)/2 · t_pass), then wait for the later passes before their second token (mean
    (P − 1)/2 · t_pass over s_out − 1 tokens) and decode at the step; a server that returns a
    call's first tokens together (first_tokens_together: Framework.wave_prefill, set by the
    measurements of TGI on transformers-neuronx) gives every request of the wave its first token
    at P · t_pass, and the wave then decodes at the step. Wave j starts j · T_wave after the
    first, T_wave = P · t_pass + (s_out,w − 1) · t_step (a full wave's); the A take m · T_wave plus
    the last wave's own time. An aligned wave of w requests whose output lengths vary with a
    spread σ (out_sd: the load generator draws them from a normal distribution, LLMPerf) lasts
    until its longest request ends: s_out,w = s_out + σ · e(w), e(w) the expected maximum of w
    standard normal draws (calc.order_statistics); s_out,w = s_out with σ = 0 or staggered waves.
    The N − A requests sent later see the closed loop at C (steady_ttft, steady_tpot); means
    weighted by the counts."""
    arrivals = max(1.0, min(float(in_flight), run_requests))
    wave = min(arrivals, float(limit)) if limit else arrivals
    if not first_tokens_together:
        # staggered first tokens free the slots one by one: past the first wave the requests
        # join as in the closed loop, so only the first wave is a burst
        arrivals = wave
    per_pass = 1.0 if not max_num_tokens else max(
        1.0, min(wave, max_num_tokens / max(1, prompt_tokens)))
    burst_pass = prefill_pass(per_pass)
    pass_s = burst_pass.time_s(efficiency, step_fixed)
    full = math.floor(arrivals / wave + 1e-9)       # m full waves, then one of `last` requests
    last = max(0.0, arrivals - full * wave)
    passes, last_passes = wave / per_pass, last / per_pass
    spread = out_sd if first_tokens_together else 0.0   # aligned waves wait for their longest

    def longest(requests: float) -> float:   # output tokens of a wave's longest request
        return out + spread * order_statistics.expected_max_standard_normal(requests) \
            if spread else float(out)

    wave_out, last_out = longest(wave), longest(last)
    wave_s = passes * pass_s + (wave_out - 1) * step_s

    def first(p: float) -> float:     # passes to a request's first token, within its wave
        return p if first_tokens_together else (p + 1) / 2

    def stall(p: float) -> float:     # its wait for its wave's later passes, per later token
        return 0.0 if first_tokens_together or out <= 1 else max(0.0, p - 1) / 2 * pass_s / (
            out - 1)

    # Σ over the A of (their wave's index · P + passes to the first token within the wave)
    pass_sum = (wave * (full * (full - 1) / 2 * passes + full * first(passes))
                + last * (full * passes + first(last_passes)))
    step_sum = (wave * full * (full - 1) / 2 + last * full) * (wave_out - 1) * step_s
    burst_ttft = (pass_sum * pass_s + step_sum) / arrivals
    burst_tpot = step_s + (wave * full * stall(passes) + last * stall(last_passes)) / arrivals
    share = min(1.0, arrivals / run_requests)
    prefills = ((share * pass_sum / arrivals, burst_pass), (1 - share, steady_prefill))
    throughput = None
    if share >= 1.0 and first_tokens_together:
        run_s = full * wave_s + (last_passes * pass_s + (last_out - 1) * step_s
                                 if last > 0 else 0.0)
        throughput = arrivals * out / run_s
    return (share * burst_ttft + (1 - share) * steady_ttft,
            share * burst_tpot + (1 - share) * steady_tpot, prefills, throughput)


def queued_run_throughput(requests: float, running: int, out: int, lifetime_s: float,
                          lifetime_of: Callable[[int], float]) -> float:
    """Output tokens/s of a run of N requests of equal lengths queued at once and served B =
    `running` at a time, each slot taking the next request when its own completes, until the last
    has completed (trtllm-bench's offline throughput; a burst run that sent all its N at once,
    guidellm's throughput profile under a cap above N, likewise): g = ⌈N / B⌉ generations, the
    last of r = N − (g − 1) · B ≤ B requests at its own batch; wall time (g − 1) · L(B) +
    L(⌈r⌉), L the lifetime of a request with that many in flight (`lifetime_s` at B, else
    `lifetime_of`; the steady closed loop's cycle, its prompts prefilled as that loop batches
    them); N ≤ B: one generation of N."""
    generations = max(1, math.ceil(requests / running - 1e-9))
    last = min(running, max(1, math.ceil(requests - (generations - 1) * running - 1e-9)))
    last_s = lifetime_s if last == running else lifetime_of(last)
    return requests * out / ((generations - 1) * lifetime_s + last_s)


def serve(
    model: ModelSpec, instance: InstanceSpec, framework: Framework, efficiency: Efficiency,
    step_fixed: float, *, tp: int, dtype: str, kv_dtype: str, work: Workload,
) -> Serving:
    out = max(1, work.output_len)
    active = work.batch
    limit = work.compiled_batch or framework.default_max_batch
    if framework.batching == "continuous" and limit is not None:
        active = min(work.batch, limit)
    padded_batch = batch_bucket(active, framework, work.compiled_batch)
    single = framework.single_bucket if work.single_bucket is None else work.single_bucket
    chunk = work.prefill_chunk_tokens
    bucket = seq_bucket(work.input_len, framework, work.compiled_seq_len, single)
    padded_input = -(-work.input_len // chunk) * chunk if chunk else bucket
    # a chunked prefill's calls read the whole compiled KV cache (masked; optimum-neuron's NxD
    # graph), else, without a compiled length, the prompt's bucket
    cache = work.compiled_seq_len or bucket
    context = seq_bucket(work.input_len + out // 2, framework, work.compiled_seq_len, single)

    def decode_step(batch: int) -> Roofline:
        """One decode step of `batch` padded sequences, as this framework runs it."""
        return decode_roofline(model, instance, tp=tp, dtype=dtype, kv_dtype=kv_dtype,
                               batch=batch, context=context, allreduce=framework.allreduce,
                               kv_per_query_head=framework.kv_read_per_query_head)

    decode = decode_step(padded_batch)
    step = decode.time_s(efficiency, step_fixed)

    def prefill_pass(prompts: float) -> Roofline:
        """One prefill pass of `prompts` padded prompts, as this framework runs it."""
        return prefill_roofline(model, instance, tp=tp, dtype=dtype, batch=prompts,
                                input_len=work.input_len if chunk else padded_input,
                                allreduce=framework.allreduce, causal_skip=framework.causal_skip,
                                chunk=chunk, chunk_cache=cache)

    prefills: tuple[tuple[float, Roofline], ...] = ()
    throughput: float | None = None
    if framework.batching == "continuous":
        # the waiting prompts run as one prefill pass; evenly spaced arrivals (rate · t_prefill
        # < 1) find no other prompt waiting
        batched = 1.0 if work.evenly_spaced_rate_per_s is not None else prompts_per_prefill(
            active, out, padded_input, framework.max_num_tokens)
        prefill = prefill_pass(batched)
        prefill_s = prefill.time_s(efficiency, step_fixed)
        cycle, share, wait = running_cycle(active, prefill_s, step, out, batched)
        slot_wait = (work.batch - active) * cycle / active   # requests beyond the running batch
        ttft = prefill_s + wait + slot_wait
        tpot = closed_loop_tpot(cycle, prefill_s, wait, step, out)
        e2e = cycle + slot_wait
        wait += slot_wait
        if work.evenly_spaced_rate_per_s is not None and out > 1:
            # open loop, evenly spaced arrivals (a constant rate): a new request waits for the
            # running step only, not for queued prefills (the previous arrival's prefill ended
            # 1/rate earlier while rate · t_prefill < 1). Every arrival's prefill stops the
            # running decodes once, so prefills take a share ρ = rate · t_prefill of engine
            # time and TPOT = t_step / (1 − ρ); at most the saturated TPOT, the closed loop
            # with the running batch full at its own step time (beyond it requests queue
            # outside the batch; that queue's wait is not modelled). Without a running-batch
            # limit there is no saturated TPOT: ρ ≥ 1 keeps the closed loop at C above.
            busy = work.evenly_spaced_rate_per_s * prefill_s
            open_tpot = step / (1.0 - busy) if busy < 1.0 else math.inf
            if limit is not None:
                full_step = step
                full_batch = batch_bucket(limit, framework, work.compiled_batch)
                if full_batch != padded_batch:
                    full_step = decode_step(full_batch).time_s(efficiency, step_fixed)
                # the saturated loop's waiting prompts share passes as in the closed loop
                full_k = prompts_per_prefill(limit, out, padded_input, framework.max_num_tokens)
                full_pass_s = prefill_s if full_k == 1.0 else prefill_pass(full_k).time_s(
                    efficiency, step_fixed)
                full_cycle, full_share, full_wait = running_cycle(limit, full_pass_s,
                                                                  full_step, out, full_k)
                saturated = closed_loop_tpot(full_cycle, full_pass_s, full_wait, full_step, out)
                tpot = min(open_tpot, saturated)
                share = min(busy, full_share)
            elif busy < 1.0:
                tpot, share = open_tpot, busy
            ttft = prefill_s + step / 2
            wait = step / 2
            e2e = cycle = ttft + (out - 1) * tpot
        in_flight = work.burst_arrivals or work.batch   # a burst run's requests sent at once
        if work.burst_run_requests and work.burst_run_requests > 0 \
                and work.evenly_spaced_rate_per_s is None:
            ttft, tpot, prefills, throughput = burst_run(
                in_flight=in_flight, limit=limit,
                run_requests=work.burst_run_requests,
                prefill_pass=prefill_pass, steady_prefill=prefill, efficiency=efficiency,
                step_fixed=step_fixed, out=out, step_s=step, steady_ttft=ttft, steady_tpot=tpot,
                max_num_tokens=framework.max_num_tokens, prompt_tokens=padded_input,
                first_tokens_together=framework.wave_prefill, out_sd=work.output_len_sd or 0.0)
            e2e = ttft + (out - 1) * tpot
            wait = ttft - prefill_s
        queued, running = work.queued_requests, active
        if queued is None and throughput is None and work.burst_run_requests \
                and not work.burst_run_timed \
                and in_flight >= work.burst_run_requests:
            # a burst run that sent every request at once (the tool's cap on requests in flight
            # above the run's N, or, no cap stated, C >= N) and ended with its last one lasts,
            # like a queued run, until that request completes: the engine serves min(N, its
            # running limit) at a time (a server with aligned waves: burst_run's own length)
            queued = work.burst_run_requests
            running = max(1, math.ceil(queued - 1e-9))
            running = min(running, limit) if limit is not None else running
        if queued and queued > 0 and work.evenly_spaced_rate_per_s is None:
            def lifetime_of(batch: int) -> float:
                """A request's lifetime with `batch` in flight (the running cycle)."""
                return serve(model, instance, framework, efficiency, step_fixed, tp=tp,
                             dtype=dtype, kv_dtype=kv_dtype,
                             work=replace(work, batch=batch, queued_requests=None,
                                          burst_run_requests=None, burst_arrivals=None)).cycle_s
            throughput = queued_run_throughput(
                queued, running, out, cycle if running == active else lifetime_of(running),
                lifetime_of)
    else:
        prefill = prefill_pass(padded_batch)
        prefill_s = prefill.time_s(efficiency, step_fixed)
        share, wait, batched = 0.0, 0.0, float(padded_batch)
        ttft, tpot = prefill_s, step
        e2e = cycle = ttft + (out - 1) * tpot
    return Serving(
        prefill=prefill, decode=decode, padded_batch=padded_batch,
        padded_input_len=padded_input, padded_context=context, prefill_s=prefill_s,
        step_s=step, ttft_s=ttft, tpot_s=tpot, e2e_s=e2e,
        output_tokens_per_s_per_replica=throughput or work.batch * out / e2e, prefill_share=share,
        queue_wait_s=wait, prompts_per_prefill=batched, running_batch=active,
        running_limit=limit if framework.batching == "continuous" else None, cycle_s=cycle,
        ttft_prefills=prefills,
    )
