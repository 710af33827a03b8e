"""Design by width (sampled_metrics.intervals.width, ``plan --width``): the interval of a
histogram is the recommended interval of the same sampled ranks, the expected histogram's
width is a typical draw's, and the search returns the smallest m its measure allows."""
import numpy as np
import pytest

from rounding import gamma

from sampled_metrics.cli import main
from sampled_metrics.intervals.atoms import atom_grid, atom_ranges
from sampled_metrics.intervals.recommended import histogram_interval, recommended_interval
from sampled_metrics.intervals.width import (expected_width, pilot_prior,
                                             width_sample_size)
from sampled_metrics.sampling import draw_sampled_ranks

N, USERS = 1000, 3000
P = 0.97 ** np.arange(N)
P /= P.sum()


def draw(m, rng):
    r = rng.choice(np.arange(1, N + 1), USERS, p=P)
    return draw_sampled_ranks(r, N, m, rng=rng)


@pytest.mark.parametrize("shape", ["non-increasing", "convex"])
def test_the_histogram_interval_is_the_recommended_interval(shape):
    s = draw(100, np.random.default_rng(0))
    a = recommended_interval(s, N, 100, "recall@10,ndcg@10", shape=shape)
    b = histogram_interval(np.bincount(s - 1, minlength=101), N, 100, "recall@10,ndcg@10",
                           shape=shape)
    # the same blocks, functionals and solves on the same numbers: the same bits
    columns = ["value", "ci_low", "ci_high", "profile_low", "profile_high"]
    assert a[columns].equals(b[columns])


def test_the_expected_width_is_a_typical_draws():
    rng = np.random.default_rng(1)
    widths = []
    for _ in range(20):
        out = recommended_interval(draw(100, rng), N, 100, "recall@10,ndcg@10")
        widths.append((out.ci_high - out.ci_low).to_numpy())
    low, high = np.percentile(widths, [5, 95], axis=0)
    expected = expected_width(P, N, 100, USERS, "recall@10,ndcg@10")
    got = np.array([expected["recall@10"], expected["ndcg@10"]])
    assert np.all((low <= got) & (got <= high))


def test_the_search_returns_the_smallest_m_its_width_allows():
    seen = {}
    plan = width_sample_size(P, N, USERS, 0.12, "recall@10",
                             callback=lambda m, w: seen.setdefault(m, w))
    below = max(m for m in seen if m < plan.m)          # the search's last m wider than W
    assert plan.width == seen[plan.m] <= 0.12 < seen[below]
    assert plan.m - below <= max(1, int(0.01 * below))  # to 1 % of m
    assert plan.width_at_max_m == seen[N - 1] and plan.max_m == N - 1
    short = width_sample_size(P, N, USERS, 0.12, "recall@10", max_m=10)
    assert short.m is None and short.width_at_max_m > 0.12
    with pytest.raises(ValueError, match="width must be positive"):
        width_sample_size(P, N, USERS, 0.0, "recall@10")


@pytest.mark.parametrize("shape", ["non-increasing", "convex"])
def test_the_pilot_prior_is_a_law_of_its_shape(shape):
    P_hat = pilot_prior(draw(50, np.random.default_rng(2)), N, 50, shape=shape)
    K = len(atom_ranges(atom_grid(N, 50, shape=shape), shape)[0])
    assert P_hat.shape == (N,) and abs(P_hat.sum() - 1) <= gamma(N + K + 4)
    # each P(r) a sum of K non-negative terms (each a product and a quotient) and the
    # normalisation: within gamma(K + 4) of its size; a difference adds one rounding
    step = np.diff(P_hat)
    assert np.all(step <= gamma(K + 5) * (P_hat[:-1] + P_hat[1:]))
    if shape == "convex":
        size = P_hat[:-2] + 2 * P_hat[1:-1] + P_hat[2:]
        assert np.all(np.diff(step) >= -gamma(K + 6) * size)


def test_plan_width_on_the_command_line(tmp_path, capsys):
    rng = np.random.default_rng(3)
    exact = rng.choice(np.arange(1, N + 1), USERS, p=P)
    path = tmp_path / "exact.txt"
    np.savetxt(path, exact, fmt="%d")
    prior = np.bincount(exact - 1, minlength=N) / USERS
    plan = width_sample_size(prior, N, USERS, 0.12, "recall@10")
    assert main(["plan", "--n", str(N), "--metric", "recall@10", "--width", "0.12",
                 "--prior-ranks", str(path), "--format", "csv"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[1].startswith(f"recall@10,{plan.m},")
    pilot = tmp_path / "pilot.txt"
    np.savetxt(pilot, draw(50, rng), fmt="%d")
    for args, message in [
        (["--width", "0.1"], "one of --prior-ranks"),
        (["--width", "0.1", "--prior-ranks", str(path), "--pilot-ranks", str(pilot)],
         "one of --prior-ranks"),
        (["--width", "0.1", "--pilot-ranks", str(pilot)], "needs --pilot-m"),
        (["--width", "0.1", "--prior-ranks", str(path), "--method", "cls"],
         "--method and --criterion apply to --target-bias"),
        (["--target-bias", "0.1", "--users", "10"], "--users applies to --width"),
        (["--width", "0.1", "--pilot-ranks", str(pilot), "--pilot-m", "2"],
         "outside 1..m+1=3"),
    ]:
        assert main(["plan", "--n", str(N), "--metric", "recall@10", *args]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


def test_the_width_study_reads_rank_files(tmp_path):
    from conftest import toy_rank_file

    from sampled_metrics.workflow.steps.width_study import width_frame

    rng = np.random.default_rng(5)
    exact = rng.choice(np.arange(1, N + 1), USERS, p=P)
    rf = toy_rank_file(exact, N, 50, rng, repeats=3)
    frame = width_frame({"A": rf.write(tmp_path / "A.npz")}, [20, 50], ["recall@10"],
                        repeats=3)
    assert frame["drawn"].isna().tolist() == [True, True, False, False]
    prior = np.bincount(exact - 1, minlength=N) / USERS
    row = frame.iloc[2]
    assert (row["m"], row["shape"]) == (50, "non-increasing")
    assert row["expected"] == expected_width(prior, N, 50, USERS, "recall@10")["recall@10"]
    widths = [float(out.ci_high[0] - out.ci_low[0]) for out in
              (recommended_interval(s, N, 50, "recall@10") for s in rf.sampled[50])]
    assert row["drawn"] == np.median(widths)
