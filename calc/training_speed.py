"""Training speed per framework: model FLOPs, recomputation, attention at its own efficiency,
and a fitted hardware efficiency per training framework and hardware group.

Per token of sequence length s (N = the parameters a token is multiplied by: the active ones
less an untied input embedding, calc.model_shape.matmul_params; L layers, h hidden):
  model FLOPs          = 6·N + 12·L·h·s                       (forward + backward; MFU basis)
  attention FLOPs      = 12·S·w with S = Σ_layers min(s, window) (sliding-window layers attend
                         to their window) and w = heads × head_dim (the attention width, not h:
                         e.g. Qwen3-30B-A3B has w = 4,096 beside h = 2,048) — what the hardware
                         runs, as in the serving model; equal to 12·L·h·s for a plain dense model
  recompute FLOPs      = none: 0 · selective: 4·S·w (attention scores again) ·
                         full: 2·N + 4·S·w (one more forward pass)
  weighted FLOPs       = (6·N + dense recompute) + (attention FLOPs + attention recompute) / a
                         (a = attention efficiency relative to the dense matmuls, fitted: the
                         grid value that makes a framework's runs at different lengths agree)
  TP all-reduces       = passes × 2 · L · 2(t − 1)/t · h · 2 B / link per token and TP group
                         (Megatron-style tensor parallelism, as the serving step's, over the
                         instance's published link per chip: two per layer in the forward pass,
                         two in the backward, two more when full recomputation runs the forward
                         again, so passes = 2 or 3; counted beside the compute, not overlapped;
                         0 at t = 1 or where no link figure is published)
  time per token       = weighted FLOPs / (efficiency × peak of the devices)
                         + TP all-reduces × t / devices   (not with an MFU preset: end to end)
  tokens/s             = 1 / time per token
efficiency: fitted per (framework, hardware group, dense or MoE) = median over measured runs of
weighted FLOPs / (peak × (1 / tokens/s − their TP all-reduces per token)), each run at its own
published TP degree; a mixture-of-experts model (ModelSpec.is_moe)
has its own value where its framework has MoE runs (grouped expert matmuls over few
tokens each and the all-to-all exchange between expert-parallel ranks reach a lower share of
peak than dense layers), else the dense one; where a framework has no runs, its calibration
proxy's, else the MFU preset of the instance kind.
"""

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import data, frameworks, model_shape, serving
from .flops import MFU_PRESET_PREFIX, default_mfu, headline_peak_flops_per_s
from .frameworks import Framework
from .specs import InstanceSpec, ModelSpec

RECOMPUTE_MODES = ("none", "selective", "full")
ATTENTION_EFFICIENCY_ID = "training_attention_relative_efficiency"
ATTENTION_KEY = ("attention", "all")        # where fit() keeps the fitted a
ATTENTION_GRID = tuple(step / 20 for step in range(6, 21))   # 0.30 .. 1.00


MOE_SUFFIX = "-moe"   # efficiency group of mixture-of-experts models: "<hardware group>-moe"


def efficiency_group(model: ModelSpec, instance: InstanceSpec) -> str:
    """The hardware group, with MOE_SUFFIX for a mixture-of-experts model."""
    group = serving.hardware_group(instance)
    return group + MOE_SUFFIX if model.is_moe else group


def efficiency_assumption_id(framework_id: str, group: str) -> str:
    return f"training_efficiency_{framework_id.replace('-', '_')}_{group.replace('-', '_')}"


RECOMPUTE_FORWARD_PASSES = {"none": 2, "selective": 2, "full": 3}   # all-reduce passes per step


def collective_s_per_token(model: ModelSpec, instance: InstanceSpec, tp: int, recompute: str,
                           devices: float) -> float:
    """Seconds the tensor-parallel all-reduces add per trained token over ``devices`` working
    devices: passes × (2 · L · ring bytes per chip of one token's h · 2 B / link) × t / devices
    (serving.collective_bandwidth_s; a TP group of t devices works on one token at a time).
    0 at t = 1 or without a published link figure."""
    if tp <= 1 or devices <= 0:
        return 0.0
    per_pass = serving.collective_bandwidth_s(model, instance, tp, 1.0)
    return RECOMPUTE_FORWARD_PASSES[recompute] * per_pass * tp / devices


def counts_collectives(efficiency_source: str) -> bool:
    """Whether a time with this efficiency adds the TP all-reduces: a fitted efficiency is
    taken net of them; the instance kind's MFU preset (``mfu_training_<kind>_default``, an
    end-to-end figure) already holds them."""
    return not efficiency_source.startswith(MFU_PRESET_PREFIX)


def attention_relative_efficiency() -> float:
    record = data.record("assumptions", ATTENTION_EFFICIENCY_ID)
    return data.assumption_value(ATTENTION_EFFICIENCY_ID) if record is not None else 1.0


@dataclass(frozen=True, slots=True)
class TokenFlops:
    model: float        # 6·N + 12·L·h·s (the MFU convention; N: matmul params)
    dense: float        # 6·N + dense recompute
    attention: float    # 12·S·w + attention recompute (S: attended tokens over layers)
    weighted: float     # dense + attention / a
    recompute: float    # the recomputation's share of dense + attention
    attention_run: float  # 12·S·w: the attention FLOPs as run, without recomputation


def token_flops(model: ModelSpec, seq_len: int, recompute: str,
                attention_efficiency: float | None = None) -> TokenFlops:
    dense = 6.0 * model_shape.matmul_params(model)   # no untied input embedding: a lookup
    model_flops = dense + 12.0 * model.layers * model.hidden * seq_len   # the MFU convention
    # attended tokens over layers: each decoder layer its window; an encoder attends to all
    attended = serving.attention_token_layers(model, seq_len) if model.is_decoder \
        else model.layers * seq_len
    scores = attended * model.heads * model.head_dim
    attention_run = 12.0 * scores
    dense_extra = 2.0 * model_shape.matmul_params(model) if recompute == "full" else 0.0
    attention_extra = 4.0 * scores if recompute in ("selective", "full") else 0.0
    dense += dense_extra
    attention = attention_run + attention_extra
    a = attention_efficiency if attention_efficiency is not None \
        else attention_relative_efficiency()
    weighted = dense + attention / a
    return TokenFlops(model_flops, dense, attention, weighted, dense_extra + attention_extra,
                      attention_run)


@dataclass(frozen=True, slots=True)
class TrainingCase:
    id: str
    source: str
    model: ModelSpec
    instance: InstanceSpec
    framework: Framework
    count: int
    seq_len: int
    dtype: str
    recompute: str
    tokens_per_s: float
    tp: int = 1

    def features(self) -> dict[str, float]:
        return {"params": float(self.model.params), "seq_len": float(self.seq_len),
                "count": float(self.count)}

    def peak(self) -> float:
        return headline_peak_flops_per_s(self.instance, self.dtype)[1] * self.count

    def collective_s_per_token(self) -> float:
        return collective_s_per_token(self.model, self.instance, self.tp, self.recompute,
                                      self.count * self.instance.logical_cores)


def cases(all_uses: bool = False) -> list[TrainingCase]:
    from .calibration import framework_of, scored_use

    found = []
    for raw in data.records("measurements"):
        if raw.get("kind") != "training" or (not all_uses and scored_use(raw) is None):
            continue
        framework_id = framework_of(raw)
        tokens = raw.get("tokens_per_s")
        if framework_id is None or not isinstance(tokens, int | float):
            continue
        if data.record("models", str(raw.get("model"))) is None:
            continue
        framework = frameworks.get(framework_id)
        recompute = raw.get("recompute")
        found.append(TrainingCase(
            id=str(raw["id"]), source=str((raw.get("sources") or ["?"])[0]),
            model=data.model(str(raw["model"])), instance=data.instance(str(raw["instance"])),
            framework=framework, count=int(raw.get("instance_count", 1)),
            seq_len=int(raw["seq_len"]), dtype=str(raw.get("dtype", "bf16")),
            recompute=str(recompute) if recompute in RECOMPUTE_MODES
            else framework.default_recompute,
            tokens_per_s=float(tokens), tp=int(raw.get("tp", 1))))
    return found


def achieved_efficiency(case: TrainingCase, attention_efficiency: float | None = None) -> float:
    """The efficiency a run reached on its compute: weighted FLOPs per token over the time per
    token less its TP all-reduces, as a share of peak (inf where those take the whole time)."""
    flops = token_flops(case.model, case.seq_len, case.recompute, attention_efficiency)
    compute_s = 1.0 / case.tokens_per_s - case.collective_s_per_token()
    return flops.weighted / (case.peak() * compute_s) if compute_s > 0 else math.inf


def _efficiencies(rows: Sequence[TrainingCase], a: float) -> dict[tuple[str, str], float]:
    grouped: dict[tuple[str, str], list[float]] = {}
    for case in rows:
        key = (case.framework.id, efficiency_group(case.model, case.instance))
        grouped.setdefault(key, []).append(achieved_efficiency(case, a))
    return {key: float(f"{statistics.median(values):.4g}") for key, values in grouped.items()}


def fit(rows: Sequence[TrainingCase]) -> dict[tuple[str, str], float]:
    """Efficiency per (framework, group) = median over its runs; the attention efficiency a is
    the grid value that makes those runs most alike (least squared log error)."""
    if not rows:
        return {}
    best: tuple[float, float] = (float("inf"), 1.0)
    for a in ATTENTION_GRID:
        fitted = _efficiencies(rows, a)
        error = 0.0
        for case in rows:
            key = (case.framework.id, efficiency_group(case.model, case.instance))
            error += math.log(fitted[key] / achieved_efficiency(case, a)) ** 2
        if error < best[0] - 1e-12:
            best = (error, a)
    fitted = _efficiencies(rows, best[1])
    fitted[ATTENTION_KEY] = best[1]
    return fitted


def lookup(framework: Framework, instance: InstanceSpec, model: ModelSpec,
           fitted: Mapping[tuple[str, str], float]) -> tuple[float, str]:
    """(efficiency, where it comes from): fitted (framework, group) with the group chain (a MoE
    model: the framework's MoE value on the group first, then its dense one), then the
    calibration proxy, else the MFU preset of the instance kind."""
    group = serving.hardware_group(instance)
    moe = efficiency_group(model, instance) != group
    seen: set[str] = set()
    candidate: Framework | None = framework
    while candidate is not None and candidate.id not in seen:
        seen.add(candidate.id)
        chain: str | None = group
        while chain is not None:
            for key in ((chain + MOE_SUFFIX, chain) if moe else (chain,)):
                if (candidate.id, key) in fitted:
                    return fitted[(candidate.id, key)], efficiency_assumption_id(candidate.id, key)
            chain = serving.GROUP_FALLBACK.get(chain)
        candidate = frameworks.all_frameworks().get(candidate.calibration_proxy)
    return default_mfu(instance)


def estimate(case: TrainingCase, fitted: Mapping[tuple[str, str], float]) -> float:
    efficiency, source = lookup(case.framework, case.instance, case.model, fitted)
    flops = token_flops(case.model, case.seq_len, case.recompute, fitted.get(ATTENTION_KEY))
    collective_s = case.collective_s_per_token() if counts_collectives(source) else 0.0
    return 1.0 / (flops.weighted / (efficiency * case.peak()) + collective_s)
