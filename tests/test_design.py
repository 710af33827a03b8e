"""The sampling design as one value: built and checked once per public call, then handed
down and trusted (sampled_metrics.design)."""
from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

import sampled_metrics as sm
from sampled_metrics import design as design_module
from sampled_metrics.design import Design, as_design
from sampled_metrics.evaluators.catalogue import design_of
from sampled_metrics.intervals import recommended_interval

N, M = 1000, 99


@pytest.fixture(scope="module")
def ranks():
    rng = np.random.default_rng(3)
    r = [np.clip(rng.geometric(p, 400), 1, N) for p in (0.01, 0.014)]
    return [sm.draw_sampled_ranks(x, N, M, rng=rng) for x in r]


def checks(call) -> int:
    """How many designs ``call`` builds (each one is checked when built), after asserting
    that n > m is checked as many times (by a design or by ``check_nm``: one check)."""
    count = {"built": 0, "pair": 0}
    post, pair = Design.__post_init__, design_module._check_pair

    def built(self):
        count["built"] += 1
        return post(self)

    def paired(n, m):
        count["pair"] += 1
        return pair(n, m)

    with mock.patch.object(Design, "__post_init__", built), \
            mock.patch.object(design_module, "_check_pair", paired):
        call()
    assert count["pair"] == count["built"], count
    return count["built"]


CALLS = {
    "correct": lambda s: sm.correct(s[0], N, M, "recall@10", ["sampled", "cls", "bv_0.1"],
                                    bootstrap=40),
    "estimate": lambda s: sm.estimate(s[0], N, M, "recall@10", ["mle", "mes", "bv_0.1"],
                                      bootstrap=40),
    "compare_ranks": lambda s: sm.compare_ranks({"A": s[0], "B": s[1]}, N, M, "recall@10",
                                                ["sampled", "cls", "mn", "mes", "mle"],
                                                bootstrap=40, estimator_bootstrap=2),
    "results_table": lambda s: sm.results_table({"A": s[0], "B": s[1]}, n=N, m=M,
                                                bootstrap=200),
    "bound_full_metric": lambda s: sm.bound_full_metric({"recall@10": 0.5}, N, M, "ndcg@10"),
    "correction": lambda s: sm.correction("ndcg@10", N, M, "bv_0.1"),
    "expected_sampled_metric": lambda s: sm.expected_sampled_metric("ap", [1, 9], N, M),
    "rank_pmf": lambda s: sm.rank_pmf([1, 9], N, M, "hypergeometric"),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_public_call_checks_its_design_once(name, ranks):
    """Every public call builds one design from its loose arguments; the functions below
    take it and check nothing again (the MES and MLE of each bootstrap draw, the MN system,
    the bias curves, the recommended answer, each model of a results table, the bounds'
    columns)."""
    assert checks(lambda: CALLS[name](ranks)) == 1


@pytest.mark.parametrize("shape", ["non-increasing", "convex"])
def test_the_recommended_answer_takes_the_call_s_design(ranks, shape):
    """correct's recommended row reads the call's design (one n for all users), its shape
    check too."""
    assert checks(lambda: sm.correct(ranks[0], N, M, "recall@10", ["recommended"],
                                     shape=shape)) == 1


def test_one_n_for_all_users_is_one_design_for_every_block(ranks):
    """Several positives per user split the positives into blocks; one n and m for all
    is one design for all of them."""
    s = ranks[0]
    user, above = np.arange(s.size) // 2, np.arange(s.size) % 2
    assert checks(lambda: recommended_interval(s, N, M, "recall@10", user=user,
                                               above=above)) == 1


def test_per_user_designs_are_built_once_per_group(ranks):
    """With one n_u per user, each group of users sharing (n_u, m_u) has its design, built
    once: two groups, two designs, however many users."""
    s = ranks[0]
    n_u = np.where(np.arange(s.size) % 2 == 0, N, N - 100)
    assert checks(lambda: recommended_interval(s, n_u, M, "recall@10")) == 2


def test_a_design_is_the_loose_arguments_checked_once():
    """A Design given where n goes is taken as it is; the results are those of the loose
    arguments, and mixing the two is refused."""
    d = Design(N, M, "hypergeometric")
    assert as_design(d) is d
    assert checks(lambda: sm.rank_pmf([1, 9], d)) == 0
    assert np.array_equal(sm.rank_pmf([1, 9], d), sm.rank_pmf([1, 9], N, M, "hypergeometric"))
    with pytest.raises(TypeError, match="not both"):
        as_design(d, M)
    with pytest.raises(TypeError, match="not both"):
        design_of(d, evaluator="elliot")


@pytest.mark.parametrize("n, m, sampling, message", [
    (100, 100, "binomial", "need n > m: cannot sample m=100"),
    (100, 0, "binomial", "m (number of sampled items) must be >= 1, got m=0"),
    (100.5, 9, "binomial", "n (number of items) must be an integer, got 100.5"),
    (100, 9, "poisson", "unknown sampling law 'poisson'"),
    (1, None, "binomial", "n (number of items) must be >= 2, got n=1"),
])
def test_a_bad_design_is_refused_in_one_line(n, m, sampling, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        Design(n, m, sampling)
    assert "\n" not in str(err.value)


def test_a_design_stores_canonical_values():
    d = Design(np.int64(3706), 100.0, " Hypergeometric")
    assert (d.n, d.m, d.sampling) == (3706, 100, "hypergeometric")
    assert type(d.n) is int and type(d.m) is int
    assert d == Design(3706, 100, "hypergeometric") and hash(d) == hash(Design(3706, 100,
                                                                             "hypergeometric"))
    with pytest.raises(ValueError, match="n \\(number of items\\) must be an integer, got None"):
        Design(None, 100).known()


def test_a_command_checks_its_design_once(ranks, tmp_path, capsys):
    """The command line builds the design of the ranks once and hands it to the library."""
    from sampled_metrics.cli import main
    path = tmp_path / "a.txt"
    np.savetxt(path, ranks[0], fmt="%d")
    args = ["correct", "--ranks", str(path), "--n", str(N), "--m", str(M), "--metric",
            "recall@10", "--method", "sampled,cls", "--bootstrap", "40"]
    assert checks(lambda: main(args)) == 1
    assert "cls" in capsys.readouterr().out
