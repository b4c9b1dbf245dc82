"""Input validation: every request parameter is checked here and bad values raise CalcError.

Accepts JSON numbers or numeric strings (CLI arguments, form fields); rejects booleans, NaN,
infinities, non-integers where an integer is needed, and values outside sane limits.
"""

import decimal
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import data, dtypes
from .errors import CalcError
from .specs import InstanceSpec, ModelSpec

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
    "pp": 10_000,   # a stage holds at least one layer (layers <= 10,000)
    "count": 1_000_000,
    "tokens": 10**18,
    "zero": 3,
    # issue 10 (calc.custom_shape)
    "expert_intermediate": 16_777_216,
    "shared_experts": 65_536,
    "dense_layers": 10_000,
    "kv_lora_rank": 65_536,
    "qk_rope_head_dim": 65_536,
    "local_layers": 10_000,
    "local_window": 16_777_216,
}
MAX_HOURS = 10_000_000.0
# hardening (issue 17): bounds that keep results finite
MIN_MFU = 1e-6                       # a smaller MFU makes training time overflow float
MAX_COMPARE_INSTANCES = 64           # compare rows per request

ARCHITECTURE_FIELDS = (
    "params", "active_params", "layers", "hidden", "heads", "kv_heads", "head_dim",
    "intermediate", "vocab", "gated", "tied", "experts", "active_experts", "architecture",
)
# issue 10: MoE / attention fields of a custom model (calc.custom_shape)
CUSTOM_SHAPE_FIELDS = ("expert_intermediate", "shared_experts", "dense_layers", "attention",
                       "kv_lora_rank", "qk_rope_head_dim", "local_layers", "local_window")
MODEL_FIELDS = ("model", "hf_config", *ARCHITECTURE_FIELDS, *CUSTOM_SHAPE_FIELDS)


def present(params: Params, name: str) -> bool:
    value = params.get(name)
    return value is not None and value != ""


def check_known(params: Params, allowed: Iterable[str]) -> None:
    allowed_set = set(allowed)
    for name in params:
        if name not in allowed_set:
            raise CalcError(str(name), "unknown_field", {"value": str(name)})


def _number(params: Params, name: str, bounds: tuple[float, float] | None = None) -> float:
    """A JSON number or numeric string as int or float; `bounds` (min, max) name the range
    when a string is a finite number beyond float range ("1e400")."""
    value = params[name]
    if isinstance(value, bool):
        raise CalcError(name, "must_be_number", {"value": str(value)})
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                parsed = float(text)
            except ValueError:
                raise CalcError(name, "must_be_number", {"value": value[:40]}) from None
        if not math.isfinite(parsed):   # name what was typed, not inf
            if bounds is not None and _finite_text(text) and parsed < 0:   # "-1e400"
                raise CalcError(name, "must_be_positive_number",
                                {"min": bounds[0], "value": _shown(text)})
            if bounds is not None and _finite_text(text):   # "1e400" (bounds: number()'s,
                # whose minimum is exclusive: "greater than min and at most max")
                raise CalcError(name, "out_of_range_above",
                                {"min": bounds[0], "max": bounds[1], "value": _shown(text)})
            raise CalcError(name, "must_be_finite", {"value": value[:40]})
        return parsed
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CalcError(name, "must_be_finite", {"value": str(value)})
        return value
    raise CalcError(name, "must_be_number", {"value": type(value).__name__})


def _whole(params: Params, name: str, minimum: int, maximum: int) -> int:
    """The param as an exact whole number. A numeric string is read exactly (decimal), not
    through a float: "1e3" and "12.0" are 1000 and 12, "1.0000000000000001" is not whole."""
    value = params[name]
    if not isinstance(value, str):
        number = _number(params, name)
        if isinstance(number, float):
            if not number.is_integer():
                raise CalcError(name, "must_be_positive_int", {"min": minimum, "value": number})
            return int(number)
        return number
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:   # the syntax Python reads as a number ("1_e_3" and "5_._0" are not)
        approx = float(text)
    except ValueError:
        raise CalcError(name, "must_be_number", {"value": value[:40]}) from None
    try:
        exact = decimal.Decimal(text)
    except decimal.InvalidOperation:   # an exponent beyond decimal's range ("1e99…9")
        if approx <= 0:                # ... or a fraction that small, which is not whole
            raise CalcError(name, "must_be_positive_int",
                            {"min": minimum, "value": _shown(text)}) from None
        raise CalcError(name, "out_of_range", {"min": minimum, "max": maximum,
                                               "value": _shown(text)}) from None
    if not exact.is_finite():
        raise CalcError(name, "must_be_finite", {"value": value[:40]})
    if exact != exact.to_integral_value():
        raise CalcError(name, "must_be_positive_int", {"min": minimum, "value": value[:40]})
    if exact < minimum:   # "-1e400": below the minimum, however large
        raise CalcError(name, "must_be_positive_int", {"min": minimum, "value": _shown(text)})
    if not exact.is_zero() and exact.adjusted() > _WHOLE_DIGITS_MAX:   # beyond every limit
        raise CalcError(name, "out_of_range", {"min": minimum, "max": maximum,
                                               "value": _shown(text)})
    return int(exact)


_WHOLE_DIGITS_MAX = 30


def _finite_text(text: str) -> bool:
    """A number float() read as infinite is a finite one beyond its range ("1e400"), unless the
    text is an infinity or a NaN itself."""
    try:
        return decimal.Decimal(text).is_finite()
    except decimal.InvalidOperation:   # an exponent beyond even decimal's range: finite
        return True


def _shown(text: str) -> str:
    """A typed number for a message, cut at 20 characters."""
    return text if len(text) <= 20 else text[:20] + "…"


def integer(params: Params, name: str, *, minimum: int = 1, default: int | None = None,
            maximum: int | None = None) -> int:
    """A whole number in [minimum, maximum (else LIMITS[name])]; default when absent (else
    missing_field)."""
    if not present(params, name):
        if default is None:
            raise CalcError(name, "missing_field")
        return default
    if maximum is None:
        maximum = LIMITS.get(name, 2**62)
    value = _whole(params, name, minimum, maximum)
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
    raw = _number(params, name, (above, maximum))
    try:
        value = float(raw)
    except OverflowError:  # an integer beyond float range
        raise CalcError(
            name, "out_of_range_above",
            {"min": above, "max": maximum, "value": str(raw)[:20] + "…"}) from None
    if value <= above:
        raise CalcError(name, "must_be_positive_number", {"min": above, "value": value})
    if value > maximum:   # "between 0 and ..." read as if 0 were allowed: it is not
        raise CalcError(name, "out_of_range_above", {"min": above, "max": maximum,
                                                     "value": value})
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
    value = value.strip()   # as text() and the ids of models, instances and regions are read
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


FLAG_WORDS = ("true", "false", "yes", "no", "1", "0")   # the spellings flag() reads (any case)


def flag(params: Params, name: str, default: bool) -> bool:
    if not present(params, name):
        return default
    value = params[name]
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in FLAG_WORDS:
        return value.lower() in ("true", "1", "yes")
    raise CalcError(name, "unknown_choice",
                    {"value": str(value)[:40], "allowed": list(FLAG_WORDS)})


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
    """The model: a preset id (``model``), a config.json object (``hf_config``) or the
    architecture fields; exactly one of them."""
    if present(params, "hf_config"):
        from . import hf_config

        for name in ("model", *ARCHITECTURE_FIELDS, *CUSTOM_SHAPE_FIELDS):
            if present(params, name):   # one model source: not both (never one ignored)
                raise CalcError(name, "not_with_field",
                                {"value": "hf_config", "with_field": "hf_config"})
        return hf_config.parse(params["hf_config"])
    if present(params, "model"):
        preset_id = text(params, "model")
        for name in (*ARCHITECTURE_FIELDS, *CUSTOM_SHAPE_FIELDS):
            if present(params, name):
                raise CalcError(name, "not_with_field", {"value": "model", "with_field": "model"})
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
    if active_experts and not experts:   # "between 0 and 0" said nothing useful
        raise CalcError("active_experts", "needs_field", {"value": "experts",
                                                          "with_field": "experts"})
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
        # the active experts' MLP as one dense MLP, plus the router every token runs (h·experts
        # per layer), as calc.model_shape.count counts it for the custom-shape fields (QA: the
        # same shape with an explicit default field counted 1,048,576 more active params)
        dense_equivalent = params_from_architecture(
            layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
            intermediate=intermediate * max(1, active_experts), vocab=vocab, gated=gated,
            tied=tied,
        ) + layers * hidden * experts
        default_active = min(total, dense_equivalent)
    else:
        default_active = total
    active = integer(params, "active_params", default=default_active)
    if active > total:
        raise CalcError("active_params", "out_of_range", {"min": 1, "max": total, "value": active})
    from . import custom_shape

    return custom_shape.apply(params, ModelSpec(
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
    ))


# ---------------------------------------------------------------- the one schema
#
# Every request parameter is declared once here: its type, limits, choices and display unit.
# `parse(kind, params)` checks a whole request against it in one pass and returns a typed
# `Request`; the api handlers compute on that. The calculator pages (calc.display.calculators)
# derive their fields (control, limits, choices, label key, unit) from the same table.
# Adding a param: one `Param(...)` below + its name (and default) in the kinds that take it
# in KIND_PARAMS; the handler reads it from the Request (ARCHITECTURE.md §2, "Adding a param").

REQUIRED: Any = object()  # KIND_PARAMS default: the param must be given (missing_field)
OPTIONAL: Any = None  # KIND_PARAMS default: absent stays None


def _price_kinds() -> tuple[str, ...]:
    return ("on-demand", "ri-effective", "capacity-block")


def _recipes() -> tuple[str, ...]:
    from .training_memory import recipes

    return tuple(sorted(recipes()))


def _recompute_modes() -> tuple[str, ...]:
    from .training_memory import RECOMPUTE_MODES

    return tuple(RECOMPUTE_MODES)


def _framework_ids() -> tuple[str, ...]:
    from .frameworks import all_frameworks

    return tuple(all_frameworks())


def _default_recipe() -> str | None:
    from .training_memory import default_recipe

    return default_recipe() if _recipes() else None


def _default_region() -> str:
    from .price import DEFAULT_REGION

    return DEFAULT_REGION


def _objectives() -> tuple[str, ...]:
    from .tp_choice import OBJECTIVES

    return tuple(OBJECTIVES)


def _default_objective(kind: str) -> Callable[[], str]:
    def default() -> str:
        from .tp_choice import DEFAULT_OBJECTIVE

        return DEFAULT_OBJECTIVE[kind]

    return default


@dataclass(frozen=True, slots=True)
class Param:
    """One request parameter. type: int | number | choice | text | flag | instance | list | json
    (a JSON object, checked by the model parse: hf_config).

    `minimum` is inclusive for int and exclusive for number (a number must be > minimum);
    `maximum` defaults to LIMITS[name]; `choices` is a function (data may be read lazily);
    `unit` is the display unit id of calc.display.units ("" = a count)."""

    name: str
    type: str
    minimum: float = 1
    maximum: float | None = None
    choices: Callable[[], tuple[str, ...]] | None = None
    unit: str = ""
    model: bool = False  # part of the model (preset id, config.json or architecture)

    def upper(self) -> float:
        if self.maximum is not None:
            return self.maximum
        return LIMITS.get(self.name, 2**62)


_MODEL_PARAMS = (
    Param("model", "text", model=True),
    Param("params", "int", model=True),
    Param("active_params", "int", model=True),
    Param("layers", "int", model=True),
    Param("hidden", "int", model=True),
    Param("heads", "int", model=True),
    Param("kv_heads", "int", model=True),
    Param("head_dim", "int", model=True),
    Param("intermediate", "int", model=True),
    Param("vocab", "int", minimum=0, model=True),
    Param("gated", "flag", model=True),
    Param("tied", "flag", model=True),
    Param("experts", "int", minimum=0, model=True),
    Param("active_experts", "int", minimum=0, model=True),
    Param("architecture", "choice", choices=lambda: ("decoder", "encoder"), model=True),
    # issue 10: a Hugging Face config.json (a JSON object; calc.hf_config) instead of a preset
    Param("hf_config", "json", model=True),
    # issue 10: custom MoE / attention shape (calc.custom_shape; CUSTOM_SHAPE_FIELDS)
    Param("expert_intermediate", "int", minimum=0, model=True),
    Param("shared_experts", "int", minimum=0, model=True),
    Param("dense_layers", "int", minimum=0, model=True),
    Param("attention", "choice", choices=lambda: ("gqa", "mla"), model=True),
    Param("kv_lora_rank", "int", model=True),
    Param("qk_rope_head_dim", "int", model=True),
    Param("local_layers", "int", minimum=0, model=True),
    Param("local_window", "int", unit="tokens", model=True),
)

PARAMS: dict[str, Param] = {p.name: p for p in (
    *_MODEL_PARAMS,
    Param("instance", "instance"),
    Param("instances", "list"),
    Param("dtype", "choice", choices=lambda: tuple(dtypes.WEIGHT_DTYPES)),
    Param("expert_dtype", "choice", choices=lambda: tuple(dtypes.WEIGHT_DTYPES)),
    Param("kv_dtype", "choice", choices=lambda: tuple(dtypes.KV_DTYPES)),
    Param("batch", "int"),
    Param("seq_len", "int", unit="tokens"),
    Param("input_len", "int", unit="tokens"),
    Param("output_len", "int", unit="tokens"),
    Param("tp", "int"),
    Param("pp", "int"),
    Param("dp", "int"),
    Param("count", "int"),
    Param("tokens", "int", unit="tokens"),
    Param("mfu", "number", minimum=0.0, maximum=1.0, unit="fraction"),
    Param("region", "text"),
    Param("price_kind", "choice", choices=_price_kinds),
    Param("hours", "number", minimum=0.0, maximum=MAX_HOURS, unit="h"),
    Param("recipe", "choice", choices=_recipes),
    Param("zero", "int", minimum=0),
    Param("recompute", "choice", choices=_recompute_modes),
    Param("sp", "flag"),
    Param("what", "choice", choices=lambda: ("models", "instances", "chips", "frameworks")),
    # perf (issue 15): serving framework and the shapes its graph was compiled for; the phase
    # (inference or training) is checked by calc.frameworks.resolve
    Param("framework", "choice", choices=_framework_ids),
    Param("compiled_batch", "int"),
    Param("compiled_seq_len", "int", unit="tokens"),
    # trust (issue 9): TP objective when no TP is given; labelled price fallback
    Param("objective", "choice", choices=_objectives),
    Param("price_fallback", "flag"),
    # advisor (issue 11): advise / advise_train / snippet
    Param("request_rate", "number", minimum=0.0, maximum=1e7, unit="requests/s"),
    Param("tokens_per_day", "number", minimum=0.0, maximum=1e15, unit="tokens"),
    Param("ttft_max", "number", minimum=0.0, maximum=1e6, unit="s"),
    Param("tpot_max", "number", minimum=0.0, maximum=1e6, unit="s"),
    Param("family", "choice", choices=lambda: ("all", "neuron", "gpu")),
    Param("max_batch", "int", maximum=LIMITS["batch"]),
    Param("pad_heads", "flag"),
    Param("deadline_h", "number", minimum=0.0, maximum=1e6, unit="h"),
    Param("budget_usd", "number", minimum=0.0, maximum=1e12, unit="USD"),
    Param("max_count", "int", maximum=LIMITS["count"]),
)}

_MODEL = {p.name: OPTIONAL for p in _MODEL_PARAMS}
_PRICED = {"region": _default_region, "price_kind": "on-demand"}
# perf (issue 15): absent = the hardware's default framework, no compiled-shape padding
_SERVING = {"framework": OPTIONAL, "compiled_batch": OPTIONAL, "compiled_seq_len": OPTIONAL}

# kind -> {param: default}: REQUIRED, OPTIONAL (None), a value, or a function giving the value.
# dtype / kv_dtype are OPTIONAL: absent, the handler takes the checkpoint's precision when the
# hardware has it (ModelSpec.default_dtype, issue 10), else the hardware's default (bf16, else
# fp16 on chips without bf16; calc.dtype_support) — calc.dtype_gate.dtype_for.
KIND_PARAMS: dict[str, dict[str, Any]] = {
    "memory": {**_MODEL, "instance": REQUIRED, "dtype": OPTIONAL, "kv_dtype": OPTIONAL,
               "batch": 1, "seq_len": REQUIRED, "tp": OPTIONAL, "expert_dtype": OPTIONAL},
    "perf": {**_MODEL, "instance": REQUIRED, "dtype": OPTIONAL, "kv_dtype": OPTIONAL, "batch": 1,
             "input_len": REQUIRED, "output_len": REQUIRED, "tp": OPTIONAL, **_PRICED,
             "objective": _default_objective("perf"), **_SERVING},
    "train": {**_MODEL, "instance": REQUIRED, "count": 1, "tokens": REQUIRED,
              "seq_len": REQUIRED, "mfu": OPTIONAL, "dtype": OPTIONAL, **_PRICED,
              "framework": OPTIONAL, "recompute": OPTIONAL, "recipe": _default_recipe},
    "train_memory": {**_MODEL, "instance": REQUIRED, "count": 1, "recipe": _default_recipe,
                     "zero": 1, "recompute": "selective", "sp": False, "tp": 1, "pp": 1,
                     "dp": OPTIONAL, "batch": 1, "seq_len": REQUIRED},
    "price": {"instance": REQUIRED, "region": _default_region, "hours": 1.0,
              "price_kind": "on-demand", "price_fallback": True},
    "compare": {**_MODEL, "instances": OPTIONAL, "region": _default_region, "hours": 1.0,
                "price_kind": "on-demand", "dtype": OPTIONAL, "kv_dtype": OPTIONAL, "batch": 1,
                "input_len": 128, "output_len": 128, "objective": _default_objective("compare"),
                **_SERVING},
    "list": {"what": REQUIRED},
    "dtypes": {"instance": REQUIRED},
    # advisor (issue 11); defaults: calc.advise.DEFAULT_MAX_BATCH, advise_train.DEFAULT_MAX_COUNT
    "advise": {**_MODEL, "dtype": OPTIONAL, "kv_dtype": OPTIONAL, "input_len": REQUIRED,
               "output_len": REQUIRED, "request_rate": OPTIONAL, "tokens_per_day": OPTIONAL,
               "ttft_max": OPTIONAL, "tpot_max": OPTIONAL, **_PRICED, "family": "all",
               "framework": OPTIONAL, "max_batch": 256, "pad_heads": False},
    "advise_train": {**_MODEL, "tokens": REQUIRED, "seq_len": REQUIRED, "deadline_h": OPTIONAL,
                     "budget_usd": OPTIONAL, "dtype": OPTIONAL, "mfu": OPTIONAL, **_PRICED,
                     "family": "all", "max_count": 1024, "recipe": _default_recipe},
    "snippet": {"model": OPTIONAL, "instance": REQUIRED, "tp": REQUIRED, "batch": 1,
                "input_len": REQUIRED, "output_len": REQUIRED, "dtype": OPTIONAL,
                "kv_dtype": OPTIONAL, "framework": OPTIONAL},
}


@dataclass(frozen=True, slots=True)
class Request:
    """A whole request, checked: typed values by param name (absent optional ones are None)."""

    kind: str
    values: Mapping[str, Any] = field(default_factory=dict)
    model: ModelSpec | None = None
    # the given params as the caller sent them (absent ones dropped), ONLY for echoing a request
    # back (suggestions: the whole request with one change, to fill the form); never read for
    # values: those are in `values` / `model`, checked once.
    echo: Mapping[str, Any] = field(default_factory=dict)
    # the model params as given (preset id or architecture fields): requests built from this one
    # (the advisor's perf calls, the speed calculator link) pass them on unchanged
    model_params: Mapping[str, Any] = field(default_factory=dict)

    def given(self, name: str) -> bool:
        return self.values.get(name) is not None

    def get_int(self, name: str) -> int:
        value = self.values[name]
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name} is not an int in this request")
        return value

    def get_opt_int(self, name: str) -> int | None:
        return None if self.values.get(name) is None else self.get_int(name)

    def get_float(self, name: str) -> float:
        return float(self.values[name])

    def get_opt_float(self, name: str) -> float | None:
        return None if self.values.get(name) is None else self.get_float(name)

    def get_text(self, name: str) -> str:
        return str(self.values[name])

    def get_opt_text(self, name: str) -> str | None:
        return None if self.values.get(name) is None else self.get_text(name)

    def get_flag(self, name: str) -> bool:
        return bool(self.values[name])

    def instance(self) -> InstanceSpec:
        value = self.values["instance"]
        if not isinstance(value, InstanceSpec):
            raise TypeError("instance is not an InstanceSpec in this request")
        return value

    def need_model(self) -> ModelSpec:
        if self.model is None:
            raise CalcError("model", "model_required")
        return self.model


def _instance_names(params: Params, name: str) -> list[str] | None:
    """The instance ids of a list or a comma-separated string, read alike: every item an
    instance type (an empty one is refused, never dropped), a repeated one kept once (first)."""
    if not present(params, name):
        return None
    raw = params[name]
    if isinstance(raw, str):
        items = [item.strip() for item in raw.split(",")]
    elif isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        items = [item.strip() for item in raw]
    else:
        raise CalcError(name, "must_be_text", {"value": str(raw)[:40]})
    if not items:
        raise CalcError(name, "missing_field")
    if len(items) > MAX_COMPARE_INSTANCES:  # hardening: bounded work per request
        raise CalcError(name, "out_of_range",
                        {"min": 1, "max": MAX_COMPARE_INSTANCES, "value": len(items)})
    known = data.instance_ids()
    for position, item in enumerate(items, start=1):
        if not item:
            raise CalcError(name, "list_item_empty", {"value": position})
        if item not in known:
            raise CalcError(name, "unknown_instance", {"value": item[:40], "allowed": known})
    return list(dict.fromkeys(items))


def _one(param: Param, params: Params, default: Any) -> Any:
    """One param checked against its schema entry (default when absent)."""
    name = param.name
    if callable(default):
        default = default()
    required = default is REQUIRED
    if not present(params, name) and not required:
        return default
    if param.type == "int":   # integer() checks the schema's maximum too
        return integer(params, name, minimum=int(param.minimum),
                       maximum=min(int(param.upper()), LIMITS.get(name, 2**62)))
    if param.type == "number":
        return number(params, name, above=param.minimum, maximum=param.upper())
    if param.type == "choice":
        options = param.choices() if param.choices else ()
        return choice(params, name, options)
    if param.type == "flag":
        return flag(params, name, default=bool(default))
    if param.type == "instance":
        return data.instance(text(params, name))
    if param.type == "list":
        return _instance_names(params, name)
    return text(params, name)


def check_value(name: str, value: Any) -> None:
    """One input checked alone, as ``parse`` checks it (raises CalcError with ``field`` = name):
    the model by name, any other schema param against its entry. Model shape fields are
    checked together by ``model`` and are not checked here. A name outside the schema is not
    checked (``check_known`` refuses it in a whole request)."""
    if name == "model":
        model({"model": value})
    elif name in PARAMS and not PARAMS[name].model:
        _one(PARAMS[name], {name: value}, None)


def parse(kind: str, params: Params) -> Request:
    """The whole request checked in one pass against PARAMS / KIND_PARAMS[kind]."""
    accepted = KIND_PARAMS[kind]
    check_known(params, accepted)
    with_model = any(present(params, p.name) for p in _MODEL_PARAMS)
    needs_model = kind in ("memory", "perf", "train", "train_memory", "advise", "advise_train")
    spec = model(params) if (with_model or needs_model) and "model" in accepted else None
    values: dict[str, Any] = {}
    for name, default in accepted.items():
        param = PARAMS[name]
        if param.model:
            continue
        values[name] = _one(param, params, default)
    given = {p.name: params[p.name] for p in _MODEL_PARAMS if present(params, p.name)}
    echo = {name: value for name, value in params.items() if present(params, name)}
    return Request(kind=kind, values=values, model=spec, echo=echo, model_params=given)
