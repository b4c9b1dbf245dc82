"""Parameter counts from the shapes, split by what a checkpoint stores in which precision.

Matrices per layer (h = hidden, m = 3 if the MLP is gated else 2):
  GQA attention     h·head_dim·(2·heads + 2·kv_heads)                   (q, o and k, v)
  MLA attention     q: h·q_lora + q_lora·heads·(nope+rope)   (q_lora_rank 0: h·heads·(nope+rope))
                    kv: h·(kv_lora + rope) + kv_lora·heads·(nope + v)   o: heads·v·h
  dense MLP         m·h·intermediate
  MoE layer         experts · m·h·expert_width (routed) + shared · m·h·shared_width
Groups (weight_groups): routed expert matrices (expert dtype), the other linear layers (linear
dtype), and the rest = params − both (embeddings, LM head, norms, router, biases, sinks: the
checkpoint's unquantized dtype). Active parameters = params − moe_layers · (experts − active) ·
params of one routed expert (ModelSpec.active_params; calc.hf_config computes both exactly,
biases included). Matmul parameters (matmul_params) = active − the untied input embedding: what
a token multiplies by, for FLOPs and the weights a step streams.
"""

from dataclasses import dataclass
from functools import cache

from . import dtypes
from .specs import ModelSpec


def mlp_matrices(model: ModelSpec) -> int:
    return 3 if model.gated_mlp else 2


def attention_params_per_layer(model: ModelSpec) -> int:
    """Projection matrices of one attention layer (no biases, no norms)."""
    h = model.hidden
    if model.attention == "mla":
        qk = model.qk_nope_head_dim + model.qk_rope_head_dim
        if model.q_lora_rank:
            q = h * model.q_lora_rank + model.q_lora_rank * model.heads * qk
        else:
            q = h * model.heads * qk
        kv = (h * (model.kv_lora_rank + model.qk_rope_head_dim)
              + model.kv_lora_rank * model.heads * (model.qk_nope_head_dim + model.v_head_dim))
        return q + kv + model.heads * model.v_head_dim * h
    return h * model.head_dim * (2 * model.heads + 2 * model.kv_heads)


def expert_params(model: ModelSpec) -> int:
    """Matrices of one routed expert in one layer: m·h·expert_width."""
    return mlp_matrices(model) * model.hidden * model.expert_width if model.experts else 0


def routed_expert_params(model: ModelSpec) -> int:
    """All routed expert matrices: moe_layers · experts · m·h·expert_width."""
    return model.moe_layers * model.experts * expert_params(model)


def dense_mlp_params(model: ModelSpec) -> int:
    """Dense MLP matrices over all layers with a dense MLP."""
    dense_layers = model.dense_layers if model.experts else model.layers
    return dense_layers * mlp_matrices(model) * model.hidden * model.intermediate


def shared_expert_params(model: ModelSpec) -> int:
    return (model.moe_layers * model.shared_experts * mlp_matrices(model) * model.hidden
            * model.shared_expert_width)


def linear_params(model: ModelSpec) -> int:
    """Linear layers outside the routed experts: attention, dense MLPs, shared experts."""
    return (model.layers * attention_params_per_layer(model) + dense_mlp_params(model)
            + shared_expert_params(model))


@dataclass(frozen=True, slots=True)
class WeightPrecision:
    """Storage dtype of each weight group (see the module doc)."""

    unquantized: str                 # embeddings, LM head, norms, router, biases
    linear: str                      # attention and dense/shared MLP matrices
    expert: str                      # routed expert matrices


def weight_precision(
    model: ModelSpec, dtype: str | None = None, expert_dtype: str | None = None
) -> WeightPrecision:
    """The checkpoint's precision, or an override. ``dtype`` (when it differs from the
    checkpoint's linear dtype) sets every weight; the routed experts follow it unless the
    checkpoint stores them in a format of their own (gpt-oss MXFP4) or ``expert_dtype`` is given."""
    base = model.checkpoint_dtype or "bf16"
    linear = model.linear_dtype or base
    expert = model.expert_dtype or linear
    mixed = expert != linear
    if dtype is not None and dtype != linear:
        base = linear = dtype
    if expert_dtype is not None:
        expert = expert_dtype
    elif not mixed:
        expert = linear
    return WeightPrecision(unquantized=base, linear=linear, expert=expert)


def weight_groups(model: ModelSpec, extra_linear: int = 0) -> dict[str, int]:
    """Parameters per group: {"unquantized", "linear", "expert"} (extra_linear: e.g. padding).
    The groups add up to params + extra_linear (shapes larger than a given params are capped)."""
    experts = min(routed_expert_params(model), model.params)
    linear = min(linear_params(model), model.params - experts)
    rest = model.params - experts - linear
    return {"unquantized": rest, "linear": linear + extra_linear, "expert": experts}


def weights_bytes(model: ModelSpec, precision: WeightPrecision, extra_linear: int = 0) -> int:
    """Bytes of all weights: each dtype's parameter count rounded up to whole bytes once."""
    groups = weight_groups(model, extra_linear)
    by_dtype: dict[str, int] = {}
    for group, count in groups.items():
        dtype = getattr(precision, group)
        by_dtype[dtype] = by_dtype.get(dtype, 0) + count
    return sum(dtypes.bytes_for(count, dtype) for dtype, count in by_dtype.items())


def expert_weights_bytes(model: ModelSpec, precision: WeightPrecision) -> int:
    """Bytes of all routed expert matrices."""
    return dtypes.bytes_for(weight_groups(model)["expert"], precision.expert)


def bytes_per_expert(model: ModelSpec, precision: WeightPrecision) -> int:
    """Bytes of one routed expert in one layer (what decode reads per selected expert)."""
    return dtypes.bytes_for(expert_params(model), precision.expert)


@cache   # on every roofline of a search (streamed bytes, FLOPs, LM head): once per model
def input_embedding_params(model: ModelSpec) -> int:
    """The input embedding table when it is not also the LM head (untied; 0 when tied), at most
    the weights outside the linear layers and experts (a custom shape may give fewer params
    than its vocab implies): a token's lookup reads one row of it and multiplies by none of it,
    so a step neither streams it whole nor counts it in the matmul FLOPs (the LM head, a matmul,
    is counted)."""
    if model.tied_embeddings:
        return 0
    return min(model.vocab * model.hidden, weight_groups(model)["unquantized"])


def matmul_params(model: ModelSpec) -> int:
    """Parameters one token is multiplied by (2 FLOPs each in the forward pass): the active
    parameters without the untied input embedding (``input_embedding_params``; e.g. gpt-oss-20b:
    4.19 B active − 0.58 B = the 3.61 B its model card calls active); at least 1."""
    return max(1, model.active_params - input_embedding_params(model))


def matmul_params_formula(model: ModelSpec) -> str:
    """The show-the-math formula of ``matmul_params`` for this model."""
    if model.tied_embeddings:
        return "active params (the input embedding is the LM head)"
    return "active params − input embedding (vocab · h)"


def lm_head_params(model: ModelSpec) -> int:
    """The LM head (vocab × hidden, tied or not), at most the matmul parameters: the matmul a
    prompt runs for its last token only (the sampled position), every decode step for each
    sequence, and training for every token."""
    return min(model.vocab * model.hidden, matmul_params(model))


@dataclass(frozen=True, slots=True)
class ShapeExtras:
    """The small parameters a config implies besides the matrices (calc.hf_config fills them)."""

    per_layer: int = 0               # norms, attention biases, sinks, qk-norm weights
    per_moe_layer: int = 0           # router (+ bias), score-correction bias, shared-expert gate
    per_expert: int = 0              # biases of one routed expert
    per_dense_mlp: int = 0           # biases of one dense MLP
    final: int = 0                   # final norm


def count(model: ModelSpec, extras: ShapeExtras) -> tuple[int, int]:
    """(total, active) parameters of ``model`` (params/active_params ignored) plus ``extras``."""
    h = model.hidden
    embeddings = model.vocab * h * (1 if model.tied_embeddings else 2)
    dense_layers = model.dense_layers if model.experts else model.layers
    one_expert = expert_params(model) + extras.per_expert
    total = (
        embeddings + extras.final
        + model.layers * (attention_params_per_layer(model) + extras.per_layer)
        + dense_mlp_params(model) + dense_layers * extras.per_dense_mlp
        + shared_expert_params(model)
        + model.moe_layers * (model.experts * one_expert + extras.per_moe_layer)
    )
    active = total - model.moe_layers * (model.experts - model.active_experts) * one_expert
    return total, active
