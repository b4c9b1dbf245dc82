"""The architecture fields of a custom model beyond the dense shape (issue 10), for the api/CLI:
MoE expert width, shared experts and dense layers; MLA (latent and RoPE widths); local layers
(sliding window). ``apply`` turns them into ModelSpec fields; inputs.model calls it inside the
one parse (the fields, their limits and choices are declared in calc.inputs.PARAMS). When
``params`` is not given the counts come from calc.model_shape.count (norms 2·h per layer,
router h·experts per MoE layer, final norm h: the same conventions as
inputs.params_from_architecture).
Custom MLA: q_proj without low rank, qk_nope = v_head = head_dim − qk_rope_head_dim.
"""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from . import inputs, model_shape
from .errors import CalcError
from .specs import ModelSpec

CUSTOM_FIELDS = inputs.CUSTOM_SHAPE_FIELDS  # declared once (calc.inputs.PARAMS)


def given(params: Mapping[str, Any]) -> bool:
    return any(inputs.present(params, name) for name in CUSTOM_FIELDS)


def _int(params: Mapping[str, Any], name: str, maximum: int | None = None) -> int:
    value = inputs.integer(params, name, minimum=0, default=0)
    if maximum is not None and value > maximum:
        raise CalcError(name, "out_of_range", {"min": 0, "max": maximum, "value": value})
    return value


# a field that means something only with another: given without it, it would have no effect
NEEDS: dict[str, str] = {"expert_intermediate": "experts", "shared_experts": "experts",
                         "dense_layers": "experts", "kv_lora_rank": "attention",
                         "qk_rope_head_dim": "attention", "local_window": "local_layers"}


def _check_needs(params: Mapping[str, Any], spec: ModelSpec, attention: str) -> None:
    """Refuse a field given without what it applies to (MoE fields on a dense model, MLA widths
    without attention = mla, a window without local layers, kv_heads with MLA), never ignore
    it."""
    present = {
        "experts": spec.experts > 0, "attention": attention == "mla",
        "local_layers": inputs.present(params, "local_layers")
        and inputs.integer(params, "local_layers", minimum=0) > 0,
    }
    for name, needed in NEEDS.items():
        if inputs.present(params, name) and not present[needed]:
            raise CalcError(name, "needs_field", _with(needed))
    if attention == "mla" and inputs.present(params, "kv_heads"):
        raise CalcError("kv_heads", "not_with_field", _with("attention"))


def _with(needed: str) -> dict[str, str]:
    """The field (and choice) a field applies with: English text in ``value``, the ids in
    ``with_field`` / ``with_choice`` for the page to show by their labels."""
    if needed == "attention":
        return {"value": "attention = mla", "with_field": "attention", "with_choice": "mla"}
    return {"value": needed, "with_field": needed}


def apply(params: Mapping[str, Any], spec: ModelSpec) -> ModelSpec:
    """spec with the custom fields of ``params``; params/active_params recounted unless given."""
    if not given(params):
        return spec
    kinds = inputs.PARAMS["attention"].choices
    attention = inputs.choice(params, "attention", kinds() if kinds else (), default="gqa")
    _check_needs(params, spec, attention)
    dense_layers = _int(params, "dense_layers", spec.layers - 1 if spec.experts else 0)
    local_layers = _int(params, "local_layers", spec.layers)
    local_window = inputs.integer(params, "local_window") if local_layers else 0
    mla: dict[str, Any] = {}
    if attention == "mla":
        rope = inputs.integer(params, "qk_rope_head_dim")
        if rope >= spec.head_dim:
            raise CalcError("qk_rope_head_dim", "out_of_range",
                            {"min": 1, "max": spec.head_dim - 1, "value": rope})
        mla = {"kv_lora_rank": inputs.integer(params, "kv_lora_rank"), "qk_rope_head_dim": rope,
               "qk_nope_head_dim": spec.head_dim - rope, "v_head_dim": spec.head_dim - rope,
               "kv_heads": spec.heads}
    shaped = replace(
        spec,
        expert_intermediate=_int(params, "expert_intermediate") if spec.experts else 0,
        shared_experts=_int(params, "shared_experts") if spec.experts else 0,
        dense_layers=dense_layers, attention=attention, local_layers=local_layers,
        local_window=local_window, local_kind="sliding" if local_layers else "", **mla,
    )
    h = spec.hidden
    total, active = model_shape.count(shaped, model_shape.ShapeExtras(
        per_layer=2 * h, per_moe_layer=h * spec.experts, final=h))
    if inputs.present(params, "params"):
        total = spec.params
        active = min(active, total)
    if inputs.present(params, "active_params"):
        active = spec.active_params
    if active > total:
        raise CalcError("active_params", "out_of_range", {"min": 1, "max": total, "value": active})
    return replace(shaped, params=total, active_params=active)
