"""The stored calibration is exactly what bench/calibrate.py computes: constants fitted on every
scored row (data/assumptions.toml), per-family cross-validated figures, band statistics and
left-out points (data/calibration.toml). The error figures are leave-one-SOURCE-out."""

import math
from dataclasses import replace
from functools import cache

import pytest
from calc_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

from calc import calibration, calibration_cv, data, frameworks, serving, serving_band
from calc.calibration import Constants
from calc.calibration_cv import Point


@cache
def fresh_fit() -> Constants:
    return calibration.fit()


@cache
def fresh_points() -> tuple[Point, ...]:
    return tuple(calibration_cv.cross_validate())


def test_stored_constants_equal_a_fresh_fit() -> None:
    fitted, stored = fresh_fit(), calibration.stored_constants()
    assert set(stored.groups) == set(fitted.groups)
    for group, efficiency in fitted.groups.items():
        assert stored.groups[group] == efficiency, group
    assert dict(stored.framework_groups) == dict(fitted.framework_groups)
    assert dict(stored.steps) == pytest.approx(dict(fitted.steps), rel=1e-9, abs=1e-12)
    assert dict(stored.training) == pytest.approx(dict(fitted.training), rel=1e-9)


def test_fitted_records_name_their_rows() -> None:
    fitted = fresh_fit()
    for group in fitted.groups:
        for assumption_id in calibration.fitted_ids(group):
            record = data.assumption(assumption_id)
            rows = fitted.fitted_on[group]
            assert record["fitted_by"] == "bench/calibrate.py"
            assert record["fitted_rows"] == len(rows)
            expected_sources = {s for r in rows
                                for s in data.record("measurements", r)["sources"]}
            assert set(record["fitted_on_sources"]) == expected_sources
            assert record["sources"]


def test_fit_is_physical() -> None:
    fitted = fresh_fit()
    for efficiency in (*fitted.groups.values(), *fitted.framework_groups.values()):
        assert 0 < efficiency.decode_memory <= 1
        assert 0 < efficiency.prefill_compute <= 1
        assert efficiency.collective_hop_latency_s >= 0
        assert efficiency.prefill_fixed_latency_s >= 0
        assert efficiency.prefill_expert_s_per_gb >= 0
        assert efficiency.decode_expert_matmul_ns >= 0
        assert efficiency.decode_expert_extra >= 0
    assert all(value >= 0 for value in fitted.steps.values())
    assert all(0 < value <= 1 for value in fitted.training.values())


def test_prefill_fixed_terms_recover_a_per_expert_latency() -> None:
    # residuals = 50 ms + 1 ms per expert-layer, exactly: the fit returns both
    experts = [0.0, 0.0, 100.0, 400.0, 1000.0]
    ones = [1.0] * len(experts)
    residual = [0.05 + 0.001 * x for x in experts]
    weights = [1.0 / r**2 for r in residual]
    fixed, per_expert, _ = calibration._fixed_terms(ones, experts, [0.0] * 5, residual, weights)
    assert fixed == pytest.approx(0.05) and per_expert == pytest.approx(0.001)
    # dense rows only: t_expert is 0, t_fixed the residuals' weighted mean under Huber's loss
    # (k = 0.1): at m the first row is 0.1 - m off (weight 1), the second √3 · (0.3 - m); past
    # k the first pulls with -k, so -0.1 + 3 (0.3 - m) = 0: m = 4/15, where |0.1 - m| = 0.167 > k
    # and √3 · |0.3 - m| = 0.058 <= k (least squares would give the mean 0.25)
    fixed, per_expert, first = calibration._fixed_terms([1.0, 1.0], [0.0, 0.0], [0.0, 0.0],
                                                        [0.1, 0.3], [1.0, 3.0])
    assert (fixed, per_expert, first) == (pytest.approx(4 / 15, rel=1e-5), 0.0, 0.0)
    # never negative: residuals that fall with the expert count give t_expert = 0
    fixed, per_expert, _ = calibration._fixed_terms([1.0] * 3, [0.0, 10.0, 20.0], [0.0] * 3,
                                                    [0.3, 0.2, 0.1], [1.0, 1.0, 1.0])
    assert per_expert == 0.0 and fixed == pytest.approx(0.2)


def test_huber_loss_is_squared_within_the_median_target_and_linear_beyond() -> None:
    assert calibration.HUBER_RELATIVE == calibration_cv.MEDIAN_TARGET == 0.10
    assert calibration.huber_loss(0.05) == pytest.approx(0.0025)
    assert calibration.huber_loss(-0.1) == pytest.approx(0.01)
    # 2k|r| - k²: 0.2 · 0.3 - 0.01
    assert calibration.huber_loss(0.3) == pytest.approx(0.05)
    assert calibration.huber_loss(-0.3) == pytest.approx(0.05)


def test_robust_fit_bounds_the_pull_of_a_row_far_off_the_rest() -> None:
    # four rows of y = 2x and a fifth 50 % high (15 for 10); weights 1/y² (relative errors).
    # Least squares: b = Σ(x/y) / Σ(x/y)² = (4 · 1/2 + 1/3) / (4 · 1/4 + 1/9) = 2.1.
    # Huber (k = 0.1): the four sit at r = (2 - b)/2 within k, the fifth beyond it pulls with k
    # at √w · x = 1/3: 4 · (2 - b)/2 · 1/2 + 0.1/3 = 0, so b = 2 + 1/30
    column, target = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 6.0, 8.0, 15.0]
    weights = [1.0 / y**2 for y in target]
    assert calibration.weighted_nnls([column], target, weights)[0] == pytest.approx(2.1)
    assert calibration.robust_nnls([column], target, weights)[0] == pytest.approx(2 + 1 / 30,
                                                                                  rel=1e-6)
    # rows all within k: the same as least squares
    near = [2.0, 4.1, 6.0, 7.9, 10.0]
    close = [1.0 / y**2 for y in near]
    assert calibration.robust_nnls([column], near, close) == pytest.approx(
        calibration.weighted_nnls([column], near, close))


def _huber_total(columns: list[list[float]], target: list[float], weights: list[float],
                 coefficients: list[float]) -> float:
    return sum(calibration.huber_loss(math.sqrt(w) * (t - sum(c[i] * b for c, b in zip(
        columns, coefficients, strict=True)))) for i, (t, w) in enumerate(zip(target, weights,
                                                                              strict=True)))


ENTRY = st.one_of(st.just(0.0), st.floats(0.01, 10.0))   # a column entry: 0 or a count / GB


def _reweighted(columns: list[list[float]], target: list[float], weights: list[float],
                passes: int) -> list[float]:
    """Plain iteratively reweighted least squares for Huber's loss: the reference."""
    found = calibration.weighted_nnls(columns, target, weights)
    for _ in range(passes):
        errors = [math.sqrt(w) * (t - sum(c[i] * b for c, b in zip(columns, found, strict=True)))
                  for i, (t, w) in enumerate(zip(target, weights, strict=True))]
        found = calibration.weighted_nnls(columns, target, [
            w if abs(r) <= calibration.HUBER_RELATIVE else w * calibration.HUBER_RELATIVE / abs(r)
            for w, r in zip(weights, errors, strict=True)])
    return found


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=3).flatmap(lambda m: st.lists(
    st.tuples(st.lists(ENTRY, min_size=m, max_size=m), st.floats(-0.5, 0.5)),
    min_size=3 * m, max_size=24).map(lambda rows: (m, rows))),
    st.lists(st.floats(0.0, 2.0), min_size=3, max_size=3))
def test_robust_fit_is_no_worse_than_long_reweighting(
        problem: tuple[int, list[tuple[list[float], float]]], truth: list[float]) -> None:
    # rows of m columns, each measurement off a true fit by up to ±50 % (so many rows lie
    # beyond k): robust_nnls's Huber loss is no higher than that of 400 reweighted passes
    m, rows = problem
    columns = [list(column) for column in zip(*(row for row, _ in rows), strict=True)]
    target = [max(1e-3, sum(x * b for x, b in zip(row, truth[:m], strict=True)) * (1 + e))
              for row, e in rows]
    weights = [1.0 / y**2 for y in target]
    found = calibration.robust_nnls(columns, target, weights)
    assert all(b >= 0 for b in found)
    reference = _reweighted(columns, target, weights, 400)
    assert _huber_total(columns, target, weights, found) <= _huber_total(
        columns, target, weights, reference) * (1 + 1e-9) + 1e-12


def test_one_newton_step_on_the_right_split_is_the_huber_minimum() -> None:
    # y = 2x on four rows, the fifth 50 % high; rows 1-4 within k, row 5 beyond (r > 0): the
    # normal equations of rows 1-4 (Σ w x² = 4 · 1/4 = 1, Σ w x y = 4 · 1/2 = 2) plus row 5's
    # pull k · √w5 · x5 = 0.1 / 15 · 5 = 1/30 give b = 2 + 1/30 in one solve
    column, target = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 6.0, 8.0, 15.0]
    weights = [1.0 / y**2 for y in target]
    within = weights[:4] + [0.0]
    pull = [0.0] * 4 + [0.1 / 15]
    assert calibration.weighted_nnls([column], target, within, pull)[0] == pytest.approx(
        2 + 1 / 30, rel=1e-12)
    # a singular system (no row within k touches the column) gives None when asked
    assert calibration.weighted_nnls([[0.0, 1.0]], [1.0, 2.0], [1.0, 0.0], [0.0, 0.1],
                                     singular=None) == [0.0]


def test_line_minimum_finds_the_lowest_point_along_a_step() -> None:
    # one row at r = 0.3 that the full step moves by -0.4: its Huber loss along the step is
    # lowest where r(a) = 0.3 - 0.4a = 0, a = 0.75 (the slope crosses zero between the
    # breakpoint a = (0.3 - 0.1)/0.4 = 0.5 and the step's end)
    assert calibration._line_minimum([0.3], [0.4]) == pytest.approx(0.75)
    assert calibration._line_minimum([0.3], [0.1]) == 1.0    # still falling at the end
    assert calibration._line_minimum([0.3], [-0.1]) == 0.0   # rising at once
    # two rows: r = (0.3, -0.05) moved by (0.4, -0.2), r(a) = (0.3 - 0.4a, -0.05 + 0.2a); the
    # slope is -0.4 ψ(r1) + 0.2 ψ(r2); row 1 enters ±k at a = 0.5, row 2 leaves it at 0.75;
    # between, both are within k: slope = -0.4 (0.3 - 0.4a) + 0.2 (-0.05 + 0.2a)
    # = -0.13 + 0.2a (-0.03 at 0.5, +0.02 at 0.75), zero at a = 0.65
    assert calibration._line_minimum([0.3, -0.05], [0.4, -0.2]) == pytest.approx(0.65)


def test_prefill_fixed_latency_is_paid_once_per_pass() -> None:
    # a burst row whose TTFT holds 8 prefill passes pays the fixed latency 8 times: residuals
    # of 20 ms on a one-pass row and 160 ms on an eight-pass row are one latency of 20 ms
    fixed, per_expert, _ = calibration._fixed_terms([1.0, 8.0], [0.0, 0.0], [0.0, 0.0],
                                                    [0.02, 0.16], [1.0, 1.0])
    assert fixed == pytest.approx(0.02) and per_expert == 0.0
    # with mixture-of-experts rows too (fitted on the counts and the expert GB together)
    fixed, per_expert, _ = calibration._fixed_terms([1.0, 8.0, 1.0], [0.0, 0.0, 10.0],
                                                    [0.0] * 3, [0.02, 0.16, 0.03], [1.0] * 3)
    assert fixed == pytest.approx(0.02) and per_expert == pytest.approx(0.001)


def test_prefill_fixed_terms_recover_a_first_request_warm_up() -> None:
    # synchronous runs of N = 16 requests: warm (no cold replica), one cold replica and three,
    # so 0, 1/16 and 3/16 of each mean is a first request; with a fixed latency of 20 ms and
    # a first request 1.6 s slower the residuals are 20, 120 and 320 ms: the fit returns both
    cold = [0.0, 1 / 16, 3 / 16]
    residual = [0.02 + 1.6 * share for share in cold]
    fixed, per_expert, first = calibration._fixed_terms([1.0] * 3, [0.0] * 3, cold, residual,
                                                        [1.0 / r**2 for r in residual])
    assert (fixed, per_expert) == (pytest.approx(0.02), 0.0) and first == pytest.approx(1.6)
    # beside a mixture-of-experts term (1 ms per GB): all three at once
    experts = [0.0, 0.0, 50.0, 0.0]
    cold = [0.0, 0.25, 0.0, 0.125]
    residual = [0.03 + 0.001 * x + 1.2 * share for x, share in zip(experts, cold, strict=True)]
    fixed, per_expert, first = calibration._fixed_terms([1.0] * 4, experts, cold, residual,
                                                        [1.0] * 4)
    assert fixed == pytest.approx(0.03) and per_expert == pytest.approx(0.001)
    assert first == pytest.approx(1.2)


def _prefill_passes(rows: list[calibration.Case], constants: Constants,
                    framework: str, group: str) -> list[serving.Roofline]:
    efficiency = constants.framework_groups[(framework, group)]
    steps = {framework: constants.steps.get((framework, group), 0.0)}
    return [roof for case in rows if case.ttft_s is not None
            for weight, roof in calibration.ttft_passes(
                calibration._served_parts(case, efficiency, steps)) if weight > 0]


def test_ramp_sizes_counts_distinct_pass_lengths() -> None:
    def pass_of(tokens: float) -> serving.Roofline:
        return serving.Roofline(memory_s=0.0, compute_s=0.0, collective_hops=0,
                                is_prefill=True, tokens=tokens)
    assert calibration.ramp_sizes([pass_of(4096), pass_of(4096.2), pass_of(2048)]) == 2
    assert calibration.ramp_sizes([pass_of(t) for t in (128, 256, 1024)]) == 3


def test_a_framework_keeps_its_groups_ramp_unless_its_prompts_shape_one() -> None:
    # T_half is fitted per framework only over MIN_RAMP_SIZES prompt sizes or more (after
    # padding): TGI on NeuronCore-v2 pads to two sizes and keeps the group's ramp;
    # transformers-neuronx's static batches come in many sizes and fit their own
    fitted, rows = fresh_fit(), calibration.cases()
    kept = fitted_own = 0
    for (framework, group), efficiency in fitted.framework_groups.items():
        own = [c for c in rows if c.group == group and c.framework.id == framework]
        sizes = calibration.ramp_sizes(_prefill_passes(own, fitted, framework, group))
        # refitted from a T_half outside the grid: a framework that may not shape its own ramp
        # keeps it; one that may picks its own from the grid
        start = replace(efficiency, prefill_half_tokens=512.0)
        steps = {framework: fitted.steps.get((framework, group), 0.0)}
        refitted = calibration._fit_prefill(own, start, steps, group_ramp=True)
        if sizes < calibration.MIN_RAMP_SIZES:
            assert efficiency.prefill_half_tokens == fitted.groups[group].prefill_half_tokens
            assert refitted.prefill_half_tokens == 512.0
            kept += 1
        else:
            assert refitted.prefill_half_tokens in calibration.HALF_TOKENS_GRID
            fitted_own += refitted.prefill_half_tokens != 512.0
    assert kept >= 1 and fitted_own >= 1
    tgi = fitted.framework_groups[("tgi-neuron", "neuron-v2")]
    assert tgi.prefill_half_tokens == fitted.groups["neuron-v2"].prefill_half_tokens


def test_stored_families_equal_a_fresh_cross_validation() -> None:
    stored = {row["family"]: row for row in serving_band.stored_families()}
    fresh = calibration_cv.family_stats(list(fresh_points()))
    assert set(stored) == {stats.family for stats in fresh}
    for stats in fresh:
        row = stored[stats.family]
        assert row["n"] == stats.n
        assert row["median_abs_error"] == pytest.approx(stats.median_abs_error, rel=1e-5)
        assert row["p90_abs_error"] == pytest.approx(stats.p90_abs_error, rel=1e-5)
        if stats.coverage is not None:
            assert row["coverage"] == pytest.approx(stats.coverage, rel=1e-5)
        expected = {None: "thin", True: "meets", False: "misses"}[stats.meets_target]
        assert row["status"] == expected
        load_keys = {key for key in row if key.startswith(("n_", "median_abs_error_"))
                     and key not in ("n",)}
        assert load_keys == {f"{name}_{load.replace('-', '_')}" for load in stats.by_load
                             for name in ("n", "median_abs_error")}, stats.family
        for load, (count, median) in stats.by_load.items():
            key = load.replace("-", "_")
            assert row[f"n_{key}"] == count
            assert row[f"median_abs_error_{key}"] == pytest.approx(median, rel=1e-5)
        # every point is at one load, except training and the static batches of a continuous
        # engine above one request (calibration_cv.load_of_case)
        no_load = sum(1 for p in fresh_points()
                      if calibration_cv.exact_family_of(p) == stats.family and p.load is None)
        assert sum(count for count, _ in stats.by_load.values()) == stats.n - no_load


def test_stored_bands_equal_fresh_band_statistics() -> None:
    stored = {(b.family, b.level): b for b in serving_band.stored()}
    for stats in calibration_cv.band_stats(list(fresh_points())):
        kept = stored[(stats.family, stats.level)]
        assert kept.n == stats.n
        assert kept.log_low == pytest.approx(stats.log_low, abs=1e-5)
        assert kept.log_high == pytest.approx(stats.log_high, abs=1e-5)


def test_a_left_out_prediction_never_sees_its_own_source() -> None:
    points = fresh_points()
    source = sorted({p.source for p in points if p.phase == "decode"})[0]
    rows = calibration.cases()
    held = [c for c in rows if c.source == source]
    without = calibration.fit([c for c in rows if c.source != source],
                              [c for c in __import__("calc.training_speed", fromlist=["x"])
                               .cases() if c.source != source])
    case = held[0]
    expected = calibration.estimate(case, without)["tpot_s"]
    point = next(p for p in points if p.id == case.id and p.phase == "decode")
    assert point.estimated == pytest.approx(expected, rel=1e-12)
    # and it differs from the in-sample estimate (the source's own rows moved the fit)
    assert calibration.estimate(case, fresh_fit())["tpot_s"] != pytest.approx(expected,
                                                                            rel=1e-9)


def test_every_family_with_enough_points_has_a_status_and_coverage() -> None:
    for row in serving_band.stored_families():
        assert row["status"] in ("meets", "misses", "thin")
        if row["n"] >= calibration.MIN_FAMILY_POINTS:
            assert row["status"] != "thin"
            assert 0 <= row["coverage"] <= 1


def test_overall_coverage_of_the_80_percent_bands_is_reported() -> None:
    summary = data._toml("calibration.toml")["summary"]
    assert summary["points"] == len(fresh_points())
    assert 0.5 < summary["coverage"] <= 1.0


def test_band_widening_is_monotone() -> None:
    stats = serving_band.BandStats("x/y/decode", "exact", "decode", 40, math.log(0.9),
                                   math.log(1.2), {"batch": (1.0, 8.0)})
    inside = serving_band.widen(stats, {"batch": 4.0})
    outside = serving_band.widen(stats, {"batch": 64.0})
    thin = serving_band.widen(serving_band.BandStats("x/y/decode", "exact", "decode", 5,
                                                     stats.log_low, stats.log_high, {}), {})
    assert inside.low_ratio == pytest.approx(0.9) and inside.high_ratio == pytest.approx(1.2)
    assert outside.low_ratio < inside.low_ratio and outside.high_ratio > inside.high_ratio
    assert outside.reasons == ("outside_range_batch",)
    assert thin.high_ratio / thin.low_ratio > inside.high_ratio / inside.low_ratio
    assert thin.reasons == ("thin_family",)


def test_the_nearest_band_is_the_exact_family_at_the_requests_load() -> None:
    """Level "load" (hardware/framework/phase/load) comes first, without fallback widening; a
    request without a load (training) skips it; a missing load family falls back to exact."""
    def stats(family: str, level: str, low: float, high: float) -> serving_band.BandStats:
        return serving_band.BandStats(family, level, "decode", 40, math.log(low), math.log(high),
                                      {})
    pool = (stats("x/y/decode/one-step", "load", 0.95, 1.05),
            stats("x/y/decode", "exact", 0.8, 1.5), stats("x/*/decode", "hardware", 0.5, 2.0))
    quiet = serving_band.nearest(pool, "x", "neuron", "y", "decode", {}, "one-step")
    loaded = serving_band.nearest(pool, "x", "neuron", "y", "decode", {}, "loaded")
    plain = serving_band.nearest(pool, "x", "neuron", "y", "decode", {})
    assert quiet is not None and loaded is not None and plain is not None
    assert (quiet.family, quiet.reasons) == ("x/y/decode/one-step", ())
    assert (quiet.low_ratio, quiet.high_ratio) == pytest.approx((0.95, 1.05))
    assert loaded.family == plain.family == "x/y/decode"
    assert serving_band.load_of("static", 8) == serving_band.load_of("continuous", 1) == "one-step"
    assert serving_band.load_of("continuous", 2) == "loaded"


def test_points_carry_the_load_a_perf_request_with_their_setup_gets() -> None:
    """A point's load is the one perf gives a request with the row's framework and requests in
    flight (serving_band.load_of on the framework's own batching), except rows perf cannot
    express: an offered rate or a Little's-law concurrency is loaded, and a static batch of a
    continuous-batching engine above one request has no load (exact family only)."""
    by_id = {c.id: c for c in calibration.cases()}
    seen = set()
    for point in fresh_points():
        if point.phase == "training":
            assert point.load is None
            continue
        case = by_id[point.id]
        own = frameworks.get(case.framework.id).batching
        if case.request_rate_per_s is not None or not case.load_stated:
            expected: str | None = "loaded"
        elif own == "continuous" and case.framework.batching == "static" and case.batch > 1:
            expected = None
        else:
            in_flight = max(case.replica_loads, default=case.batch)
            expected = serving_band.load_of(own, in_flight)
        assert point.load == expected, point.id
        seen.add(expected)
    assert seen == {"one-step", "loaded", None}
    # so a continuous engine's one-step band holds one request in flight only
    for band in serving_band.stored():
        if band.level == "load" and band.family.endswith("/one-step"):
            framework = frameworks.get(band.family.split("/")[1])
            if framework.batching == "continuous":
                assert band.ranges["batch"] == (1.0, 1.0), band.family


def test_an_offered_rate_point_is_ranged_at_its_requests_in_flight() -> None:
    """The band's measured range of `batch` compares requests in flight per replica, so a row
    read from an offered rate counts at its Little's-law concurrency, not at a placeholder."""
    by_id = {c.id: c for c in calibration.cases()}
    rated = [p for p in fresh_points() if p.phase != "training"
             and by_id[p.id].request_rate_per_s is not None]
    assert rated
    assert all(by_id[p.id].batch == 1 for p in rated)        # the row's placeholder
    assert sum(p.features["batch"] > 1 for p in rated) > len(rated) / 2
    stored = calibration.stored_constants()
    case = by_id["trn2-vllm-neuron-llama-4-scout-tp64-cb32-rate1.14-1500-250"]
    assert calibration.resolved(case, stored).batch > 8


def test_report_covers_every_scored_inference_row() -> None:
    rows = calibration.report()
    assert {row["id"] for row in rows} == {case.id for case in calibration.cases()}
    for row in rows:
        for field in ("ttft_s", "tpot_s", "output_tokens_per_s"):
            assert row[f"{field}_estimated"] > 0
            if row[f"{field}_measured"]:
                assert row[f"{field}_error"] == pytest.approx(
                    row[f"{field}_estimated"] / row[f"{field}_measured"] - 1)


def test_perf_uses_the_constants_of_its_hardware_group_and_framework() -> None:
    stored = calibration.stored_constants()
    result = run("perf", model="llama-3.1-8b", instance="p4d.24xlarge", input_len=128,
                 output_len=16)
    expected = stored.efficiency("gpu", result["framework"])
    assert result["hardware_group"] == "gpu"
    assert result["decode_memory_efficiency"] == expected.decode_memory
    neuron = run("perf", model="llama-3.1-8b", instance="inf2.48xlarge", input_len=128,
                 output_len=16, framework="transformers-neuronx")
    assert neuron["decode_memory_efficiency"] == stored.efficiency(
        "neuron-v2", "transformers-neuronx").decode_memory


def test_closed_loop_requests_spread_over_replicas() -> None:
    """LLMPerf at 4 concurrent requests against 3 replicas behind a balancer (the Mistral-7B
    TGI run on inf2.48xlarge): one replica serves 2, two serve 1 each. Scored per busy replica:
    throughput = the mean of the three, TTFT and TPOT = the mean over the four requests."""
    case = next(c for c in calibration.cases()
                if c.id == "inf2-tgi-mistral-7b-instruct-v0.2-tp8-dp3-cb32-c4-1500-245-2024-04-12")
    assert case.replica_loads == (2, 1, 1)
    fitted = fresh_fit()
    two = calibration.estimate(replace(case, batch=2, replica_loads=()), fitted)
    one = calibration.estimate(replace(case, batch=1, replica_loads=()), fitted)
    mixed = calibration.estimate(case, fitted)
    assert mixed["output_tokens_per_s"] == pytest.approx(
        (two["output_tokens_per_s"] + 2 * one["output_tokens_per_s"]) / 3)
    assert mixed["tpot_s"] == pytest.approx((2 * two["tpot_s"] + 2 * one["tpot_s"]) / 4)
    assert mixed["ttft_s"] == pytest.approx((2 * two["ttft_s"] + 2 * one["ttft_s"]) / 4)
    # the measured total is split over the 3 busy replicas, as the estimate is
    assert case.output_tokens_per_s == pytest.approx(120.48139377787439 / 3)
    even = next(c for c in calibration.cases()
                if c.id == "inf2-tgi-mistral-7b-instruct-v0.2-tp8-dp3-cb32-c1-1500-245-2024-04-12")
    assert even.replica_loads == (1,)


def test_measurement_fields_reach_the_serving_model() -> None:
    """single_bucket (optimum-neuron's NxD backend) and evenly spaced arrivals (guidellm's
    sweep) are read from data/measurements.toml into the case and its workload."""
    by_id = {c.id: c for c in calibration.cases()}
    sync = by_id["trn2-vllm-neuron-qwen3-32b-tp4-cb2-sync-1500-250"]
    assert sync.single_bucket and sync.work.single_bucket and sync.compiled_seq_len == 4096
    assert sync.evenly_spaced_rate_per_s is None
    rate = by_id["trn2-vllm-neuron-qwen3-32b-tp4-cb2-rate0.11-1500-250"]
    assert rate.evenly_spaced_rate_per_s == pytest.approx(0.11)
    assert rate.work.evenly_spaced_rate_per_s == pytest.approx(0.11)
    tnx = by_id["inf2-codellama-13b-tp24-b1-128-3968"]
    assert tnx.single_bucket is None and tnx.evenly_spaced_rate_per_s is None
    # TGI's default is one bucket; a 2024 batch-1 export says it had power-of-two buckets
    tgi_batch_1 = by_id["trn1-tgi-llama-3-70b-tp32-cb1-c1-1500-245-2024-09-10"]
    assert tgi_batch_1.single_bucket is False and tgi_batch_1.work.single_bucket is False
    assert by_id["trn1-tgi-llama-3-70b-tp32-cb8-c1-1500-245-2024-09-10"].single_bucket is True


def test_an_evenly_spaced_rate_is_served_up_to_the_closed_loop_capacity() -> None:
    """An offered rate's throughput is rate × output length up to the capacity: the closed
    loop with the running batch full, not that batch at the offered rate's open-loop TPOT."""
    stored = calibration.stored_constants()
    case = next(c for c in calibration.cases()
                if c.id == "trn2-vllm-neuron-llama-3.1-8b-tp4-cb32-rate2.46-1500-250")
    full = calibration._serve(replace(case, batch=32, request_rate_per_s=None,
                                      evenly_spaced_rate_per_s=None), stored)
    high = replace(case, request_rate_per_s=100.0, evenly_spaced_rate_per_s=100.0)
    served = calibration.estimate(high, stored)["output_tokens_per_s"]
    assert served == pytest.approx(full.output_tokens_per_s_per_replica)
    assert served < 100.0 * case.output_len


def test_the_decode_step_is_fitted_on_rows_that_show_one_step() -> None:
    """Static batches and one request in flight show the step time itself; a row under load
    (several in flight, an offered rate) also depends on the queueing model and only scores."""
    by_id = {c.id: c for c in calibration.cases()}
    static = by_id["inf2-codellama-13b-tp24-b8-4096-4096"]
    sync = by_id["trn2-vllm-neuron-qwen3-32b-tp4-cb2-sync-1500-250"]
    spread = by_id["inf2-vllm-neuron-llama-3.1-8b-tp8-dp3-cb32-sync-1500-250"]   # 1 of 3 replicas
    rate = by_id["trn2-vllm-neuron-qwen3-32b-tp4-cb2-rate0.11-1500-250"]
    full = by_id["trn2-vllm-neuron-llama-3.1-8b-tp4-cb32-max-1500-250"]
    assert [calibration.shows_one_step(c) for c in (static, sync, spread, rate, full)] == [
        True, True, True, False, False]
    # one in flight by Little's law over the results, not as the source states it: not quiet
    derived = by_id["trn2-vllm-neuron-qwen3-32b-tp4-cb2-max-1500-250"]
    assert derived.batch == 1 and not derived.load_stated
    assert not calibration.shows_one_step(derived)
    assert static.batch == 8 and full.batch == 29
    # four quiet rows of the one framework: the loaded rows are left to score the model
    quiet = [by_id[i] for i in (
        "trn2-vllm-neuron-qwen3-32b-tp4-cb2-sync-1500-250",
        "trn2-vllm-neuron-llama-3.1-8b-tp4-cb32-sync-1500-250",
        "trn2-vllm-neuron-llama-4-scout-tp64-cb32-sync-1500-250",
        "trn2-vllm-neuron-qwen3-30b-a3b-tp4-cb16-sync-1500-250")]
    assert calibration._decode_fit_rows(quiet + [rate, full]) == quiet
    # three are too few: every row with a TPOT is fitted
    assert calibration._decode_fit_rows(quiet[:3] + [rate, full]) == quiet[:3] + [rate, full]
    # a framework without a quiet row keeps the loaded rows in the fit (its step cost needs them)
    tgi = by_id["inf2-tgi-neuron-llama-3.1-8b-tp8-dp3-cb32-max-1500-250"]
    assert calibration._decode_fit_rows(quiet + [tgi]) == quiet + [tgi]


def test_prefill_fit_recovers_a_first_request_warm_up_from_cold_rows() -> None:
    # round trip: the synchronous vLLM rows on NeuronCore-v2 (one request alone; some with cold
    # replicas in their means) given the TTFTs a known set of constants makes, t_first = 1.5 s
    # included; the prefill fit, started without it, finds it again with the rest
    rows = [c for c in calibration.cases() if c.framework.id == "vllm-neuron"
            and c.group == "neuron-v2" and c.ttft_s is not None and calibration.shows_one_step(c)]
    assert any(c.cold_share > 0 for c in rows) and any(c.cold_share == 0 for c in rows)
    stored = calibration.stored_constants()
    truth = replace(stored.efficiency("neuron-v2", "vllm-neuron"), prefill_compute=0.5,
                    prefill_half_tokens=256.0, prefill_fixed_latency_s=0.05,
                    prefill_expert_s_per_gb=0.08, first_request_extra_s=1.5)
    steps = {"vllm-neuron": stored.steps[("vllm-neuron", "neuron-v2")]}
    made = []
    for case in rows:
        parts = calibration._served_parts(case, truth, steps)
        ttft = sum(share * modelled.ttft_s for share, modelled in parts)
        made.append(replace(case, ttft_s=ttft + calibration.cold_start_s(case, truth)))
    start = replace(truth, prefill_compute=0.9, prefill_fixed_latency_s=0.0,
                    first_request_extra_s=0.0)
    fitted = calibration._fit_prefill(made, start, steps)
    assert fitted.first_request_extra_s == pytest.approx(1.5, rel=2e-3)
    assert fitted.prefill_compute == 0.5
    assert fitted.prefill_fixed_latency_s == pytest.approx(0.05, rel=2e-3)


def test_within_source_errors_take_out_each_sources_median_offset() -> None:
    def point(source: str, ratio: float, number: int) -> Point:
        return Point(f"{source}{number}", source, "inferentia2", "neuron", "vllm-neuron",
                     "decode", ratio, 1.0, {})

    # source a: estimate / measurement 2, 2, 4 (median 2); source b: 0.5 alone
    members = [point("a", 2.0, 1), point("a", 2.0, 2), point("a", 4.0, 3), point("b", 0.5, 1)]
    assert calibration_cv.within_source_errors(members) == pytest.approx([0.0, 0.0, 1.0, 0.0])
    # as the left-out errors: 100 %, 100 %, 300 %, 50 %
    assert [abs(p.error) for p in members] == pytest.approx([1.0, 1.0, 3.0, 0.5])
    median, p90 = calibration_cv.within_source_stats(members)["inferentia2/vllm-neuron/decode"]
    assert (median, p90) == pytest.approx((0.0, 0.7))
