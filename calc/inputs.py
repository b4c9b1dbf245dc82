"""Input validation: every request parameter is checked here and bad values raise CalcError.

Accepts JSON numbers or numeric strings (CLI arguments, form fields); rejects booleans, NaN,
infinities, non-integers where an integer is needed, and values outside sane limits.
"""

import math
from collections.abc import Iterable, Mapping
from typing import Any

from . import data
from .errors import CalcError
from .specs import ModelSpec

Params = Mapping[str, Any]

# upper limits that keep every formula finite and meaningful
LIMITS: dict[str, int] = {
    "batch": 1_048_576,
    "seq_len": 16_777_216,
    "input_len": 16_777_216,
    "output_len": 16_777_216,
    "params": 100_000_000_000_000,
    "layers": 10_000,
    "hidden": 1_048_576,
    "heads": 65_536,
    "kv_heads": 65_536,
    "head_dim": 65_536,
    "intermediate": 16_777_216,
    "vocab": 16_777_216,
    "experts": 65_536,
    "active_experts": 65_536,
    "tp": 65_536,
    "compiled_batch": 1_048_576,
    "compiled_seq_len": 16_777_216,
    "dp": 1_048_576,
    "count": 1_000_000,
    "tokens": 10**18,
    "zero": 3,
}
MAX_HOURS = 10_000_000.0

ARCHITECTURE_FIELDS = (
    "params", "active_params", "layers", "hidden", "heads", "kv_heads", "head_dim",
    "intermediate", "vocab", "gated", "tied", "experts", "active_experts", "architecture",
)
MODEL_FIELDS = ("model", *ARCHITECTURE_FIELDS)


def present(params: Params, name: str) -> bool:
    value = params.get(name)
    return value is not None and value != ""


def check_known(params: Params, allowed: Iterable[str]) -> None:
    allowed_set = set(allowed)
    for name in params:
        if name not in allowed_set:
            raise CalcError(str(name), "unknown_field", {"value": str(name)})


def _number(params: Params, name: str) -> float:
    value = params[name]
    if isinstance(value, bool):
        raise CalcError(name, "must_be_number", {"value": str(value)})
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                raise CalcError(name, "must_be_number", {"value": value[:40]}) from None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CalcError(name, "must_be_finite", {"value": str(value)})
        return value
    raise CalcError(name, "must_be_number", {"value": type(value).__name__})


def integer(params: Params, name: str, *, minimum: int = 1, default: int | None = None) -> int:
    """A whole number in [minimum, LIMITS[name]]; default when absent (else missing_field)."""
    if not present(params, name):
        if default is None:
            raise CalcError(name, "missing_field")
        return default
    value = _number(params, name)
    if isinstance(value, float):
        if not value.is_integer():
            raise CalcError(name, "must_be_positive_int", {"min": minimum, "value": value})
        value = int(value)
    maximum = LIMITS.get(name, 2**62)
    if value < minimum:
        raise CalcError(name, "must_be_positive_int", {"min": minimum, "value": value})
    if value > maximum:
        raise CalcError(name, "out_of_range", {"min": minimum, "max": maximum, "value": value})
    return int(value)


def optional_integer(params: Params, name: str, *, minimum: int = 1) -> int | None:
    return integer(params, name, minimum=minimum) if present(params, name) else None


def number(
    params: Params,
    name: str,
    *,
    above: float = 0.0,
    maximum: float,
    default: float | None = None,
) -> float:
    """A finite number > above and <= maximum."""
    if not present(params, name):
        if default is None:
            raise CalcError(name, "missing_field")
        return default
    value = float(_number(params, name))
    if value <= above:
        raise CalcError(name, "must_be_positive_number", {"min": above, "value": value})
    if value > maximum:
        raise CalcError(name, "out_of_range", {"min": above, "max": maximum, "value": value})
    return value


def choice(params: Params, name: str, allowed: Iterable[str], default: str | None = None) -> str:
    options = list(allowed)
    if not present(params, name):
        if default is None:
            raise CalcError(name, "missing_field", {"allowed": options})
        return default
    value = params[name]
    if not isinstance(value, str):
        raise CalcError(name, "must_be_text", {"value": str(value)[:40]})
    if value not in options:
        raise CalcError(name, "unknown_choice", {"value": value[:40], "allowed": options})
    return value


def text(params: Params, name: str, default: str | None = None) -> str:
    if not present(params, name):
        if default is None:
            raise CalcError(name, "missing_field")
        return default
    value = params[name]
    if not isinstance(value, str):
        raise CalcError(name, "must_be_text", {"value": str(value)[:40]})
    return value.strip()


def flag(params: Params, name: str, default: bool) -> bool:
    if not present(params, name):
        return default
    value = params[name]
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
        return value.lower() in ("true", "1", "yes")
    raise CalcError(name, "unknown_choice", {"value": str(value)[:40], "allowed": [True, False]})


# ---------------------------------------------------------------- model


def params_from_architecture(
    *,
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    intermediate: int,
    vocab: int,
    gated: bool,
    tied: bool,
    experts: int = 0,
) -> int:
    """Parameter count of a transformer from its shape (biases ignored).

    per layer: attention h·d·(2·heads + 2·kv_heads) (q, o and k, v projections)
             + MLP (3 if gated else 2)·h·i per expert (× experts for MoE) + router h·experts
             + 2 norms (2·h)
    plus embeddings V·h (and an untied LM head V·h) and the final norm h.
    """
    attention = hidden * head_dim * (2 * heads + 2 * kv_heads)
    mlp = (3 if gated else 2) * hidden * intermediate * max(1, experts) + hidden * experts
    per_layer = attention + mlp + 2 * hidden
    embeddings = vocab * hidden * (1 if tied else 2)
    return layers * per_layer + embeddings + hidden


def model(params: Params) -> ModelSpec:
    """The model: a preset id (``model``) or the architecture fields, never both."""
    if present(params, "model"):
        preset_id = text(params, "model")
        for name in ARCHITECTURE_FIELDS:
            if present(params, name):
                raise CalcError(name, "unknown_field", {"value": name})
        return data.model(preset_id)
    if not any(present(params, name) for name in ("params", "layers", "hidden", "heads")):
        raise CalcError("model", "model_required")
    layers = integer(params, "layers")
    hidden = integer(params, "hidden")
    heads = integer(params, "heads")
    kv_heads = integer(params, "kv_heads", default=heads)
    if heads % kv_heads != 0:
        raise CalcError("kv_heads", "kv_heads_not_divisible", {"value": kv_heads, "max": heads})
    if present(params, "head_dim"):
        head_dim = integer(params, "head_dim")
    elif hidden % heads == 0:
        head_dim = hidden // heads
    else:
        raise CalcError("head_dim", "hidden_not_divisible", {"value": hidden, "max": heads})
    intermediate = integer(params, "intermediate", default=4 * hidden)
    vocab = integer(params, "vocab", minimum=0, default=0)
    gated = flag(params, "gated", default=False)
    tied = flag(params, "tied", default=False)
    experts = integer(params, "experts", minimum=0, default=0)
    if experts:
        active_experts = integer(params, "active_experts")
    else:
        active_experts = integer(params, "active_experts", minimum=0, default=0)
    if active_experts > experts:
        raise CalcError(
            "active_experts", "out_of_range", {"min": 0, "max": experts, "value": active_experts}
        )
    architecture = choice(params, "architecture", ("decoder", "encoder"), default="decoder")
    computed = params_from_architecture(
        layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
        intermediate=intermediate, vocab=vocab, gated=gated, tied=tied, experts=experts,
    )
    total = integer(params, "params", default=computed)
    if experts:
        dense_equivalent = params_from_architecture(
            layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
            intermediate=intermediate * max(1, active_experts), vocab=vocab, gated=gated,
            tied=tied,
        )
        default_active = min(total, dense_equivalent)
    else:
        default_active = total
    active = integer(params, "active_params", default=default_active)
    if active > total:
        raise CalcError("active_params", "out_of_range", {"min": 1, "max": total, "value": active})
    return ModelSpec(
        id="custom",
        name="custom",
        architecture=architecture,
        params=total,
        active_params=active,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=intermediate,
        vocab=vocab,
        gated_mlp=gated,
        tied_embeddings=tied,
        experts=experts,
        active_experts=active_experts,
    )
