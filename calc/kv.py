"""KV cache by attention type: GQA (MHA/MQA), MLA latents, sliding-window and chunked layers.

Per layer and token (E = elements, B_kv = bytes per element of the KV dtype):
  GQA   unique   E = 2 · kv_heads · head_dim                 (one K and one V per KV head)
        per core E = 2 · (kv_heads_eff / t) · head_dim       (kv_heads_eff: the replicate rule of
                    neuronx-distributed get_shardable_head_counts, see kv_layout)
  MLA   unique   E = kv_lora_rank + qk_rope_head_dim          (one latent + one RoPE key, shared by
        per core E = kv_lora_rank + qk_rope_head_dim           all heads: every TP rank keeps the
                                                               whole latent, as vLLM and SGLang do)
Tokens kept per layer: a global layer keeps all s tokens; a local layer keeps min(s, window)
(sliding window: the last `window` tokens; chunked attention (Llama 4): at most one chunk).
  kv_bytes = Σ_groups layers_g · min(s, window_g) · b · E · B_kv
kv_bytes_per_token is constant only without local layers (else None).
"""

from dataclasses import dataclass

from . import dtypes
from .specs import ModelSpec

REPLICATE_TO_TP_DEGREE = "replicate_to_tp_degree"
CONVERT_TO_MHA = "convert_to_mha"
NO_KV_CACHE = "no_kv_cache"
MLA_LATENT_REPLICATED = "mla_latent_replicated"
GLOBAL = "global"
LOCAL = "local"


def head_padding(model: ModelSpec, tp: int) -> int:
    """Query heads added so that t divides them: (−heads) mod t (0 when t divides the heads)."""
    return -model.heads % tp


def kv_layout(model: ModelSpec, tp: int) -> tuple[str, int]:
    """(rule, kv_heads_eff): K/V heads held in total across the t cores (GQA, on the padded
    layout, neuronx-distributed get_shardable_head_counts); MLA: (rule, t) — one latent per core."""
    if not model.is_decoder:
        return NO_KV_CACHE, 0
    if model.attention == "mla":
        return MLA_LATENT_REPLICATED, tp
    kv_heads = model.kv_heads
    if tp % kv_heads == 0 or kv_heads % tp == 0:
        return REPLICATE_TO_TP_DEGREE, max(kv_heads, tp)
    return CONVERT_TO_MHA, model.heads + head_padding(model, tp)


@dataclass(frozen=True, slots=True)
class LayerGroup:
    kind: str                        # "global" | "local"
    layers: int
    window: int | None               # tokens kept (None: all)

    def tokens(self, seq_len: int) -> int:
        return seq_len if self.window is None else min(seq_len, self.window)


def layer_groups(model: ModelSpec) -> tuple[LayerGroup, ...]:
    """Layers by how many tokens they cache (empty for encoders)."""
    if not model.is_decoder:
        return ()
    groups = [LayerGroup(GLOBAL, model.global_layers, None)]
    if model.local_layers:
        groups.append(LayerGroup(LOCAL, model.local_layers, model.local_window))
    return tuple(group for group in groups if group.layers)


def elements_per_token_per_layer(model: ModelSpec) -> int:
    """Unique K/V elements one layer caches per token (one copy)."""
    if not model.is_decoder:
        return 0
    if model.attention == "mla":
        return model.kv_lora_rank + model.qk_rope_head_dim
    return 2 * model.kv_heads * model.head_dim


def elements_per_token_per_layer_per_core(model: ModelSpec, tp: int) -> int:
    """K/V elements one core caches per token and layer at TP degree t (replication included)."""
    if not model.is_decoder:
        return 0
    if model.attention == "mla":
        return model.kv_lora_rank + model.qk_rope_head_dim
    return 2 * (kv_layout(model, tp)[1] // tp) * model.head_dim


def _token_layers(model: ModelSpec, seq_len: int) -> int:
    """Σ over layers of the tokens each layer keeps."""
    return sum(group.layers * group.tokens(seq_len) for group in layer_groups(model))


def unique_bytes(model: ModelSpec, kv_dtype: str, batch: int, seq_len: int) -> int:
    """KV cache of one copy of the model (no replication)."""
    elements = _token_layers(model, seq_len) * batch * elements_per_token_per_layer(model)
    return dtypes.bytes_for(elements, kv_dtype)


def per_core_bytes(model: ModelSpec, tp: int, kv_dtype: str, batch: int, seq_len: int) -> int:
    """KV cache one core holds at TP degree t (GQA: its share of the replicated heads; MLA: the
    whole latent)."""
    per_layer = elements_per_token_per_layer_per_core(model, tp)
    return dtypes.bytes_for(_token_layers(model, seq_len) * batch * per_layer, kv_dtype)


def bytes_per_token_per_layer(model: ModelSpec, kv_dtype: str) -> int:
    """Unique KV bytes of one token in one layer (the same for global and local layers)."""
    return dtypes.bytes_for(elements_per_token_per_layer(model), kv_dtype)


def bytes_per_token_by_layer_type(model: ModelSpec, kv_dtype: str) -> dict[str, int]:
    """Unique KV bytes per token summed over the layers of each type ("global", "local"); a
    local layer stops adding once it holds its window."""
    per_layer = elements_per_token_per_layer(model)
    return {
        group.kind: dtypes.bytes_for(group.layers * per_layer, kv_dtype)
        for group in layer_groups(model)
    }


def bytes_per_token(model: ModelSpec, kv_dtype: str) -> int | None:
    """Unique KV bytes per token of context (batch 1) when constant: no local layers."""
    if not model.is_decoder:
        return 0
    if model.local_layers:
        return None
    return dtypes.bytes_for(model.layers * elements_per_token_per_layer(model), kv_dtype)
