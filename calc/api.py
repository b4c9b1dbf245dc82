"""The JSON boundary: ``run(request) -> response``; never raises (see ARCHITECTURE.md §2)."""

from collections.abc import Callable, Mapping
from typing import Any

from . import data, dtypes, inputs
from .errors import CalcError
from .specs import InstanceSpec

SCHEMA_VERSION = 1
DEFAULT_DTYPE = "bf16"

Handler = Callable[[Mapping[str, Any]], dict[str, Any]]


def _dtype(params: Mapping[str, Any]) -> str:
    return inputs.choice(params, "dtype", dtypes.DTYPE_BITS, default=DEFAULT_DTYPE)


def _kv_dtype(params: Mapping[str, Any]) -> str | None:
    if not inputs.present(params, "kv_dtype"):
        return None
    return inputs.choice(params, "kv_dtype", dtypes.KV_DTYPES)


def _instance(params: Mapping[str, Any]) -> InstanceSpec:
    return data.instance(inputs.text(params, "instance"))


def _region(params: Mapping[str, Any]) -> str:
    from .price import DEFAULT_REGION

    return inputs.text(params, "region", default=DEFAULT_REGION)


def _price_kind(params: Mapping[str, Any]) -> str:
    return inputs.choice(
        params, "price_kind", ("on-demand", "ri-effective", "capacity-block"), default="on-demand"
    )


def memory(params: Mapping[str, Any]) -> dict[str, Any]:
    from .memory import fit

    inputs.check_known(params, (*inputs.MODEL_FIELDS, "instance", "dtype", "kv_dtype", "batch",
                                "seq_len", "tp"))
    model = inputs.model(params)
    return fit(
        model,
        _instance(params),
        dtype=_dtype(params),
        kv_dtype=_kv_dtype(params),
        batch=inputs.integer(params, "batch", default=1),
        seq_len=inputs.integer(params, "seq_len"),
        tp=inputs.optional_integer(params, "tp"),
    ).as_dict()


def perf(params: Mapping[str, Any]) -> dict[str, Any]:
    from .perf import perf as estimate
    from .price import hourly_price

    inputs.check_known(params, (*inputs.MODEL_FIELDS, "instance", "dtype", "kv_dtype", "batch",
                                "input_len", "output_len", "tp", "region", "price_kind",
                                "framework", "compiled_batch", "compiled_seq_len"))
    model = inputs.model(params)
    instance = _instance(params)
    hourly = hourly_price(instance.id, _region(params), _price_kind(params))
    return estimate(
        model,
        instance,
        dtype=_dtype(params),
        kv_dtype=_kv_dtype(params),
        batch=inputs.integer(params, "batch", default=1),
        input_len=inputs.integer(params, "input_len"),
        output_len=inputs.integer(params, "output_len"),
        tp=inputs.optional_integer(params, "tp"),
        usd_per_hour=hourly.usd_per_hour,
        price_missing_reason=hourly.missing_reason,
        framework=_framework(params, "inference"),
        compiled_batch=inputs.optional_integer(params, "compiled_batch"),
        compiled_seq_len=inputs.optional_integer(params, "compiled_seq_len"),
    ).as_dict()


def _framework(params: Mapping[str, Any], phase: str) -> str | None:
    """The framework id (checked against data/frameworks.toml) or None for the default."""
    from .frameworks import ids

    if not inputs.present(params, "framework"):
        return None
    return inputs.choice(params, "framework", ids(phase))


def train(params: Mapping[str, Any]) -> dict[str, Any]:
    from .flops import train as estimate
    from .price import hourly_price

    inputs.check_known(params, (*inputs.MODEL_FIELDS, "instance", "count", "tokens", "seq_len",
                                "mfu", "dtype", "region", "price_kind", "framework",
                                "recompute"))
    model = inputs.model(params)
    instance = _instance(params)
    hourly = hourly_price(instance.id, _region(params), _price_kind(params))
    mfu = inputs.number(params, "mfu", maximum=1.0) if inputs.present(params, "mfu") else None
    return estimate(
        model,
        instance,
        count=inputs.integer(params, "count", default=1),
        tokens=inputs.integer(params, "tokens"),
        seq_len=inputs.integer(params, "seq_len"),
        dtype=_dtype(params),
        mfu=mfu,
        usd_per_hour=hourly.usd_per_hour,
        price_missing_reason=hourly.missing_reason,
        framework=_framework(params, "training"),
        recompute=inputs.choice(params, "recompute", ("none", "selective", "full"))
        if inputs.present(params, "recompute") else None,
    ).as_dict()


def train_memory(params: Mapping[str, Any]) -> dict[str, Any]:
    from .training_memory import RECOMPUTE_MODES, recipes
    from .training_memory import train_memory as estimate

    inputs.check_known(params, (*inputs.MODEL_FIELDS, "instance", "count", "recipe", "zero",
                                "recompute", "sp", "tp", "pp", "dp", "batch", "seq_len"))
    model = inputs.model(params)
    instance = _instance(params)
    known_recipes = sorted(recipes())
    return estimate(
        model,
        instance,
        count=inputs.integer(params, "count", default=1),
        recipe_name=inputs.choice(params, "recipe", known_recipes,
                                  default=known_recipes[0] if known_recipes else None),
        zero_stage=inputs.integer(params, "zero", minimum=0, default=1),
        recompute=inputs.choice(params, "recompute", RECOMPUTE_MODES, default="selective"),
        sp=inputs.flag(params, "sp", default=False),
        tp=inputs.integer(params, "tp", default=1),
        pp=inputs.integer(params, "pp", default=1),
        dp=inputs.optional_integer(params, "dp"),
        micro_batch=inputs.integer(params, "batch", default=1),
        seq_len=inputs.integer(params, "seq_len"),
    ).as_dict()


def price(params: Mapping[str, Any]) -> dict[str, Any]:
    from .price import quote

    inputs.check_known(params, ("instance", "region", "hours", "price_kind"))
    return quote(
        _instance(params),
        region=_region(params),
        hours=inputs.number(params, "hours", maximum=inputs.MAX_HOURS, default=1.0),
        kind=_price_kind(params),
    ).as_dict()


def _instance_list(params: Mapping[str, Any]) -> list[str]:
    if not inputs.present(params, "instances"):
        return data.instance_ids()
    raw = params["instances"]
    if isinstance(raw, str):
        names = [name.strip() for name in raw.split(",") if name.strip()]
    elif isinstance(raw, list) and all(isinstance(name, str) for name in raw):
        names = [name.strip() for name in raw]
    else:
        raise CalcError("instances", "must_be_text", {"value": str(raw)[:40]})
    if not names:
        raise CalcError("instances", "missing_field")
    return names


def compare(params: Mapping[str, Any]) -> dict[str, Any]:
    """Price (and, with a model, speed and $/1M tokens) side by side for several instances."""
    from .perf import perf as estimate
    from .price import quote

    inputs.check_known(params, (*inputs.MODEL_FIELDS, "instances", "region", "hours",
                                "price_kind", "dtype", "kv_dtype", "batch", "input_len",
                                "output_len", "framework"))
    region = _region(params)
    hours = inputs.number(params, "hours", maximum=inputs.MAX_HOURS, default=1.0)
    kind = _price_kind(params)
    with_model = any(inputs.present(params, name) for name in inputs.MODEL_FIELDS)
    model = inputs.model(params) if with_model else None
    dtype = _dtype(params)
    kv_dtype = _kv_dtype(params)
    batch = inputs.integer(params, "batch", default=1)
    input_len = inputs.integer(params, "input_len", default=128) if with_model else 0
    output_len = inputs.integer(params, "output_len", default=128) if with_model else 0
    framework = _framework(params, "inference")
    rows: list[dict[str, Any]] = []
    for instance_id in _instance_list(params):
        instance = data.instance(instance_id)
        row = quote(instance, region=region, hours=hours, kind=kind).as_dict()
        del row["derivation"]
        if model is not None:
            try:
                speed = estimate(
                    model, instance, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
                    input_len=input_len, output_len=output_len, tp=None,
                    usd_per_hour=row["usd_per_hour"],
                    price_missing_reason=row["price_missing_reason"],
                    framework=framework,
                )
                row.update(
                    tp_degree=speed.tp_degree, fits=speed.fits, ttft_s=speed.ttft_s,
                    tpot_s=speed.tpot_s, output_tokens_per_s=speed.output_tokens_per_s,
                    usd_per_million_output_tokens=speed.usd_per_million_output_tokens,
                    perf_error=None, framework=speed.framework, error_band=speed.error_band,
                    basis=speed.basis,
                )
            except CalcError as error:
                row.update(
                    tp_degree=None, fits=False, ttft_s=None, tpot_s=None,
                    output_tokens_per_s=None, usd_per_million_output_tokens=None,
                    perf_error=error.key, framework=None, error_band=None, basis=None,
                )
        rows.append(row)
    return {
        "region": region,
        "hours": hours,
        "price_kind": kind,
        "model": None if model is None else model.id,
        "rows": rows,
        "derivation": [],
    }


def listing(params: Mapping[str, Any]) -> dict[str, Any]:
    inputs.check_known(params, ("what",))
    what = inputs.choice(params, "what", ("models", "instances", "chips", "frameworks"))
    items: list[dict[str, str]] = []
    if what == "frameworks":
        from .frameworks import all_frameworks, describe

        for framework in all_frameworks().values():
            items.append({"id": framework.id, "description": describe(framework)})
    elif what == "models":
        for raw in data.records("models"):
            items.append({"id": str(raw["id"]), "description": _describe_model(raw)})
    elif what == "instances":
        for raw in data.records("instances"):
            items.append({"id": str(raw["id"]), "description": _describe_instance(raw)})
    else:
        for raw in data.records("chips"):
            items.append({"id": str(raw["id"]), "description": _describe_chip(raw)})
    return {"what": what, "items": items, "derivation": []}


def _describe_model(raw: Mapping[str, Any]) -> str:
    params_b = int(raw.get("params", 0)) / 1e9
    text = f"{raw.get('name', raw['id'])}: {params_b:.2f}B params, {raw.get('layers')} layers, "
    text += f"{raw.get('heads')} heads / {raw.get('kv_heads')} KV heads, {raw.get('architecture')}"
    if raw.get("experts"):
        text += f", MoE {raw.get('active_experts')}/{raw.get('experts')} experts"
    return text


def _describe_instance(raw: Mapping[str, Any]) -> str:
    spec = data.instance(str(raw["id"]))
    unit = "NeuronCores" if spec.kind == "neuron" else "GPUs"
    return (
        f"{spec.chip.name} × {spec.chip_count}, {spec.logical_cores} {unit}, "
        f"TP {', '.join(str(d) for d in spec.tp_degrees)}"
    )


def _describe_chip(raw: Mapping[str, Any]) -> str:
    spec = data.chip(str(raw["id"]))
    memory_gib = "?" if spec.memory_bytes is None else f"{spec.memory_bytes / 2**30:g} GiB"
    return f"{spec.name} ({spec.vendor}, {spec.kind}): {spec.cores_per_chip} cores, {memory_gib}"


HANDLERS: dict[str, Handler] = {
    "memory": memory,
    "perf": perf,
    "train": train,
    "train_memory": train_memory,
    "price": price,
    "compare": compare,
    "list": listing,
}


def run(request: Any) -> dict[str, Any]:
    """Answer one request dict; errors come back as {"ok": false, "error": {...}}."""
    kind = request.get("kind") if isinstance(request, dict) else None
    kind_text = kind if isinstance(kind, str) else None
    try:
        if not isinstance(request, dict):
            raise CalcError("request", "bad_request")
        version = request.get("schema_version", SCHEMA_VERSION)
        if version != SCHEMA_VERSION or isinstance(version, bool):
            raise CalcError(
                "schema_version", "bad_schema_version",
                {"value": str(version)[:20], "allowed": [SCHEMA_VERSION]},
            )
        if kind_text not in HANDLERS:
            raise CalcError("kind", "unknown_kind", {"value": str(kind)[:40],
                                                      "allowed": list(HANDLERS)})
        params = request.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise CalcError("request", "bad_request")
        result = HANDLERS[kind_text](params)
        return {"schema_version": SCHEMA_VERSION, "ok": True, "kind": kind_text, "result": result}
    except CalcError as error:
        return _failure(kind_text, error)
    except Exception as error:  # noqa: BLE001 - the boundary must never raise
        return _failure(
            kind_text, CalcError(
                "request", "internal_error", {"value": f"{type(error).__name__}: {error}"[:200]}
            )
        )


def _failure(kind: str | None, error: CalcError) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "ok": False, "kind": kind, "error": error.as_dict()}
