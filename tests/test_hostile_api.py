"""A hostile user's sweep of the public surface: every name of ``sampled_metrics.__all__`` and
every command of ``sampled-metrics`` given what a user could pass by mistake (a wrong type, a
float for an int, a boolean, None, an empty or nested array, NaN, a size out of range or too
large for memory, an unknown or duplicated name, a file that is empty, binary, missing or a
directory).

Each case is refused in one line that names the input as the user wrote it: a ValueError (a
TypeError where the Python type is wrong) from the library, exit code 2 and one line on
stderr from the command line; never a traceback, never a result read from a value that
cannot be right. Sizes too large for memory are refused before any array of that size is
made. What the library accepts (aliases, ``none``, the minimum bootstrap, an integral float
for an integer), the command line accepts too.
"""
import tracemalloc

import numpy as np
import pytest

from sampled_metrics import (Metric, bound_full_metric, compare_ranks, correct, correction,
                             draw_sampled_ranks, estimate, expected_sampled_metric,
                             from_scores, get_evaluator, parse_metrics, rank_pmf,
                             required_sample_size)
from sampled_metrics.cli import main

N, M = 100, 10
#: sampled ranks of 50 users for m = M
RANKS = [1, 2, 3, 5, 11, 2, 1, 4, 7, 3] * 5
A = np.array(RANKS)
B = A[::-1].copy()
SCORES = np.array([[0.9, 0.1, 0.5, 0.3], [0.2, 0.7, 0.1, 0.05]])
ITEMS = np.array([[7, 3, 5, 4], [8, 1, 2, 6]])
#: the memory the size checks compare with, the same on every machine
MEMORY = 1 << 30


def _correct(ranks=RANKS, n=N, m=M, metrics="recall@10", corrections=("sampled",), **kw):
    return correct(ranks, n, m, metrics, corrections, **{"bootstrap": 0, **kw})


def _estimate(ranks=RANKS, n=N, m=M, metrics="recall@10", estimators=("mle",), **kw):
    return estimate(ranks, n, m, metrics, estimators, **{"bootstrap": 0, **kw})


def _compare(sampled=None, n=N, m=M, metrics=("recall@10",), methods=("sampled",), **kw):
    sampled = {"A": A, "B": B} if sampled is None else sampled
    return compare_ranks(sampled, n, m, metrics, methods,
                         **{"bootstrap": 40, "plugin": None, **kw})


def _bound(observed="hr@10=0.730", n=1000, m=100, metric="recall@10", **kw):
    return bound_full_metric(observed, n, m, metric=metric, **kw)


def _plan(metric="recall@10", n=1000, target_bias=0.05, **kw):
    return required_sample_size(metric, n, target_bias=target_bias, **kw)


def _scores(scores=SCORES, n_nonrelevant=3000, evaluator="sasrec", **kw):
    return from_scores(scores, n_nonrelevant, evaluator=evaluator, **{"items": ITEMS, **kw})


VE, TE = ValueError, TypeError

API_CASES = [
    # --- rank_pmf -----------------------------------------------------------------------
    ("pmf r str", lambda: rank_pmf("3", 10, 3), VE, "true ranks must be numbers, got dtype"),
    ("pmf r None", lambda: rank_pmf(None, 10, 3), VE, "true ranks must be numbers"),
    ("pmf r ragged", lambda: rank_pmf([[1, 2], [3]], 10, 3), VE,
     "true ranks must be numbers in an array of one shape"),
    ("pmf r bool", lambda: rank_pmf(True, 10, 3), VE, "true ranks must be numbers, got booleans"),
    ("pmf r 0", lambda: rank_pmf([0], 10, 3), VE, "true ranks must lie in 1..n=10, got 0..0"),
    ("pmf r > n", lambda: rank_pmf([11], 10, 3), VE, "true ranks must lie in 1..n=10"),
    ("pmf r nan", lambda: rank_pmf([np.nan], 10, 3), VE, "true ranks must be finite"),
    ("pmf r inf", lambda: rank_pmf([np.inf], 10, 3), VE, "true ranks must be finite"),
    ("pmf r 2.5", lambda: rank_pmf([2.5], 10, 3), VE, "true ranks must be integers, got 2.5"),
    ("pmf r complex", lambda: rank_pmf([1 + 0j], 10, 3), VE, "true ranks must be numbers"),
    ("pmf n 10.5", lambda: rank_pmf([1], 10.5, 3), VE,
     "n (number of items) must be an integer, got 10.5"),
    ("pmf n str", lambda: rank_pmf([1], "10", 3), VE,
     "n (number of items) must be an integer, got '10'"),
    ("pmf n None", lambda: rank_pmf([1], None, 3), VE, "n (number of items) must be an integer"),
    ("pmf n nan", lambda: rank_pmf([1], float("nan"), 3), VE,
     "n (number of items) must be an integer, got nan"),
    ("pmf n list", lambda: rank_pmf([1], [10], 3), VE, "n (number of items) must be an integer"),
    ("pmf n bool", lambda: rank_pmf([1], True, 1), VE, "got the boolean True"),
    ("pmf n 0", lambda: rank_pmf([1], 0, 3), VE, "need n > m"),
    ("pmf n negative", lambda: rank_pmf([1], -5, 3), VE, "need n > m"),
    ("pmf m 0", lambda: rank_pmf([1], 10, 0), VE, "m (number of sampled items) must be >= 1"),
    ("pmf m = n", lambda: rank_pmf([1], 10, 10), VE, "need n > m"),
    ("pmf m > n", lambda: rank_pmf([1], 10, 20), VE, "need n > m"),
    ("pmf m 2.5", lambda: rank_pmf([1], 10, 2.5), VE,
     "m (number of sampled items) must be an integer, got 2.5"),
    ("pmf sampling", lambda: rank_pmf([1], 10, 3, "Binomal"), VE,
     "unknown sampling law 'Binomal'; expected one of binomial, hypergeometric"),
    ("pmf sampling ''", lambda: rank_pmf([1], 10, 3, ""), VE, "unknown sampling law ''"),
    ("pmf huge m", lambda: rank_pmf([1], 10 ** 12, 10 ** 9), VE,
     "m+1 = 1000000001 sampled ranks would need"),
    ("pmf huge r x m", lambda: rank_pmf(np.arange(1, 10 ** 6), 10 ** 7, 10 ** 5), VE,
     "999999 true ranks over m+1 = 100001 sampled ranks would need"),
    # --- expected_sampled_metric ---------------------------------------------------------
    ("esm metric None", lambda: expected_sampled_metric(None, [1], 10, 3), VE,
     "metric name must be a string, got None"),
    ("esm metric list", lambda: expected_sampled_metric(["recall@10"], [1], 10, 3), VE,
     "metric name must be a string"),
    ("esm metric comma", lambda: expected_sampled_metric("recall@10,ndcg", [1], 10, 3), VE,
     "unknown metric 'recall@10,ndcg'"),
    ("esm metric typo", lambda: expected_sampled_metric("recal@10", [1], 10, 3), VE,
     "unknown metric 'recal@10'"),
    ("esm metric unicode", lambda: expected_sampled_metric("\uff52ecall@10", [1], 10, 3), VE,
     "unknown metric '\uff52ecall@10'"),
    ("esm cut-off 0", lambda: expected_sampled_metric("recall@0", [1], 10, 3), VE,
     "metric 'recall@0': cut-off must be >= 1"),
    ("esm r str", lambda: expected_sampled_metric("auc", "12", 100, 3), VE,
     "true ranks must be numbers"),
    ("esm huge", lambda: expected_sampled_metric("auc", [1], 10 ** 12, 10 ** 9), VE,
     "would need"),
    ("esm correction str", lambda: expected_sampled_metric("auc", [1], 10, 3, correction="cls"),
     VE, "correction vector must be a vector of numbers"),
    ("esm correction length", lambda: expected_sampled_metric("auc", [1], 10, 3,
                                                              correction=[1, 2]),
     VE, "correction vector must have length 4, got 2"),
    ("esm correction nan", lambda: expected_sampled_metric("auc", [1], 10, 3,
                                                           correction=[1, 2, np.nan, 0]),
     VE, "correction vector must be finite"),
    # --- draw_sampled_ranks ---------------------------------------------------------------
    ("draw r str", lambda: draw_sampled_ranks("5", 10, 3), VE, "true ranks must be numbers"),
    ("draw r nan", lambda: draw_sampled_ranks([np.nan], 10, 3), VE, "true ranks must be finite"),
    ("draw r > n", lambda: draw_sampled_ranks([11], 10, 3), VE, "true ranks must lie in 1..n=10"),
    ("draw n str", lambda: draw_sampled_ranks([5], "10", 3), VE,
     "n (number of items) must be numbers"),
    ("draw n 10.5", lambda: draw_sampled_ranks([5], 10.5, 3), VE,
     "n (number of items) must be integers, got 10.5"),
    ("draw n huge", lambda: draw_sampled_ranks([5], 10 ** 30, 3), VE,
     "n (number of items) must be numbers"),
    ("draw n mismatched", lambda: draw_sampled_ranks([5, 6, 7], [10, 11], 3), VE,
     "true ranks (shape (3,)) do not match n (shape (2,))"),
    ("draw m 0", lambda: draw_sampled_ranks([5], 10, 0), VE, "need n > m >= 1, got m=0"),
    ("draw m = n", lambda: draw_sampled_ranks([5], 10, 10), VE, "need n > m >= 1, got m=10"),
    ("draw m None", lambda: draw_sampled_ranks([5], 10, None), VE,
     "m (number of sampled items) must be an integer, got None"),
    ("draw m 1.5", lambda: draw_sampled_ranks([5], 10, 1.5), VE,
     "m (number of sampled items) must be an integer"),
    ("draw sampling", lambda: draw_sampled_ranks([5], 10, 3, "poisson"), VE,
     "unknown sampling law 'poisson'"),
    ("draw rng str", lambda: draw_sampled_ranks([5], 10, 3, rng="seed"), VE,
     "rng (a numpy Generator or a seed) must be an integer, got 'seed'"),
    ("draw rng -1", lambda: draw_sampled_ranks([5], 10, 3, rng=-1), VE,
     "rng (a numpy Generator or a seed) must be >= 0, got -1"),
    ("draw rng 2.5", lambda: draw_sampled_ranks([5], 10, 3, rng=2.5), VE,
     "rng (a numpy Generator or a seed) must be an integer, got 2.5"),
    ("draw size huge", lambda: draw_sampled_ranks([5], 10, 3, size=(10 ** 12,)), VE,
     "1000000000000 sampled ranks (size=(1000000000000,)) would need"),
    ("draw size -1", lambda: draw_sampled_ranks([5], 10, 3, size=-1), VE,
     "size must be >= 0, got -1"),
    ("draw size 2.5", lambda: draw_sampled_ranks([5], 10, 3, size=(2.5,)), VE,
     "size must be an integer, got 2.5"),
    ("draw size mismatched", lambda: draw_sampled_ranks([5, 6], 10, 3, size=(3,)), VE,
     "size (3,) does not hold the shape (2,) of the true ranks and n"),
    # --- correction -----------------------------------------------------------------------
    ("corr n 100.5", lambda: correction("recall@10", 100.5, 10, "cls"), VE,
     "n (number of items) must be an integer, got 100.5"),
    ("corr m str", lambda: correction("recall@10", 100, "10", "cls"), VE,
     "m (number of sampled items) must be an integer, got '10'"),
    ("corr m = n", lambda: correction("recall@10", 100, 100, "cls"), VE, "need n > m"),
    ("corr unknown", lambda: correction("recall@10", 100, 10, "clss"), VE,
     "unknown correction 'clss'"),
    ("corr None", lambda: correction("recall@10", 100, 10, None), VE,
     "unknown correction None; expected one of sampled, "),
    ("corr list", lambda: correction("recall@10", 100, 10, ["cls"]), VE,
     "unknown correction ['cls']; expected one of sampled, "),
    ("corr bv_x", lambda: correction("recall@10", 100, 10, "bv_x"), VE,
     "unknown correction 'bv_x'"),
    ("corr bv_nan", lambda: correction("recall@10", 100, 10, "bv_nan"), VE,
     "unknown correction 'bv_nan'"),
    ("corr bv gamma 2", lambda: correction("recall@10", 100, 10, "bv", gamma=2), VE,
     "gamma must lie in [0, 1], got 2.0"),
    ("corr bv gamma nan", lambda: correction("recall@10", 100, 10, "bv", gamma=float("nan")),
     VE, "gamma must lie in [0, 1], got nan"),
    ("corr bv gamma bool", lambda: correction("recall@10", 100, 10, "bv", gamma=True), VE,
     "got the boolean True"),
    ("corr bv without gamma", lambda: correction("recall@10", 100, 10, "bv"), VE,
     "correction 'bv' needs gamma in [0, 1]"),
    ("corr bv_0.1 and gamma", lambda: correction("recall@10", 100, 10, "bv_0.1", gamma=0.2),
     VE, "correction 'bv_0.1' conflicts with gamma=0.2"),
    ("corr cls and gamma", lambda: correction("recall@10", 100, 10, "cls", gamma=0.2), VE,
     "gamma is only used by correction 'bv', not 'cls'"),
    ("corr metric comma", lambda: correction("recall@10,ndcg@10", 100, 10, "cls"), VE,
     "unknown metric 'recall@10,ndcg@10'"),
    ("corr huge n", lambda: correction("recall@10", 10 ** 12, 10, "cls"), VE,
     "the rank law over the n = 1000000000000 items would need"),
    ("corr huge n, m", lambda: correction("recall@10", 10 ** 12, 10 ** 9, "sampled"), VE,
     "would need"),
    ("corr prior length", lambda: correction("recall@10", 100, 10, "cls", prior=[1, 2]), VE,
     "prior must be a vector of length n=100, got shape (2,)"),
    ("corr prior negative", lambda: correction("recall@10", 100, 10, "cls",
                                               prior=-np.ones(100)), VE,
     "prior must be non-negative"),
    ("corr prior zeros", lambda: correction("recall@10", 100, 10, "cls", prior=np.zeros(100)),
     VE, "prior must sum to 1, sums to 0"),
    ("corr prior nan", lambda: correction("recall@10", 100, 10, "cls",
                                          prior=np.full(100, np.nan)), VE, "prior must be finite"),
    ("corr prior str", lambda: correction("recall@10", 100, 10, "cls", prior="uniform"), VE,
     "prior must be a vector of numbers"),
    ("corr sampling", lambda: correction("recall@10", 100, 10, "cls", sampling="with"), VE,
     "unknown sampling law 'with'"),
    # --- Metric, parse_metrics ------------------------------------------------------------
    ("Metric unknown kind", lambda: Metric("foo"), VE, "unknown metric 'foo'"),
    ("Metric kind None", lambda: Metric(None), VE, "metric name must be a string, got None"),
    ("Metric recall without k", lambda: Metric("recall"), VE,
     "metric 'recall' needs a cut-off, e.g. 'recall@10'"),
    ("Metric k 0", lambda: Metric("recall", 0), VE, "metric 'recall@0': cut-off must be >= 1"),
    ("Metric k 2.5", lambda: Metric("recall", 2.5), VE,
     "metric 'recall@2.5': cut-off must be an integer, got 2.5"),
    ("Metric k str", lambda: Metric("recall", "10"), VE,
     "metric 'recall@10': cut-off must be an integer, got '10'"),
    ("Metric k bool", lambda: Metric("ndcg", True), VE, "cut-off must be an integer, got True"),
    ("Metric auc k", lambda: Metric("auc", 10), VE,
     "metric 'auc@10': AUC has no cut-off; use 'auc'"),
    ("Metric r str", lambda: Metric("ndcg", 10)("12"), VE, "ranks r must be numbers"),
    ("Metric weights huge", lambda: Metric("ndcg", 10).weights(10 ** 12), VE, "would need"),
    ("Metric weights 0", lambda: Metric("ndcg", 10).weights(0), VE,
     "n (number of items) must be >= 1"),
    ("of_set empty", lambda: Metric("ndcg", 10).of_set([]), VE,
     "a set of relevant items must not be empty"),
    ("of_set 1.5", lambda: Metric("ndcg", 10).of_set([1.5, 2]), VE,
     "ranks of relevant items must be integers, got 1.5"),
    ("of_set nan", lambda: Metric("ndcg", 10).of_set([np.nan]), VE,
     "ranks of relevant items must be finite"),
    ("of_set str", lambda: Metric("ndcg", 10).of_set("12"), VE,
     "ranks of relevant items must be numbers"),
    ("of_set twice", lambda: Metric("ndcg", 10).of_set([2, 2]), VE,
     "ranks of relevant items must be distinct"),
    ("of_set > n", lambda: Metric("ndcg", 10).of_set([2, 12], 10), VE,
     "ranks of relevant items must lie in 1..n=10, got 2..12"),
    ("of_set auc n = |R|", lambda: Metric("auc").of_set([1, 2], 2), VE,
     "auc of 2 relevant items needs n > 2 items, got n=2"),
    ("parse empty", lambda: parse_metrics(""), VE, "no metric given"),
    ("parse commas", lambda: parse_metrics(",,"), VE, "no metric given"),
    ("parse empty list", lambda: parse_metrics([]), VE, "no metric given"),
    ("parse None", lambda: parse_metrics(None), VE,
     "metrics must be a string or a list of names, got None"),
    ("parse int", lambda: parse_metrics(10), VE,
     "metrics must be a string or a list of names, got 10"),
    ("parse bytes", lambda: parse_metrics(b"recall@10"), VE,
     "metrics must be a string or a list of names, got b'recall@10'"),
    ("parse nested", lambda: parse_metrics([["recall@10"]]), VE,
     "metric name must be a string, got ['recall@10']"),
    ("parse comma in a list", lambda: parse_metrics(["recall@10,ndcg@10"]), VE,
     "unknown metric 'recall@10,ndcg@10'"),
    ("parse blank in a list", lambda: parse_metrics(["recall@10", ""]), VE,
     "unknown metric ''"),
    ("parse accent", lambda: parse_metrics("r\u00e9call@10"), VE,
     "unknown metric 'r\u00e9call@10'"),
    ("parse exponent", lambda: parse_metrics("recall@1e3"), VE, "unknown metric 'recall@1e3'"),
    ("parse float cut-off", lambda: parse_metrics("recall@10.0"), VE,
     "unknown metric 'recall@10.0'"),
    # --- get_evaluator --------------------------------------------------------------------
    ("evaluator typo", lambda: get_evaluator("sasrecc"), VE, "unknown evaluator 'sasrecc'"),
    ("evaluator typo in capitals", lambda: get_evaluator("SASRecc"), VE,
     "unknown evaluator 'SASRecc'"),
    ("evaluator inner space", lambda: get_evaluator("sas rec"), VE, "unknown evaluator 'sas rec'"),
    ("evaluator empty", lambda: get_evaluator(""), VE, "unknown evaluator ''"),
    ("evaluator None", lambda: get_evaluator(None), VE, "unknown evaluator None"),
    ("evaluator list", lambda: get_evaluator(["sasrec"]), VE, "unknown evaluator ['sasrec']"),
    # --- correct --------------------------------------------------------------------------
    ("correct ranks str", lambda: _correct("12345"), VE, "sampled ranks must be numbers"),
    ("correct ranks str list", lambda: _correct(["1", "2"]), VE, "sampled ranks must be numbers"),
    ("correct ranks None", lambda: _correct(None), VE, "sampled ranks must be numbers"),
    ("correct ranks bool", lambda: _correct([True, False]), VE,
     "sampled ranks must be numbers, got booleans"),
    ("correct ranks empty", lambda: _correct([]), VE,
     "sampled ranks must be a vector of at least 1 user, got shape (0,)"),
    ("correct ranks scalar", lambda: _correct(3), VE,
     "sampled ranks must be a vector of at least 1 user, got shape ()"),
    ("correct ranks nested", lambda: _correct([[1, 2], [3, 4]]), VE,
     "sampled ranks must be a vector of at least 1 user, got shape (2, 2)"),
    ("correct ranks 0", lambda: _correct([0, 1]), VE,
     "sampled ranks must lie in 1..m+1=11, got 0..1"),
    ("correct ranks m+2", lambda: _correct([12, 1]), VE,
     "sampled ranks must lie in 1..m+1=11, got 1..12"),
    ("correct ranks 2.5", lambda: _correct([2.5, 1]), VE,
     "sampled ranks must be integers, got 2.5"),
    ("correct ranks nan", lambda: _correct([np.nan, 1]), VE, "sampled ranks must be finite"),
    ("correct one rank, interval", lambda: _correct([3], corrections=["recommended"]), VE,
     "need at least 2 users for an interval, got 1"),
    ("correct n 100.5", lambda: _correct(n=100.5), VE,
     "n (number of items) must be an integer, got 100.5"),
    ("correct m = n", lambda: _correct(n=10), VE, "need n > m"),
    ("correct huge n", lambda: _correct(n=10 ** 12, corrections=["cls"]), VE,
     "the rank law over the n = 1000000000000 items would need"),
    ("correct huge n, recommended", lambda: _correct(n=10 ** 12, corrections=["recommended"]),
     VE, "would need"),
    ("correct huge n, m", lambda: _correct(n=10 ** 12, m=10 ** 9), VE,
     "over m+1 = 1000000001 sampled ranks would need"),
    ("correct huge bootstrap", lambda: _correct(bootstrap=10 ** 12), VE,
     "1000000000000 draws of the m+1 = 11 rank frequencies would need"),
    ("correct bootstrap 2.5", lambda: _correct(bootstrap=100.5), VE,
     "bootstrap must be an integer, got 100.5"),
    ("correct bootstrap 39", lambda: _correct(bootstrap=39), VE,
     "bootstrap 39 is too few draws for a 95% interval"),
    ("correct bootstrap None", lambda: _correct(bootstrap=None), VE,
     "bootstrap must be an integer, got None"),
    ("correct bootstrap True", lambda: _correct(bootstrap=True), VE,
     "bootstrap must be an integer, got the boolean True"),
    ("correct bootstrap -1", lambda: _correct(bootstrap=-1), VE, "bootstrap must be >= 0, got -1"),
    ("correct seed -1", lambda: _correct(bootstrap=40, seed=-1), VE, "seed must be >= 0, got -1"),
    ("correct seed 2.5", lambda: _correct(bootstrap=40, seed=2.5), VE,
     "seed must be an integer, got 2.5"),
    ("correct seed str", lambda: _correct(bootstrap=40, seed="a"), VE,
     "seed must be an integer, got 'a'"),
    ("correct correction twice, alias", lambda: _correct(corrections=["sampled", "none"]), VE,
     "correction 'none' is given twice (also as 'sampled')"),
    ("correct metric twice", lambda: _correct(metrics="recall@10,recall@10"), VE,
     "metric 'recall@10' is given twice"),
    ("correct metric twice, alias", lambda: _correct(metrics=["hit@10", "hr@10"]), VE,
     "metric 'hit@10' is given twice"),
    ("correct no metric", lambda: _correct(metrics=""), VE, "no metric given"),
    ("correct metrics None", lambda: _correct(metrics=None), VE,
     "metrics must be a string or a list of names, got None"),
    ("correct evaluator", lambda: _correct(evaluator="sas"), VE, "unknown evaluator 'sas'"),
    ("correct gamma without bv", lambda: _correct(corrections=["cls"], gamma=0.3), VE,
     "gamma 0.3 only applies to the correction 'bv'"),
    ("correct sampling", lambda: _correct(sampling="hyper"), VE, "unknown sampling law 'hyper'"),
    # --- estimate -------------------------------------------------------------------------
    ("estimate ranks str", lambda: _estimate("12345"), VE, "sampled ranks must be numbers"),
    ("estimate ranks None", lambda: _estimate(None), VE, "sampled ranks must be numbers"),
    ("estimate ranks bool", lambda: _estimate([True, False]), VE,
     "sampled ranks must be numbers, got booleans"),
    ("estimate ranks empty", lambda: _estimate([]), VE,
     "sampled ranks must be a vector of at least 1 user, got shape (0,)"),
    ("estimate ranks nested", lambda: _estimate([[1, 2], [3, 4]]), VE,
     "sampled ranks must be a vector of at least 1 user, got shape (2, 2)"),
    ("estimate ranks 0", lambda: _estimate([0, 1]), VE,
     "sampled ranks must lie in 1..m+1=11, got 0..1"),
    ("estimate ranks m+2", lambda: _estimate([12, 1]), VE, "sampled ranks must lie in 1..m+1=11"),
    ("estimate ranks 2.5", lambda: _estimate([2.5, 1]), VE, "sampled ranks must be integers"),
    ("estimate ranks nan", lambda: _estimate([np.nan, 1]), VE, "sampled ranks must be finite"),
    ("estimate huge n", lambda: _estimate(n=10 ** 12), VE,
     "the law matrix p(r~ | r) of n = 1000000000000 true ranks"),
    ("estimate huge bootstrap", lambda: _estimate(bootstrap=10 ** 12), VE,
     "bootstrap 1000000000000 estimated distributions"),
    ("estimate bootstrap 39", lambda: _estimate(bootstrap=39), VE,
     "bootstrap 39 is too few draws for a 95% interval"),
    ("estimate level 0.99", lambda: estimate(RANKS, N, M, "recall@10", ["mle"], level=0.99),
     VE, "bootstrap 100 is too few draws for a 99% interval"),
    ("estimate none", lambda: _estimate(estimators=["none"]), VE, "unknown estimator 'none'"),
    ("estimate bv without gamma", lambda: _estimate(estimators=["bv"]), VE,
     "estimator 'bv' needs gamma"),
    ("estimate bv_2", lambda: _estimate(estimators=["bv_2"]), VE, "gamma must lie in [0, 1]"),
    ("estimate metric twice", lambda: _estimate(metrics="ap,AP"), VE,
     "metric 'ap' is given twice"),
    ("estimate processes 0", lambda: _estimate(processes=0), VE, "processes must be >= 1, got 0"),
    ("estimate processes 2.5", lambda: _estimate(processes=2.5), VE,
     "processes must be an integer, got 2.5"),
    ("estimate option unknown", lambda: _estimate(estimators=["mes"],
                                                  options={"mes": {"etta": 1}}), VE,
     "estimator 'mes' takes no option(s) etta"),
    ("estimate option not a mapping", lambda: _estimate(estimators=["mes"],
                                                        options={"mes": 0.1}), VE,
     "options for 'mes' must be a mapping option -> value, got 0.1"),
    ("estimate options a list", lambda: _estimate(estimators=["mes"], options=["mes"]), VE,
     "options must be a mapping estimator -> {option: value}, got ['mes']"),
    ("estimate options for another", lambda: _estimate(options={"mes": {"eta": 0.1}}), VE,
     "options given for mes, which are not among the estimators mle"),
    ("estimate eta nan", lambda: _estimate(estimators=["mes"],
                                           options={"mes": {"eta": float("nan")}}), VE,
     "eta (entropy weight) must be positive, got nan"),
    ("estimate seed -1", lambda: _estimate(bootstrap=40, seed=-1), VE,
     "seed must be >= 0, got -1"),
    ("estimate seed 2.5", lambda: _estimate(bootstrap=40, seed=2.5), VE,
     "seed must be an integer, got 2.5"),
    # --- compare_ranks --------------------------------------------------------------------
    ("compare a list", lambda: _compare([A, B]), VE,
     "sampled must be a mapping name -> sampled ranks, got list"),
    ("compare one", lambda: _compare({"A": A}), VE, "need sampled ranks of at least two"),
    ("compare none", lambda: _compare({}), VE, "need sampled ranks of at least two"),
    ("compare lengths", lambda: _compare({"A": A, "B": B[:-1]}), VE,
     "paired comparison needs the same users for every recommender, got A: 50, B: 49"),
    ("compare empty", lambda: _compare({"A": [], "B": []}), VE,
     "A: sampled ranks must be a vector of at least 2 users, got shape (0,)"),
    ("compare str", lambda: _compare({"A": "123", "B": "321"}), VE,
     "A: sampled ranks must be numbers"),
    ("compare 2-D", lambda: _compare({"A": A.reshape(5, 10), "B": B.reshape(5, 10)}), VE,
     "A: sampled ranks must be a vector of at least 2 users, got shape (5, 10)"),
    ("compare rank > m+1", lambda: _compare({"A": A, "B": B + 10}), VE,
     "B: sampled ranks must lie in 1..m+1=11, got 11..21"),
    ("compare nan", lambda: _compare({"A": A * 1.0, "B": np.r_[B[:-1], np.nan]}), VE,
     "B: sampled ranks must be finite"),
    ("compare 2.5", lambda: _compare({"A": A * 1.0, "B": np.r_[B[:-1], 2.5]}), VE,
     "B: sampled ranks must be integers, got 2.5"),
    ("compare blank name", lambda: _compare({" ": A, "B": B}), VE,
     "a recommender's name must not be blank, got ' '"),
    ("compare method twice", lambda: _compare(methods=["sampled", "none"]), VE,
     "method 'none' is given twice (also as 'sampled')"),
    ("compare no metric", lambda: _compare(metrics=[]), VE, "no metric given"),
    ("compare metric twice", lambda: _compare(metrics="ndcg@10,NDCG@10"), VE,
     "metric 'ndcg@10' is given twice"),
    ("compare bootstrap 0", lambda: _compare(bootstrap=0), VE,
     "bootstrap 0 is too few draws for a 95% interval (each tail needs a draw): give at least 40"),
    ("compare bootstrap 39", lambda: _compare(bootstrap=39), VE,
     "bootstrap 39 is too few draws for a 95% interval"),
    ("compare bootstrap 40.5", lambda: _compare(bootstrap=40.5), VE,
     "bootstrap must be an integer, got 40.5"),
    ("compare huge bootstrap", lambda: _compare(bootstrap=10 ** 12), VE,
     "bootstrap 1000000000000 resamplings of the 50 users would need"),
    ("compare huge n", lambda: _compare(n=10 ** 12), VE, "would need"),
    ("compare m = n", lambda: _compare(n=M), VE, "need n > m"),
    ("compare plugin", lambda: _compare(plugin="mle"), VE, "unknown plug-in estimator 'mle'"),
    ("compare pairing", lambda: _compare(pairing="no"), VE,
     "unknown pairing 'no'; expected one of paired, unpaired"),
    ("compare pairing bool", lambda: _compare(pairing=False), VE,
     "unknown pairing False; expected one of paired, unpaired"),
    ("compare estimator_bootstrap -1", lambda: _compare(methods=["mle"],
                                                        estimator_bootstrap=-1), VE,
     "estimator_bootstrap must be >= 0, got -1"),
    ("compare estimator_bootstrap 2.5", lambda: _compare(methods=["mle"],
                                                         estimator_bootstrap=2.5), VE,
     "estimator_bootstrap must be an integer, got 2.5"),
    ("compare seed -1", lambda: _compare(seed=-1), VE, "seed must be >= 0, got -1"),
    ("compare seed str", lambda: _compare(seed="x"), VE, "seed must be an integer, got 'x'"),
    ("compare mn without plug-in", lambda: _compare(methods=["mn"]), VE,
     "methods 'mn' and 'mes' need the MES plug-in"),
    ("compare rng str", lambda: _compare(rng="x"), VE,
     "rng (a numpy Generator or a seed) must be an integer, got 'x'"),
    # --- bound_full_metric ----------------------------------------------------------------
    ("bound observed empty", lambda: _bound(""), VE, "no observed values given"),
    ("bound observed {}", lambda: _bound({}), VE, "no observed values given"),
    ("bound observed None", lambda: _bound(None), VE,
     "observed values must be a mapping metric -> value or a string 'metric=value,...', "
     "got NoneType"),
    ("bound observed list", lambda: _bound(["hr@10=0.73"]), VE, "got list"),
    ("bound observed nan", lambda: _bound({"hr@10": float("nan")}), VE,
     "'hr@10=nan': expected a finite number"),
    ("bound observed inf", lambda: _bound("hr@10=inf"), VE, "'hr@10=inf': expected a finite"),
    ("bound observed > 1", lambda: _bound("hr@10=1.5"), VE, "hit@10 lies in [0, 1], got 1.5"),
    ("bound observed < 0", lambda: _bound("hr@10=-0.1"), VE, "hit@10 lies in [0, 1], got -0.1"),
    ("bound observed 200%", lambda: _bound("hr@10=200%"), VE, "hit@10 lies in [0, 1], got 2"),
    ("bound observed bool", lambda: _bound({"hr@10": True}), VE, "got the boolean True"),
    ("bound observed twice", lambda: _bound("hr@10=0.7,hit@10=0.7"), VE,
     "recall@10 is given twice (also as 'hr@10=0.7')"),
    ("bound observed no =", lambda: _bound("hr@10"), VE, "'hr@10': expected metric=value"),
    ("bound observed word", lambda: _bound("hr@10=high"), VE, "expected a number, got 'high'"),
    ("bound observed metric", lambda: _bound("hrr@10=0.7"), VE, "unknown metric 'hrr@10'"),
    ("bound metric None", lambda: _bound(metric=None), VE, "metric name must be a string"),
    ("bound metric comma", lambda: _bound(metric="recall@10,ndcg@10"), VE,
     "unknown metric 'recall@10,ndcg@10'"),
    ("bound n 1000.5", lambda: _bound(n=1000.5), VE,
     "n (number of items) must be an integer, got 1000.5"),
    ("bound m None", lambda: _bound(m=None), VE, "m (number of sampled items) must be an integer"),
    ("bound m = n", lambda: _bound(n=100, m=100), VE, "need n > m"),
    ("bound huge n", lambda: _bound(n=10 ** 12), VE,
     "the bounds' linear programmes over n = 1000000000000 true ranks"),
    ("bound huge n, m", lambda: _bound(n=10 ** 12, m=10 ** 9), VE, "would need"),
    ("bound shape", lambda: _bound(shape="decreasing"), VE, "unknown shape 'decreasing'"),
    ("bound tolerance < 0", lambda: _bound(tolerance=-1), VE,
     "tolerance must be finite and >= 0, got -1"),
    ("bound tolerance nan", lambda: _bound(tolerance=float("nan")), VE,
     "tolerance must be finite and >= 0, got nan"),
    ("bound tolerance word", lambda: _bound(tolerance="small"), VE,
     "tolerance must be a number, got 'small'"),
    ("bound tolerance metric", lambda: _bound(tolerance={"foo": 0.1}), VE,
     "tolerance for 'foo': unknown metric 'foo'"),
    ("bound users 0", lambda: _bound(users=0), VE,
     "users (number of users averaged) must be >= 1"),
    ("bound users 2.5", lambda: _bound(users=2.5), VE, "must be an integer, got 2.5"),
    ("bound evaluator", lambda: _bound(m=None, evaluator="foo"), VE, "unknown evaluator 'foo'"),
    ("bound evaluator, n small", lambda: _bound(n=50, m=None, evaluator="ncf"), VE,
     "need n > m"),
    ("bound sampling", lambda: _bound(sampling="x"), VE, "unknown sampling law 'x'"),
    # --- required_sample_size -------------------------------------------------------------
    ("plan n 1000.5", lambda: _plan(n=1000.5), VE,
     "n (number of items) must be an integer, got 1000.5"),
    ("plan n 1", lambda: _plan(n=1), VE, "need n > m: cannot sample m=1 irrelevant items"),
    ("plan n 0", lambda: _plan(n=0), VE, "need n > m"),
    ("plan huge n", lambda: _plan(n=10 ** 12), VE,
     "the rank law over the n = 1000000000000 items would need"),
    ("plan max_m > n", lambda: _plan(max_m=10 ** 9), VE, "need n > m"),
    ("plan max_m 0", lambda: _plan(max_m=0), VE, "max_m must be >= 1, got 0"),
    ("plan max_m 2.5", lambda: _plan(max_m=2.5), VE, "max_m must be an integer, got 2.5"),
    ("plan max_m str", lambda: _plan(max_m="50"), VE, "max_m must be an integer, got '50'"),
    ("plan correction", lambda: _plan(correction="foo"), VE, "unknown correction 'foo'"),
    ("plan correction list", lambda: _plan(correction=["cls"]), VE,
     "unknown correction ['cls']; expected one of"),
    ("plan criterion", lambda: _plan(criterion="max"), VE, "unknown bias criterion 'max'"),
    ("plan metric list", lambda: _plan(metric=["recall@10"]), VE, "metric name must be a string"),
    ("plan grid 0", lambda: _plan(grid_points=0), VE, "grid_points must be >= 2, got 0"),
    ("plan grid 1", lambda: _plan(grid_points=1), VE, "grid_points must be >= 2, got 1"),
    ("plan grid 2.5", lambda: _plan(grid_points=2.5), VE,
     "grid_points must be an integer, got 2.5"),
    ("plan grid huge", lambda: _plan(grid_points=10 ** 12), VE,
     "a grid of 1000000000000 sample sizes would need"),
    ("plan precision nan", lambda: _plan(rel_precision=float("nan")), VE,
     "rel_precision must be finite and >= 0, got nan"),
    ("plan precision < 0", lambda: _plan(rel_precision=-1), VE,
     "rel_precision must be finite and >= 0, got -1"),
    ("plan precision str", lambda: _plan(rel_precision="0.01"), VE,
     "rel_precision must be a number, got '0.01'"),
    ("plan prior length", lambda: _plan(prior=[1, 2]), VE,
     "prior must be a vector of length n=1000"),
    ("plan prior nan", lambda: _plan(prior=np.full(1000, np.nan)), VE, "prior must be finite"),
    ("plan prior str", lambda: _plan(prior="uniform"), VE, "prior must be a vector of numbers"),
    ("plan callback", lambda: _plan(callback=3), TE, "callback must be callable, got int"),
    ("plan sampling", lambda: _plan(sampling="x"), VE, "unknown sampling law 'x'"),
    # --- from_scores ----------------------------------------------------------------------
    ("scores evaluator", lambda: _scores(evaluator="foo"), VE, "unknown evaluator 'foo'"),
    ("scores evaluator None", lambda: _scores(evaluator=None), VE, "unknown evaluator None"),
    ("scores evaluator list", lambda: _scores(evaluator=["sasrec"]), VE,
     "unknown evaluator ['sasrec']"),
    ("scores 1-D", lambda: _scores(SCORES[0]), VE,
     "scores must be (rows, 1 + m) with rows >= 1 and m >= 1, got shape (4,)"),
    ("scores no rows", lambda: _scores(np.empty((0, 4)), items=np.empty((0, 4), int)), VE,
     "scores must be (rows, 1 + m) with rows >= 1 and m >= 1, got shape (0, 4)"),
    ("scores one column", lambda: _scores(SCORES[:, :1]), VE,
     "scores must be (rows, 1 + m) with rows >= 1 and m >= 1, got shape (2, 1)"),
    ("scores 3-D", lambda: _scores(SCORES[None]), VE, "got shape (1, 2, 4)"),
    ("scores words", lambda: _scores([["a", "b"], ["c", "d"]], evaluator="elliot", items=None),
     VE, "scores must be numbers in an array of one shape"),
    ("scores ragged", lambda: _scores([[0.1, 0.2], [0.3]], evaluator="elliot", items=None), VE,
     "scores must be numbers in an array of one shape"),
    ("scores nan", lambda: _scores(np.r_[[[np.nan, 0.1, 0.2, 0.3]], SCORES[1:]]), VE,
     "scores must be finite"),
    ("scores N 0", lambda: _scores(n_nonrelevant=0), VE, "n_nonrelevant must be >= 1, got 0..0"),
    ("scores N 2500.5", lambda: _scores(n_nonrelevant=2500.5), VE,
     "n_nonrelevant must be integers, got 2500.5"),
    ("scores N str", lambda: _scores(n_nonrelevant="3000"), VE, "n_nonrelevant must be numbers"),
    ("scores N bool", lambda: _scores(n_nonrelevant=True), VE,
     "n_nonrelevant must be numbers, got booleans"),
    ("scores N nan", lambda: _scores(n_nonrelevant=float("nan")), VE,
     "n_nonrelevant must be finite"),
    ("scores N huge", lambda: _scores(n_nonrelevant=10 ** 30), VE,
     "n_nonrelevant must be numbers"),
    ("scores N per row", lambda: _scores(n_nonrelevant=[3000, 3000, 3000]), VE,
     "n_nonrelevant must be one number or one per row (2 rows), got shape (3,)"),
    ("scores positive 4", lambda: _scores(positive=4), VE, "positive column 4 outside 0..3"),
    ("scores positive -1", lambda: _scores(positive=-1), VE, "positive column -1 outside 0..3"),
    ("scores positive 1.5", lambda: _scores(positive=1.5), VE,
     "positive must be an integer, got 1.5"),
    ("scores positive bool", lambda: _scores(positive=True), VE, "got the boolean True"),
    ("scores items shape", lambda: _scores(items=np.ones((2, 3), int)), VE,
     "items must have the shape of scores (2, 4), got (2, 3)"),
    ("scores no items", lambda: _scores(evaluator="ncf", items=None), VE,
     "evaluator 'ncf' can draw the positive itself: give items"),
    ("scores users", lambda: _scores(users=[1]), VE,
     "users must give one label per row (2 rows), got 1"),
    ("scores users twice", lambda: _scores(users=[1, 1]), VE, "users must label each row once"),
    ("scores seed -1", lambda: _scores(seed=-1), VE, "seed must be >= 0, got -1"),
    ("scores seed str", lambda: _scores(seed="x"), VE, "seed must be an integer, got 'x'"),
]



def _each(label, call, keyword, values):
    """Cases of ``call`` with ``keyword`` given each value of ``values``, a list of (value,
    the fragment of its message)."""
    return [(f"{label} {keyword}={value!r}", lambda value=value: call(**{keyword: value}), VE,
             fragment) for value, fragment in values]


#: a level outside (0, 1), or not a number, for every function that takes one
LEVELS = [(1, "got 1"), (0, "got 0"), (95, "got 95"), (float("nan"), "got nan"),
          ("0.95", "got '0.95'"), (None, "got None"), (True, "got True")]
API_CASES += [case for label, call in (("correct", _correct), ("estimate", _estimate),
                                       ("compare", _compare), ("bound", _bound))
              for case in _each(label, call, "level", [
                  (value, f"level must lie in (0, 1), {got}") for value, got in LEVELS])]
for label, call, keyword, what, name in (
        ("correct", _correct, "corrections", "correction", "cls"),
        ("estimate", _estimate, "estimators", "estimator", "mle"),
        ("compare", _compare, "methods", "method", "cls")):
    API_CASES += _each(label, call, keyword, [
        (["magic"], f"unknown {what} 'magic'"), ([], f"no {what} given"),
        (None, f"{what}s must be a name or a list of names, got None"),
        ((name, name), f"{what} '{name}' is given twice"),
        (f"{name},{name.upper()}", f"{what} '{name.upper()}' is given twice (also as '{name}')")])
API_CASES += _each("plan", _plan, "target_bias", [
    (0, "target bias must be positive, got 0"), (-0.1, "target bias must be positive"),
    (float("nan"), "target bias must be positive, got nan"),
    ("0.01", "target bias must be a number, got '0.01'"),
    (None, "target bias must be a number, got None"),
    (True, "target bias must be a number, got True")])


@pytest.mark.parametrize("call, error, fragment", [c[1:] for c in API_CASES],
                         ids=[c[0] for c in API_CASES])
def test_api_refuses_in_one_line(monkeypatch, call, error, fragment):
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(MEMORY))
    with pytest.raises(error) as caught:
        call()
    assert type(caught.value) is error, type(caught.value)
    message = str(caught.value)
    assert "\n" not in message.strip(), message
    assert fragment in message, message


#: sizes that do not fit: refused before an array of that size is made
SIZES = [c for c in API_CASES if "huge" in c[0]]


@pytest.mark.parametrize("call", [c[1] for c in SIZES], ids=[c[0] for c in SIZES])
def test_api_refuses_sizes_before_allocating(monkeypatch, call):
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(MEMORY))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, f"{peak / 2 ** 20:.0f} MiB allocated before the refusal"


#: what a user may pass and gets an answer for: aliases, 'none', integral floats, numpy
#: scalars, the minimum bootstrap, a comma-separated string of names
ACCEPTED = [
    ("pmf numpy scalars", lambda: rank_pmf([1], np.int64(10), np.int32(3))),
    ("pmf integral float n", lambda: rank_pmf([1], 10.0, 3)),
    ("pmf sampling in capitals", lambda: rank_pmf([1], 10, 3, " Binomial")),
    ("esm alias", lambda: expected_sampled_metric("hr@10", [1], 10, 3)),
    ("esm spaces", lambda: expected_sampled_metric(" Recall @ 10 ", [1], 10, 3)),
    ("corr none", lambda: correction("recall@10", 100, 10, "none")),
    ("corr case and spaces", lambda: correction("recall@10", 100, 10, " CLS ")),
    ("Metric alias", lambda: Metric("hr", 10)),
    ("correct none", lambda: _correct(corrections=["none"])),
    ("correct comma string", lambda: _correct(corrections="sampled,cls")),
    ("correct integral floats", lambda: _correct(np.array(RANKS, dtype=float))),
    ("correct bootstrap 40", lambda: _correct(bootstrap=40)),
    ("correct huge seed", lambda: _correct(bootstrap=40, seed=10 ** 20)),
    ("correct alias", lambda: _correct(metrics="hr@10")),
    ("estimate comma string", lambda: _estimate(estimators="mle,mes")),
    ("estimate bootstrap 40", lambda: _estimate(bootstrap=40)),
    ("compare none", lambda: _compare(methods=["none"])),
    ("compare comma strings", lambda: _compare(metrics="recall@10,ndcg@10",
                                               methods="sampled,cls")),
    ("compare estimators alone", lambda: _compare(methods=["mle"], estimator_bootstrap=5)),
    ("compare a seed for rng", lambda: _compare(rng=3)),
    ("bound shape none", lambda: _bound(shape="None")),
    ("bound alias metric", lambda: _bound(metric="hr@10")),
    ("plan none", lambda: _plan(correction="none")),
    ("plan inf target_bias", lambda: _plan(target_bias=float("inf"))),
    ("draw integral float m", lambda: draw_sampled_ranks([5], 10, 3.0, rng=0)),
    ("draw size", lambda: draw_sampled_ranks([5, 6], 10, 3, rng=0, size=(3, 2))),
    ("draw generator", lambda: draw_sampled_ranks([5], 10, 3, rng=np.random.default_rng(0))),
]


@pytest.mark.parametrize("call", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_api_accepts(call):
    call()


def test_metric_normalises_its_kind():
    """A Metric made directly reads an alias and any case as parse_metric does, never as
    another metric."""
    assert Metric("HR", 10) == Metric("hit", 10) == parse_metrics("hr@10")[0]
    assert Metric("Recall", 10)([5, 11]).tolist() == [1.0, 0.0]
    assert Metric("recall", 10.0).k == 10 and type(Metric("recall", 10.0).k) is int


def test_compare_with_estimators_alone():
    """compare_ranks with only P(R) estimators (no correction vector) gives their rows."""
    table = _compare(methods=["mle"], estimator_bootstrap=5)
    assert table.method.tolist() == ["mle"] and np.isfinite(table.value_a).all()


# --- the command line ---------------------------------------------------------------------

def _files(d):
    rng = np.random.default_rng(0)
    for name, size in (("a.txt", 60), ("b.txt", 60), ("short.txt", 30), ("one.txt", 1)):
        (d / name).write_text("\n".join(map(str, rng.integers(1, 12, size))) + "\n")
    (d / "empty.txt").write_text("")
    (d / "blank.txt").write_text("\n \n")
    (d / "binary.txt").write_bytes(bytes(range(256)))
    (d / "prior.txt").write_text("1\n2\n3\n")
    (d / "adir").mkdir()


R = "correct --ranks a.txt --n 100 --m 10"
E = "estimate --ranks a.txt --n 100 --m 10"
C = "compare a.txt b.txt --n 100 --m 10 --method sampled --bootstrap 40"
P = "plan --n 1000 --target-bias 0.05"
BD = "bound --n 1000 --m 100 --observed hr@10=0.730"

CLI_CASES = [
    (f"{R} --n 100.0", "argument --n: invalid int value: '100.0'"),
    (f"{R} --n 1e9", "argument --n: invalid int value: '1e9'"),
    (f"{R} --bootstrap 2.5", "argument --bootstrap: invalid int value: '2.5'"),
    (f"{R} --n -5", "need n > m"),
    (f"{R} --m -1", "m (number of sampled items) must be >= 1, got m=-1"),
    (f"{R} --m 5", "a.txt:1: sampled rank"),
    (f"{R} --bootstrap 39", "--bootstrap 39 is too few draws for a 95% interval"),
    (f"{R} --level 0", "--level must lie in (0, 1), got 0.0"),
    (f"{R} --level nan", "--level must lie in (0, 1), got nan"),
    (f"{R} --level inf", "--level must lie in (0, 1), got inf"),
    (f"{R} --seed -1", "--seed must be >= 0, got -1"),
    (f"{R} --metric ' '", "no metric given"),
    (f"{R} --metric r\u00e9call@10", "unknown metric 'r\u00e9call@10'"),
    (f"{R} --metric recall@10,recall@10", "metric 'recall@10' is given twice"),
    (f"{R} --metric hr@10,HIT@10", "metric 'hit@10' is given twice"),
    (f"{R} --method cls,cls --bootstrap 0", "correction 'cls' is given twice"),
    (f"{R} --method sampled,none --bootstrap 0",
     "correction 'none' is given twice (also as 'sampled')"),
    (f"{R} --evaluator SASRecc", "unknown evaluator 'SASRecc'"),
    (f"{R} --sampling with", "argument --sampling: unknown sampling law 'with'; expected one of "
                             "binomial, hypergeometric"),
    (f"{R} --evaluator ''", "unknown evaluator ''"),
    (f"{R} --gamma nan --method bv", "gamma must lie in [0, 1], got nan"),
    (f"{R} --gamma 0.5 --method bv_0.1", "--gamma 0.5 only applies to the method 'bv'"),
    (f"{R} --method bv", "correction 'bv' needs gamma in [0, 1]"),
    (f"{R} --thin-to 5", "--thin-to only applies to a long-format CSV"),
    (f"{R} --column rank", "a.txt: no column 'rank'"),
    (f"{R} --repeat 0", "--repeat only applies to a workflow rank file (.npz)"),
    (f"{R} --n 1000000000", "the rank law over the n = 1000000000 items would need"),
    ("correct --ranks a.txt --n 1000000000000 --m 1000000000 --method sampled --bootstrap 0",
     "over m+1 = 1000000001 sampled ranks would need"),
    ("correct --ranks one.txt --n 100 --m 10", "need at least 2 users for an interval, got 1"),
    ("correct --ranks empty.txt --n 100 --m 10", "empty.txt: file is empty"),
    ("correct --ranks blank.txt --n 100 --m 10", "blank.txt: file is empty"),
    ("correct --ranks binary.txt --n 100 --m 10", "binary.txt: binary data"),
    ("correct --ranks adir --n 100 --m 10", "adir: is a directory"),
    ("correct --ranks missing.txt --n 100 --m 10", "missing.txt: no such file"),
    (f"{E} --method none --bootstrap 0", "unknown estimator 'none'"),
    (f"{E} --method mle,mle --bootstrap 0", "estimator 'mle' is given twice"),
    (f"{E} --method mle,MLE --bootstrap 0", "estimator 'MLE' is given twice (also as 'mle')"),
    (f"{E} --metric ap,map --method mle --bootstrap 0", "metric 'ap' is given twice"),
    (f"{E} --processes 0", "--processes must be >= 1, got 0"),
    (f"{E} --method mes --eta nan --bootstrap 0", "eta (entropy weight) must be positive"),
    (f"{E} --method mes --eta inf --bootstrap 0", "eta (entropy weight) must be positive"),
    (f"{E} --method wmle --c 0 --bootstrap 0", "weight constant C must be positive"),
    (f"{E} --method mle --c 3 --bootstrap 0", "--c only applies to the estimator 'wmle'"),
    (f"{E} --method bv --bootstrap 0", "estimator 'bv' needs gamma"),
    (f"{E} --seed -1", "--seed must be >= 0, got -1"),
    (f"{E} --bootstrap 1000000000000", "--bootstrap 1000000000000 estimated distributions"),
    ("estimate --ranks a.txt --n 1000000000000 --m 10", "the law matrix p(r~ | r) of n = "),
    ("estimate --ranks binary.txt --n 100 --m 10", "binary.txt: binary data"),
    ("estimate --ranks adir --n 100 --m 10", "adir: is a directory"),
    (f"{P} --method sampled,sampled", "correction 'sampled' is given twice"),
    (f"{P} --method sampled,none", "correction 'none' is given twice (also as 'sampled')"),
    (f"{P} --metric hr@10,hit@10", "metric 'hit@10' is given twice"),
    (f"{P} --method bv", "correction 'bv' needs gamma in [0, 1]"),
    ("plan --n 1000 --target-bias nan", "target bias must be positive, got nan"),
    ("plan --n 1000 --target-bias 0", "target bias must be positive, got 0.0"),
    ("plan --n 1 --target-bias 0.05", "need n > m"),
    ("plan --n 0 --target-bias 0.05", "need n > m"),
    (f"{P} --max-m 0", "--max-m must be >= 1, got 0"),
    (f"{P} --max-m 1000000000", "need n > m"),
    ("plan --n 1000000000 --target-bias 0.05", "the rank law over the n = 1000000000 items"),
    (f"{P} --prior-ranks empty.txt", "empty.txt: file is empty"),
    (f"{P} --prior-ranks adir", "adir: is a directory"),
    (f"{P} --prior-ranks missing.txt", "missing.txt: no such file"),
    (f"{P} --prior-ranks binary.txt", "binary.txt: binary data"),
    ("plan --n 2 --target-bias 0.05 --prior-ranks prior.txt",
     "prior.txt:3: exact rank 3 outside 1..n=2"),
    (f"{C} --method sampled,none", "method 'none' is given twice (also as 'sampled')"),
    (f"{C} --metric recall@10,Recall@10", "metric 'recall@10' is given twice"),
    (f"{C} --bootstrap 0", "--bootstrap 0 is too few draws for a 95% interval (each tail needs a draw): give at least 40"),
    (f"{C} --bootstrap 39", "--bootstrap 39 is too few draws for a 95% interval"),
    (f"{C} --bootstrap 1000000000000",
     "bootstrap 1000000000000 resamplings of the 60 users would need"),
    (f"{C} --name-a X --name-b X", "--name-a and --name-b must differ, got 'X' twice"),
    (f"{C} --repeats 3", "--repeats needs workflow rank files (.npz) for A and B"),
    (f"{C} --method mle --estimator-bootstrap -1",
     "--estimator-bootstrap must be >= 0, got -1"),
    ("correct --ranks '' --n 100 --m 10", "argument --ranks: an empty file name"),
    ("compare '' a.txt --n 100 --m 10", "argument A: an empty file name"),
    (f"{C} --seed -1", "--seed must be >= 0, got -1"),
    ("compare a.txt short.txt --n 100 --m 10 --method sampled --bootstrap 40",
     "paired comparison needs the same users for every recommender, got a: 60, short: 30"),
    ("compare one.txt one.txt --n 100 --m 10 --method sampled --bootstrap 40",
     "A: sampled ranks must be a vector of at least 2 users, got shape (1,)"),
    ("compare a.txt empty.txt --n 100 --m 10 --bootstrap 40", "empty.txt: file is empty"),
    ("compare a.txt adir --n 100 --m 10 --bootstrap 40", "adir: is a directory"),
    ("compare binary.txt b.txt --n 100 --m 10 --bootstrap 40", "binary.txt: binary data"),
    ("compare a.txt missing.txt --n 100 --m 10 --bootstrap 40", "missing.txt: no such file"),
    ("compare a.txt b.txt --n 1000000000000 --m 10 --method sampled --bootstrap 40",
     "would need"),
    (f"{BD} --shape none,none", "shape 'none' is given twice"),
    (f"{BD} --shape none,None", "shape 'None' is given twice (also as 'none')"),
    (f"{BD} --shape decreasing", "--shape 'decreasing': unknown shape 'decreasing'; expected one "
                                 "of none, non-increasing"),
    (f"{BD} --metric ndcg@10,NDCG@10", "metric 'ndcg@10' is given twice"),
    (f"{BD} --metric foo", "--metric 'foo': unknown metric 'foo'"),
    ("bound --n 1000 --m 100 --observed hr@10=0.730,hit@10=0.73",
     "--observed 'hit@10=0.73': recall@10 is given twice (also as 'hr@10=0.730')"),
    ("bound --n 1000 --m 100 --observed ''", "--observed no observed values given"),
    ("bound --n 1000 --m 100 --observed hr@10=", "--observed 'hr@10=': expected a number"),
    ("bound --n 1000 --m 100 --observed =0.7", "--observed '=0.7': unknown metric ''"),
    (f"{BD} --evaluator SASRecc", "unknown evaluator 'SASRecc'"),
    (f"{BD} --level 1", "--level must lie in (0, 1), got 1.0"),
    (f"{BD} --users 0", "--users must be >= 1"),
    ("bound --n 1000 --m 1000 --observed hr@10=0.730", "need n > m"),
    ("bound --n 1000000000000 --m 1000000000 --observed hr@10=0.730",
     "the bounds' linear programmes over n = 1000000000000 true ranks"),
    ("evaluators nosuch", "unknown evaluator 'nosuch'"),
    ("evaluators SASRecc", "unknown evaluator 'SASRecc'"),
    ("evaluators ''", "unknown evaluator ''"),
    ("methods --format json", "argument --format: invalid choice: 'json'"),
    ("methods extra", "unrecognized arguments: extra"),
    ("nosuch", "argument command: invalid choice: 'nosuch'"),
]


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as stop:           # argparse's own usage errors
        code = stop.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("line, fragment", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli_refuses_in_one_line(tmp_path, monkeypatch, capsys, line, fragment):
    import shlex
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(MEMORY))
    argv = shlex.split(line)
    tracemalloc.start()
    try:
        code, out, err = _run(argv, capsys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2, (code, out, err)
    assert out == ""
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("sampled-metrics"), lines[0]
    assert "Traceback" not in err
    assert fragment in lines[0], lines[0]
    assert peak < 64 << 20, f"{peak / 2 ** 20:.0f} MiB allocated before the refusal"


#: the same inputs the library accepts (ACCEPTED), on the command line
CLI_ACCEPTED = [
    f"{R} --method none --bootstrap 0",
    f"{R} --metric hr@10 --method sampled --bootstrap 0",
    f"{R} --method sampled --bootstrap 40",
    f"{R} --method sampled --bootstrap 0 --sampling Hypergeometric",
    f"{E} --method mle --bootstrap 40",
    f"{C} --method none",
    f"{C} --method mle --estimator-bootstrap 5",
    f"{P} --method none",
    f"{BD} --shape None --metric hr@10",
]


@pytest.mark.parametrize("line", CLI_ACCEPTED)
def test_cli_accepts(tmp_path, monkeypatch, capsys, line):
    import shlex
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(shlex.split(line), capsys)
    assert code == 0, err
    assert out.strip()
