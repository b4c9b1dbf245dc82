"""A Hugging Face config.json (the parsed JSON object) -> ModelSpec with exact parameter counts.

Supported model_type values: see SUPPORTED. Multimodal configs (gemma3, llama4) are read from
their ``text_config`` (the language model; vision encoders are not counted). Keys a config omits
take transformers' defaults (src/transformers/models/<type>/configuration_<type>.py) where listed
in DEFAULTS; the keys in REQUIRED must be in the file (but for the few in MAY_OMIT that published
configs leave out). Unknown keys are ignored. The maximum positions follow YaRN RoPE scaling
(_max_positions). Encoder-only types are refused with a pointer to the custom shape. Any problem
raises CalcError(field="hf_config") with one clear line (the CLI exits 2).

Layer patterns: ``layer_types`` when given; else gemma2 alternates sliding/full (sliding first),
gemma3 has one full layer in every ``sliding_window_pattern`` (6), gpt_oss alternates, llama4's
RoPE layers (``no_rope_layers``, default: all but every 4th) use chunked attention, and
mistral/mixtral/phi3 use ``sliding_window`` on every layer (qwen2/qwen3: only with
``use_sliding_window``, on layers ≥ ``max_window_layers``).
Precision: ``torch_dtype`` (or ``dtype``) is the unquantized dtype; ``quantization_config``:
fp8 with weight_block_size [128, 128] -> fp8_block128 on all linear layers, fp8 without blocks ->
fp8, mxfp4 -> mxfp4 routed experts (a model without experts stays unquantized), awq/gptq
4-bit group g -> int4_g<g> (8-bit -> int8) on all linear layers; compressed-tensors with one
scheme: fp8 / int8 / int4 group g likewise.
The formats' scales are counted (calc.dtypes.FORMAT_BITS); int4_g<g> counts a 4-bit zero point
per group, also for symmetric schemes that store none (< 1 % of the int4 bytes). A known method
with another setting (fp8 blocks 64×64, awq group 256) is refused naming that setting
(hf_unsupported_quantization_setting); an unknown method names the method.
"""

from collections.abc import Mapping
from typing import Any

from . import model_shape
from .errors import CalcError
from .specs import ModelSpec

FIELD = "hf_config"
MAX_CONFIG_CHARS = 1_000_000   # a real config.json is a few kB; the page and the CLI stop here
SUPPORTED = (
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "deepseek_v2",
    "deepseek_v3", "gemma2", "gemma3", "gemma3_text", "gpt_oss", "llama4", "llama4_text", "phi3",
    "granite", "olmo2",
)
NESTED = ("gemma3", "llama4")        # the language model is in text_config
# parts of a multimodal config.json outside the language model, which calc does not count
UNCOUNTED_PARTS = ("vision_config",)
# types vLLM will not run in float16 (vllm/config/model.py _FLOAT16_NOT_SUPPORTED_MODELS:
# "Numerical instability. Please use bfloat16 or float32 instead.")
FP16_UNSTABLE = ("gemma2", "gemma3_text")

# transformers' defaults for keys real configs omit (configuration_<type>.py)
DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma2": {"vocab_size": 256000, "head_dim": 256, "num_key_value_heads": 4,
               "sliding_window": 4096, "max_position_embeddings": 8192,
               "tie_word_embeddings": True},
    "gemma3_text": {"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
                    "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
                    "head_dim": 256, "max_position_embeddings": 131072, "sliding_window": 4096,
                    "sliding_window_pattern": 6, "tie_word_embeddings": True},
    "gpt_oss": {"head_dim": 64, "sliding_window": 128, "attention_bias": True,
                "tie_word_embeddings": False},
    "llama4_text": {"head_dim": 128, "intermediate_size_mlp": 16384,
                    "interleave_moe_layer_step": 1, "no_rope_layer_interval": 4,
                    "attention_chunk_size": 8192, "num_local_experts": 16,
                    "num_experts_per_tok": 1, "tie_word_embeddings": False},
    "mistral": {"sliding_window": 4096},
    "qwen3": {"head_dim": 128},
    "qwen3_moe": {"head_dim": 128, "decoder_sparse_step": 1, "mlp_only_layers": []},
    "qwen2_moe": {"decoder_sparse_step": 1, "mlp_only_layers": []},
    "deepseek_v2": {"first_k_dense_replace": 0, "moe_layer_freq": 1, "topk_method": "greedy"},
    "deepseek_v3": {"first_k_dense_replace": 3, "moe_layer_freq": 1, "topk_method": "noaux_tc",
                    "n_shared_experts": 1},
}
# required keys that published configs leave to transformers' default (DEFAULTS): the
# text_config of google/gemma-3-4b-it names neither vocab_size nor num_attention_heads (8), that
# of google/gemma-3-27b-it no vocab_size; every other required key must be in the file
MAY_OMIT: dict[str, tuple[str, ...]] = {"gemma3_text": ("vocab_size", "num_attention_heads")}
# encoder-only model types: refused with a pointer to the custom shape (architecture encoder)
ENCODERS = ("bert", "roberta", "xlm-roberta", "distilbert", "deberta", "deberta-v2", "electra",
            "albert", "modernbert", "camembert")
REQUIRED_COMMON = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
                   "intermediate_size")
REQUIRED: dict[str, tuple[str, ...]] = {
    "mixtral": ("num_local_experts", "num_experts_per_tok"),
    "qwen2_moe": ("num_experts", "num_experts_per_tok", "moe_intermediate_size",
                  "shared_expert_intermediate_size"),
    "qwen3_moe": ("num_experts", "num_experts_per_tok", "moe_intermediate_size"),
    "deepseek_v2": ("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
                    "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"),
    "deepseek_v3": ("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
                    "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"),
    "gpt_oss": ("num_local_experts",),
}
TORCH_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}
# sanity limits (the same as calc.inputs.LIMITS for the custom shape); other integers: MAX_VALUE
MAXIMA = {"num_hidden_layers": 10_000, "hidden_size": 1_048_576, "num_attention_heads": 65_536,
          "num_key_value_heads": 65_536, "head_dim": 65_536, "vocab_size": 16_777_216,
          "intermediate_size": 16_777_216}
MAX_VALUE = 2**40


def _fail(key: str, params: Mapping[str, Any] | None = None) -> CalcError:
    return CalcError(FIELD, key, dict(params or {}))


class _Reader:
    """Typed access to one (merged) config with defaults; errors name the key."""

    def __init__(self, raw: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
        self.raw = raw
        self.defaults = defaults

    def get(self, key: str) -> Any:
        """The config's value (an explicit null stays null), else transformers' default."""
        return self.raw[key] if key in self.raw else self.defaults.get(key)

    def has(self, key: str) -> bool:
        return self.get(key) is not None

    def integer(self, key: str, default: int | None = None, minimum: int = 1) -> int:
        value = self.get(key)
        if value is None:
            if default is None:
                raise _fail("hf_missing_key", {"value": key})
            return default
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        maximum = MAXIMA.get(key, MAX_VALUE)
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            raise _fail("hf_quoted_number", {"value": key})
        if (not isinstance(value, int) or isinstance(value, bool) or value < minimum
                or value > maximum):
            raise _fail("hf_bad_integer", {"value": key, "min": minimum, "max": maximum})
        return value

    def optional_integer(self, key: str) -> int | None:
        return self.integer(key, minimum=0) if self.has(key) else None

    def flag(self, key: str, default: bool) -> bool:
        value = self.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise _fail("hf_bad_flag", {"value": key})
        return value

    def int_list(self, key: str) -> list[int] | None:
        value = self.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise _fail("hf_bad_value", {"value": key})
        return list(value)

    def str_list(self, key: str) -> list[str] | None:
        value = self.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _fail("hf_bad_value", {"value": key})
        return list(value)


def _text_config(config: Mapping[str, Any], model_type: str) -> tuple[str, dict[str, Any]]:
    """(text model_type, merged text config): nested text_config wins, top level fills gaps."""
    if model_type not in NESTED:
        return model_type, dict(config)
    nested = config.get("text_config")
    if nested is None:
        nested = {}
    if not isinstance(nested, dict):
        raise _fail("hf_bad_value", {"value": "text_config"})
    merged = {k: v for k, v in config.items() if k not in ("text_config", "vision_config")}
    merged.update(nested)
    return f"{model_type}_text", merged


def _layer_pattern(model_type: str, cfg: _Reader, layers: int) -> tuple[int, int, str]:
    """(local layers, window, kind)."""
    types = cfg.str_list("layer_types")
    if model_type == "llama4_text":
        chunk = cfg.optional_integer("attention_chunk_size")
        if not chunk:
            return 0, 0, ""
        if types is not None and len(types) != layers:   # as for every other model type
            raise _fail("hf_bad_value", {"value": "layer_types"})
        if types is not None:
            local = sum(1 for t in types if t in ("chunked_attention", "sliding_attention"))
            return local, chunk, "chunked"
        rope = cfg.int_list("no_rope_layers")
        if rope and len(rope) == layers:
            return sum(1 for flag in rope if flag), chunk, "chunked"
        interval = cfg.integer("no_rope_layer_interval")
        return sum(1 for i in range(layers) if (i + 1) % interval != 0), chunk, "chunked"
    window = cfg.optional_integer("sliding_window") or 0
    if model_type in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe"):
        if not cfg.flag("use_sliding_window", False) or not window:
            return 0, 0, ""
        if types is None:
            first = cfg.integer("max_window_layers", default=layers, minimum=0)
            return max(0, layers - first), window, "sliding"
    if not window:
        return 0, 0, ""
    if types is not None:
        if len(types) != layers:
            raise _fail("hf_bad_value", {"value": "layer_types"})
        return sum(1 for t in types if t == "sliding_attention"), window, "sliding"
    if model_type in ("gemma2", "gpt_oss"):
        return sum(1 for i in range(layers) if (i + 1) % 2), window, "sliding"
    if model_type == "gemma3_text":
        pattern = cfg.integer("sliding_window_pattern", default=6)
        return sum(1 for i in range(layers) if (i + 1) % pattern), window, "sliding"
    if model_type in ("mistral", "mixtral", "phi3", "qwen2", "qwen3", "qwen2_moe", "qwen3_moe"):
        return layers, window, "sliding"
    return 0, 0, ""


def _max_positions(cfg: _Reader) -> int | None:
    """The longest sequence the config serves: max_position_embeddings, or with YaRN RoPE
    scaling (rope_scaling / rope_parameters, type "yarn") factor × original_max_position_embeddings
    when that is longer, as vLLM derives its max_model_len (vllm/config.py
    _get_and_verify_max_len; Qwen2.5's model cards enable 131,072 tokens this way). Other
    scaling types keep the stated maximum (their conventions differ by model)."""
    stated = (cfg.integer("max_position_embeddings", minimum=1)
              if cfg.has("max_position_embeddings") else None)
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if not isinstance(rope, dict) or (rope.get("rope_type") or rope.get("type")) != "yarn":
        return stated
    factor = rope.get("factor")
    original = rope.get("original_max_position_embeddings", stated)
    if (isinstance(factor, bool) or not isinstance(factor, int | float) or not factor >= 1
            or isinstance(original, bool) or not isinstance(original, int) or original < 1):
        raise _fail("hf_bad_value", {"value": "rope_scaling"})
    scaled = min(int(original * factor), MAX_VALUE)
    return scaled if stated is None else max(stated, scaled)


def _mla_head_dim(cfg: _Reader) -> int:
    """An MLA head's query/key width (nope + rope), within the head_dim limit of every shape."""
    width = cfg.integer("qk_nope_head_dim") + cfg.integer("qk_rope_head_dim")
    if width > MAXIMA["head_dim"]:
        raise _fail("hf_bad_value", {"value": "qk_rope_head_dim"})
    return width


def _layer_indices(cfg: _Reader, key: str, layers: int) -> list[int] | None:
    """A list of layer indices, each one of the model's layers (0 .. layers - 1): an index
    outside them is refused, never read as no layer (moe_layers [999, -1] made Llama 4 dense)."""
    listed = cfg.int_list(key)
    if listed is not None and any(not 0 <= index < layers for index in listed):
        raise _fail("hf_bad_value", {"value": key})
    return listed


def _moe_layer_flags(model_type: str, cfg: _Reader, layers: int, experts: int) -> list[bool]:
    if not experts:
        return [False] * layers
    if model_type in ("deepseek_v2", "deepseek_v3"):
        first = cfg.integer("first_k_dense_replace", minimum=0)
        if first > layers:   # more dense layers than layers: not a config of this model
            raise _fail("hf_bad_value", {"value": "first_k_dense_replace"})
        freq = cfg.integer("moe_layer_freq")
        return [i >= first and i % freq == 0 for i in range(layers)]
    if model_type in ("qwen2_moe", "qwen3_moe"):
        only = set(_layer_indices(cfg, "mlp_only_layers", layers) or [])
        step = cfg.integer("decoder_sparse_step")
        return [i not in only and (i + 1) % step == 0 for i in range(layers)]
    if model_type == "llama4_text":
        listed = _layer_indices(cfg, "moe_layers", layers)
        if listed is None:
            step = cfg.integer("interleave_moe_layer_step")
            listed = list(range(step - 1, layers, step))
        chosen = set(listed)
        return [i in chosen for i in range(layers)]
    return [True] * layers


def _precision(config: Mapping[str, Any], cfg: _Reader) -> tuple[str, str, str | None]:
    """(unquantized dtype, linear dtype, routed expert dtype or None = same as linear)."""
    torch_dtype = cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16"
    if not isinstance(torch_dtype, str) or torch_dtype not in TORCH_DTYPES:
        raise _fail("hf_bad_value", {"value": "torch_dtype"})
    base = TORCH_DTYPES[torch_dtype]
    quant = config.get("quantization_config") or cfg.get("quantization_config")
    if quant is None:
        return base, base, None
    if not isinstance(quant, dict):
        raise _fail("hf_bad_value", {"value": "quantization_config"})
    method = str(quant.get("quant_method", ""))
    if method == "fp8":
        return base, _fp8(quant), None
    if method == "mxfp4":
        return base, base, "mxfp4"
    if method in ("awq", "gptq"):
        return base, _awq_gptq(quant, method), None
    if method == "compressed-tensors":
        return base, _compressed_tensors(quant), None
    raise _fail("hf_unsupported_quantization", {"value": method[:40] or "?"})


def _setting(method: str, key: str, value: Any, allowed: list[Any]) -> CalcError:
    """A known method with a setting calc has no format for: names the setting and the values
    that are supported (not the method, which is)."""
    return _fail("hf_unsupported_quantization_setting",
                 {"value": f"{method} {key} {_brief(value)}", "allowed": allowed})


def _brief(value: Any) -> str:
    """A config value as JSON (text as it is), cut at 24 characters."""
    import json

    try:
        text = value if isinstance(value, str) else json.dumps(value)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= 24 else text[:23] + "…"


def _fp8(quant: Mapping[str, Any]) -> str:
    """fp8 per tensor, or fp8_block128 with weight_block_size [128, 128]."""
    block = quant.get("weight_block_size")
    if block is None:
        return "fp8"
    if block == [128, 128]:
        return "fp8_block128"
    raise _setting("fp8", "weight_block_size", block, ["[128, 128]"])


def _awq_gptq(quant: Mapping[str, Any], method: str) -> str:
    """int8 (8 bits), int4_g<g> (4 bits, group 32/64/128) or int4 (4 bits, group -1)."""
    bits = quant.get("bits", quant.get("w_bit"))
    if bits is None:
        raise _fail("hf_missing_key", {"value": "quantization_config.bits"})
    if bits == 8:
        return "int8"
    if bits != 4:
        raise _setting(method, "bits", bits, [4, 8])
    group = quant.get("group_size", quant.get("q_group_size"))
    if group in (32, 64, 128):
        return f"int4_g{group}"
    if group == -1:
        return "int4"
    if group is None:
        raise _fail("hf_missing_key", {"value": "quantization_config.group_size"})
    raise _setting(method, "group_size", group, [32, 64, 128, -1])


CT_FORMATS = ["fp8", "fp8_block128", "int8", "int4_g32", "int4_g64", "int4_g128"]


def _compressed_tensors(quant: Mapping[str, Any]) -> str:
    """The weight format of a compressed-tensors config with one scheme (llm-compressor FP8,
    W8A8, W4A16): fp8 (block 128×128: fp8_block128), int8, int4 with group 32/64/128."""
    groups = quant.get("config_groups")
    if not isinstance(groups, dict):
        raise _fail("hf_bad_value", {"value": "quantization_config.config_groups"})
    if len(groups) != 1:
        raise _fail("hf_unsupported_quantization_setting",
                    {"value": f"compressed-tensors: {len(groups)} config_groups", "allowed": [1]})
    scheme = next(iter(groups.values()))
    weights = scheme.get("weights") if isinstance(scheme, dict) else None
    if not isinstance(weights, dict):
        raise _fail("hf_bad_value", {"value": "quantization_config.config_groups"})
    bits, kind = weights.get("num_bits"), weights.get("type")
    block, group = weights.get("block_structure"), weights.get("group_size")
    if bits == 8 and kind == "float" and block in (None, [128, 128]):
        return "fp8" if block is None else "fp8_block128"
    if bits == 8 and kind == "int":
        return "int8"
    if bits == 4 and kind == "int" and group in (32, 64, 128):
        return f"int4_g{group}"
    shown = ", ".join(f"{key} {_brief(weights[key])}" for key in
                     ("type", "num_bits", "group_size", "block_structure")
                     if weights.get(key) is not None)
    raise _fail("hf_unsupported_quantization_setting",
                {"value": f"compressed-tensors weights {shown}"[:80], "allowed": CT_FORMATS})


def uncounted_parts(config: Any) -> tuple[str, ...]:
    """The encoders of a multimodal config.json that calc leaves out (``UNCOUNTED_PARTS`` present
    as objects): its figures are the language model's, and the results say so."""
    if not isinstance(config, dict):
        return ()
    return tuple(part for part in UNCOUNTED_PARTS if isinstance(config.get(part), dict))


def parse(config: Any, model_id: str = "hf-config") -> ModelSpec:
    """ModelSpec of a parsed config.json (CalcError with field "hf_config" on any problem)."""
    if not isinstance(config, dict):
        raise _fail("hf_config_not_object")
    outer_type = config.get("model_type")
    if not isinstance(outer_type, str) or not outer_type:
        raise _fail("hf_missing_key", {"value": "model_type"})
    if outer_type in ENCODERS:
        raise _fail("hf_encoder_model_type", {"value": outer_type})
    if outer_type not in SUPPORTED:
        raise _fail("hf_unsupported_model_type", {"value": outer_type[:40]})
    model_type, merged = _text_config(config, outer_type)
    cfg = _Reader(merged, DEFAULTS.get(model_type, {}))
    for key in (*REQUIRED_COMMON, *REQUIRED.get(model_type, ())):
        # in the file itself: a default stands in only for a key published configs omit
        if key not in merged and key not in MAY_OMIT.get(model_type, ()):
            where = f"text_config.{key}" if outer_type in NESTED else key
            raise _fail("hf_missing_key", {"value": where})
        cfg.integer(key)
    return _build(model_type, cfg, config, model_id)


def _build(model_type: str, cfg: _Reader, config: Mapping[str, Any], model_id: str) -> ModelSpec:
    h = cfg.integer("hidden_size")
    layers = cfg.integer("num_hidden_layers")
    heads = cfg.integer("num_attention_heads")
    kv_heads = cfg.integer("num_key_value_heads", default=heads)
    if heads % kv_heads:
        raise _fail("hf_kv_heads_not_divisor", {"value": kv_heads, "heads": heads})
    head_dim = cfg.integer("head_dim", default=max(1, h // heads))
    intermediate = cfg.integer("intermediate_size")
    vocab = cfg.integer("vocab_size")
    tied = cfg.flag("tie_word_embeddings", model_type in ("gemma2", "gemma3_text"))
    mla = model_type in ("deepseek_v2", "deepseek_v3")
    # MoE
    experts = active = expert_width = shared = shared_width = 0
    if model_type in ("mixtral", "gpt_oss", "llama4_text"):
        experts = cfg.integer("num_local_experts")
        key = "experts_per_token" if model_type == "gpt_oss" and not cfg.has(
            "num_experts_per_tok") else "num_experts_per_tok"
        active = cfg.integer(key)
        expert_width = intermediate
    elif model_type in ("qwen2_moe", "qwen3_moe"):
        experts = cfg.integer("num_experts", minimum=0)
        active = cfg.integer("num_experts_per_tok")
        expert_width = cfg.integer("moe_intermediate_size")
        if model_type == "qwen2_moe":
            shared, shared_width = 1, cfg.integer("shared_expert_intermediate_size")
    elif mla:
        experts = cfg.integer("n_routed_experts")
        active = cfg.integer("num_experts_per_tok")
        expert_width = cfg.integer("moe_intermediate_size")
        shared = cfg.integer("n_shared_experts", default=0, minimum=0)
        shared_width = expert_width
    if model_type == "llama4_text":
        shared, shared_width = 1, intermediate
        intermediate = cfg.integer("intermediate_size_mlp")
    if active > experts:
        raise _fail("hf_experts_per_token_too_many", {"value": active, "experts": experts})
    moe_flags = _moe_layer_flags(model_type, cfg, layers, experts)
    dense_layers = sum(1 for flag in moe_flags if not flag) if experts else 0
    local, window, kind = _layer_pattern(model_type, cfg, layers)
    base, linear, expert_dtype = _precision(config, cfg)
    if not experts:   # mxfp4 quantizes the routed experts only: a dense model has none
        expert_dtype = None
    spec = ModelSpec(
        id=model_id, name=str(config.get("_name_or_path") or model_type)[:80],
        architecture="decoder", params=0, active_params=0, layers=layers, hidden=h,
        heads=heads,
        kv_heads=heads if mla else kv_heads,
        head_dim=_mla_head_dim(cfg) if mla else head_dim,
        intermediate=intermediate, vocab=vocab, gated_mlp=True, tied_embeddings=tied,
        experts=experts, active_experts=active,
        max_position_embeddings=_max_positions(cfg),
        expert_intermediate=expert_width if expert_width != intermediate else 0,
        shared_experts=shared,
        shared_expert_intermediate=shared_width if shared_width != (expert_width or intermediate)
        else 0,
        dense_layers=dense_layers,
        attention="mla" if mla else "gqa",
        q_lora_rank=(cfg.optional_integer("q_lora_rank") or 0) if mla else 0,
        kv_lora_rank=cfg.integer("kv_lora_rank") if mla else 0,
        qk_rope_head_dim=cfg.integer("qk_rope_head_dim") if mla else 0,
        qk_nope_head_dim=cfg.integer("qk_nope_head_dim") if mla else 0,
        v_head_dim=cfg.integer("v_head_dim") if mla else 0,
        local_layers=local, local_window=window if local else 0, local_kind=kind if local else "",
        checkpoint_dtype=base, linear_dtype=linear if linear != base else None,
        expert_dtype=expert_dtype,
        fp16_unstable=model_type in FP16_UNSTABLE,
    )
    total, active_params = model_shape.count(spec, _extras(model_type, cfg, spec))
    return _with_params(spec, total, active_params)


def _with_params(spec: ModelSpec, total: int, active: int) -> ModelSpec:
    from dataclasses import replace

    return replace(spec, params=total, active_params=active)


def _extras(model_type: str, cfg: _Reader, spec: ModelSpec) -> model_shape.ShapeExtras:
    """Norms, biases, sinks and routers: the parameters besides the matrices."""
    h, hd = spec.hidden, spec.head_dim
    q_width, kv_width = spec.heads * hd, spec.kv_heads * hd
    norms = 2 * h
    per_layer = 0
    if model_type in ("gemma2", "gemma3_text"):
        norms = 4 * h
    if model_type in ("qwen3", "qwen3_moe", "gemma3_text"):
        per_layer += 2 * hd                              # q_norm, k_norm over head_dim
    if model_type == "olmo2":
        per_layer += q_width + kv_width                  # q_norm, k_norm over the projections
    if model_type in ("qwen2", "qwen2_moe"):
        per_layer += q_width + 2 * kv_width              # q, k, v biases
    elif model_type == "gpt_oss" or (
        model_type in ("llama", "mistral", "granite") and cfg.flag("attention_bias", False)
    ):
        per_layer += q_width + 2 * kv_width + h          # q, k, v, o biases
    if model_type == "gpt_oss":
        per_layer += spec.heads                          # attention sinks
    if spec.attention == "mla":
        norms += spec.kv_lora_rank + spec.q_lora_rank    # kv_a_layernorm, q_a_layernorm
    per_moe_layer = h * spec.experts if spec.experts else 0   # router
    per_expert = 0
    if model_type == "gpt_oss":
        per_moe_layer += spec.experts                    # router bias
        per_expert = 2 * spec.expert_width + h           # gate_up and down biases
    if model_type == "deepseek_v3" or (
        model_type == "deepseek_v2" and cfg.get("topk_method") == "noaux_tc"
    ):
        per_moe_layer += spec.experts                    # e_score_correction_bias
    if model_type == "qwen2_moe":
        per_moe_layer += h                               # shared_expert_gate
    per_dense_mlp = 0
    if model_type in ("llama", "granite") and cfg.flag("mlp_bias", False):
        per_dense_mlp = 2 * spec.intermediate + h
    return model_shape.ShapeExtras(
        per_layer=per_layer + norms, per_moe_layer=per_moe_layer, per_expert=per_expert,
        per_dense_mlp=per_dense_mlp, final=h,
    )
