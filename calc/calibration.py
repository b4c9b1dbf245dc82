"""Calibration of the speed model on published measurements: the scored cases, the fit, and the
report rows for the site (cross-validation and bands: calc/calibration_cv.py).

Scored rows: measurements with use = "calibration" or "validation" (reference rows are shown, not
scored). Every scored row is used to fit the stored constants; the error figures come only from
leave-one-SOURCE-out cross-validation (a whole source document out at a time: its constants are
refitted on the other sources, then it is predicted).

fit(rows) per hardware group (serving.GROUPS), alternating two fits that each hold the other's
constants until the constants settle (SETTLED), or, where the two pull apart and the alternation
swaps between sets, keeping the set with the least loss over the group's TPOTs and TTFTs
together (PATIENCE passes without a better one; at most MAX_ALTERNATIONS). Every fit weighs a row
by its relative error under Huber's loss (huber_loss, robust_nnls): squared within ±HUBER_RELATIVE
(the median error the calibration targets), linear beyond, so a source far off the rest (another
software release, a setting the model does not know) pulls a group's constants with a bounded
force instead of one growing with its error:
  1. decode: TPOT − bandwidth collectives − serving interference ≈ x₁ · (max(t_weights,
     t_proj·η_m/η_c) + max(t_kv, t_attn·η_m/η_c))
     + x₂ · hops + x₃ · t_expert + x₄ · n_mm + x₅ · custom steps + Σ_f s_f · [framework f] —
     weighted non-negative fit under Huber's loss (weights 1/TPOT²: relative error;
     robust_nnls), negative coefficients dropped and refitted; η_mem = 1/x₁, c_hop = x₂
     (ring / NCCL steps), c_custom = x₅ (the steps of a framework's own NVLink all-reduce,
     calc/collectives.py; fitted only where some row has them, else kept), x_expert = x₃ (GPU:
     t_expert = routed-expert bytes per core / peak bandwidth, the experts' extra streaming
     time), t_mm = x₄ in ns (Neuron: n_mm = the routed experts' matmul instructions per core,
     serving.expert_matmuls_per_core); both 0 for dense rows; s_f = the framework's per-step
     fixed cost in this group;
  2. prefill: TTFT − queue wait ≈ max(t_weights/η_m, t_proj/η_c(T)) + t_attn/η_c(T)
     + collectives + t_fixed
     + t_GB · G + s_f with η_c(T) = η_comp · T/(T + T_half) (T = prompt tokens) and
     G = the GB an MoE prefill's expert blocks move (serving.expert_block_gb, NxD's blockwise
     MoE, Neuron only; 0 for a dense model and on GPU), + t_first · cold share for a run whose
     means include cold servers' first requests (Case.cold_share; never in the calculators'
     estimates); for each (η_comp, T_half) on a grid the best t_fixed, t_GB, t_first ≥ 0 are a
     weighted non-negative fit under Huber's loss (robust_nnls), and the grid point with the
     least loss wins. A framework's own set
     fits T_half only where its rows' prefill passes come in at least MIN_RAMP_SIZES token
     counts (after padding): the ramp is a curve in T; for one model two sizes are met exactly
     by η_comp and t_fixed at any T_half, which only the differences between models would then
     set. With fewer it keeps its hardware group's T_half, fitted on every framework's rows of
     that hardware.
  A group with fewer than MIN_GROUP_ROWS decode rows borrows the constants of its fallback group
  (serving.GROUP_FALLBACK) and fits only its frameworks' step costs (the residuals' Huber mean).
Training rows (kind = "training"): efficiency per framework and group = median of achieved
FLOP/s over (peak × instances) on the fitted rows.
Families: hardware generation (chip) × framework × phase (decode = TPOT, prefill = TTFT,
throughput = output tokens/s, training = tokens/s).
"""

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, overload

from . import data, dtypes, frameworks, memory, serving, serving_band, training_speed
from .frameworks import Framework
from .serving import Efficiency, Workload
from .specs import InstanceSpec, ModelSpec

CALIBRATION = "calibration"
VALIDATION = "validation"
SCORED_USES = (CALIBRATION, VALIDATION)
FITTED_BY = "bench/calibrate.py"
KINDS = ("neuron", "gpu")
GROUPS = serving.GROUPS
FITTED_IDS = tuple(name for _, name in serving.EFFICIENCY_ASSUMPTIONS)
HALF_TOKENS_GRID = (0.0, 256.0, 1024.0, 4096.0)
SIGNIFICANT_DIGITS = 4
MIN_GROUP_ROWS = 4
MIN_FRAMEWORK_ROWS = 8
MIN_SOURCES = 2          # no constants of their own from a single source document
MIN_FAMILY_POINTS = 5
MIN_RAMP_SIZES = 3       # distinct prefill-pass token counts a framework's own T_half needs
LITTLES_LAW = "littles-law"   # measurement.concurrency_from: derived from the results, not stated
# the decode step's constants are fitted on the rows that show one step alone where there are at
# least this many, from at least MIN_SOURCES sources (a framework's own set fits up to four terms:
# memory, hops, its step cost, an expert term)
MIN_QUIET_ROWS = 4
ETA_GRID = tuple(step / 100 for step in range(1, 101))
MAX_ALTERNATIONS = 40  # decode fit ↔ prefill fit passes, until the constants settle:
SETTLED = 2e-3         # a relative change within two units of the 4th digit (_round) in a pass
PATIENCE = 3           # …or passes without a better fit of the group's TPOTs and TTFTs together
MEDIAN_TARGET = 0.10   # the median |error| every family should reach (calibration_cv)
# Huber's loss on relative errors (robust_nnls, huber_loss): within ±HUBER_RELATIVE a row counts as
# in least squares, past it with a constant pull, so one source far off the rest (another software
# release, an unmodelled setting) cannot drag a group's constants; the threshold is the median
# error the calibration targets
HUBER_RELATIVE = MEDIAN_TARGET
ROBUST_PASSES = 50     # robust_nnls Newton passes at most (it stops when no step lowers the loss)
REWEIGHTED_PASSES = 400  # …then reweighted passes at most, until one lowers it by < 1e-15 of it
PHASE_FIELDS: dict[str, str] = {"decode": "tpot_s", "prefill": "ttft_s",
                                "throughput": "output_tokens_per_s", "training": "tokens_per_s"}
FIELD_PHASES = {field: phase for phase, field in PHASE_FIELDS.items()}
DEFAULT_EFFICIENCY = Efficiency(0.5, 0.3, 1e-5, 0.01)

# framework names in older measurement records -> framework ids
LEGACY_FRAMEWORKS: dict[str, str] = {
    "transformers-neuronx": "transformers-neuronx",
    "vllm + neuronx-distributed-inference": "vllm-neuron",
    "FasterTransformer": "tensorrt-llm",
    "TensorRT-LLM": "tensorrt-llm",
    "NVIDIA NIM 1.8.0": "tensorrt-llm",
    "neuronx-distributed": "nxd-training",
}


def framework_prefix(framework_id: str, group: str) -> str:
    """Assumption-id prefix of a framework's own constants on a hardware group."""
    return f"{framework_id.replace('-', '_')}_{group.replace('-', '_')}_"


def fitted_ids(group: str) -> tuple[str, ...]:
    """The assumption ids that hold the fitted constants of one hardware group (or kind)."""
    prefix = serving.efficiency_prefix(group)
    return tuple(f"{prefix}{name}" for name in FITTED_IDS)


def _round(value: float) -> float:
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def _float(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def framework_of(raw: Mapping[str, Any]) -> str | None:
    given = raw.get("framework_id")
    if isinstance(given, str) and given in frameworks.all_frameworks():
        return given
    legacy = raw.get("framework")
    return LEGACY_FRAMEWORKS.get(legacy) if isinstance(legacy, str) else None


@dataclass(frozen=True, slots=True)
class Case:
    """One inference measurement, resolved to specs."""

    id: str
    use: str
    source: str
    model: ModelSpec
    instance: InstanceSpec
    framework: Framework
    tp: int
    batch: int               # static batch, or concurrency under continuous batching
    input_len: int
    output_len: int
    dtype: str
    kv_dtype: str
    compiled_batch: int | None
    compiled_seq_len: int | None
    ttft_s: float | None
    tpot_s: float | None
    output_tokens_per_s: float | None      # per replica (published total / dp)
    request_rate_per_s: float | None = None  # open-loop rows: offered rate per replica
    replica_loads: tuple[int, ...] = ()  # closed loop over replicas: requests on each busy one
    single_bucket: bool | None = None  # one sequence bucket (its seq_bucket); None: as the
    #                                    framework compiles by default (Framework.single_bucket)
    load_stated: bool = True      # False: the concurrency is derived from the results (Little)
    evenly_spaced_rate_per_s: float | None = None  # open loop, constant arrivals (per replica)
    burst_run_requests: float | None = None  # a run whose first requests arrive at once: its
    #                                          requests per replica (Workload.burst_run_requests)
    burst_arrivals: float | None = None  # ... of which sent at once, per replica (cap − 1 or C)
    output_len_sd: float | None = None   # spread of the output lengths drawn (LLMPerf), tokens
    queued_requests: float | None = None  # a run of this many queued at once (trtllm-bench)
    cold_share: float = 0.0  # of the requests a mean covers, the share that were a replica's
    #                          first on a server started without warm-up (cold_replicas / N)
    prefill_chunk_tokens: int | None = None  # the server prefilled prompts in chunks of this
    #                                          many tokens (Workload.prefill_chunk_tokens)
    burst_run_timed: bool = False  # the burst run stopped at the tool's time limit
    #                                (Workload.burst_run_timed)

    @property
    def group(self) -> str:
        return serving.hardware_group(self.instance)

    @property
    def hardware(self) -> str:
        return self.instance.chip.id

    @property
    def work(self) -> Workload:
        return Workload(self.batch, self.input_len, self.output_len, self.compiled_batch,
                        self.compiled_seq_len, self.single_bucket, self.evenly_spaced_rate_per_s,
                        self.burst_run_requests, self.burst_arrivals, self.output_len_sd,
                        self.queued_requests, self.prefill_chunk_tokens, self.burst_run_timed)

    def measured(self, field: str) -> float | None:
        """The published figure that scores `field`; an open-loop row's throughput is not one:
        below capacity it is the offered rate × output length whatever the engine (estimate()
        gives that too), so it would only flatter the throughput family."""
        if field == "output_tokens_per_s" and self.request_rate_per_s is not None:
            return None
        value: float | None = getattr(self, field)
        return value


def _optional_int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def scored_use(raw: Mapping[str, Any]) -> str | None:
    """The row's scoring use: its `use`, or `use_pending` for a reference row that the engine can
    now score (meas marks rows that wait for the serving model or for a model/instance preset)."""
    use = raw.get("use")
    if use in SCORED_USES:
        return str(use)
    pending = raw.get("use_pending")
    if use == "reference" and pending in SCORED_USES:
        return str(pending)
    return None


def _running_limit(case: "Case") -> int:
    return case.compiled_batch or case.framework.default_max_batch or 4096


def _offered_concurrency(rate: float, case: "Case", constants: "Constants") -> int:
    """Requests in flight at an offered request rate (open loop, per replica): Little's law
    C = rate × e2e(C), iterated from C = 1."""
    concurrency = 1
    limit = _running_limit(case)
    for _ in range(12):
        trial = replace(case, batch=concurrency, request_rate_per_s=None)
        e2e = _serve(trial, constants).e2e_s
        wanted = max(1, min(limit, round(rate * e2e)))
        if wanted == concurrency:
            break
        concurrency = wanted
    return concurrency


def _kv_dtype(raw: Mapping[str, Any], dtype: str) -> str:
    kv = raw.get("kv_dtype")
    return str(kv) if isinstance(kv, str) and kv in dtypes.KV_DTYPES \
        else dtypes.default_kv_dtype(dtype)


def _requests_in_memory(raw: Mapping[str, Any], dtype: str) -> int:
    """Full-length requests (input + output tokens) whose KV fits beside the weights on one
    replica (calc.memory.sequences_in_kv_memory)."""
    return memory.sequences_in_kv_memory(
        data.model(str(raw["model"])), data.instance(str(raw["instance"])), dtype=dtype,
        kv_dtype=_kv_dtype(raw, dtype), seq_len=int(raw["input_len"]) + int(raw["output_len"]),
        tp=int(raw["tp"]))


def cases(uses: tuple[str, ...] = SCORED_USES) -> list["Case"]:
    found: list[Case] = []
    for raw in data.records("measurements"):
        use = scored_use(raw) if set(uses) <= set(SCORED_USES) else raw.get("use")
        if raw.get("kind", "inference") != "inference" or use not in uses:
            continue
        needed = ("model", "instance", "tp", "input_len", "output_len", "dtype")
        if any(not isinstance(raw.get(name), int | str) for name in needed):
            continue
        dtype = str(raw["dtype"])
        framework_id = framework_of(raw)
        if dtype not in dtypes.DTYPE_BITS or framework_id is None:
            continue
        model_id, instance_id = str(raw["model"]), str(raw["instance"])
        if data.record("models", model_id) is None or data.record("instances", instance_id) is None:
            continue
        framework = frameworks.get(framework_id)
        if raw.get("kv_read_per_query_head") is True:   # the release's attention kernel
            framework = replace(framework, kv_read_per_query_head=True)
        if raw.get("wave_prefill") is True:             # ... and its prefill call
            framework = replace(framework, wave_prefill=True)
        mode = raw.get("mode")
        replicas = _optional_int(raw.get("dp")) or 1
        concurrency = _optional_int(raw.get("concurrency"))
        rate = _float(raw.get("offered_request_throughput_per_s", raw.get("request_rate_per_s")))
        saturated = False
        loads: tuple[int, ...] = ()
        if mode == "serving" and concurrency:
            batch: int | None = -(-concurrency // replicas)
            if replicas > 1:
                # the balancer spreads C requests over R replicas: C mod R of them run
                # ceil(C/R), the others floor(C/R) (idle replicas add nothing)
                base, extra = divmod(concurrency, replicas)
                loads = tuple(load for load in [base + 1] * extra + [base] * (replicas - extra)
                              if load > 0)
        elif mode == "serving" and rate:
            batch = 1
        elif mode == "serving" and raw.get("batch") is None:
            # unlimited offered load (all requests at once): the running batch is full, up to
            # the framework's limit and the requests whose KV fits in memory; TTFT then
            # depends on the backlog the source does not give, so it is not scored
            running = _optional_int(raw.get("max_running_batch"))
            if running is not None:     # the source's tool sets the server's limit
                framework = replace(framework, default_max_batch=running)
            budget = _optional_int(raw.get("max_num_tokens"))
            if budget is not None:      # ... and its token budget per iteration
                framework = replace(framework, max_num_tokens=budget)
            batch = _optional_int(raw.get("compiled_batch")) or framework.default_max_batch
            if batch is not None and framework.batching == "continuous":
                batch = max(1, min(batch, _requests_in_memory(raw, dtype)))
            saturated = True
        else:
            batch = _optional_int(raw.get("batch"))
        if batch is None:
            continue
        if mode == "static" and framework.batching == "continuous":
            framework = replace(framework, batching="static")
        output_len = int(raw["output_len"])
        ttft, tpot = _float(raw.get("ttft_s")), _float(raw.get("tpot_s"))
        per_token = _float(raw.get("e2e_per_output_token_s"))
        if tpot is None and per_token is not None and ttft is not None and output_len > 1:
            tpot = (per_token * output_len - ttft) / (output_len - 1)
            tpot = tpot if tpot > 0 else None
        if saturated:
            ttft = None
        # the requests the row's means cover (its run, or its synchronous profile's)
        stated_requests = _float(raw.get("run_requests"))
        # a run whose first requests arrive at once (guidellm 0.1.0's throughput profile)
        run_requests = stated_requests if raw.get("arrivals") == "burst" else None
        if raw.get("arrivals") == "rounds" and replicas == 1 and concurrency:
            # LLMPerf's rounds: C at once, the next C when all have finished (one server only:
            # the replicated rows show no rounds, for reasons not known)
            run_requests = float(concurrency)
        # every request queued at once, served as the engine admits them (trtllm-bench)
        queued = stated_requests if raw.get("arrivals") == "queued" else None
        cap = _optional_int(raw.get("concurrency_cap"))   # the load generator's, where stated
        sources = raw.get("sources") or ["?"]
        rate_total = _float(raw.get("output_tokens_per_s"))
        # replicas started without a warm-up whose first requests are in the means
        cold = _optional_int(raw.get("cold_replicas")) or 0
        found.append(
            Case(
                id=str(raw["id"]),
                use=str(use),
                source=str(sources[0]),
                model=data.model(model_id),
                instance=data.instance(instance_id),
                framework=framework,
                tp=int(raw["tp"]),
                batch=batch,
                input_len=int(raw["input_len"]),
                output_len=output_len,
                dtype=dtype,
                kv_dtype=_kv_dtype(raw, dtype),
                compiled_batch=_optional_int(raw.get("compiled_batch")),
                compiled_seq_len=_optional_int(raw.get("seq_bucket")),
                ttft_s=ttft,
                tpot_s=tpot,
                output_tokens_per_s=None if rate_total is None
                else rate_total / min(replicas, concurrency or replicas),
                request_rate_per_s=None if rate is None or concurrency else rate / replicas,
                replica_loads=loads,
                single_bucket=raw["single_bucket"] if isinstance(raw.get("single_bucket"), bool)
                else None,
                load_stated=raw.get("concurrency_from") != LITTLES_LAW,
                evenly_spaced_rate_per_s=rate / replicas if rate is not None and not concurrency
                and raw.get("arrivals") == "evenly-spaced" else None,
                burst_run_requests=run_requests / replicas if run_requests else None,
                burst_arrivals=min(cap - 1, run_requests) / replicas
                if run_requests and cap else None,
                output_len_sd=_float(raw.get("output_len_sd")),
                queued_requests=queued / replicas if queued else None,
                cold_share=cold / stated_requests if cold and stated_requests else 0.0,
                prefill_chunk_tokens=_optional_int(raw.get("prefill_chunk_tokens")),
                burst_run_timed=raw.get("run_time_limited") is True,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class Constants:
    """Fitted constants: one Efficiency per hardware group, step costs per (framework, group),
    training efficiency per (framework, group)."""

    groups: Mapping[str, Efficiency]
    steps: Mapping[tuple[str, str], float]
    training: Mapping[tuple[str, str], float]
    fitted_on: Mapping[str, tuple[str, ...]]
    framework_groups: Mapping[tuple[str, str], Efficiency] = field(default_factory=dict)

    def efficiency(self, group: str, framework: str | None = None) -> Efficiency:
        if framework is not None and (framework, group) in self.framework_groups:
            return self.framework_groups[(framework, group)]
        chain = group
        while chain not in self.groups and chain in serving.GROUP_FALLBACK:
            chain = serving.GROUP_FALLBACK[chain]
        return self.groups.get(chain, DEFAULT_EFFICIENCY)

    def step(self, framework: Framework, group: str) -> float:
        seen: set[str] = set()
        candidate: Framework | None = framework
        while candidate is not None and candidate.id not in seen:
            seen.add(candidate.id)
            chain: str | None = group
            while chain is not None:
                if (candidate.id, chain) in self.steps:
                    return self.steps[(candidate.id, chain)]
                chain = serving.GROUP_FALLBACK.get(chain)
            candidate = frameworks.all_frameworks().get(candidate.calibration_proxy)
        return 0.0


def stored_constants() -> Constants:
    """The constants as stored in data/assumptions.toml (what perf uses)."""
    groups: dict[str, Efficiency] = {}
    for group in GROUPS:
        if data.record("assumptions", fitted_ids(group)[0]) is not None:
            groups[group] = Efficiency.from_data(group)
    steps: dict[tuple[str, str], float] = {}
    training: dict[tuple[str, str], float] = {}
    framework_groups: dict[tuple[str, str], Efficiency] = {}
    for framework in frameworks.all_frameworks().values():
        for group in GROUPS:
            prefix = framework_prefix(framework.id, group)
            if data.record("assumptions", f"{prefix}{FITTED_IDS[0]}") is not None:
                framework_groups[(framework.id, group)] = Efficiency.from_prefix(prefix)
            step_id = serving.step_assumption_id(framework.id, group)
            if data.record("assumptions", step_id) is not None:
                steps[(framework.id, group)] = data.assumption_value(step_id)
            for train_group in (group, group + training_speed.MOE_SUFFIX):
                train_id = training_speed.efficiency_assumption_id(framework.id, train_group)
                if data.record("assumptions", train_id) is not None:
                    training[(framework.id, train_group)] = data.assumption_value(train_id)
    if data.record("assumptions", training_speed.ATTENTION_EFFICIENCY_ID) is not None:
        training[training_speed.ATTENTION_KEY] = training_speed.attention_relative_efficiency()
    return Constants(groups, steps, training, {}, framework_groups)


def _serve(case: Case, constants: Constants) -> serving.Serving:
    group = case.group
    return serving.serve(
        case.model, case.instance, case.framework,
        constants.efficiency(group, case.framework.id),
        constants.step(case.framework, group), tp=case.tp, dtype=case.dtype,
        kv_dtype=case.kv_dtype, work=case.work,
    )


def resolved(case: Case, constants: Constants) -> Case:
    """An open-loop row with its concurrency from the offered rate (Little's law)."""
    if case.request_rate_per_s is None:
        return case
    return replace(case, batch=_offered_concurrency(case.request_rate_per_s, case, constants),
                   request_rate_per_s=None)


def cold_start_s(case: Case, efficiency: Efficiency) -> float:
    """The part of a row's mean TTFT that its cold servers' first requests add: cold_share (the
    share of the requests in its means that were a replica's first) × t_first, the extra time
    of a cold replica's first requests (Efficiency.first_request_extra_s)."""
    return case.cold_share * efficiency.first_request_extra_s


def estimate(case: Case, constants: Constants) -> dict[str, float]:
    """TTFT, TPOT and output tokens/s per replica. An open-loop row (an offered request rate):
    TTFT and TPOT at its Little's-law concurrency; throughput = every offered request served,
    rate × output length, up to the capacity (the throughput with the running batch full).
    A row whose means include cold servers' first requests (cold_share) adds their part of the
    warm-up, first_request_extra_s, to the TTFT, and its requests take as much longer."""
    mix = _load_mix(case)
    if len(mix) > 1:
        # per busy replica: mean throughput; TTFT, TPOT: mean over requests
        served = [(share, _serve(part, constants)) for share, part in mix]
        ttft = sum(share * r.ttft_s for share, r in served)
        tpot = sum(share * r.tpot_s for share, r in served)
        throughput = sum(r.output_tokens_per_s_per_replica for _, r in served) / len(served)
        e2e = sum(share * r.e2e_s for share, r in served)
    else:
        result = _serve(resolved(case, constants), constants)
        ttft, tpot, e2e = result.ttft_s, result.tpot_s, result.e2e_s
        throughput = result.output_tokens_per_s_per_replica
        if case.request_rate_per_s is not None:
            full = _serve(replace(case, batch=_running_limit(case), request_rate_per_s=None,
                                  evenly_spaced_rate_per_s=None), constants)
            throughput = min(case.request_rate_per_s * case.output_len,
                             full.output_tokens_per_s_per_replica)
    if case.cold_share:
        warm_up = cold_start_s(case, constants.efficiency(case.group, case.framework.id))
        ttft += warm_up
        throughput *= e2e / (e2e + warm_up)
    return {"ttft_s": ttft, "tpot_s": tpot, "output_tokens_per_s": throughput}


# ---------------------------------------------------------------- least squares


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None when singular."""
    size = len(vector)
    rows = [matrix[i][:] + [vector[i]] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-300:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                for c in range(col, size + 1):
                    rows[r][c] -= factor * rows[col][c]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def huber_loss(relative: float) -> float:
    """Huber's loss of a relative error r at k = HUBER_RELATIVE: r² within ±k, 2k·|r| − k²
    beyond (equal to r² at |r| = k, then linear)."""
    size = abs(relative)
    if size <= HUBER_RELATIVE:
        return relative * relative
    return 2.0 * HUBER_RELATIVE * size - HUBER_RELATIVE * HUBER_RELATIVE


def robust_nnls(columns: list[list[float]], target: list[float],
                weights: list[float]) -> list[float]:
    """Coefficients ≥ 0 that minimise Σ huber_loss(√w · (target − fit)) (`weights` are
    1 / measurement², so √w · residual is a row's relative error r), from least squares on.
    Huber's loss is quadratic for |r| <= k and linear beyond, so for a given split of the rows
    (within k, or beyond it on one side) its minimum solves the normal equations of the rows
    within, each row beyond adding a constant pull k · sign(r) · √w: Newton's step. Where no row
    within k fixes a coefficient, the row nearest to k joins them with its target moved so that
    its residual is ±k here (its squared term then pulls as its linear one does at this point).
    A pass moves to the lowest point along that step, beyond its end too while every coefficient
    stays ≥ 0 (_line_minimum: exact, the loss being convex and piecewise quadratic along a line);
    where that does not lower the loss (or the rows within k leave the equations singular, even
    after the nearest rows beyond k join), it takes the reweighted step (rows beyond k at weight
    w · k / |r|, which never raises the loss). After at most ROBUST_PASSES such passes, or once
    neither step lowers the loss, reweighted passes go on until one lowers it by less than 1e-15
    of it (at most REWEIGHTED_PASSES), where Newton's steps stall. It is not a certified minimum:
    a test checks it is no worse than 400 reweighted passes alone."""
    roots = [math.sqrt(weight) for weight in weights]

    def relative(solution: list[float]) -> list[float]:
        predicted = [0.0] * len(target)
        for column, coefficient in zip(columns, solution, strict=True):
            if coefficient:
                predicted = [p + coefficient * x for p, x in zip(predicted, column, strict=True)]
        return [(value - guess) * root
                for value, guess, root in zip(target, predicted, roots, strict=True)]

    def loss(errors: list[float]) -> float:
        return sum(map(huber_loss, errors))

    def reweighted(errors: list[float]) -> tuple[list[float], list[float], float]:
        """The reweighted step (rows beyond k at weight w · k / |r|): never raises the loss."""
        found = weighted_nnls(columns, target, [
            w if abs(r) <= HUBER_RELATIVE else w * HUBER_RELATIVE / abs(r)
            for w, r in zip(weights, errors, strict=True)])
        found_errors = relative(found)
        return found, found_errors, loss(found_errors)

    solution = weighted_nnls(columns, target, weights)
    errors = relative(solution)
    current = loss(errors)
    for _ in range(ROBUST_PASSES):
        signs = [0 if abs(r) <= HUBER_RELATIVE else (1 if r > 0 else -1) for r in errors]
        joined: set[int] = set()
        for column in columns:    # a coefficient no row within k fixes: the nearest joins
            if any(column) and not any(x and sign == 0 for x, sign in zip(column, signs,
                                                                          strict=True)):
                joined.add(min((abs(r), index) for index, (x, r)
                               in enumerate(zip(column, errors, strict=True)) if x)[1])
        newton = _newton_step(columns, target, weights, roots, errors, signs, joined)
        while newton is None:     # singular: the nearest row beyond k joins, until they fix all
            beyond = [(abs(r), index) for index, (r, sign) in enumerate(zip(errors, signs,
                                                                             strict=True))
                      if sign and index not in joined and any(c[index] for c in columns)]
            if not beyond:
                break
            joined.add(min(beyond)[1])
            newton = _newton_step(columns, target, weights, roots, errors, signs, joined)
        found, found_errors, found_loss = solution, errors, current
        if newton is not None:
            # the lowest point along the step, beyond it too, as far as every coefficient
            # stays >= 0 (a joined row's curvature is the model's, not the loss's)
            limit = min((a / (a - b) for a, b in zip(solution, newton, strict=True) if b < a),
                        default=math.inf)
            fraction = _line_minimum(errors, [e - f for e, f in zip(
                errors, relative(newton), strict=True)], limit)
            found = [max(0.0, a + fraction * (b - a))
                     for a, b in zip(solution, newton, strict=True)]
            found_errors = relative(found)
            found_loss = loss(found_errors)
        if found_loss >= current - 1e-12 * current:
            found, found_errors, found_loss = reweighted(errors)
        if found_loss >= current - 1e-12 * current:
            break                 # neither step lowers the loss
        solution, errors, current = found, found_errors, found_loss
    # then reweighted passes, which never raise the loss, until one barely lowers it: where
    # Newton's steps stall (a split whose rows within k do not fit the minimum) they creep on
    for _ in range(REWEIGHTED_PASSES):
        found, found_errors, found_loss = reweighted(errors)
        if found_loss >= current - 1e-15 * current:
            break
        solution, errors, current = found, found_errors, found_loss
    return solution


def _newton_step(columns: list[list[float]], target: list[float], weights: list[float],
                 roots: list[float], errors: list[float], signs: list[int],
                 joined: set[int]) -> list[float] | None:
    """robust_nnls's Newton step for a split of the rows (signs: 0 within k, ±1 beyond): the
    normal equations of the rows within k and of the `joined` rows, whose targets are moved so
    that their residual here is ±k (a squared term that pulls as their linear one does at this
    point: the same gradient), plus each other row's constant pull k · sign(r) · √w; None where
    these rows leave the equations singular."""
    quadratic = list(target)
    for index in joined:
        quadratic[index] -= (errors[index] - HUBER_RELATIVE * signs[index]) / roots[index]
    within = [w if sign == 0 or index in joined else 0.0
              for index, (w, sign) in enumerate(zip(weights, signs, strict=True))]
    pull = [0.0 if index in joined else HUBER_RELATIVE * sign * root
            for index, (sign, root) in enumerate(zip(signs, roots, strict=True))]
    return weighted_nnls(columns, quadratic, within, pull, singular=None)


def _line_minimum(errors: list[float], shift: list[float], limit: float = 1.0) -> float:
    """The fraction a in [0, limit] of a step that minimises Σ huber_loss(r − a · s) (r = the
    rows' relative errors now, s = the step's change of them; limit may be infinite). The loss
    is convex in a, and its slope −Σ s · ψ(r − a · s) (ψ: clipped at ±k) is linear between the
    fractions where some row crosses ±k (and beyond the last): find the interval where the slope
    turns, then its root within it."""
    def slope(fraction: float) -> float:
        return -sum(change * max(-HUBER_RELATIVE, min(HUBER_RELATIVE, r - fraction * change))
                    for r, change in zip(errors, shift, strict=True))

    points = sorted({0.0} | {
        crossing for r, change in zip(errors, shift, strict=True) if change
        for crossing in ((r - HUBER_RELATIVE) / change, (r + HUBER_RELATIVE) / change)
        if 0.0 < crossing < limit})
    # the end: the limit, or past the last crossing, where the slope is linear in a
    points.append(limit if math.isfinite(limit) else points[-1] + 1.0)
    low, high = 0, len(points) - 1
    if slope(points[low]) >= 0:
        return 0.0                # the loss rises along the step at once
    if slope(points[high]) <= 0:
        if math.isfinite(limit):
            return limit
        rise = slope(points[high]) - slope(points[high - 1])
        if rise <= 0:             # no row pulls back past the last crossing
            return points[high]
        return points[high] - slope(points[high]) * (points[high] - points[high - 1]) / rise
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if slope(points[middle]) < 0 else (low, middle)
    below, above = slope(points[low]), slope(points[high])
    return points[low] + (points[high] - points[low]) * (-below) / (above - below)


@overload
def weighted_nnls(columns: list[list[float]], target: list[float], weights: list[float],
                  pull: list[float] | None = None) -> list[float]: ...


@overload
def weighted_nnls(columns: list[list[float]], target: list[float], weights: list[float],
                  pull: list[float] | None, singular: None) -> list[float] | None: ...


def weighted_nnls(columns: list[list[float]], target: list[float], weights: list[float],
                  pull: list[float] | None = None,
                  singular: Literal["drop"] | None = "drop") -> list[float] | None:
    """Least squares with non-negative coefficients (columns with a negative coefficient are
    dropped and the rest refitted), weights per row; `pull`: a constant term per row added to
    the normal equations' right-hand side (Σ_rows column · pull: robust_nnls's rows beyond k).
    Singular normal equations drop the last column (singular = "drop"), or give None
    (singular = None: robust_nnls then takes another step)."""
    # a column no weighted row touches fixes nothing: its coefficient is 0
    active = [i for i in range(len(columns))
              if any(x and w for x, w in zip(columns[i], weights, strict=True))]
    while active:
        weighted = [[w * x for w, x in zip(weights, columns[i], strict=True)] for i in active]
        normal = [[math.sumprod(row, columns[j]) for j in active] for row in weighted]
        rhs = [math.sumprod(row, target) for row in weighted]
        if pull is not None:
            rhs = [value + math.sumprod(columns[i], pull) for value, i in zip(rhs, active,
                                                                               strict=True)]
        solution = _solve(normal, rhs)
        if solution is None:
            if singular is None:
                return None
            active = active[:-1]
            continue
        negative = [index for index, value in zip(active, solution, strict=True) if value < 0]
        if not negative:
            coefficients = [0.0] * len(columns)
            for index, value in zip(active, solution, strict=True):
                coefficients[index] = value
            return coefficients
        worst = min(negative, key=lambda i: solution[active.index(i)])
        active.remove(worst)
    return [0.0] * len(columns)


# ---------------------------------------------------------------- fit


def shows_one_step(case: Case) -> bool:
    """A row whose TPOT is the engine's step time itself: a static batch, or a closed loop the
    source states at one request in flight per busy replica (not an offered rate, and not a
    concurrency derived from the results by Little's law), where no other request's prefill
    interleaves and no queueing model is involved."""
    if case.framework.batching == "static":
        return True
    return (case.batch == 1 and case.load_stated and case.request_rate_per_s is None
            and max(case.replica_loads, default=1) == 1)


def _decode_fit_rows(rows: list[Case]) -> list[Case]:
    """The rows the decode step's constants are fitted on: those that show one step alone when
    there are MIN_QUIET_ROWS of them, from MIN_SOURCES sources, and every framework has one;
    else every row with a TPOT (as before stop 28). Fitted on loaded rows, the step's constants
    would absorb the errors of the queueing model (interleaved prefills, waves of arrivals) that
    those rows also depend on; loaded rows still score the model. The prefill constants are
    fitted on every row with a TTFT."""
    measured = [c for c in rows if c.tpot_s is not None]
    quiet = [c for c in measured if shows_one_step(c)]
    every_framework = {c.framework.id for c in quiet} == {c.framework.id for c in measured}
    enough = len(quiet) >= MIN_QUIET_ROWS and len({c.source for c in quiet}) >= MIN_SOURCES
    return quiet if enough and every_framework else measured


def _fit_group(rows: list[Case], fallback: Efficiency | None,
               steps_fallback: Mapping[str, float],
               start: Efficiency | None = None,
               group_ramp: bool = False) -> tuple[Efficiency, dict[str, float]]:
    """A group's constants, or (`start` = its group's, `group_ramp`) a framework's own set,
    which keeps the group's prefill ramp where its rows cannot shape one (_fit_prefill)."""
    decode_rows = _decode_fit_rows(rows)
    names = sorted({c.framework.id for c in decode_rows})
    full = fallback is None or (len(decode_rows) >= MIN_GROUP_ROWS
                                and len({c.source for c in rows}) >= MIN_SOURCES)
    efficiency = fallback or start or DEFAULT_EFFICIENCY
    steps: dict[str, float] = {name: steps_fallback.get(name, 0.0) for name in names}
    previous: tuple[float, ...] = ()
    best: tuple[float, Efficiency, dict[str, float]] = (math.inf, efficiency, dict(steps))
    since_best = 0
    for _ in range(MAX_ALTERNATIONS):
        expert_column = 2 + len(names)   # the routed experts' ideal streaming time (GPU)
        matmul_column = 3 + len(names)   # the routed experts' matmul instructions (NxD)
        custom_column = 4 + len(names)   # the framework's own NVLink all-reduce steps (GPU)
        columns: list[list[float]] = [[] for _ in range(5 + len(names))]
        target: list[float] = []
        weights: list[float] = []
        scale = efficiency.decode_memory / efficiency.prefill_compute
        for case in decode_rows:
            # a row spread over replicas: its TPOT is the mean over the requests (estimate())
            row = [0.0] * len(columns)
            bandwidth_s = interference = 0.0
            for share, modelled in _served_parts(case, efficiency, steps):
                roof = modelled.decode
                interference += share * (modelled.tpot_s - modelled.step_s)
                bandwidth_s += share * roof.collective_bandwidth_s
                row[0] += share * roof.core_s(1.0, scale)
                row[1] += share * roof.collective_hops
                row[expert_column] += share * roof.expert_stream_s
                row[matmul_column] += share * roof.expert_matmuls * serving.SECONDS_PER_NS
                row[custom_column] += share * roof.custom_allreduce_steps
            for index, name in enumerate(names):
                row[2 + index] = 1.0 if case.framework.id == name else 0.0
            for index, value in enumerate(row):
                columns[index].append(value)
            y = (case.tpot_s or 0.0) - bandwidth_s - interference
            target.append(y)
            weights.append(1.0 / (case.tpot_s or 1.0) ** 2)
        use_names = full and len(decode_rows) >= 2 + len(names) + 1
        use_hops = full and len(decode_rows) >= 3
        if full and len(decode_rows) >= 2:
            expert_terms = [column for column in (expert_column, matmul_column)
                            if any(value > 0 for value in columns[column])]
            if use_hops and any(value > 0 for value in columns[custom_column]):
                expert_terms.append(custom_column)
            chosen = [0] + ([1] if use_hops else []) + (
                [2 + i for i in range(len(names))] if use_names else []) + expert_terms
            solution = robust_nnls([columns[i] for i in chosen], target, weights)
            coefficient = dict(zip(chosen, solution, strict=True))
            if 0 < coefficient[0] < 1.0 and len(chosen) > 1:
                # η_mem would exceed 1: hold it at 1 and refit the other terms on what is left,
                # so the stored set is a (Huber) fit with the η it will be used with
                rest = chosen[1:]
                left = [t - m for t, m in zip(target, columns[0], strict=True)]
                refit = robust_nnls([columns[i] for i in rest], left, weights)
                coefficient = {0: 1.0, **dict(zip(rest, refit, strict=True))}
            inverse_eta = coefficient[0] if coefficient[0] > 0 else 1.0 / efficiency.decode_memory
            efficiency = replace(
                efficiency, decode_expert_extra=_round(coefficient.get(expert_column, 0.0)),
                decode_expert_matmul_ns=_round(coefficient.get(matmul_column, 0.0)),
                decode_memory=_round(min(1.0, 1.0 / inverse_eta)),
                collective_hop_latency_s=_round(coefficient.get(1,
                                                efficiency.collective_hop_latency_s)),
                custom_allreduce_step_s=_round(coefficient.get(
                    custom_column, efficiency.custom_allreduce_step_s)))
            if use_names:
                steps = {name: _round(coefficient[2 + i]) for i, name in enumerate(names)}
        if not use_names:
            for name in names:
                residuals = [
                    (t - columns[0][k] / efficiency.decode_memory
                     - columns[1][k] * efficiency.collective_hop_latency_s
                     - columns[expert_column][k] * efficiency.decode_expert_extra
                     - columns[matmul_column][k] * efficiency.decode_expert_matmul_ns
                     - columns[custom_column][k] * efficiency.custom_allreduce_step_s, weights[k])
                    for k, t in enumerate(target) if columns[2 + names.index(name)][k] == 1.0
                ]
                mean = robust_nnls([[1.0] * len(residuals)], [r for r, _ in residuals],
                                   [w for _, w in residuals])[0] if residuals else 0.0
                steps[name] = _round(mean)
        if full:
            efficiency = _fit_prefill(rows, efficiency, steps, group_ramp=group_ramp)
        current = (*efficiency.fitted_values(), *(steps[name] for name in names))
        if previous and _settled(current, previous):
            return efficiency, steps
        previous = current
        # the decode and prefill fits each hold the other's constants: where they pull apart
        # the alternation can swap between two sets; keep the set that fits both best
        error = _fit_error(rows, decode_rows, efficiency, steps)
        if error < best[0]:
            best, since_best = (error, efficiency, dict(steps)), 0
        else:
            since_best += 1
            if since_best >= PATIENCE:
                break
    return best[1], best[2]


def _settled(current: tuple[float, ...], before: tuple[float, ...]) -> bool:
    return all(abs(a - b) <= SETTLED * max(abs(a), abs(b), 1e-12)
               for a, b in zip(current, before, strict=True))


def _fit_error(rows: list[Case], decode_rows: list[Case], efficiency: Efficiency,
               steps: Mapping[str, float]) -> float:
    """Σ Huber's loss (huber_loss) of the relative errors of the TPOTs the decode fit uses and of
    every TTFT: the two fits' objectives together."""
    total = 0.0
    decode_ids = {c.id for c in decode_rows}
    for case in rows:
        scored_tpot = case.tpot_s is not None and case.id in decode_ids
        if not scored_tpot and case.ttft_s is None:
            continue
        parts = _served_parts(case, efficiency, steps)
        tpot = sum(share * modelled.tpot_s for share, modelled in parts)
        ttft = sum(share * modelled.ttft_s for share, modelled in parts)
        if scored_tpot and case.tpot_s:
            total += huber_loss(tpot / case.tpot_s - 1.0)
        if case.ttft_s:
            ttft += cold_start_s(case, efficiency)
            total += huber_loss(ttft / case.ttft_s - 1.0)
    return total


def _served_parts(case: Case, efficiency: Efficiency,
                  steps: Mapping[str, float]) -> list[tuple[float, serving.Serving]]:
    """(share of the requests, the engine served at that per-replica load) for each part of
    _load_mix, an offered rate first read as its Little's-law concurrency (resolved): what the
    decode fit, the prefill fit and the fit error all score, with `efficiency` and the per-step
    fixed costs `steps` being fitted (0 for a framework without one; estimate() instead falls
    back to a proxy framework's)."""
    case = resolved(case, Constants({case.group: efficiency}, {}, {}, {}))
    return [(share, serving.serve(part.model, part.instance, part.framework, efficiency,
                                  steps.get(part.framework.id, 0.0), tp=part.tp, dtype=part.dtype,
                                  kv_dtype=part.kv_dtype, work=part.work))
            for share, part in _load_mix(case)]


def _load_mix(case: Case) -> list[tuple[float, Case]]:
    """(share of the requests, the case at that per-replica load) — one part unless a closed
    loop is spread unevenly over replicas (replica_loads), as estimate() scores it."""
    if len(set(case.replica_loads)) <= 1:
        return [(1.0, case)]
    total = sum(case.replica_loads)
    return [(load / total, replace(case, batch=load, replica_loads=()))
            for load in case.replica_loads]


def ttft_passes(parts: list[tuple[float, serving.Serving]]) -> list[tuple[float, serving.Roofline]]:
    """(weight, pass) of the prefill passes a row's TTFT holds, over its load parts (_served_parts:
    each part's prompts per pass follow its replica's load; a burst run counts several)."""
    return [(share * weight, roof) for share, modelled in parts
            for weight, roof in modelled.ttft_prefills or ((1.0, modelled.prefill),)]


def ramp_sizes(passes: Sequence[serving.Roofline]) -> int:
    """Distinct token counts (rounded) among prefill passes: how many prompt sizes, after
    padding, a fit of the ramp η_comp · T / (T + T_half) sees."""
    return len({round(roof.tokens) for roof in passes})


def _fit_prefill(rows: list[Case], efficiency: Efficiency,
                 steps: Mapping[str, float], group_ramp: bool = False) -> Efficiency:
    """η_comp, T_half, t_fixed, t_GB and t_first of the prefill (module docstring, step 2); with
    `group_ramp` (a framework's own set) T_half stays at `efficiency`'s, its group's, unless the
    rows' passes come in MIN_RAMP_SIZES token counts or more."""
    prefill_rows = [c for c in rows if c.ttft_s is not None]
    if len(prefill_rows) < 2:
        return efficiency
    prepared = []
    for case in prefill_rows:
        parts = _served_parts(case, efficiency, steps)
        step = steps.get(case.framework.id, 0.0)
        # the prefill passes in the TTFT, and what the TTFT holds besides them
        passes = ttft_passes(parts)
        other = sum(share * modelled.ttft_s for share, modelled in parts) - sum(
            weight * roof.time_s(efficiency, step) for weight, roof in passes)
        prepared.append((passes, step, (case.ttft_s or 0.0) - other, case.ttft_s or 1.0))
    # the fixed latency is paid once per pass (per model call): a row whose TTFT holds several
    # (a burst run, a chunked prefill) counts it as often
    counts = [sum(weight * roof.passes for weight, roof in passes) for passes, _, _, _ in prepared]
    best = (float("inf"), efficiency.prefill_compute, efficiency.prefill_fixed_latency_s,
            efficiency.prefill_half_tokens, efficiency.prefill_expert_s_per_gb,
            efficiency.first_request_extra_s)
    experts = [sum(share * roof.expert_block_gb for share, roof in passes)
               for passes, _, _, _ in prepared]
    cold = [case.cold_share for case in prefill_rows]
    weights = [1.0 / weight**2 for _, _, _, weight in prepared]
    fit_ramp = not group_ramp or ramp_sizes(
        [roof for passes, _, _, _ in prepared for weight, roof in passes if weight > 0]
    ) >= MIN_RAMP_SIZES
    for half in HALF_TOKENS_GRID if fit_ramp else (efficiency.prefill_half_tokens,):
        for eta in ETA_GRID:
            trial = replace(efficiency, prefill_compute=eta, prefill_fixed_latency_s=0.0,
                            prefill_half_tokens=half, prefill_expert_s_per_gb=0.0)
            predicted = [sum(share * roof.time_s(trial, step) for share, roof in passes)
                         for passes, step, _, _ in prepared]
            residual = [target - value
                        for value, (_, _, target, _) in zip(predicted, prepared, strict=True)]
            fixed, per_expert, warm_up = _fixed_terms(counts, experts, cold, residual, weights)
            error = sum(huber_loss(math.sqrt(w) * (r - fixed * c - per_expert * x - warm_up * f))
                        for r, c, x, f, w in zip(residual, counts, experts, cold, weights,
                                                 strict=True))
            if error < best[0]:
                best = (error, eta, fixed, half, per_expert, warm_up)
    return replace(efficiency, prefill_compute=_round(best[1]),
                   prefill_fixed_latency_s=_round(best[2]), prefill_half_tokens=best[3],
                   prefill_expert_s_per_gb=_round(best[4]), first_request_extra_s=_round(best[5]))


def _fixed_terms(counts: list[float], experts: list[float], cold: list[float],
                 residual: list[float], weights: list[float]) -> tuple[float, float, float]:
    """(t_fixed, t_GB, t_first) >= 0 that best explain the prefill residuals (weighted, Huber's
    loss: robust_nnls; `counts` = the prefill calls each row's TTFT holds, which pay t_fixed
    each, 1 but for burst runs and chunked prefills; `experts` = each row's expert-block GB;
    `cold` = the share of its requests that were a cold replica's first); a term whose column is
    all 0 is 0."""
    has_experts = any(value > 0 for value in experts)
    has_cold = any(value > 0 for value in cold)
    columns = [counts] + [experts] * has_experts + [cold] * has_cold
    solution = iter(robust_nnls(columns, residual, weights))
    fixed = next(solution)
    return (fixed, next(solution) if has_experts else 0.0,
            next(solution) if has_cold else 0.0)


def fit(rows: Sequence[Case] | None = None,
        training_rows: Sequence["training_speed.TrainingCase"] | None = None) -> Constants:
    """Fit every hardware group (fallback groups first) and the training efficiencies."""
    rows = list(cases() if rows is None else rows)
    groups: dict[str, Efficiency] = {}
    steps: dict[tuple[str, str], float] = {}
    fitted_on: dict[str, tuple[str, ...]] = {}
    framework_groups: dict[tuple[str, str], Efficiency] = {}
    for group in GROUPS:
        group_rows = [c for c in rows if c.group == group]
        fallback_name = serving.GROUP_FALLBACK.get(group)
        while fallback_name is not None and fallback_name not in groups:
            fallback_name = serving.GROUP_FALLBACK.get(fallback_name)
        fallback = groups.get(fallback_name) if fallback_name else None
        if not group_rows:
            continue
        if fallback is None and len([c for c in group_rows if c.tpot_s]) < 2:
            continue
        inherited = {fw: value for (fw, g), value in steps.items() if g == fallback_name}
        efficiency, group_steps = _fit_group(group_rows, fallback, inherited)
        own_fit = len([c for c in group_rows if c.tpot_s]) >= MIN_GROUP_ROWS and len(
            {c.source for c in group_rows}) >= MIN_SOURCES
        if fallback is None or own_fit:
            groups[group] = efficiency
        for name, value in group_steps.items():
            steps[(name, group)] = value
        fitted_on[group] = tuple(c.id for c in group_rows)
        for name in sorted({c.framework.id for c in group_rows}):
            own = [c for c in group_rows if c.framework.id == name]
            if len([c for c in own if c.tpot_s]) < MIN_FRAMEWORK_ROWS or len(
                    {c.source for c in own}) < MIN_SOURCES:
                continue
            # a framework's own set starts from its group's (η_mem stays there should the
            # framework's rows not determine it)
            own_efficiency, own_steps = _fit_group(own, None, {}, start=groups.get(group),
                                                   group_ramp=group in groups)
            framework_groups[(name, group)] = own_efficiency
            steps[(name, group)] = own_steps.get(name, 0.0)
            fitted_on[f"{name}/{group}"] = tuple(c.id for c in own)
    training_rows = list(training_speed.cases() if training_rows is None else training_rows)
    training = training_speed.fit(training_rows)
    return Constants(groups, steps, training, fitted_on, framework_groups)


def measured_configurations() -> list[str]:
    """"key=id" for every inference and training record the engine can read (any use), for
    the basis of an estimate (serving_band.measured_index)."""
    entries = []
    for case in cases((*SCORED_USES, "reference")):
        entries.append(serving_band.inference_key(
            case.model.id, case.instance.id, case.framework.id, case.tp, case.batch,
            case.input_len, case.output_len, case.dtype) + f"={case.id}")
    for tcase in training_speed.cases(all_uses=True):
        entries.append(serving_band.training_key(
            tcase.model.id, tcase.instance.id, tcase.framework.id, tcase.count,
            tcase.seq_len) + f"={tcase.id}")
    return entries


def report(constants: Constants | None = None) -> list[dict[str, Any]]:
    """One row per scored inference measurement: estimate with the stored constants (fitted on
    every scored row), measurement, relative error."""
    constants = constants or stored_constants()
    rows: list[dict[str, Any]] = []
    for case in cases():
        estimated = estimate(case, constants)
        row: dict[str, Any] = {
            "id": case.id, "use": case.use, "kind": case.instance.kind,
            "model": case.model.id, "instance": case.instance.id, "framework": case.framework.id,
            "tp": case.tp, "batch": case.batch, "input_len": case.input_len,
            "output_len": case.output_len, "dtype": case.dtype,
        }
        for name, value in estimated.items():
            measured = case.measured(name)
            row[f"{name}_estimated"] = value
            row[f"{name}_measured"] = measured
            row[f"{name}_error"] = None if not measured else (value - measured) / measured
        rows.append(row)
    return rows


@dataclass(frozen=True, slots=True)
class ErrorSummary:
    """|relative error| of one estimated field over a set of report rows."""

    rows: int
    median: float
    max: float


def error_summary(
    rows: Sequence[Mapping[str, Any]], use: str, field: str, kind: str = "all"
) -> ErrorSummary | None:
    """Median and max |error| of `field` over the report rows of one use and instance kind."""
    errors = [
        abs(row[f"{field}_error"])
        for row in rows
        if row["use"] == use and kind in ("all", row["kind"]) and row[f"{field}_error"] is not None
    ]
    if not errors:
        return None
    return ErrorSummary(rows=len(errors), median=statistics.median(errors), max=max(errors))
