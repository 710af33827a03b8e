"""LP bounds on the full-ranking metric from published sampled values (bounds, cli/bound)."""
import doctest
import itertools

import numpy as np
import pytest
from conftest import run_cli

import sampled_metrics as sm
from sampled_metrics import bounds
from sampled_metrics.bounds import (InconsistentObservations, bound_full_metric,
                                    bound_full_metrics, parse_observed)
from sampled_metrics.sampling import expected_metric_matrix, sampled_metric_weights


def observed_of(P, metrics, n, m, sampling="binomial"):
    """Exact expected sampled values sum_r P(r) E[M(r~)|r] of a rank distribution P."""
    A = expected_metric_matrix([sampled_metric_weights(x, m) for x in metrics],
                               np.arange(1, n + 1), n, m, sampling)
    return {x: float(v) for x, v in zip(metrics, A @ P)}


def full_of(P, metric, n):
    return float(sm.metrics.metric_weights(metric, n) @ P)


def test_docstring_examples():
    result = doctest.testmod(bounds)
    assert result.attempted >= 5 and result.failed == 0


def test_exhaustive_observation_pins_the_metric():
    # without replacement and m = n - 1 the sampled rank is the true rank, so observing
    # recall@k for every k fixes P: low == high == the target's value, for any target
    n = 12
    P = np.random.default_rng(1).dirichlet(np.ones(n))
    obs = observed_of(P, [f"recall@{k}" for k in range(1, n)], n, n - 1, "hypergeometric")
    for target in ("ndcg@5", "ap", "auc", "recall@3"):
        low, high = bound_full_metric(obs, n, n - 1, target, "hypergeometric", tolerance=0)
        assert low == pytest.approx(full_of(P, target, n), abs=1e-7)
        assert high == pytest.approx(full_of(P, target, n), abs=1e-7)


def test_point_mass_observed_as_itself():
    # observing the target itself with m = n - 1 (no sampling loss): the interval is the value
    low, high = bound_full_metric({"ndcg@10": 0.25}, 40, 39, "ndcg@10", "hypergeometric",
                                  tolerance=0)
    assert low == pytest.approx(0.25, abs=1e-8) and high == pytest.approx(0.25, abs=1e-8)


def brute_force(a, T, lo, hi):
    """min and max of sum P T over P >= 0, sum P = 1, lo <= sum P a <= hi with one observed
    value: the vertices are point masses with a in [lo, hi] and two-point mixtures whose
    mean sits at lo or hi."""
    values = [T[i] for i in range(a.size) if lo - 1e-12 <= a[i] <= hi + 1e-12]
    for i, j in itertools.product(range(a.size), repeat=2):
        for s in (lo, hi):
            if a[i] < s < a[j]:
                lam = (a[j] - s) / (a[j] - a[i])
                values.append(lam * T[i] + (1 - lam) * T[j])
    return min(values), max(values)


@pytest.mark.parametrize("shape", [None, "non-increasing"])
@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
def test_lp_matches_brute_force_on_tiny_n(shape, sampling):
    n, m = 9, 3
    a = expected_metric_matrix([sampled_metric_weights("ndcg@2", m)], np.arange(1, n + 1), n,
                               m, sampling)[0]
    T = sm.metrics.metric_weights("recall@3", n)
    if shape:      # columns of the uniform distributions on 1..i
        a, T = np.cumsum(a) / np.arange(1, n + 1), np.cumsum(T) / np.arange(1, n + 1)
    for frac, tol in [(0.3, 0.0), (0.6, 0.02), (0.9, 0.01)]:
        value = a.min() + frac * (a.max() - a.min())
        got = bound_full_metric({"ndcg@2": value}, n, m, "recall@3", sampling, tol, shape)
        assert got == pytest.approx(brute_force(a, T, value - tol, value + tol), abs=1e-8)


def test_interval_contains_the_truth_and_shrinks_with_more_observations():
    n, m = 500, 30
    rng = np.random.default_rng(3)
    P = np.sort(rng.dirichlet(np.full(n, 0.3)))[::-1]          # non-increasing
    names = ["recall@1", "recall@5", "recall@10", "ndcg@10", "ap"]
    obs = observed_of(P, names, n, m)
    previous = {None: (0.0, 1.0), "non-increasing": (0.0, 1.0)}
    for used in range(1, len(names) + 1):
        given = {x: obs[x] for x in names[:used]}
        for shape in previous:
            low, high = bound_full_metric(given, n, m, "recall@10", tolerance=1e-6, shape=shape)
            truth = full_of(P, "recall@10", n)
            assert low - 1e-7 <= truth <= high + 1e-7
            assert low >= previous[shape][0] - 1e-9 and high <= previous[shape][1] + 1e-9
            previous[shape] = (low, high)
    # the shape narrows the interval
    assert previous["non-increasing"][1] - previous["non-increasing"][0] < \
        previous[None][1] - previous[None][0]


def test_noise_allowance_covers_a_sampled_evaluation():
    # U users with true ranks from P, each ranked among m sampled items: the observed means
    # carry sampling noise; with users=U the intervals contain the users' exact value
    n, m, users = 800, 50, 2000
    rng = np.random.default_rng(7)
    P = np.sort(rng.dirichlet(np.full(n, 0.2)))[::-1]
    names = ["recall@1", "recall@10", "ndcg@10"]
    for seed in range(5):
        r = np.random.default_rng(seed).choice(np.arange(1, n + 1), size=users, p=P)
        s = sm.draw_sampled_ranks(r, n, m, rng=seed)
        given = {x: float(sm.metrics.metric_value(x, s, m + 1).mean()) for x in names}
        truth = float(sm.metrics.metric_value("recall@10", r, n).mean())
        low, high = bound_full_metric(given, n, m, "recall@10", tolerance=0, users=users)
        assert low <= truth <= high
        # without the allowance the same values are (nearly always) inconsistent or too tight
        wide = high - low
        low0, high0 = bound_full_metric(given, n, m, "recall@10", tolerance=1e-3)
        assert high0 - low0 < wide


def test_inconsistent_values_are_named_minimally():
    given = {"hr@10": "0.730", "hr@5": "0.600", "ndcg@10": "0.800", "ap": "0.3"}
    with pytest.raises(InconsistentObservations) as info:
        bound_full_metric(given, 3706, 100, "recall@10")
    conflict = info.value.conflict
    assert 2 <= len(conflict) < 4 and "ndcg@10=0.800" in conflict
    assert all(text in str(info.value) for text in conflict)
    # minimal: dropping any one of them leaves values some P gives
    obs = {t.split("=")[0]: t.split("=")[1] for t in conflict}
    for name in obs:
        rest = {k: v for k, v in obs.items() if k != name}
        bound_full_metric(rest, 3706, 100, "recall@10")


def test_one_impossible_value_under_a_shape():
    # a non-increasing P is a mixture of uniforms on 1..i, the worst being uniform on 1..n,
    # whose sampled HR@10 is 10 / 101: a lower one is impossible under the shape only
    assert bound_full_metric({"hr@10": "0.050"}, 3706, 100, "recall@10")[0] == 0
    with pytest.raises(InconsistentObservations, match=r"hr@10=0.050 \(.*\) is impossible"):
        bound_full_metric({"hr@10": "0.050"}, 3706, 100, "recall@10", shape="non-increasing")
    # the uniform's own value is reached by the uniform alone: low == high == 10 / n
    uniform = observed_of(np.full(3706, 1 / 3706), ["hr@10"], 3706, 100)
    low, high = bound_full_metric(uniform, 3706, 100, "recall@10", tolerance=0,
                                  shape="non-increasing")
    assert low == pytest.approx(10 / 3706, rel=1e-6) and high == pytest.approx(10 / 3706, rel=1e-6)


@pytest.mark.parametrize("raw, value, rounding", [
    ("0.730", 0.730, 0.0005), (0.73, 0.73, 0.005), ("73.0%", 0.730, 0.0005),
    ("44.72%", 0.4472, 0.00005), (1, 1.0, 0.5), ("0.1", 0.1, 0.05)])
def test_printed_digits_set_the_rounding(raw, value, rounding):
    (o,) = parse_observed({"ndcg@10": raw})
    assert o.value == pytest.approx(value) and o.rounding == pytest.approx(rounding)


@pytest.mark.parametrize("observed, message", [
    ("hr@10", "expected metric=value"),
    ("hr@10=x", "'hr@10=x': expected a number"),
    ("prec@10=0.5", r"precision@10 lies in \[0, 0.1\]"),
    ("hr@10=0.5,recall@10=0.4", "given twice"),
    ({"ndcg@10": True}, "boolean"),
    ({}, "no observed values"),
])
def test_bad_observed_values(observed, message):
    with pytest.raises(ValueError, match=message):
        bound_full_metric(observed, 100, 10, "recall@10")


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown shape"):
        bound_full_metric("hr@10=0.5", 100, 10, "recall@10", shape="convex")
    with pytest.raises(ValueError, match="need n > m"):
        bound_full_metric("hr@10=0.5", 10, 10, "recall@10")
    with pytest.raises(ValueError, match="not observed"):
        bound_full_metric("hr@10=0.5", 100, 10, "recall@10", tolerance={"ap": 0.1})


def test_several_targets_equal_one_at_a_time():
    given = "hr@10=0.730,ndcg@10=0.447"
    many = bound_full_metrics(given, 3706, 100, ["recall@10", "ap", "auc"])
    for name, low, high in many:
        assert (low, high) == bound_full_metric(given, 3706, 100, name)


def test_cli_bound(capsys):
    code, out, err = run_cli(capsys, "bound", "--n", "3706", "--m", "100", "--observed",
                         "hr@10=0.730,ndcg@10=0.447", "--metric", "recall@10,ndcg@10",
                         "--format", "csv")
    assert code == 0, err
    rows = {(a, b): (float(c), float(d)) for a, b, c, d in
            (line.split(",") for line in out.strip().splitlines()[1:])}
    for (metric, shape), interval in rows.items():
        want = bound_full_metric({"hr@10": "0.730", "ndcg@10": "0.447"}, 3706, 100, metric,
                                 shape=None if shape == "none" else shape)
        assert interval == pytest.approx(want, abs=1e-6)
    assert set(rows) == {(t, s) for t in ("recall@10", "ndcg@10")
                         for s in ("none", "non-increasing")}


@pytest.mark.parametrize("args, message", [
    (["--observed", "hr@10=abc"], "--observed 'hr@10=abc': expected a number"),
    (["--observed", "hr@10=0.73,ndcg@10=0.9"], "contradict each other"),
    (["--metric", "rec@1"], "--metric 'rec@1': unknown metric"),
    (["--shape", "up"], "--shape 'up'"),
    (["--m", "5000"], "need n > m"),
])
def test_cli_bound_bad_input_one_line(capsys, args, message):
    argv = ["bound", "--n", "3706", "--m", "100", "--observed", "hr@10=0.730"] + args
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
