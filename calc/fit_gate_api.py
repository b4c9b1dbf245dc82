"""The api handlers of the gated speed and cost calculators (issue 9): perf, compare and train.
calc.api delegates here so that every answer goes through the same gate:

1. the dtype and KV dtype must be ones the hardware has (calc.dtype_gate; the memory calculator
   uses it and calc.memory_gate alone, without the speed model);
2. a setup that does not fit (calc.fit_gate) gets ``fits: false``, ``fit_reason``,
   ``suggestions`` (calc.suggest) and null speed and cost fields;
3. with no TP given, the degree is chosen for ``objective`` (calc.tp_choice);
4. the price may come from a labelled fallback kind or region (calc.price.hourly_price);
5. a compute peak that is a documented proxy is flagged (``peak_is_proxy``).

Every function here takes the checked ``calc.inputs.Request`` (one parse per request): typed
values, never raw params; ``req.echo`` (the params as sent) is only copied into suggestions.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from . import (
    data,
    dtype_gate,
    fit_gate,
    frameworks,
    inputs,
    memory,
    model_shape,
    serving,
    suggest,
    tp_choice,
)
from .errors import CalcError
from .flops import matmul_dtype, peak_flops_per_core, peak_is_proxy
from .perf import PerfResult
from .perf import perf as estimate_perf
from .price import DEFAULT_REGION, HourlyPrice, hourly_price, price_fields
from .specs import InstanceSpec, ModelSpec

# fields every perf answer has beyond PerfResult
GATE_FIELDS = ("fit_reason", "suggestions", "objective", "tp_reason", "tp_other_objective",
               "peak_is_proxy", "peak_proxy_id", "peak_missing_reason", "tpot_is_lower_bound",
               "price_kind", "price_kind_used", "price_region_used", "price_fallback_reason",
               "price_sources")


@dataclass(frozen=True, slots=True)
class PerfRequest:
    model: ModelSpec
    instance: InstanceSpec
    dtype: str
    kv_dtype: str
    batch: int
    input_len: int
    output_len: int
    tp: int | None
    objective: str
    hourly: HourlyPrice
    price_kind: str
    kv_given: bool = False  # kv_dtype was in the request (suggestions keep it)
    region: str = DEFAULT_REGION  # the region asked for (suggestions price other instances)
    # perf (issue 15): the serving framework (None: the hardware's default) and the shapes its
    # graph was compiled for (None: the request's own; no padding)
    framework: str | None = None
    compiled_batch: int | None = None
    compiled_seq_len: int | None = None
    # the model as its checkpoint stores it (calc.dtype_gate.checkpoint_model): other instances
    # the suggestions name serve it their own way; None: ``model`` everywhere
    checkpoint_model: ModelSpec | None = None

    def fit_batch(self) -> int:
        """The batch the memory must hold: the compiled graph's when it is larger."""
        return max(self.batch, self.compiled_batch or self.batch)

    def fit_seq_len(self) -> int:
        """The sequence length the memory must hold: the compiled one when it is longer."""
        return max(self.input_len + self.output_len, self.compiled_seq_len or 0)


def gated_perf(request: PerfRequest, base: Mapping[str, Any], *,
               other_instances: bool = True) -> dict[str, Any]:
    """The perf answer (PerfResult fields + GATE_FIELDS) for one setup, gated by fit."""
    r = request
    if not r.model.is_decoder:
        raise CalcError("model", "not_a_decoder", {"value": r.model.id})
    framework_id = frameworks.resolve(r.framework, r.instance, "inference").id
    serving.check_compiled_shapes(r.batch, r.input_len, r.output_len, r.compiled_batch,
                                  r.compiled_seq_len)
    seq_len = r.fit_seq_len()  # the compiled graph's shapes when larger (issue 15)
    batch = r.fit_batch()
    verdict = fit_gate.check(r.model, r.instance, dtype=r.dtype, kv_dtype=r.kv_dtype,
                             batch=batch, seq_len=seq_len, tp=r.tp)
    extras: dict[str, Any] = {
        "objective": r.objective, "price_kind": r.price_kind, **price_fields(r.hourly),
        "peak_is_proxy": None, "peak_proxy_id": None, "peak_missing_reason": None,
        "tpot_is_lower_bound": None,
    }
    if not verdict.fits:
        # memory.fit picks the degree fit_gate.check shows (the given one, else the least
        # memory per core) and labels it so
        fit = memory.fit(r.model, r.instance, dtype=r.dtype, kv_dtype=r.kv_dtype, batch=batch,
                         seq_len=seq_len, tp=r.tp)
        setup = suggest.Setup(r.model, r.instance, r.dtype,
                              r.kv_dtype if r.kv_given else None,
                              r.batch, r.input_len, r.output_len, r.tp,
                              checkpoint_model=r.checkpoint_model)
        region = r.hourly.region_used or r.region
        answer = {
            "model": r.model.id, "instance": r.instance.id, "dtype": r.dtype,
            "kv_dtype": r.kv_dtype, "batch": r.batch, "input_len": r.input_len,
            "output_len": r.output_len, "tp_degree": verdict.tp,
            "usd_per_hour": r.hourly.usd_per_hour, **extras,
            "fit_reason": verdict.reason,
            "suggestions": suggest.suggestions(setup, base, region=region,
                                               other_instances=other_instances),
            "tp_reason": None, "tp_other_objective": None,
            "derivation": _unfit_steps(fit.derivation),
            "framework": framework_id,
            "compiled_batch": r.compiled_batch, "compiled_seq_len": r.compiled_seq_len,
        }
        # error_band / basis are speed fields: null with the speed when the setup does not fit
        return fit_gate.gated([f.name for f in fields(PerfResult)], answer,
                              keep=("framework", "compiled_batch", "compiled_seq_len"))

    peak_missing = not has_peak(r.instance, r.dtype)
    instance = without_compute_limit(r.instance, r.dtype) if peak_missing else r.instance

    def estimate(tp: int, explain: bool = True, chosen_by: str | None = None) -> PerfResult:
        return estimate_perf(
            r.model, instance, dtype=r.dtype, kv_dtype=r.kv_dtype, batch=r.batch,
            input_len=r.input_len, output_len=r.output_len, tp=tp,
            usd_per_hour=r.hourly.usd_per_hour, price_missing_reason=r.hourly.missing_reason,
            framework=r.framework, compiled_batch=r.compiled_batch,
            compiled_seq_len=r.compiled_seq_len, explain=explain, tp_chosen_by=chosen_by,
        )

    # the TP objective compares the candidates with the same serving step model
    degrees = tp_choice.fitting_degrees(r.model, r.instance, dtype=r.dtype, kv_dtype=r.kv_dtype,
                                        batch=batch, seq_len=seq_len)
    # degrees that divide the heads first, as memory's recommended TP and the advisor choose
    # (NxD Inference and vLLM need t | heads); a padded degree only when none of them fits
    unpadded = [d for d in degrees if memory.tp_is_valid(r.model, d)]
    padded_fitting = [d for d in degrees if d not in unpadded] if unpadded else []
    degrees = unpadded or degrees
    # the candidates' figures only: the math is shown for the degree used
    choice = tp_choice.choose(degrees, lambda t: estimate(t, explain=False), r.objective)
    if r.tp is not None:
        used = r.tp
        reason: dict[str, Any] = {"key": "tp_given", "params": {
            "tp": r.tp, "objective": r.objective, "auto_tp": choice.tp}}
    else:  # the setup fits, so some degree does: choice.tp is set
        used = choice.tp if choice.tp is not None else verdict.tp
        reason = choice.reason
        if reason["key"] == "tp_only_fit" and padded_fitting:   # "only": of the unpadded ones
            reason = {"key": "tp_only_unpadded_fit",
                      "params": {**reason["params"], "padded": padded_fitting}}
    # the math says how the degree was chosen (calc.perf labels a degree it is given "given")
    chosen_by = None if r.tp is not None else TP_CHOSEN_FORMULA.get(
        str(reason["key"]), "chosen for the objective among the degrees that fit")
    answer = estimate(used, chosen_by=chosen_by).as_dict()
    proxy = peak_is_proxy(r.instance, r.dtype)
    answer.update(extras)
    answer.update(
        fit_reason=None, suggestions=[], tp_reason=reason,
        tp_other_objective=choice.other, peak_is_proxy=proxy is not None, peak_proxy_id=proxy,
    )
    answer["peak_missing_reason"] = None
    answer["tpot_is_lower_bound"] = False
    if peak_missing:
        bandwidth_only(answer)
        answer["tp_reason"] = {**reason, "params": {**reason["params"],
                                                    "times_are_lower_bounds": True}}
    if proxy is not None:
        note = str(data.assumption(proxy).get("bound", ""))
        answer["derivation"] = [*answer["derivation"], {
            "key": "peak_flops_proxy", "formula": f"assumption {proxy} ({note} bound)",
            "value": data.assumption_value(proxy), "unit": "TFLOPS"}]
    return answer


# perf fields that need the compute peak: unknown (null) when it is not published
NEEDS_PEAK = ("ttft_s", "e2e_s", "output_tokens_per_s", "output_tokens_per_s_per_replica",
              "usd_per_million_output_tokens", "compute_bound_tokens_per_s", "prefill_bound",
              "decode_bound")
NEEDS_PEAK_STEPS = frozenset({*NEEDS_PEAK, "peak_flops_per_core", "prefill_compute_s",
                              "prefill_attention_s", "prefill_s", "decode_compute_s",
                              "decode_attention_s"})


def has_peak(instance: InstanceSpec, dtype: str) -> bool:
    try:
        peak_flops_per_core(instance, dtype)
    except CalcError as error:
        if error.key == "peak_flops_missing":
            return False
        raise
    return True


def without_compute_limit(instance: InstanceSpec, dtype: str) -> InstanceSpec:
    """The instance with an unbounded matmul peak: roofline compute terms become 0, so the
    times are the bandwidth (and collective) terms alone, i.e. lower bounds."""
    compute = matmul_dtype(instance, dtype)
    peaks = {**instance.chip.peak_flops_per_core, compute: math.inf}
    return replace(instance, chip=replace(instance.chip, peak_flops_per_core=peaks))


def bandwidth_only(answer: dict[str, Any]) -> None:
    """An unpublished peak without a proxy: what is bandwidth-bound stays (TPOT as a lower bound,
    bandwidth-bound tokens/s), what needs the peak is null, and the derivation says so."""
    for name in NEEDS_PEAK:
        answer[name] = None
    for key in ("error_band", "error_band_family", "error_band_reasons"):
        band = answer.get(key)
        if isinstance(band, dict):   # no band (nor its family) around a figure not given
            answer[key] = {name: None if name in NEEDS_PEAK else value
                           for name, value in band.items()}
    answer["peak_missing_reason"] = "peak_flops_missing"
    answer["tpot_is_lower_bound"] = True
    steps = []
    bands_left_out = {f"error_band_{name}" for name in NEEDS_PEAK}
    for step in answer["derivation"]:
        if step["key"] in bands_left_out:
            continue   # the band of a figure that is not given
        value = step.get("value")
        unknown = step["key"] in NEEDS_PEAK_STEPS or (
            isinstance(value, float) and not math.isfinite(value))
        steps.append({**step, "value": None} if unknown else step)
    steps.append({"key": "peak_flops_missing",
                  "formula": "peak not published: compute terms unknown; TPOT = bandwidth and "
                             "collective terms only (a lower bound)",
                  "value": None, "unit": ""})
    answer["derivation"] = steps


def inference_framework(req: inputs.Request) -> None:
    """A framework named for serving must be an inference one: a training framework is refused
    once for a request over many instances (compare, advise), not as every row's failure."""
    name = req.get_opt_text("framework")
    if name is not None and frameworks.get(name).phase != "inference":
        raise CalcError("framework", "unknown_choice",
                        {"value": name, "allowed": frameworks.ids("inference")})


def check_compare_request(req: inputs.Request) -> None:
    """compare's serving inputs that are wrong on every instance, refused once like perf
    refuses them: a training framework, a compiled batch or length shorter than the request."""
    inference_framework(req)
    serving.check_compiled_shapes(req.get_int("batch"), req.get_int("input_len"),
                          req.get_int("output_len"), req.get_opt_int("compiled_batch"),
                          req.get_opt_int("compiled_seq_len"))


def serving_params(req: inputs.Request) -> dict[str, Any]:
    """The perf (issue 15) serving inputs of a perf or compare request."""
    return {"framework": req.get_opt_text("framework"),
            "compiled_batch": req.get_opt_int("compiled_batch"),
            "compiled_seq_len": req.get_opt_int("compiled_seq_len")}


def perf(req: inputs.Request) -> dict[str, Any]:
    instance = req.instance()
    model = dtype_gate.model_for(req, instance)
    dtype = dtype_gate.dtype_for(req, instance)
    price_kind = req.get_text("price_kind")
    hourly = hourly_price(instance.id, req.get_text("region"), price_kind)
    request = PerfRequest(
        model=model, instance=instance, dtype=dtype,
        kv_dtype=dtype_gate.kv_dtype_for(req, instance, dtype),
        batch=req.get_int("batch"),
        input_len=req.get_int("input_len"),
        output_len=req.get_int("output_len"),
        tp=req.get_opt_int("tp"),
        objective=req.get_text("objective"),
        hourly=hourly, price_kind=price_kind, kv_given=req.given("kv_dtype"),
        region=req.get_text("region"),
        checkpoint_model=dtype_gate.checkpoint_model(req),
        **serving_params(req),
    )
    if request.tp is not None and request.tp not in instance.tp_degrees:
        raise CalcError("tp", "tp_not_allowed",
                        {"value": request.tp, "allowed": list(instance.tp_degrees)})
    answer = gated_perf(request, req.echo)
    answer["checkpoint_fallback"] = dtype_gate.checkpoint_fallback(req, instance, dtype)
    return answer


COMPARE_ROW_FIELDS = ("tp_degree", "fits", "ttft_s", "tpot_s", "output_tokens_per_s",
                      "usd_per_million_output_tokens", "dtype", "fit_reason", "suggestions",
                      "tp_reason", "tp_other_objective", "peak_is_proxy",
                      # perf (issue 15): band and basis null when the row does not fit
                      "framework", "error_band", "basis")


def compare_row(req: inputs.Request, instance: InstanceSpec, model: ModelSpec,
                hourly: HourlyPrice, price_kind: str) -> dict[str, Any]:
    """The speed columns of one compare row, gated like perf (no other-instance suggestions:
    the other rows are the other instances)."""
    row: dict[str, Any] = {name: None for name in COMPARE_ROW_FIELDS}
    row.update(fits=False, suggestions=[], perf_error=None)
    try:
        dtype = dtype_gate.dtype_for(req, instance)
        request = PerfRequest(
            model=dtype_gate.model_for(req, instance), instance=instance, dtype=dtype,
            kv_dtype=dtype_gate.kv_dtype_for(req, instance, dtype),
            batch=req.get_int("batch"),
            input_len=req.get_int("input_len"),
            output_len=req.get_int("output_len"),
            tp=None, objective=req.get_text("objective"), hourly=hourly,
            price_kind=price_kind, kv_given=req.given("kv_dtype"),
            region=req.get_text("region"), checkpoint_model=dtype_gate.checkpoint_model(req),
            **serving_params(req),
        )
        # the suggestions are perf requests: this row's instance, the lengths used, no hours
        row_params = {**req.echo, "instance": instance.id, "input_len": request.input_len,
                      "output_len": request.output_len}
        for compare_only in ("instances", "hours"):
            row_params.pop(compare_only, None)
        answer = gated_perf(request, row_params, other_instances=False)
    except CalcError as error:
        row.update(perf_error=error.key, perf_error_params=error.params)
        return row
    row.update({name: answer.get(name) for name in COMPARE_ROW_FIELDS})
    # the speed's own reason (the row's peak_missing_reason is the price quote's, about
    # $/BF16-PFLOP-hour): why tokens/s and $/1M tokens are null where the setup fits
    row["speed_missing_reason"] = answer.get("peak_missing_reason")
    # what the checkpoint stores that this row's chip does not run (said, never silent)
    row["checkpoint_fallback"] = dtype_gate.checkpoint_fallback(req, instance, dtype)
    return row


# the tp_degree step of a perf answer whose degree the objective chose (calc.tp_choice keys)
TP_CHOSEN_FORMULA = {
    "tp_fastest": "the degree that fits with the shortest request (latency objective)",
    "tp_cheapest": "the degree that fits with the most tokens/s per instance (cost objective)",
    "tp_only_fit": "the only allowed degree that fits",
    "tp_only_unpadded_fit": "the only degree that fits without padding the heads",
}


def _unfit_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The memory math of a perf setup that does not fit, without its replicas (a speed
    field: null here)."""
    return [step for step in steps if step["key"] != "replicas"]


TRAIN_SEARCH_ZERO = (1, 3)
# train derivation steps that describe the setup, kept when it does not fit (time, MFU, tokens/s,
# cost, error band and basis are speed and cost)
TRAIN_SETUP_STEPS = ("framework", "matmul_params", "total_flops", "attention_flops",
                     "recompute_flops")
TRAIN_MAX_COUNT_FACTOR = 64


def recompute_candidates(default: str, given: str | None = None) -> tuple[str, ...]:
    """The activation recompute modes the training memory check may use, in the order tried: the
    one asked for alone (a layout with another mode would not be the setup asked about); else
    the framework's default, then each mode that keeps fewer activations, up to full."""
    from .training_memory import RECOMPUTE_MODES

    if given is not None:
        return (given,)
    if default not in RECOMPUTE_MODES:
        return ("full",)
    return RECOMPUTE_MODES[RECOMPUTE_MODES.index(default):]


def training_layout(model: ModelSpec, instance: InstanceSpec, *, count: int, seq_len: int,
                    recompute: Sequence[str] = ("full",), recipe_name: str | None = None,
                    ) -> tuple[dict[str, Any] | None, int | None, int]:
    """The first parallel layout (recompute mode in the order of ``recompute``, then ZeRO 1
    then 3, TP within an instance, PP; sequence parallelism with TP > 1 (it splits nothing at
    TP 1), micro-batch 1, the optimizer
    recipe named, else calc.training_memory.DEFAULT_RECIPE) under which training fits per
    device: (layout or None, smallest per-device bytes seen, capacity). A mode is tried only
    when no layout of an earlier one fits. Within a mode a layout that uses every device
    (tp × pp × dp = devices available) comes first; else the one that uses the most, with its
    idle devices counted (``devices`` < ``devices_available``: the time uses only ``devices``)."""
    from .training_memory import default_recipe, train_memory

    recipe_name = recipe_name or default_recipe()
    available = instance.logical_cores * count
    capacity = memory.capacity_per_core_bytes(instance)
    smallest: int | None = None
    tps = [t for t in sorted(instance.tp_degrees)
           if model.heads % t == 0 and t <= instance.logical_cores]
    pps = [p for p in (1, 2, 4, 8, 16, 32, 64, 128) if p <= model.layers]
    for mode in recompute:
        partial: dict[str, Any] | None = None   # the fit that leaves the fewest devices idle
        for zero in TRAIN_SEARCH_ZERO:
            for tp in tps:
                for pp in pps:
                    if tp * pp > available:
                        continue
                    try:
                        result = train_memory(
                            model, instance, count=count, recipe_name=recipe_name,
                            zero_stage=zero, recompute=mode, sp=tp > 1, tp=tp, pp=pp, dp=None,
                            micro_batch=1, seq_len=seq_len,
                        )
                    except CalcError:
                        continue
                    if smallest is None or result.per_device_bytes < smallest:
                        smallest = result.per_device_bytes
                    if not result.fits:
                        continue
                    layout = {"tp": tp, "pp": pp, "dp": result.dp, "zero": zero,
                              "recompute": mode, "sp": tp > 1, "recipe": recipe_name,
                              "micro_batch": 1, "per_device_bytes": result.per_device_bytes,
                              "devices": tp * pp * result.dp, "devices_available": available}
                    if tp * pp * result.dp == available:
                        return layout, smallest, capacity
                    if partial is None or layout["devices"] > partial["devices"]:
                        partial = layout   # the most devices at work (ties: search order)
        if partial is not None:   # no layout of this mode uses every device
            return partial, smallest, capacity
    return None, smallest, capacity


def train_recompute_modes(req: inputs.Request, instance: InstanceSpec) -> tuple[str, ...]:
    """The recompute modes a train request's memory check may use (``recompute_candidates``):
    the one given, else its training framework's default and the modes that save more."""
    given = req.get_opt_text("recompute")
    if given is not None:
        return (given,)
    framework = frameworks.resolve(req.get_opt_text("framework"), instance, "training")
    return recompute_candidates(framework.default_recompute)


@dataclass(frozen=True)
class TrainFit:
    """The training-memory check of a train request, made before its one time estimate: the
    first layout that fits (or None), the smallest per-device bytes seen, the capacity, and
    the recompute modes it tried (``train_recompute_modes``)."""
    layout: dict[str, Any] | None
    smallest_bytes: int | None
    capacity_bytes: int
    modes: tuple[str, ...]
    recipe: str

    @property
    def recompute(self) -> str | None:
        """The recompute mode the time estimate uses: the fitting layout's; with none that
        fits, the one asked for (None: the framework's default)."""
        if self.layout is not None:
            return str(self.layout["recompute"])
        return self.modes[0] if len(self.modes) == 1 else None


def train_fit(req: inputs.Request, model: ModelSpec, instance: InstanceSpec, *, count: int,
              seq_len: int) -> TrainFit:
    """Which layout a train request fits with (``training_layout`` over its recompute modes),
    so that its time and cost are estimated once, for that layout's mode."""
    modes = train_recompute_modes(req, instance)
    recipe_name = req.get_text("recipe")
    layout, smallest, capacity = training_layout(model, instance, count=count, seq_len=seq_len,
                                                 recompute=modes, recipe_name=recipe_name)
    return TrainFit(layout, smallest, capacity, modes, recipe_name)


def gated_train(req: inputs.Request, result: dict[str, Any], model: ModelSpec,
                instance: InstanceSpec, hourly: HourlyPrice, fit: TrainFit) -> dict[str, Any]:
    """The train answer gated by its training-memory fit (``train_fit``, made before the
    estimate, so ``result`` is already for the fitting layout's recompute mode): time and cost
    only when some layout fits; else null, with more instances suggested."""
    count = int(result["count"])
    seq_len = int(result["seq_len"])
    extras = {**price_fields(hourly), "price_kind": req.get_text("price_kind"),
              "training_layout": fit.layout, "fit_reason": None, "suggestions": [],
              "peak_is_proxy": peak_is_proxy(instance, str(result["dtype"])) is not None}
    if fit.layout is not None:
        return {**result, "recompute": fit.recompute, "fits": True, **extras}
    reason = {"key": "training_does_not_fit", "params": {
        "count": count, "per_device_bytes": fit.smallest_bytes,
        "capacity_per_device_bytes": fit.capacity_bytes}}
    suggestions = []
    more = count * 2
    while more <= count * TRAIN_MAX_COUNT_FACTOR:
        if training_layout(model, instance, count=more, seq_len=seq_len,
                           recompute=fit.modes, recipe_name=fit.recipe)[0] is not None:
            suggestions.append({"change": "count", "value": more,
                                "params": {**req.echo, "count": more},
                                "reason_key": "suggest_count", "tp_degree": None})
            break
        more *= 2
    answer = fit_gate.gated(list(result), {**result, **extras},
                            keep=("seq_len", "tokens", "count", "mfu", "mfu_source",
                                  "total_flops", "framework", "recompute"))
    # the math of a setup that does not fit: its FLOPs and the memory check, no time or cost
    setup_steps = [step for step in result["derivation"] if step["key"] in TRAIN_SETUP_STEPS]
    setup_steps += [
        {"key": "per_device_bytes", "value": fit.smallest_bytes, "unit": "B",
         "formula": "least per device over the layouts searched (recompute, ZeRO 1/3, TP × PP)"},
        {"key": "capacity_per_device_bytes", "value": fit.capacity_bytes, "unit": "B",
         "formula": "usable memory per device"},
    ]
    answer.update(fit_reason=reason, suggestions=suggestions, training_layout=None,
                  derivation=setup_steps)
    return answer


def train_without_peak(model: ModelSpec, instance: InstanceSpec, *, count: int, tokens: int,
                       seq_len: int, dtype: str, mfu: float | None,
                       hourly: HourlyPrice) -> dict[str, Any]:
    """A train answer when the peak is not published: the FLOPs are known, the time and cost
    need the peak and are null (``peak_missing_reason``)."""
    from .flops import TrainResult, default_mfu, training_flops

    mfu_value, mfu_source = (mfu, "input") if mfu is not None else default_mfu(instance)
    total = training_flops(model, tokens, seq_len)
    known = {
        "model": model.id, "instance": instance.id, "count": count, "tokens": tokens,
        "seq_len": seq_len, "dtype": dtype, "total_flops": total, "mfu": mfu_value,
        "mfu_source": mfu_source, "usd_per_hour": hourly.usd_per_hour,
        "price_missing_reason": hourly.missing_reason,
    }
    result: dict[str, Any] = {f.name: known.get(f.name) for f in fields(TrainResult)}
    result["peak_missing_reason"] = "peak_flops_missing"
    result["derivation"] = [
        {"key": "matmul_params", "formula": model_shape.matmul_params_formula(model),
         "value": model_shape.matmul_params(model), "unit": ""},
        {"key": "total_flops", "formula": "6 · N_mm · D + 12 · L · h · s · D",
         "value": total, "unit": "FLOP"},
        {"key": "peak_flops_missing", "formula": "peak not published: time and cost unknown",
         "value": None, "unit": ""},
    ]
    return result
