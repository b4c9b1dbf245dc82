"""The advisor's training mode (issue 11 item 2): tokens to train and a deadline and/or a budget
-> the cheapest instance type × count, with time, cost and error band.

Built on the api results, never a second formula: time and cost are ``calc.api.train`` for the
same params (model fields, instance, count, tokens, seq_len, dtype, mfu, region, price_kind,
recipe); the memory check is train's own (``calc.fit_gate_api.training_layout``).
Per instance (filtered by ``family``), priced for (region, price_kind):
  1. memory: the smallest count in 1, 2, 4, … ≤ max_count at which train's memory check finds
     a layout (the recompute modes in train's order, then ZeRO 1 and 3, TP, PP; ``recipe`` if
     given, else calc.training_memory.DEFAULT_RECIPE). The layout is reported as train_memory
     inputs, not as a recommendation of how to train; time and cost are api train's at the
     option's count, with the recompute mode train picks there (the option's ``recompute``);
  2. deadline: a first guess ceil(time at count 1 / deadline) (train time is count⁻¹ while the
     layout uses every device), count = max(memory count, guess), checked with api.train at
     that count; then the fewest in (memory count, count] that meet it, by bisection (a count
     whose layout leaves devices idle is no faster than the one below it, so the answer is
     train's own time at each count, never the guess);
  3. budget: options whose cost exceeds it are rejected (``over_budget``).
While every device works, cost does not depend on the count (count × time is constant); idle
devices add cost, not speed. So the count is the smallest that meets the memory and the
deadline. Ranked by cost, then time.
"""

import math
from typing import Any

from . import data, dtype_gate, frameworks, inputs
from .derivation import Derivation
from .errors import CalcError
from .positions import beyond_max_positions
from .price import hourly_price
from .specs import InstanceSpec, ModelSpec

SECONDS_PER_HOUR = 3600
DEFAULT_MAX_COUNT = 1024

# params: calc.inputs.KIND_PARAMS["advise_train"] (the one schema)


def _reason(key: str, **values: Any) -> dict[str, Any]:
    return {"key": key, "params": values}


def _recompute_modes(instance: InstanceSpec) -> tuple[str, ...]:
    """train's order without a ``recompute`` (calc.fit_gate_api.recompute_candidates): the
    default training framework's mode, then the modes that keep fewer activations."""
    from .fit_gate_api import recompute_candidates

    try:
        default = frameworks.resolve(None, instance, "training").default_recompute
    except CalcError:   # no training framework here: api train refuses the instance below
        return ("full",)
    return recompute_candidates(default)


LAYOUT_FIELDS = ("tp", "pp", "zero", "recompute", "sp", "recipe")  # train_memory's inputs


def _memory_count(model: ModelSpec, instance: InstanceSpec, *, seq_len: int, recipe: str,
                  max_count: int) -> tuple[int | None, dict[str, Any] | None]:
    """(the smallest count on the 1, 2, 4, … ladder at which train's own memory check finds a
    layout, and that layout as train_memory inputs) or (None, None). The search is train's
    (calc.fit_gate_api.training_layout: recompute modes in train's order, ZeRO 1 then 3, TP,
    PP), so train at this count fits and train at half of it does not. It once searched ZeRO-3
    at one TP degree without PP, and could ask for more instances than train needs."""
    from .fit_gate_api import training_layout

    modes = _recompute_modes(instance)
    count = 1
    while count <= max_count:
        layout = training_layout(model, instance, count=count, seq_len=seq_len,
                                 recompute=modes, recipe_name=recipe)[0]
        if layout is not None:
            return count, {name: layout[name] for name in LAYOUT_FIELDS}
        count *= 2
    return None, None


def _fewest_meeting(train: Any, params: dict[str, Any], low: int, high: int,
                    at_high: dict[str, Any], deadline_h: float) -> tuple[int, dict[str, Any]]:
    """The fewest instances in (low, high] whose train time meets the deadline (high does), by
    bisection: train time does not rise as instances are added (it falls while the layout uses
    them all, and recompute with them; idle devices leave it as it was)."""
    best, best_result = high, at_high
    lo, hi = low, high   # lo: not known to meet (memory_count's single was checked above)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        tried = train({**params, "count": mid})
        if tried.get("time_h") is not None and tried["time_h"] <= deadline_h:
            hi, best, best_result = mid, mid, tried
        else:
            lo = mid
    return best, best_result


def advise_train(req: inputs.Request) -> dict[str, Any]:
    """The training search for a request parsed against KIND_PARAMS["advise_train"]."""
    from .api import train as api_train

    def train(params: dict[str, Any]) -> dict[str, Any]:
        return api_train(inputs.parse("train", params))

    model = req.need_model()
    tokens = req.get_int("tokens")
    seq_len = req.get_int("seq_len")
    deadline_h = req.get_opt_float("deadline_h")
    budget = req.get_opt_float("budget_usd")
    if deadline_h is None and budget is None:
        raise CalcError("deadline_h", "goal_required")
    if tokens < seq_len:   # as train refuses it: once, not per instance
        raise CalcError("tokens", "tokens_below_sequence", {"value": tokens, "min": seq_len})
    dtype = req.get_opt_text("dtype")  # absent: per instance, as train chooses it
    dtype_gate.training_dtype(dtype)   # an inference-only format: refused once, not per row
    region = req.get_text("region")
    price_kind = req.get_text("price_kind")
    family = req.get_text("family")
    max_count = req.get_int("max_count")
    hourly_price(data.instance_ids()[0], region, price_kind)  # unknown region: one clear error

    base: dict[str, Any] = dict(req.model_params)
    base.update(tokens=tokens, seq_len=seq_len, region=region, price_kind=price_kind)
    if dtype is not None:
        base["dtype"] = dtype
    if req.given("mfu"):
        base["mfu"] = req.get_float("mfu")
    recipe = req.get_text("recipe")   # the optimizer recipe of train's memory check
    base["recipe"] = recipe
    train_keys = set(base)

    options: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for instance_id in data.instance_ids():
        instance = data.instance(instance_id)
        if family != "all" and instance.kind != family:
            continue
        # only the price asked for (no other region's or price type's, unlike train's fallback)
        hourly = hourly_price(instance.id, region, price_kind, fallback=False)
        if hourly.usd_per_hour is None:
            rejected.append({"instance": instance.id, "reason": _reason(
                "no_price", price_missing_reason=hourly.missing_reason, region=region,
                price_kind=price_kind)})
            continue
        train_params = {k: v for k, v in base.items() if k in train_keys}
        train_params["instance"] = instance.id
        try:
            memory_count, layout = _memory_count(model, instance, seq_len=seq_len,
                                                 recipe=recipe, max_count=max_count)
        except CalcError as failure:   # e.g. the instance's memory is not published
            rejected.append({"instance": instance.id, "reason": _reason(
                failure.key, **{k: v for k, v in failure.params.items() if k != "field"})})
            continue
        # time and cost as train gives them at each count: it picks the recompute mode that
        # fits there (full at the fewest instances may become selective at more)
        if memory_count is None or layout is None:
            rejected.append({"instance": instance.id, "reason": _reason(
                "does_not_fit", max_count=max_count)})
            continue
        try:
            single = train({**train_params, "count": memory_count})  # train gates on fit
        except CalcError as error:
            rejected.append({"instance": instance.id, "reason": _reason(error.key)})
            continue
        if single.get("time_s") is None:  # train's gate: no time (no fit, no peak, ...)
            why = ((single.get("fit_reason") or {}).get("key")
                   or single.get("peak_missing_reason") or "does_not_fit")
            rejected.append({"instance": instance.id, "reason": _reason(str(why))})
            continue
        count = memory_count
        if deadline_h is not None:
            at_one_s = single["time_s"] * memory_count  # a guess: ∝ 1 / count (all devices)
            count = max(count, math.ceil(at_one_s / (deadline_h * SECONDS_PER_HOUR)))
        if count > max_count:
            fastest = train({**train_params, "count": max_count})
            rejected.append({"instance": instance.id, "reason": _reason(
                "misses_deadline", time_h=fastest["time_h"], count=max_count,
                deadline_h=deadline_h)})
            continue
        result = single if count == memory_count else train({**train_params, "count": count})
        if deadline_h is not None and result["time_h"] > deadline_h:
            count += 1  # the ceil above can land a rounding hair short
            result = train({**train_params, "count": count})
        if deadline_h is not None and count > memory_count:
            # the time at one instance came from the mode that fits at memory_count; with more
            # instances train may recompute less and run faster: the fewest that meet it
            count, result = _fewest_meeting(train, train_params, memory_count, count, result,
                                            deadline_h)
        cost = result["cost_usd"]
        if budget is not None and cost is not None and cost > budget:
            rejected.append({"instance": instance.id, "reason": _reason(
                "over_budget", cost_usd=cost, budget_usd=budget, count=count)})
            continue
        options.append({
            "instance": instance.id,
            "instance_kind": instance.kind,
            "instance_count": count,
            "memory_count": memory_count,
            "layout": layout,                       # the one that fits at memory_count
            "recompute": result.get("recompute"),   # the mode timed at instance_count
            "time_s": result["time_s"],
            "time_h": result["time_h"],
            "cost_usd": cost,
            "usd_per_hour": result["usd_per_hour"],
            "fleet_usd_per_hour": result["usd_per_hour"] * count,
            "tokens_per_s": result["tokens_per_s"],
            "mfu": result["mfu"],
            "price_kind": price_kind,
            "error_band": result.get("error_band"),
            "basis": result.get("basis"),
        })
    options.sort(key=lambda o: (o["cost_usd"], o["time_s"], o["instance"]))
    steps = Derivation()
    top = options[0] if options else None
    steps.add("instance_count", "max(fewest that fit in memory, ceil(time at 1 / deadline))",
              None if top is None else top["instance_count"], "")
    steps.add("time_s", "api train at that count", None if top is None else top["time_s"], "s")
    steps.add("cost_usd", "api train at that count", None if top is None else top["cost_usd"],
              "USD")
    message = None if options else _reason("no_training_option", deadline_h=deadline_h,
                                           budget_usd=budget)
    return {
        "model": model.id,
        "tokens": tokens,
        "seq_len": seq_len,
        "deadline_h": deadline_h,
        "budget_usd": budget,
        "dtype": dtype,
        "region": region,
        "price_kind": price_kind,
        "family": family,
        "max_count": max_count,
        "beyond_max_positions": beyond_max_positions(model, seq_len),
        "options": options,
        "rejected": rejected,
        "message": message,
        "derivation": steps.as_list(),
    }
