"""The advisor (issue 11): which instance, TP degree, batch and instance count serve a model and a
workload most cheaply while meeting optional latency targets.

It never computes speed or price itself. Every option IS a ``calc.api.perf`` result for the
same params (instance, tp, batch, input_len, output_len, dtype, region, price_kind, framework and
the model fields passed through unchanged), so an option equals ``calc perf`` by construction.

Search, per instance in data (filtered by ``family``):
  1. price: an instance without a price for (region, price_kind) is rejected (``no_price``);
  2. TP degrees that do not divide the attention heads are rejected (``heads_not_divisible``:
     NxD Inference and vLLM need t | heads) unless ``pad_heads`` is true (head padding, as
     transformers-neuronx / neuronx-distributed do; memory and perf then count the padding);
     memory prune (cheap, no perf call): for every remaining TP, ``memory.footprint`` at batch 1
     and seq_len = input_len + output_len against ``memory.capacity_per_core_bytes`` — the
     terms ``memory.fit`` compares; TPs that do not fit are skipped; for those that fit, the
     largest batch that fits (footprint is linear in batch: estimate, then step to the boundary),
     capped at ``max_batch`` (default ``DEFAULT_MAX_BATCH``);
  3. batch: perf is evaluated at that largest batch; when it misses a target, at batch 1, then
     between the two for the largest batch that meets the targets (TTFT and TPOT grow with the
     batch; the next guess interpolates where they cross the targets), so perf runs a few times
     per TP, never for a TP that does not fit. These screening evaluations call perf.perf (the
     function api perf calls) once per (chip, kind, TP, batch): instances with the same chip
     share them. Each option is then api perf for its own instance, re-checked on the targets;
  4. instance_count: 1 without a request rate; with one, ceil(rate · output_len / output tok/s
     per instance) (``tokens_per_day`` counts output tokens: rate = tokens_per_day / 86400 /
     output_len); then the batch is lowered to about the smallest that needs the same count
     (same price, lower latency; see _right_size).
Ranking: by $ per 1M output tokens, or with a rate by fleet $/hour (count × $/hour), then
$ per 1M output tokens, then TTFT. ``error_band`` and ``basis`` are passed through from the perf
result when perf provides them (else null).
"""

import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from . import data, frameworks, inputs, memory
from .derivation import Derivation
from .errors import CalcError
from .positions import beyond_max_positions
from .price import HourlyPrice, hourly_price, hourly_price_uncached
from .specs import InstanceSpec, ModelSpec

if TYPE_CHECKING:
    from .perf import PerfResult

SECONDS_PER_DAY = 86_400
TOKENS_PER_MILLION = 1_000_000
FAMILIES = ("all", "neuron", "gpu")
PRICE_KINDS = ("on-demand", "ri-effective", "capacity-block")
# Upper end of the batch (concurrency) search: vLLM's default max_num_seqs (256); a search bound,
# not a hardware figure (the `max_batch` param changes it).
DEFAULT_MAX_BATCH = 256
RIGHT_SIZE_STEPS = 2     # screening steps when lowering the batch to the rate (_right_size)
RIGHT_SIZE_BELOW_UTILIZATION = 0.5   # ... only for options the rate leaves at least half idle

# params: calc.inputs.KIND_PARAMS["advise"] (the one schema)
# the perf params the advisor forwards (model fields are forwarded as given)
_FORWARDED = ("dtype", "kv_dtype", "input_len", "output_len", "region", "price_kind", "framework")


@dataclass(frozen=True, slots=True)
class Workload:
    input_len: int
    output_len: int
    requests_per_s: float | None      # None: no rate, rank by $ per 1M output tokens
    ttft_max_s: float | None
    tpot_max_s: float | None

    @property
    def output_tokens_per_s_needed(self) -> float | None:
        return None if self.requests_per_s is None else self.requests_per_s * self.output_len


def workload(req: inputs.Request) -> Workload:
    """The workload of a parsed advise request (limits: calc.inputs.PARAMS)."""
    input_len = req.get_int("input_len")
    output_len = req.get_int("output_len")
    if req.given("request_rate") and req.given("tokens_per_day"):
        raise CalcError("tokens_per_day", "rate_conflict")
    rate = req.get_opt_float("request_rate")
    per_day = req.get_opt_float("tokens_per_day")
    if per_day is not None:
        rate = per_day / SECONDS_PER_DAY / output_len
    return Workload(input_len, output_len, rate, req.get_opt_float("ttft_max"),
                    req.get_opt_float("tpot_max"))


def _reason(key: str, **values: Any) -> dict[str, Any]:
    return {"key": key, "params": values}


class _ScreenMismatch(Exception):
    """perf.perf with api perf's arguments no longer gives api perf's result: search again
    with every evaluation through api perf."""


# perf.perf is a pure function of its arguments: its answers are kept between advise calls (the
# advisor page asks again at every input change; a new target, rate or family re-uses them all).
# Least recently used first out; a CalcError is kept as the answer too.
EVALUATIONS_KEPT = 4096
_EVALUATIONS: "OrderedDict[tuple[Any, ...], PerfResult | CalcError]" = OrderedDict()
# the largest batch that fits per (model, chip, dtypes, length, TP, capacity, batch bound), and
# the bytes per core at batch 1: memory only, shared by every target, rate and instance
_LARGEST: "OrderedDict[tuple[Any, ...], tuple[int, int]]" = OrderedDict()


def _forget() -> None:
    """data.reset(): the figures came from the data that was replaced."""
    _EVALUATIONS.clear()
    _LARGEST.clear()
    _hourly.cache_clear()


@lru_cache(maxsize=1024)
def _hourly(instance_id: str, region: str, price_kind: str) -> HourlyPrice:
    """The rate asked for and only that (no labelled fallback: an instance without it is
    rejected, not priced from another region or price type). Kept here, so not through
    price.hourly_price's own cache as well."""
    return hourly_price_uncached(instance_id, region, price_kind, fallback=False)


data.on_reset(_forget)


def _remember[V](memo: "OrderedDict[tuple[Any, ...], V]", key: tuple[Any, ...], value: V) -> V:
    memo[key] = value
    if len(memo) > EVALUATIONS_KEPT:
        memo.popitem(last=False)
    return value


def _evaluate(model: ModelSpec, instance: InstanceSpec, dtype: str, kv_dtype: str, batch: int,
              load: Workload, tp: int, hourly: HourlyPrice) -> "PerfResult | CalcError":
    """perf.perf with api perf's arguments (its error as the answer), without the math."""
    from .perf import perf as estimate

    try:
        return estimate(
            model, instance, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
            input_len=load.input_len, output_len=load.output_len, tp=tp,
            usd_per_hour=hourly.usd_per_hour, price_missing_reason=hourly.missing_reason,
            explain=False,  # the search shows no math: same figures, no steps
        )
    except CalcError as error:
        return error
    except TypeError as error:  # perf.perf's signature changed: screen via the api
        raise _ScreenMismatch from error


MATCHED_FIELDS = ("fits", "ttft_s", "tpot_s", "output_tokens_per_s",
                  "output_tokens_per_s_per_user", "usd_per_million_output_tokens", "replicas",
                  "tp_degree")


@dataclass(frozen=True, slots=True)
class Screen:
    """What the search needs from one perf evaluation (or the error perf raised)."""

    batch: int
    fits: bool
    ttft_s: float
    tpot_s: float
    error: CalcError | None = None
    output_tokens_per_s_per_replica: float = 0.0
    instance_id: str = ""            # the instance it was computed for, with that one's price
    exact: "PerfResult | dict[str, Any] | None" = None   # = what api perf returns for it


@dataclass(slots=True)
class _Search:
    """The state of one advise call: the perf params shared by every evaluation, the model, and
    a memo of screening evaluations per (chip, kind, tp, batch)."""

    base: dict[str, Any]
    load: Workload
    model: ModelSpec
    kv_dtype_given: str | None
    req: inputs.Request              # the advise request (dtype / KV dtype per instance)
    pad_heads: bool = False
    screen_via_api: bool = False     # True after perf.perf stopped matching api perf
    checked: bool = False            # one reused screen compared with api perf already
    perf_calls: int = 0
    hourly: dict[str, HourlyPrice] = field(default_factory=dict)
    dtypes: dict[str, tuple[str, str]] = field(default_factory=dict)  # instance -> (dtype, kv)
    # instance -> the model as it serves there (calc.dtype_gate.model_for: experts in a format
    # the chip does not keep are loaded like the other weights)
    models: dict[str, ModelSpec] = field(default_factory=dict)
    memo: dict[tuple[str, str, int, int], Screen] = field(default_factory=dict)

    def perf(self, instance_id: str, tp: int, batch: int) -> dict[str, Any] | CalcError:
        """The api perf result for this configuration: what ``calc perf`` prints."""
        from .api import perf as api_perf

        self.perf_calls += 1
        try:
            return api_perf(inputs.parse(
                "perf", {**self.base, "instance": instance_id, "tp": tp, "batch": batch}))
        except CalcError as error:
            if error.key == "unknown_field":  # e.g. a param this perf does not take: bad input
                raise
            return error

    def screen(self, instance: InstanceSpec, tp: int, batch: int) -> Screen:
        """Fits / TTFT / TPOT for choosing the batch: perf.perf, the function api perf calls,
        with the arguments api perf gives it (the model, instance, dtype, kv_dtype as given,
        batch, lengths, tp and the instance's hourly price), so for the instance it was computed
        for it is the api perf result itself. Shared by instances of the same chip and kind for
        choosing (their per-replica speed is the same); an option for another instance is taken
        from api perf for that instance and re-checked (see _final)."""
        key = (instance.chip.id, instance.kind, tp, batch)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self.estimate(instance, tp, batch)
        return found

    def estimate(self, instance: InstanceSpec, tp: int, batch: int) -> Screen:
        """One evaluation for this instance (its own price), not memoized: perf.perf with api
        perf's arguments, or api perf itself (a framework given, or after a mismatch)."""
        if "framework" in self.base or self.screen_via_api:  # through the api: perf.perf may
            # name the framework differently, or no longer match api perf
            result = self.perf(instance.id, tp, batch)
            screened = _screen_of(batch, result, instance.id)
        else:
            self.perf_calls += 1  # counted whether or not it is remembered: same JSON always
            hourly = self.hourly[instance.id]
            dtype, kv_dtype = self.dtypes[instance.id]
            model = self.models.get(instance.id, self.model)
            key = (model, instance.id, dtype, kv_dtype, batch, self.load.input_len,
                   self.load.output_len, tp, hourly.usd_per_hour, hourly.missing_reason)
            estimated = _EVALUATIONS.get(key)
            if estimated is None:
                estimated = _remember(_EVALUATIONS, key, _evaluate(
                    model, instance, dtype, kv_dtype, batch, self.load, tp, hourly))
            else:
                _EVALUATIONS.move_to_end(key)
            if isinstance(estimated, CalcError):
                screened = Screen(batch, False, math.inf, math.inf, estimated)
            else:
                screened = Screen(batch, estimated.fits, estimated.ttft_s, estimated.tpot_s,
                                  output_tokens_per_s_per_replica=(
                                      estimated.output_tokens_per_s_per_replica),
                                  instance_id=instance.id, exact=estimated)
        return screened

    def meets(self, result: Screen) -> bool:
        if result.error is not None or not result.fits:
            return False
        load = self.load
        if load.ttft_max_s is not None and result.ttft_s > load.ttft_max_s:
            return False
        return load.tpot_max_s is None or result.tpot_s <= load.tpot_max_s


def _screen_of(batch: int, result: dict[str, Any] | CalcError, instance_id: str = "") -> Screen:
    if isinstance(result, CalcError):
        if result.key == "unknown_field":
            raise result
        return Screen(batch, False, math.inf, math.inf, result)
    return Screen(batch, bool(result["fits"]), result["ttft_s"], result["tpot_s"],
                  output_tokens_per_s_per_replica=result["output_tokens_per_s_per_replica"],
                  instance_id=instance_id, exact=result)


def largest_fitting_batch(
    fits_at: Callable[[int], int], capacity: int, cap: int
) -> int:
    """Largest b in [1, cap] with fits_at(b) ≤ capacity (fits_at(b): bytes per core at batch b,
    non-decreasing in b); 0 when batch 1 does not fit. A linear estimate from b = 1 and b = 2,
    then steps to the exact boundary (per-core bytes are affine in b up to rounding)."""
    one = fits_at(1)
    if one > capacity:
        return 0
    if cap == 1:
        return 1
    slope = fits_at(2) - one
    guess = cap if slope <= 0 else min(cap, max(1, 1 + (capacity - one) // slope))
    while guess > 1 and fits_at(guess) > capacity:
        guess -= 1
    while guess < cap and fits_at(guess + 1) <= capacity:
        guess += 1
    return guess


def _instances(family: str) -> list[InstanceSpec]:
    specs = [data.instance(instance_id) for instance_id in data.instance_ids()]
    return [spec for spec in specs if family == "all" or spec.kind == family]


def advise(req: inputs.Request) -> dict[str, Any]:
    """The search for a request parsed against KIND_PARAMS["advise"]."""
    model = req.need_model()
    if not model.is_decoder:
        raise CalcError("model", "not_a_decoder", {"value": model.id})
    load = workload(req)
    dtype = req.get_opt_text("dtype")      # absent: per instance, as perf chooses it
    kv_given = req.get_opt_text("kv_dtype")
    region = req.get_text("region")
    price_kind = req.get_text("price_kind")
    family = req.get_text("family")
    max_batch = req.get_int("max_batch")
    framework = req.get_opt_text("framework")
    from .fit_gate_api import inference_framework

    inference_framework(req)   # a training framework: one clear error, not "fits nowhere"
    if framework is not None:  # one that runs on none of the family's instances: the same
        chips = {spec.chip.id for spec in _instances(family)}
        if not any(frameworks.get(framework).supports(chip) for chip in chips):
            raise CalcError("framework", "framework_unsupported", {
                "value": framework, "allowed": [
                    fw for fw in frameworks.ids("inference")
                    if any(frameworks.get(fw).supports(chip) for chip in chips)]})
    hourly_price(data.instance_ids()[0], region, price_kind)  # unknown region: one clear error

    base: dict[str, Any] = dict(req.model_params)
    base.update(input_len=load.input_len, output_len=load.output_len, region=region,
                price_kind=price_kind)
    if dtype is not None:
        base["dtype"] = dtype
    if kv_given is not None:
        base["kv_dtype"] = kv_given
    if framework is not None:
        base["framework"] = framework
    pad_heads = req.get_flag("pad_heads")
    try:
        search = _Search(base, load, model, kv_given, req, pad_heads=pad_heads)
        options, rejected, best_ttft, best_tpot = _run(
            search, model, family, price_kind=price_kind, max_batch=max_batch)
    except _ScreenMismatch:  # perf.perf no longer equals api perf for the same config
        search = _Search(base, load, model, kv_given, req, pad_heads=pad_heads,
                         screen_via_api=True)
        options, rejected, best_ttft, best_tpot = _run(
            search, model, family, price_kind=price_kind, max_batch=max_batch)

    with_rate = load.requests_per_s is not None
    options.sort(key=lambda o: (  # rounded: equal prices in float sums (2 × $x vs $2x) tie
        round(o["fleet_usd_per_hour"] if with_rate else o["usd_per_million_output_tokens"], 9),
        o["usd_per_million_output_tokens"], o["ttft_s"], o["instance"], o["tp_degree"],
    ))
    api = _compare_with_api(model.id, load, options)
    message = None
    if not options:
        if best_ttft is not None:
            message = _reason("targets_unreachable", best_ttft_s=best_ttft, best_tpot_s=best_tpot,
                              ttft_max_s=load.ttft_max_s, tpot_max_s=load.tpot_max_s)
        else:
            message = _reason("nothing_fits")
    steps = Derivation()
    steps.add("seq_len", "input_len + output_len", load.input_len + load.output_len, "tokens")
    steps.add("requests_per_s", "given, or tokens_per_day / 86400 / output_len",
              load.requests_per_s, "requests/s")
    steps.add("output_tokens_per_s_needed", "requests/s × output_len",
              load.output_tokens_per_s_needed, "tokens/s")
    steps.add("instance_count", "ceil(tokens/s needed / output tokens/s per instance)",
              None if not options else options[0]["instance_count"], "")
    steps.add("perf_evaluations", "perf calls after the memory prune", search.perf_calls, "")
    return {
        "model": model.id,
        "dtype": dtype,
        "kv_dtype": kv_given,
        "input_len": load.input_len,
        "output_len": load.output_len,
        "requests_per_s": load.requests_per_s,
        "output_tokens_per_s_needed": load.output_tokens_per_s_needed,
        "ttft_max_s": load.ttft_max_s,
        "tpot_max_s": load.tpot_max_s,
        "region": region,
        "price_kind": price_kind,
        "family": family,
        "framework": framework,
        "max_batch": max_batch,
        "pad_heads": search.pad_heads,
        "ranked_by": "fleet_usd_per_hour" if with_rate else "usd_per_million_output_tokens",
        "options": options,
        "rejected": rejected,
        "message": message,
        **api,
        "perf_evaluations": search.perf_calls,
        "beyond_max_positions": beyond_max_positions(model, load.input_len + load.output_len),
        "derivation": steps.as_list(),
    }


def _run(
    search: "_Search", model: ModelSpec, family: str, *, price_kind: str, max_batch: int,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], float | None, float | None]:
    options: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    best_ttft: float | None = None
    best_tpot: float | None = None
    for instance in _instances(family):
        found, refused, fastest = _search_instance(
            search, model, instance, price_kind=price_kind,
            max_batch=max_batch,
        )
        options.extend(found)
        rejected.extend(refused)
        for ttft, tpot in fastest:
            best_ttft = ttft if best_ttft is None else min(best_ttft, ttft)
            best_tpot = tpot if best_tpot is None else min(best_tpot, tpot)
    return options, rejected, best_ttft, best_tpot


def _search_instance(
    search: _Search, model: ModelSpec, instance: InstanceSpec, *, price_kind: str,
    max_batch: int,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[float, float]]]:
    """(options, rejected, (ttft, tpot) at batch 1 of every TP that fits but misses targets)."""
    region = search.base["region"]
    # only the price asked for: an instance without one is rejected, not priced from another
    # region or price type (perf's labelled fallback)
    hourly = search.hourly[instance.id] = _hourly(instance.id, region, price_kind)
    if hourly.usd_per_hour is None:
        return [], [{"instance": instance.id, "tp_degree": None,
                     "reason": _reason("no_price", price_missing_reason=hourly.missing_reason,
                                       region=region, price_kind=price_kind)}], []
    try:
        capacity = memory.capacity_per_core_bytes(instance)
    except CalcError as error:
        return [], [{"instance": instance.id, "tp_degree": None,
                     "reason": _reason(error.key)}], []
    from .dtype_gate import dtype_for, kv_dtype_for, model_for

    try:  # the data types perf uses on this hardware (given, else the checkpoint's / chip's)
        dtype = dtype_for(search.req, instance)
        kv_dtype = kv_dtype_for(search.req, instance, dtype)
        model = search.models[instance.id] = model_for(search.req, instance)
    except CalcError as error:
        return [], [{"instance": instance.id, "tp_degree": None, "reason": _reason(
            error.key, **{k: v for k, v in error.params.items() if k != "field"})}], []
    search.dtypes[instance.id] = (dtype, kv_dtype)
    seq_len = search.load.input_len + search.load.output_len
    options: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    fastest: list[tuple[float, float]] = []
    smallest_per_core: int | None = None
    searched = fitted = 0
    for tp in memory.tp_search_order(model, instance):
        if not search.pad_heads and not memory.tp_is_valid(model, tp):
            rejected.append({"instance": instance.id, "tp_degree": tp, "reason": _reason(
                "heads_not_divisible_pad", value=model.heads, allowed=tp)})
            continue
        searched += 1

        key = (model, instance.chip.id, dtype, kv_dtype, seq_len, tp, capacity, max_batch)
        found = _LARGEST.get(key)
        if found is None:
            def per_core(batch: int, degree: int = tp) -> int:
                return memory.footprint(
                    model, instance.chip, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
                    seq_len=seq_len, tp=degree,
                ).per_core_bytes

            found = _remember(_LARGEST, key, (
                largest_fitting_batch(per_core, capacity, max_batch), per_core(1)))
        largest, at_one = found
        if largest == 0:
            smallest_per_core = at_one if smallest_per_core is None else min(
                smallest_per_core, at_one)
            continue
        fitted += 1
        option, miss = _best_batch(search, instance, tp, largest)
        if option is not None:
            option = _right_size(search, instance, option)
            options.append(option)
        elif miss is not None:
            rejected.append({"instance": instance.id, "tp_degree": tp, "reason": miss})
            if miss["key"] in ("misses_ttft", "misses_tpot", "misses_targets"):
                fastest.append((miss["params"]["ttft_s"], miss["params"]["tpot_s"]))
    if searched and not fitted:
        rejected.append({"instance": instance.id, "tp_degree": None,
                         "reason": _reason("does_not_fit", per_core_bytes=smallest_per_core,
                                           capacity_per_core_bytes=capacity,
                                           seq_len=seq_len)})
    return options, rejected, fastest


def _miss_reason(search: _Search, result: Screen) -> dict[str, Any]:
    if result.error is not None:
        error = result.error
        return _reason(error.key, **{k: v for k, v in error.params.items() if k != "field"})
    if not result.fits:
        return _reason("does_not_fit", batch=result.batch)
    load = search.load
    slow_ttft = load.ttft_max_s is not None and result.ttft_s > load.ttft_max_s
    slow_tpot = load.tpot_max_s is not None and result.tpot_s > load.tpot_max_s
    key = "misses_targets" if slow_ttft and slow_tpot else (
        "misses_ttft" if slow_ttft else "misses_tpot")
    return _reason(key, batch=result.batch, ttft_s=result.ttft_s, tpot_s=result.tpot_s,
                   ttft_max_s=load.ttft_max_s, tpot_max_s=load.tpot_max_s)


def _guess(search: _Search, low: Screen, high: Screen, bisect: bool) -> int:
    """Next batch strictly between low (meets) and high (misses): where the targets are crossed
    if TTFT and TPOT are affine in the batch between the two (they nearly are: prefill FLOPs and
    KV reads grow linearly with it), else the midpoint."""
    middle = (low.batch + high.batch) // 2
    if bisect or high.error is not None or not high.fits:
        return middle
    crossings: list[float] = []
    for target, at_low, at_high in (
        (search.load.ttft_max_s, low.ttft_s, high.ttft_s),
        (search.load.tpot_max_s, low.tpot_s, high.tpot_s),
    ):
        if target is not None and at_high > target and at_high > at_low:
            crossings.append(
                low.batch + (target - at_low) * (high.batch - low.batch) / (at_high - at_low))
    if not crossings:
        return middle
    return min(high.batch - 1, max(low.batch + 1, math.floor(min(crossings))))


def _best_batch(
    search: _Search, instance: InstanceSpec, tp: int, largest: int
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(option at the largest batch ≤ largest that meets the targets, or the reason it cannot).
    TTFT and TPOT grow with the batch, so the answer is the boundary between batches that meet
    the targets and batches that miss: found by interpolation (a step that does not halve the
    interval is followed by a bisection), typically in 3-4 evaluations."""
    high = search.screen(instance, tp, largest)  # shared per chip; for this instance it is
    if search.meets(high):                        # the option itself (see _final)
        return _final(search, instance, tp, largest)
    if largest == 1 or high.error is not None:  # an error does not depend on the batch
        return None, _miss_reason(search, high)
    low = search.screen(instance, tp, 1)
    if not search.meets(low):
        return None, _miss_reason(search, low)
    bisect = False
    while high.batch - low.batch > 1:
        width = high.batch - low.batch
        result = search.screen(instance, tp, _guess(search, low, high, bisect))
        if search.meets(result):
            low = result
        else:
            high = result
        bisect = 2 * (high.batch - low.batch) > width  # slow step: bisect next
    return _final(search, instance, tp, low.batch)


def _right_size(
    search: _Search, instance: InstanceSpec, option: dict[str, Any]
) -> dict[str, Any]:
    """With a request rate that leaves at least half of the fleet idle: a smaller batch that
    still needs the same instance count (lower latency, same fleet price). Each guess
    b' = ceil(b · needed per instance / tokens/s at b) still serves the rate when tokens/s per
    replica grows at most linearly with the batch (decode steps do not get faster with more
    sequences); up to RIGHT_SIZE_STEPS screened guesses, then
    the last one that served is taken from api perf and kept only if it needs the same count and
    still meets the targets."""
    needed = search.load.output_tokens_per_s_needed
    batch = option["batch"]
    if needed is None or batch == 1 or option["utilization"] >= RIGHT_SIZE_BELOW_UTILIZATION:
        return option
    per_instance_needed = needed / option["instance_count"]
    tp = option["tp_degree"]
    best, throughput = batch, option["output_tokens_per_s"]
    for _ in range(RIGHT_SIZE_STEPS):
        guess = max(1, math.ceil(best * per_instance_needed / throughput))
        if guess >= best:
            break
        screened = search.screen(instance, tp, guess)
        per_instance = screened.output_tokens_per_s_per_replica * option["replicas"]
        if not search.meets(screened) or per_instance < per_instance_needed:
            break
        best, throughput = guess, per_instance
    if best == batch:
        return option
    smaller, _ = _final(search, instance, tp, best)
    if smaller is None or smaller["instance_count"] != option["instance_count"]:
        return option
    return smaller


def _final(
    search: _Search, instance: InstanceSpec, tp: int, batch: int
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The option: the evaluation of this instance at the chosen batch (the screen itself when it
    was computed for this instance, else one for this instance's own price), checked against
    the targets again. Once per advise call an evaluation made with perf.perf is compared with
    api perf for the same params; on any difference the search reruns through api perf."""
    known = search.memo.get((instance.chip.id, instance.kind, tp, batch))
    if known is None or known.instance_id != instance.id or known.exact is None:
        known = search.estimate(instance, tp, batch)
    if known.error is not None or known.exact is None:
        return None, _miss_reason(search, known)
    exact = known.exact
    result = exact if isinstance(exact, dict) else exact.as_dict()
    if not isinstance(exact, dict) and not search.checked:
        search.checked = True
        api_result = search.perf(instance.id, tp, batch)
        if isinstance(api_result, CalcError) or any(
                api_result.get(name) != result.get(name) for name in MATCHED_FIELDS):
            raise _ScreenMismatch
        result = api_result
    screened = _screen_of(batch, result)
    if not search.meets(screened):
        return None, _miss_reason(search, screened)
    return _option(search, result), None


def _fallback(search: _Search, instance_id: str, dtype: str) -> dict[str, Any] | None:
    from .dtype_gate import checkpoint_fallback

    return checkpoint_fallback(search.req, data.instance(instance_id), dtype)


def _option(search: _Search, result: dict[str, Any]) -> dict[str, Any]:
    """One option: the perf result's own fields, plus the count the request rate needs."""
    needed = search.load.output_tokens_per_s_needed
    per_instance = result["output_tokens_per_s"]
    count = 1 if needed is None else max(1, math.ceil(needed / per_instance))
    usd_per_hour = result["usd_per_hour"]
    return {
        "instance": result["instance"],
        "instance_kind": data.instance(result["instance"]).kind,
        "dtype": result["dtype"],
        "kv_dtype": result["kv_dtype"],
        "tp_degree": result["tp_degree"],
        "batch": result["batch"],
        "replicas": result["replicas"],
        "instance_count": count,
        "ttft_s": result["ttft_s"],
        "tpot_s": result["tpot_s"],
        "e2e_s": result["e2e_s"],
        "output_tokens_per_s": per_instance,
        "output_tokens_per_s_per_replica": result["output_tokens_per_s_per_replica"],
        # the speed calculator's own figure (1 / TPOT: how fast one reader sees tokens stream)
        "output_tokens_per_s_per_user": result["output_tokens_per_s_per_user"],
        "usd_per_hour": usd_per_hour,
        "fleet_usd_per_hour": usd_per_hour * count,
        "usd_per_million_output_tokens": result["usd_per_million_output_tokens"],
        "utilization": None if needed is None else needed / (per_instance * count),
        "price_kind": search.base["price_kind"],
        "head_padding": memory.head_padding(search.model, result["tp_degree"]),
        # what the checkpoint stores that this option's chip does not run (said, never silent)
        "checkpoint_fallback": _fallback(search, result["instance"], result["dtype"]),
        "decode_bound": result["decode_bound"],
        "error_band": result.get("error_band"),
        "basis": result.get("basis"),
        "framework": result.get("framework", search.base.get("framework")),
        # the api perf params of this option (the speed calculator's link uses them as they are)
        "perf_params": {**search.base, "instance": result["instance"],
                        "tp": result["tp_degree"], "batch": result["batch"]},
    }


def _compare_with_api(
    model_id: str, load: Workload, options: list[dict[str, Any]]
) -> dict[str, Any]:
    """Break-even vs the model's per-token API price (calc.break_even), added to each option;
    the api fields are null when data/api_prices.toml has no price for the model."""
    from .break_even import api_price, api_usd_per_hour, break_even_requests_per_s

    found = api_price(model_id)
    per_request = None if found is None else found.usd_per_request(
        load.input_len, load.output_len)
    api_hourly = None
    if per_request is not None and load.requests_per_s is not None:
        api_hourly = api_usd_per_hour(load.requests_per_s, per_request)
    for option in options:
        if per_request is None:
            option.update(break_even_requests_per_s=None, break_even_reachable=None,
                          cheaper_than_api=None)
            continue
        rate = break_even_requests_per_s(option["usd_per_hour"], per_request)
        capacity = option["output_tokens_per_s"] / load.output_len
        option.update(
            break_even_requests_per_s=rate,
            break_even_reachable=rate <= capacity,
            cheaper_than_api=None if api_hourly is None
            else option["fleet_usd_per_hour"] < api_hourly,
        )
    return {
        "api_price": None if found is None else found.as_dict(),
        "api_usd_per_request": per_request,
        "api_usd_per_hour": api_hourly,
    }
