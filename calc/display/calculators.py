"""The calculator pages: which fields, modes, requests and result fields each calculator shows.

Field types, limits and choices are not declared here: they come from the one request schema
(calc.inputs.PARAMS); a calculator only picks params, gives page defaults and says in which
mode a field shows. Result units come from the field names (calc.display.units.result_unit).
"""

from dataclasses import dataclass
from typing import Any

from .. import data, inputs
from ..training_memory import DEFAULT_RECIPE
from . import strings
from .numbers import DEFAULT_LANG

CUSTOM_MODEL = "custom"
CONFIG_FIELD = "hf_config"  # a pasted or dropped config.json (issue 10), when the engine has it
# the architecture fields a custom model shows (a subset of the schema's model params); the MoE
# and attention-type fields (issue 10) show when the engine's schema has them
_OPTIONAL_ARCH = ("experts", "active_experts", "expert_intermediate", "shared_experts",
                  "dense_layers", "attention", "kv_lora_rank", "qk_rope_head_dim",
                  "local_layers", "local_window")
ARCH_FIELDS = ("params", "layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate",
               "vocab", *(n for n in _OPTIONAL_ARCH if n in inputs.PARAMS))
HAS_CONFIG = CONFIG_FIELD in getattr(inputs, "MODEL_FIELDS", ()) or CONFIG_FIELD in inputs.PARAMS
MODEL_PARAMS = ("model", *((CONFIG_FIELD,) if HAS_CONFIG else ()), *ARCH_FIELDS)
HAS_OBJECTIVE = "objective" in inputs.PARAMS
SMALL_RANGE = 3


class CalculatorSpecError(ValueError):
    """A calculator names a param the schema does not know, or does not exist."""


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    default: str | int | float | None = None
    modes: tuple[str, ...] = ()  # empty: every mode

    @property
    def arch(self) -> bool:
        return self.name in ARCH_FIELDS or self.name == CONFIG_FIELD

    def control(self) -> str:
        """model | instance | region | choice | int | number | config (mode is a choice)."""
        if self.name == "mode":
            return "choice"
        if self.name == CONFIG_FIELD:
            return "config"
        if self.name in ("model", "region"):
            return self.name
        param = inputs.PARAMS[self.name]
        if param.type == "int" and param.upper() - param.minimum <= SMALL_RANGE:
            return "choice"  # a few whole numbers (zero = 0..3): a select
        return {"instance": "instance", "choice": "choice", "int": "int",
                "number": "number"}.get(param.type, "text")

    def choices(self, modes: tuple[str, ...], lang: str = DEFAULT_LANG) -> list[dict[str, str]]:
        """[{value, label, group?}] of a select: the value is the id (engine, share links), the
        label is in `lang` (calc.display.strings.choice_label: the translation tables; names,
        regions, dtypes and numbers as they are)."""
        if self.name == "mode":
            ids: list[str] = list(modes)
        elif self.name == "model":
            return [{"value": str(m["id"]), "label": str(m.get("name", m["id"]))}
                    for m in data.records("models")]
        elif self.name == "instance":
            return [{"value": str(i["id"]), "label": str(i["id"]),
                     "group": str(i.get("kind", "neuron"))} for i in data.records("instances")]
        elif self.name == "region":
            ids = sorted({str(p["region"]) for p in data.records("prices")})
        elif self.name == "framework":   # serving pages: the inference ones ("": automatic)
            from .. import frameworks

            ids = ["", *frameworks.ids("inference")]
        else:
            param = inputs.PARAMS[self.name]
            if param.type == "int":
                ids = [str(n) for n in range(int(param.minimum), int(param.upper()) + 1)]
            else:
                ids = [str(o) for o in (param.choices() if param.choices else ())]
        return [{"value": i, "label": strings.choice_label(self.name, i, lang)} for i in ids]


@dataclass(frozen=True, slots=True)
class Request:
    id: str  # "main" or an extra request shown next to it
    kind: str
    params: tuple[str, ...]
    fixed: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Output:
    field: str
    request: str = "main"


@dataclass(frozen=True, slots=True)
class Mode:
    id: str
    requests: tuple[Request, ...]
    outputs: tuple[Output, ...]
    chart: str | None = None  # memory-breakdown | training-breakdown | price-compare
    # ux (issue 14): the result fields of the compact summary that stays in view on a phone
    summary: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Calculator:
    name: str
    fields: tuple[Field, ...]
    modes: tuple[Mode, ...]
    reference_measurements: tuple[str, ...] = ()

    def mode(self, mode_id: str | None) -> Mode:
        return next((m for m in self.modes if m.id == mode_id), self.modes[0])

    def mode_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.modes)

    def defaults(self) -> dict[str, str]:
        """Each field's default as the text its input shows ("" = empty)."""
        return {f.name: "" if f.default is None else str(f.default) for f in self.fields}


def _outputs(*fields: str, request: str = "main") -> tuple[Output, ...]:
    return tuple(Output(name, request) for name in fields)


_ARCH = (*((Field(CONFIG_FIELD),) if HAS_CONFIG else ()), *(Field(name) for name in ARCH_FIELDS))


def _objective(default: str, modes: tuple[str, ...] = ()) -> tuple[Field, ...]:
    """The TP objective select (issue 9), when the engine takes it."""
    return (Field("objective", default, modes=modes),) if HAS_OBJECTIVE else ()


_OBJECTIVE_PARAM = ("objective",) if HAS_OBJECTIVE else ()
REFERENCE_MEASUREMENTS = (
    "inf2-llama-2-70b-tp24-b1-128-128",
    "trn1-llama-2-70b-tp32-b1-128-128",
    "inf2-llama-3-8b-tp24-b1-128-3968",
    "trn1-llama-3-8b-tp32-b1-128-3968",
)

MEMORY = Calculator(
    name="memory",
    fields=(
        Field("mode", "inference"),
        Field("model", "llama-3.1-8b"),
        *_ARCH,
        Field("instance", "inf2.xlarge"),
        Field("dtype", modes=("inference",)),
        Field("batch", 1),
        Field("seq_len", 4096),
        Field("tp"),
        Field("recipe", DEFAULT_RECIPE, modes=("training",)),
        Field("zero", 1, modes=("training",)),
        Field("recompute", "selective", modes=("training",)),
        Field("count", 1, modes=("training",)),
        Field("dp", modes=("training",)),
    ),
    modes=(
        Mode("inference",
             requests=(Request("main", "memory",
                               (*MODEL_PARAMS, "instance", "dtype", "batch", "seq_len", "tp")),),
             outputs=_outputs("fits", "tp_degree", "min_tp_degree", "recommended_tp_degree",
                              "per_core_bytes", "capacity_per_core_bytes",
                              "headroom_per_core_bytes", "max_batch", "max_seq_len",
                              "weights_bytes", "kv_cache_bytes", "activation_bytes",
                              "overhead_bytes", "total_bytes", "cores_used", "cores_available"),
             chart="memory-breakdown",
             summary=("fits", "per_core_bytes", "capacity_per_core_bytes", "tp_degree")),
        Mode("training",
             requests=(Request("main", "train_memory",
                               (*MODEL_PARAMS, "instance", "batch", "seq_len", "tp", "recipe",
                                "zero", "recompute", "count", "dp")),),
             outputs=_outputs("fits", "per_device_bytes", "capacity_per_device_bytes",
                              "headroom_per_device_bytes", "weights_bytes", "grads_bytes",
                              "master_bytes", "optimizer_bytes", "activation_bytes",
                              "overhead_bytes", "tp", "dp", "devices", "devices_available"),
             chart="training-breakdown",
             summary=("fits", "per_device_bytes", "capacity_per_device_bytes", "devices")),
    ),
    reference_measurements=REFERENCE_MEASUREMENTS,
)

PERFORMANCE = Calculator(
    name="performance",
    fields=(
        Field("mode", "inference"),
        Field("model", "llama-3.1-8b"),
        *_ARCH,
        # one instance for both modes: Trainium serves and trains (no training framework runs
        # on Inferentia, so an Inferentia default would open Training mode on an error)
        Field("instance", "trn1.32xlarge"),
        Field("dtype", modes=("inference",)),
        Field("framework", modes=("inference",)),   # "": the hardware's default (issue 15)
        Field("batch", 1, modes=("inference",)),
        Field("input_len", 128, modes=("inference",)),
        Field("output_len", 128, modes=("inference",)),
        Field("tp", modes=("inference",)),
        *_objective("latency", modes=("inference",)),
        Field("region", "us-east-1", modes=("inference",)),  # the advisor links in with these
        Field("price_kind", "on-demand", modes=("inference",)),
        Field("count", 1, modes=("training",)),
        Field("tokens", 10_000_000_000, modes=("training",)),
        Field("seq_len", 4096, modes=("training",)),
        Field("mfu", modes=("training",)),
        Field("recipe", DEFAULT_RECIPE, modes=("training",)),   # of the memory check
    ),
    modes=(
        Mode("inference",
             requests=(Request("main", "perf",
                               (*MODEL_PARAMS, "instance", "dtype", "framework", "batch",
                                "input_len", "output_len", "tp", *_OBJECTIVE_PARAM, "region",
                                "price_kind")),),
             outputs=_outputs("ttft_s", "tpot_s", "output_tokens_per_s",
                              "output_tokens_per_s_per_replica", "replicas", "prefill_bound",
                              "decode_bound", "usd_per_million_output_tokens"),
             summary=("ttft_s", "tpot_s", "output_tokens_per_s")),
        Mode("training",
             requests=(Request("main", "train",
                               (*MODEL_PARAMS, "instance", "count", "tokens", "seq_len",
                                "mfu", "recipe")),),
             outputs=_outputs("total_flops", "peak_flops_per_s", "mfu", "tokens_per_s",
                              "time_s", "cost_usd"),
             summary=("time_s", "cost_usd", "tokens_per_s")),
    ),
    reference_measurements=REFERENCE_MEASUREMENTS,
)

PRICE = Calculator(
    name="price",
    fields=(
        Field("mode", "serving"),
        Field("instance", "trn1.32xlarge"),
        Field("region", "us-east-1"),
        Field("hours", 730),
        Field("model", "llama-3.1-8b"),
        Field("framework", modes=("serving",)),   # "": the hardware's default (issue 15)
        Field("batch", 8, modes=("serving",)),
        Field("input_len", 128, modes=("serving",)),
        Field("output_len", 128, modes=("serving",)),
        Field("tokens", 10_000_000_000, modes=("training",)),
        Field("count", 1, modes=("training",)),
        *_objective("cost", modes=("serving",)),
    ),
    # serving and training are two modes, each with only its inputs (issue 14); both show the
    # instance's price figures and the price comparison
    modes=(
        Mode("serving",
             requests=(
                 Request("main", "price", ("instance", "region", "hours")),
                 Request("tokens", "perf",
                         ("model", "instance", "region", "framework", "batch", "input_len",
                          "output_len", *_OBJECTIVE_PARAM)),  # dtype: the hardware's default
                 Request("compare", "compare", ("region", "hours")),
             ),
             outputs=(*_outputs("usd_per_hour", "usd_total", "usd_per_month",
                                "usd_per_chip_hour", "usd_per_gib_hour",
                                "usd_per_bf16_pflop_hour"),
                      Output("usd_per_million_output_tokens", "tokens")),
             chart="price-compare",
             summary=("usd_per_hour", "usd_per_million_output_tokens", "usd_total")),
        Mode("training",
             requests=(
                 Request("main", "price", ("instance", "region", "hours")),
                 Request("run", "train", ("model", "instance", "region", "count", "tokens"),
                         fixed=(("seq_len", 4096),)),
                 Request("compare", "compare", ("region", "hours")),
             ),
             outputs=(*_outputs("usd_per_hour", "usd_total", "usd_per_month",
                                "usd_per_chip_hour", "usd_per_gib_hour",
                                "usd_per_bf16_pflop_hour"),
                      Output("cost_usd", "run"), Output("time_s", "run")),
             chart="price-compare",
             summary=("usd_per_hour", "cost_usd", "time_s")),
    ),
    reference_measurements=REFERENCE_MEASUREMENTS,
)

# "Which instance?" (issue 11): its table, Pareto chart, links and snippets are added to the
# present() result by calc.display.advisor
ADVISOR_PARAMS = (*MODEL_PARAMS, "input_len", "output_len", "request_rate", "tokens_per_day",
                  "ttft_max", "tpot_max", "family", "price_kind", "region", "dtype", "framework")
ADVISOR = Calculator(
    name="advisor",
    fields=(
        Field("model", "llama-3.1-8b"),
        *_ARCH,
        Field("input_len", 1024),
        Field("output_len", 256),
        Field("request_rate"),
        Field("tokens_per_day"),
        Field("ttft_max"),
        Field("tpot_max"),
        Field("family", "all"),
        Field("price_kind", "on-demand"),
        Field("region", "us-east-1"),
        Field("dtype"),   # "": per instance, as the CLI and perf choose it
        Field("framework"),   # "": each instance's default (issue 15)
    ),
    modes=(
        Mode("default",
             requests=(Request("main", "advise", ADVISOR_PARAMS),),
             outputs=_outputs("requests_per_s", "output_tokens_per_s_needed",
                              "api_usd_per_request", "api_usd_per_hour")),
    ),
)

CALCULATORS: dict[str, Calculator] = {c.name: c for c in (MEMORY, PERFORMANCE, PRICE, ADVISOR)}


def calculator(name: str) -> Calculator:
    try:
        return CALCULATORS[name]
    except KeyError:
        raise CalculatorSpecError(
            f"unknown calculator {name!r}; known: {sorted(CALCULATORS)}") from None


def field(spec: Calculator, name: str) -> Field:
    return next(f for f in spec.fields if f.name == name)


def check() -> None:
    """Every field and request param is in the schema (a test calls this)."""
    for calc_spec in CALCULATORS.values():
        for field in calc_spec.fields:
            if field.name != "mode" and field.name not in inputs.PARAMS:
                raise CalculatorSpecError(f"{calc_spec.name}: {field.name} is not a calc param")
        for mode in calc_spec.modes:
            for request in mode.requests:
                accepted = inputs.KIND_PARAMS[request.kind]
                for name in (*request.params, *dict(request.fixed)):
                    if name not in accepted:
                        raise CalculatorSpecError(
                            f"{calc_spec.name}/{mode.id}: {request.kind} takes no {name}")
            shown = {out.field for out in mode.outputs}
            for name in mode.summary:
                if name not in shown:
                    raise CalculatorSpecError(
                        f"{calc_spec.name}/{mode.id}: summary field {name} is not an output")
