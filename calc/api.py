"""The JSON boundary: ``run(request) -> response``; never raises (see ARCHITECTURE.md §2)."""

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from . import data, dtype_gate, dtype_support, inputs
from .errors import CalcError
from .positions import beyond_max_positions

SCHEMA_VERSION = 1

Handler = Callable[[inputs.Request], dict[str, Any]]


# Each handler computes on a Request that calc.inputs.parse checked in one pass against the one
# schema (calc.inputs.PARAMS / KIND_PARAMS); no handler reads raw params.


def memory(req: inputs.Request) -> dict[str, Any]:
    from .memory import fit
    from .memory_gate import memory_extras

    instance = req.instance()
    dtype = dtype_gate.dtype_for(req, instance)  # trust: refused if the hardware lacks it
    result = fit(
        dtype_gate.model_for(req, instance),   # experts the chip does not keep: as loaded
        instance,
        dtype=dtype,
        kv_dtype=dtype_gate.kv_dtype_for(req, instance, dtype),
        batch=req.get_int("batch"),
        seq_len=req.get_int("seq_len"),
        tp=req.get_opt_int("tp"),
        expert_dtype=dtype_gate.expert_dtype_for(req, instance),
    ).as_dict()
    result.update(memory_extras(req, result))
    result["checkpoint_fallback"] = dtype_gate.checkpoint_fallback(req, instance, dtype)
    result["beyond_max_positions"] = beyond_max_positions(req.need_model(),
                                                          req.get_int("seq_len"))
    return result


def perf(req: inputs.Request) -> dict[str, Any]:
    """Gated by fit, TP chosen for an objective, price fallback labelled (calc.fit_gate_api);
    the serving step model of calc.perf / calc.serving with the request's framework and
    compiled shapes (issue 15)."""
    from . import fit_gate_api

    model = req.need_model()
    answer = fit_gate_api.perf(req)
    # the longest sequence the request or its compiled graph (compiled_seq_len) holds
    tokens = max(req.get_int("input_len") + req.get_int("output_len"),
                 req.get_opt_int("compiled_seq_len") or 0)
    return {**answer, "active_params": model.active_params,
            "beyond_max_positions": beyond_max_positions(model, tokens)}


def train(req: inputs.Request) -> dict[str, Any]:
    from . import fit_gate_api
    from .flops import train as estimate
    from .price import hourly_price

    model = req.need_model()
    instance = req.instance()
    hourly = hourly_price(instance.id, req.get_text("region"), req.get_text("price_kind"))
    mfu = req.get_opt_float("mfu")
    count = req.get_int("count")
    seq_len = req.get_int("seq_len")
    dtype = dtype_gate.training_dtype_for(req, instance)  # trust: a training dtype the chip has
    tokens = req.get_int("tokens")
    if tokens < seq_len:   # less than one sample: no step to time (QA: 1 token on 32M ranks)
        raise CalcError("tokens", "tokens_below_sequence", {"value": tokens, "min": seq_len})
    # the memory check first: the one time estimate is for the fitting layout's recompute mode
    fit = fit_gate_api.train_fit(req, model, instance, count=count, seq_len=seq_len)
    try:
        result = estimate(
            model,
            instance,
            count=count,
            tokens=tokens,
            seq_len=seq_len,
            dtype=dtype,
            mfu=mfu,
            usd_per_hour=hourly.usd_per_hour,
            price_missing_reason=hourly.missing_reason,
            framework=req.get_opt_text("framework"),  # perf (issue 15)
            recompute=fit.recompute,
            devices_used=None if fit.layout is None else int(fit.layout["devices"]),
            tp=1 if fit.layout is None else int(fit.layout["tp"]),   # unfit: no time shown
        ).as_dict()
        result["peak_missing_reason"] = None
    except CalcError as error:  # trust: an unpublished peak leaves time and cost unknown
        if error.key != "peak_flops_missing":
            raise
        result = fit_gate_api.train_without_peak(
            model, instance, count=count, tokens=tokens, seq_len=seq_len, dtype=dtype, mfu=mfu,
            hourly=hourly)
    return {**fit_gate_api.gated_train(req, result, model, instance, hourly, fit),
            "active_params": model.active_params,
            "beyond_max_positions": beyond_max_positions(model, seq_len)}


def train_memory(req: inputs.Request) -> dict[str, Any]:
    from .training_memory import train_memory as estimate

    model = req.need_model()
    result = estimate(
        model,
        req.instance(),
        count=req.get_int("count"),
        recipe_name=req.get_text("recipe"),
        zero_stage=req.get_int("zero"),
        recompute=req.get_text("recompute"),
        sp=req.get_flag("sp"),
        tp=req.get_int("tp"),
        pp=req.get_int("pp"),
        dp=req.get_opt_int("dp"),
        micro_batch=req.get_int("batch"),
        seq_len=req.get_int("seq_len"),
    ).as_dict()
    result["beyond_max_positions"] = beyond_max_positions(model, req.get_int("seq_len"))
    result["no_training_framework"] = _no_training_framework(req.instance())
    return result


def _no_training_framework(instance: Any) -> str | None:
    """The chip's name when no training framework in the data runs on it (Inferentia 1/2,
    Trainium3): training memory is still sized (a layout question), and said to be so."""
    from . import frameworks

    try:
        frameworks.default_for(instance, "training")
    except CalcError:
        return str(instance.chip.name)
    return None


def price(req: inputs.Request) -> dict[str, Any]:
    from .price import quote

    return quote(
        req.instance(),
        region=req.get_text("region"),
        hours=req.get_float("hours"),
        kind=req.get_text("price_kind"),
        fallback=req.get_flag("price_fallback"),  # trust (issue 9)
    ).as_dict()


def compare(req: inputs.Request) -> dict[str, Any]:
    """Price (and, with a model, speed and $/1M tokens) side by side for several instances."""
    from . import fit_gate_api
    from .price import hourly_price, quote

    region = req.get_text("region")
    hours = req.get_float("hours")
    kind = req.get_text("price_kind")
    model = req.model
    if model is not None:   # wrong on every instance: one error, not a failed row each
        if not model.is_decoder:
            raise CalcError("model", "not_a_decoder", {"value": model.id})
        fit_gate_api.check_compare_request(req)
    names = req.values.get("instances") or data.instance_ids()
    rows: list[dict[str, Any]] = []
    for instance_id in names:
        instance = data.instance(instance_id)
        row = quote(instance, region=region, hours=hours, kind=kind).as_dict()
        del row["derivation"]
        if model is not None:  # trust: gated by fit, TP for the objective (default cost)
            hourly = hourly_price(instance.id, region, kind)
            row.update(fit_gate_api.compare_row(req, instance, model, hourly, kind))
        rows.append(row)
    return {
        "region": region,
        "hours": hours,
        "price_kind": kind,
        "model": None if model is None else model.id,
        "beyond_max_positions": None if model is None else beyond_max_positions(
            model, req.get_int("input_len") + req.get_int("output_len")),
        "objective": req.get_text("objective"),
        "rows": rows,
        "derivation": [],
    }


def listing(req: inputs.Request) -> dict[str, Any]:
    what = req.get_text("what")
    items: list[dict[str, Any]] = []
    if what == "frameworks":
        from .frameworks import all_frameworks, describe

        for framework in all_frameworks().values():
            items.append({"id": framework.id, "description": describe(framework)})
    elif what == "models":
        for raw in data.records("models"):
            items.append({"id": str(raw["id"]), "description": _describe_model(raw)})
    elif what == "instances":
        for raw in data.records("instances"):
            support = dtype_support.describe(data.instance(str(raw["id"])))
            items.append({"id": str(raw["id"]), "description": _describe_instance(raw),
                          "dtypes_supported": support["dtypes_supported"],
                          "kv_dtypes_supported": support["kv_dtypes_supported"],
                          "default_dtype": support["default_dtype"]})
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


def dtypes_op(req: inputs.Request) -> dict[str, Any]:
    """The data types an instance's accelerator has (trust, issue 9): the page offers these."""
    return {**dtype_support.describe(req.instance()), "derivation": []}
def advise(req: inputs.Request) -> dict[str, Any]:
    from .advise import advise as search

    return search(req)


def advise_train(req: inputs.Request) -> dict[str, Any]:
    from .advise_train import advise_train as search

    return search(req)


def snippet(req: inputs.Request) -> dict[str, Any]:
    from . import frameworks
    from .memory import tp_is_valid
    from .snippets import snippet as serving_snippet

    model = req.model
    instance = req.instance()
    tp = req.get_int("tp")
    if tp not in instance.tp_degrees:   # the command would not start
        raise CalcError("tp", "tp_not_allowed", {"value": tp, "allowed": list(instance.tp_degrees)})
    if model is not None and not model.is_decoder:   # vllm serve generates text
        raise CalcError("model", "not_a_decoder", {"value": model.id})
    if model is not None and not tp_is_valid(model, tp):   # vLLM splits the heads evenly
        raise CalcError("tp", "heads_not_divisible", {"value": model.heads, "allowed": tp})
    framework = req.get_opt_text("framework")
    if framework is not None:   # one for serving on this hardware, as perf checks it
        frameworks.resolve(framework, instance, "inference")
    dtype = dtype_gate.dtype_for(req, instance)   # one the hardware has (absent: its default)
    kv_used = dtype_gate.kv_dtype_for(req, instance, dtype)   # a given one: the hardware's too
    if model is not None:   # a command for a setup that does not fit is not offered
        from .memory import fit

        fitted = fit(model, instance, dtype=dtype, kv_dtype=kv_used,
                     batch=req.get_int("batch"),
                     seq_len=req.get_int("input_len") + req.get_int("output_len"), tp=tp)
        if not fitted.fits:
            raise CalcError("tp", "snippet_does_not_fit", {"value": instance.id})
    return serving_snippet(
        model_id="custom" if model is None else model.id, instance_id=instance.id,
        tp=tp, batch=req.get_int("batch"), input_len=req.get_int("input_len"),
        output_len=req.get_int("output_len"), dtype=dtype, kv_dtype=req.get_opt_text("kv_dtype"),
        framework=framework,
        beyond_max_positions=None if model is None else beyond_max_positions(
            model, req.get_int("input_len") + req.get_int("output_len")),
    ).as_dict() | {"derivation": []}


HANDLERS: dict[str, Handler] = {
    "memory": memory,
    "perf": perf,
    "train": train,
    "train_memory": train_memory,
    "price": price,
    "compare": compare,
    "list": listing,
    "dtypes": dtypes_op,
    "advise": advise,
    "advise_train": advise_train,
    "snippet": snippet,
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
                # as JSON: the string "1" shows its quotes, unlike the number 1 it is not
                {"value": json.dumps(version, default=str)[:20], "allowed": [SCHEMA_VERSION]},
            )
        if kind_text not in HANDLERS:
            raise CalcError("kind", "unknown_kind", {"value": str(kind)[:40],
                                                      "allowed": list(HANDLERS)})
        params = request.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise CalcError("request", "bad_request")
        result = HANDLERS[kind_text](inputs.parse(kind_text, params))
        _require_finite(result)
        return {"schema_version": SCHEMA_VERSION, "ok": True, "kind": kind_text, "result": result}
    except CalcError as error:
        return _failure(kind_text, error)
    except Exception as error:  # noqa: BLE001 - the boundary must never raise
        return _failure(
            kind_text, CalcError(
                "request", "internal_error", {"value": f"{type(error).__name__}: {error}"[:200]}
            )
        )


def _require_finite(value: Any, path: str = "result") -> None:
    """Hardening: no inf/NaN ever leaves the engine (JSON has no spelling for them). The C
    encoder checks a whole result at once; only a refused one is walked to name the field."""
    try:
        json.dumps(value, allow_nan=False)
        return
    except (ValueError, TypeError):
        _walk_finite(value, path)


def _walk_finite(value: Any, path: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise CalcError("request", "result_not_finite", {"value": path})
    if isinstance(value, dict):
        for key, item in value.items():
            _walk_finite(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk_finite(item, f"{path}[{index}]")


def _failure(kind: str | None, error: CalcError) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "ok": False, "kind": kind, "error": error.as_dict()}
