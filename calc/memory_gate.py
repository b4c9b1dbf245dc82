"""The gate of the memory calculator (issue 9): why a setup does not fit, and what would make it
fit (calc.fit_gate, calc.suggest); the dtypes it runs in are calc.dtype_gate's."""

from collections.abc import Mapping
from typing import Any

from . import inputs


def memory_extras(req: inputs.Request, result: Mapping[str, Any]) -> dict[str, Any]:
    """fit_reason and suggestions for a memory answer (the memory fields stay: they say why)."""
    if result["fits"]:
        return {"fit_reason": None, "suggestions": []}
    from . import dtype_gate, fit_gate, suggest  # here: an answer that fits loads no search

    instance = req.instance()
    model = dtype_gate.model_for(req, instance)   # as the instance serves it (as sized)
    tp = result["tp_degree"] if result["tp_given"] else None
    verdict = fit_gate.check(model, instance, dtype=result["dtype"], kv_dtype=result["kv_dtype"],
                             batch=result["batch"], seq_len=result["seq_len"], tp=tp)
    setup = suggest.Setup(
        model, instance, str(result["dtype"]),
        str(result["kv_dtype"]) if req.given("kv_dtype") else None,
        int(result["batch"]), int(result["seq_len"]), 0, tp, length_field="seq_len",
        checkpoint_model=dtype_gate.checkpoint_model(req),
    )
    return {"fit_reason": verdict.reason, "suggestions": suggest.suggestions(setup, req.echo)}
