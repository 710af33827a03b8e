"""The evaluator catalogue: each evaluator's draws, re-written here from the facts its entry
states (never its code), simulated, and the sampled ranks' histogram held against the law of
sampled_metrics.evaluators (a chi-square test at level 0.001, seeded); from_scores' rows
against the project's binomial and hypergeometric laws; refusals; correct --evaluator."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import run_cli
from sampled_metrics.evaluators import (EVALUATORS, distinct_draws_pmf, from_scores,
                                        get_evaluator, reported_rank_pmf)
from sampled_metrics.metrics import parse_metric

REPS = 6000
ALPHA = 1e-3


def chi_square_p(observed: np.ndarray, expected: np.ndarray) -> float:
    """p-value of Pearson's chi-square, bins with expected count < 5 pooled into one."""
    keep = expected >= 5
    obs = np.r_[observed[keep], observed[~keep].sum()]
    exp = np.r_[expected[keep], expected[~keep].sum()]
    if exp[-1] < 5:                          # fold a thin pooled bin into the largest one
        big = np.argmax(exp[:-1])
        obs[big] += obs[-1]
        exp[big] += exp[-1]
        obs, exp = obs[:-1], exp[:-1]
    assert abs(obs.sum() - exp.sum()) < 1e-6 * exp.sum()
    return float(stats.chi2.sf(((obs - exp) ** 2 / exp).sum(), max(obs.size - 1, 1)))


# --- the evaluators' draws, from their entries' facts ----------------------------------
# Items 1..N are the non-relevant items, item 0 the positive; item j scores -j and the
# positive -(x + 0.5), so exactly x non-relevant items outrank it in the full ranking.

def _scores(ids, x):
    return np.where(ids == 0, -(x + 0.5), -ids.astype(float))


def _distinct(rng, low, high, reps, m):
    """m distinct uniform ids in low..high - 1 per row (random.sample, np.random.choice
    without replacement)."""
    return low + np.argsort(rng.random((reps, high - low)), axis=1)[:, :m]


def draw_sasrec(rng, N, m, x):
    # randint over all items, rejecting only training items: the pool holds the positive
    ids = rng.integers(0, N + 1, (REPS, m))
    s = _scores(ids, x)
    above = (s > -(x + 0.5)).sum(1)
    selfs = (ids == 0).sum(1)
    # argsort().argsort()[0] leaves the order of equal scores unspecified: a uniform place
    return 1 + above + np.floor(rng.random(REPS) * (selfs + 1)).astype(int)


def draw_ncf(rng, N, m, x):
    # the fixed file: m distinct items the user has not trained on (the positive included);
    # scores go into a dict keyed by item, so a self-drawn positive is one candidate
    ids = _distinct(rng, 0, N + 1, REPS, m)
    return 1 + ((_scores(ids, x) > -(x + 0.5)) & (ids != 0)).sum(1)


def draw_rechorus(rng, N, m, x):
    # neg_items: m distinct items outside the user's; (pred >= pred[:, 0]).sum()
    ids = _distinct(rng, 1, N + 1, REPS, m)
    return (np.c_[np.full(REPS, -(x + 0.5)), _scores(ids, x)] >= -(x + 0.5)).sum(1)


def draw_rechorus_replacement(rng, N, m, x):
    ids = rng.integers(1, N + 1, (REPS, m))       # a duplicate counts twice
    return (np.c_[np.full(REPS, -(x + 0.5)), _scores(ids, x)] >= -(x + 0.5)).sum(1)


def draw_uniform_counted(rng, N, m, x):
    # DaisyRec: np.random.choice(neg_items, cand_num - 1) (with replacement), positive last
    ids = rng.integers(1, N + 1, (REPS, m))
    return 1 + (_scores(ids, x) > -(x + 0.5)).sum(1)


def draw_uniform_distinct(rng, N, m, x):
    # Elliot random.sample, the BERT4Rec port's random sampler, Microsoft NCFDataset
    ids = _distinct(rng, 1, N + 1, REPS, m)
    return 1 + (_scores(ids, x) > -(x + 0.5)).sum(1)


def draw_recbole_uni(rng, N, m, x):
    # m draws with replacement written into a users x items matrix: duplicates collapse
    ids = np.sort(rng.integers(1, N + 1, (REPS, m)), axis=1)
    first = np.ones(ids.shape, dtype=bool)
    first[:, 1:] = ids[:, 1:] != ids[:, :-1]
    return 1 + ((ids <= x) & first).sum(1)


SIMULATED = {"sasrec": draw_sasrec, "ncf": draw_ncf, "rechorus": draw_rechorus,
             "rechorus-replacement": draw_rechorus_replacement,
             "daisyrec": draw_uniform_counted, "elliot": draw_uniform_distinct,
             "bert4rec-pytorch": draw_uniform_distinct, "msr-ncf": draw_uniform_distinct,
             "recbole-uni": draw_recbole_uni}


def test_every_correctable_evaluator_is_simulated():
    correctable = {name for name, e in EVALUATORS.items() if e.sampling is not None}
    assert correctable == set(SIMULATED)
    assert len(EVALUATORS) >= 8


@pytest.mark.parametrize("name", sorted(SIMULATED))
@pytest.mark.parametrize("N,x", [(150, 0), (150, 4), (150, 40), (3000, 25)])
def test_reported_rank_follows_the_evaluators_law(name, N, x):
    e = get_evaluator(name)
    m = e.negatives if e.negatives < N else 100     # the law needs n = N + 1 > m
    rng = np.random.default_rng([N, x, len(name)])
    ranks = SIMULATED[name](rng, N, m, x)
    law = reported_rank_pmf(name, N, m, x=[x])[0]
    assert law.size == m + 1 and abs(law.sum() - 1) < 1e-12
    observed = np.bincount(ranks - 1, minlength=m + 1)
    assert observed.size == m + 1
    assert chi_square_p(observed, REPS * law) > ALPHA


def test_the_law_tells_self_draws_and_collapsed_duplicates_apart():
    N, x = 150, 20
    plain = stats.binom.pmf(np.arange(101), 100, x / N)
    sasrec = reported_rank_pmf("sasrec", N, x=[x])[0]
    mean = lambda p: (np.arange(1, p.size + 1) * p).sum()
    # SASRec: a draw is above w.p. x/(N+1), and half a rank per self-draw on average
    assert mean(sasrec) == pytest.approx(1 + 100 * x / (N + 1) + 100 / (N + 1) / 2, rel=1e-9)
    assert mean(sasrec) > 1 + (np.arange(101) * plain).sum()     # the generic law's mean
    # RecBole: E[D] distinct of 100 draws from N, each above w.p. x/N
    d = distinct_draws_pmf(N, 100)
    e_d = (np.arange(101) * d).sum()
    assert e_d == pytest.approx(N * (1 - (1 - 1 / N) ** 100), rel=1e-12)
    assert mean(reported_rank_pmf("recbole-uni", N, x=[x])[0]) == pytest.approx(
        1 + e_d * x / N, rel=1e-9)


@pytest.mark.parametrize("name", ["bert4rec", "bert4rec-pytorch-popular", "recbole-pop"])
def test_evaluators_without_a_correction_are_listed_and_refused(name):
    e = get_evaluator(name)
    assert e.refused and e.sampling is None
    with pytest.raises(ValueError, match=f"evaluator '{name}'"):
        reported_rank_pmf(name, 100)
    with pytest.raises(ValueError, match=f"evaluator '{name}'"):
        from_scores(np.zeros((2, 3)), 100, evaluator=name)


def _sasrec_run(rng, x, N, m=100):
    """Scores and item ids of a SASRec evaluation, one row per user with x_u above."""
    rows = x.size
    ids = rng.integers(0, N + 1, (rows, m))             # self-draws included
    item_ids = np.c_[np.zeros(rows, dtype=int), ids]
    scores = np.where(item_ids == 0, -(x[:, None] + 0.5), -item_ids.astype(float))
    return scores, item_ids


def test_from_scores_rows_follow_the_binomial_law_given_the_self_draws():
    rng = np.random.default_rng(7)
    N, x = 150, 12
    scores, items = _sasrec_run(rng, np.full(REPS, x), N)
    table = from_scores(scores, N, evaluator="sasrec", items=items)
    assert table.attrs == {"evaluator": "sasrec", "sampling": "binomial"}
    assert (table.n_negatives < 100).mean() == pytest.approx(1 - (N / (N + 1)) ** 100,
                                                             abs=0.03)
    expected = np.zeros(101)
    for m_row, count in table.n_negatives.value_counts().items():
        expected[:m_row + 1] += count * stats.binom.pmf(np.arange(m_row + 1), m_row, x / N)
    observed = np.bincount(table.position - 1, minlength=101)
    assert chi_square_p(observed, expected) > ALPHA


def test_from_scores_collapses_duplicates_to_the_distinct_negatives():
    rng = np.random.default_rng(8)
    N, x = 120, 9
    ids = rng.integers(1, N + 1, (REPS, 100))
    items = np.c_[np.zeros(REPS, dtype=int), ids]
    scores = np.where(items == 0, -(x + 0.5), -items.astype(float))
    table = from_scores(scores, N, evaluator="recbole-uni", items=items)
    assert table.attrs["sampling"] == "hypergeometric"
    assert (table.n_negatives == [np.unique(r).size for r in ids]).all()
    expected = np.zeros(101)
    for d, count in table.n_negatives.value_counts().items():
        expected[:d + 1] += count * stats.hypergeom.pmf(np.arange(d + 1), N, x, d)
    assert chi_square_p(np.bincount(table.position - 1, minlength=101), expected) > ALPHA


def test_from_scores_applies_the_tie_rule():
    scores = np.array([[1.0, 1.0, 1.0, 2.0, 0.0]] * 2000)
    assert (from_scores(scores, 50, evaluator="rechorus").position == 4).all()
    ranks = from_scores(scores, 50, evaluator="elliot", seed=3).position
    assert set(ranks) == {2, 3, 4}                     # 1 above, 2 tied at random places
    assert ranks.mean() == pytest.approx(3.0, abs=0.06)


def test_from_scores_refuses_bad_input():
    with pytest.raises(ValueError, match="can draw the positive itself: give items"):
        from_scores(np.zeros((2, 3)), 50, evaluator="sasrec")
    with pytest.raises(ValueError, match="which evaluator 'rechorus' never draws"):
        from_scores(np.zeros((1, 3)), 50, evaluator="rechorus", items=[[4, 4, 5]])
    with pytest.raises(ValueError, match="repeat a negative"):
        from_scores(np.zeros((1, 3)), 50, evaluator="elliot", items=[[4, 5, 5]])
    with pytest.raises(ValueError, match="finite"):
        from_scores([[np.nan, 1.0]], 50, evaluator="elliot")
    with pytest.raises(ValueError, match="shape"):
        from_scores([1.0, 2.0], 50, evaluator="elliot")
    with pytest.raises(ValueError, match="unknown evaluator 'sas'"):
        from_scores([[1.0, 2.0]], 50, evaluator="sas")


def test_correct_with_the_sasrec_evaluator_covers_the_full_metric(tmp_path, capsys):
    """A SASRec-like run (sharp P(r), pool ~3,500 with the positive in it): from_scores,
    then correct --evaluator sasrec: the recommended interval holds the full metric."""
    rng = np.random.default_rng(11)
    users = 3000
    N = 3400 + rng.integers(0, 300, users)
    x = np.minimum(rng.geometric(0.004, users) - 1, N)
    scores = np.empty((users, 101))
    items = np.empty((users, 101), dtype=int)
    for n_u in np.unique(N):
        at = N == n_u
        scores[at], items[at] = _sasrec_run(rng, x[at], int(n_u))
    table = from_scores(scores, N, evaluator="sasrec", items=items)
    path = tmp_path / "sasrec.csv"
    table.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "correct", "--ranks", str(path), "--evaluator", "sasrec",
                             "--metric", "recall@10,ndcg@10", "--format", "csv")
    assert code == 0, err
    result = pd.read_csv(pd.io.common.StringIO(out))
    best = result[result.correction == "recommended"].set_index("metric")
    for metric in ("recall@10", "ndcg@10"):
        truth = parse_metric(metric).mean(x + 1, N + 1)
        assert best.loc[metric, "ci_low"] <= truth <= best.loc[metric, "ci_high"], metric


def test_evaluators_command_lists_every_entry(capsys):
    code, out, _ = run_cli(capsys, "evaluators", "--format", "csv")
    assert code == 0
    for name, e in EVALUATORS.items():
        assert name in out and e.title in out
    code, out, _ = run_cli(capsys, "evaluators")                 # wrapped within 100 columns
    assert code == 0 and max(map(len, out.splitlines())) <= 100
    assert all(f"\n{name} " in out for name in EVALUATORS)
    code, out, _ = run_cli(capsys, "evaluators", "sasrec")
    assert code == 0 and "pmixer/SASRec.pytorch python/utils.py evaluate" in out
    assert "HR@10" in out and "hit@10" in out
    code, _, err = run_cli(capsys, "evaluators", "sas")
    assert code == 2 and "unknown evaluator 'sas'" in err


def test_an_evaluator_is_named_in_any_case():
    """As metrics and methods: 'SASRec' and ' RecBole-Uni ' name the catalogue's entries,
    through the API and the command line; an unknown name is still refused as written."""
    from sampled_metrics import get_evaluator
    assert get_evaluator("SASRec") is get_evaluator("sasrec")
    assert get_evaluator(" RecBole-Uni ") is EVALUATORS["recbole-uni"]
    with pytest.raises(ValueError, match="unknown evaluator 'SAS'"):
        get_evaluator("SAS")
    with pytest.raises(ValueError, match="unknown evaluator 3"):
        get_evaluator(3)


def test_the_api_takes_the_evaluator_where_the_command_line_does():
    from sampled_metrics import correct, from_scores as top_level
    from sampled_metrics.intervals import correct_positions
    assert top_level is from_scores
    rng = np.random.default_rng(3)
    N = 1000
    x = np.minimum(rng.geometric(0.01, 1500) - 1, N)
    ids = _distinct(rng, 1, N + 1, x.size, 99)
    ranks = 1 + (ids <= x[:, None]).sum(1)               # ReChorus' >= with distinct scores
    table = correct(ranks, N + 1, 99, "recall@10", ["recommended", "sampled"],
                    evaluator="rechorus", bootstrap=0)
    truth = parse_metric("recall@10").mean(x + 1, N + 1)
    best = table.set_index("correction").loc["recommended"]
    assert best.ci_low <= truth <= best.ci_high
    with pytest.raises(ValueError, match="evaluator 'sasrec' can draw the positive itself"):
        correct(ranks, N + 1, 99, "recall@10", evaluator="sasrec")
    with pytest.raises(ValueError, match="evaluator 'recbole-pop': popularity"):
        correct(ranks, N + 1, 99, "recall@10", evaluator="recbole-pop")
    frame = pd.DataFrame({"user": range(x.size), "position": ranks, "n_nonrelevant": N,
                          "n_negatives": 99})
    same = correct_positions(frame, "recall@10", ["recommended"], evaluator="rechorus")
    assert same.loc[0, "ci_low"] == pytest.approx(best.ci_low, rel=1e-9)


def test_correct_refuses_an_evaluator_that_contradicts_the_options(tmp_path, capsys):
    path = tmp_path / "ranks.txt"
    path.write_text("1\n5\n30\n")
    code, _, err = run_cli(capsys, "correct", "--ranks", str(path), "--n", "500",
                           "--evaluator", "sasrec")
    assert code == 2 and "--evaluator 'sasrec' can draw the positive itself" in err
    code, _, err = run_cli(capsys, "correct", "--ranks", str(path), "--n", "500",
                           "--evaluator", "rechorus", "--sampling", "binomial")
    assert code == 2 and ("--sampling 'binomial' contradicts --evaluator 'rechorus', whose ranks "
                          "follow the hypergeometric law") in err
    code, out, err = run_cli(capsys, "correct", "--ranks", str(path), "--n", "500",
                             "--evaluator", "elliot", "--method", "sampled",
                             "--bootstrap", "0", "--metric", "recall@10", "--format", "csv")
    assert code == 0, err                 # m = Elliot's own 100 when --m is not given
    assert "recall@10,sampled,0.666667" in out   # ranks 1 and 5 of 3 in the top 10
    # Elliot's own nDCG has a graded gain: the rows are the standard metrics, said once
    assert err.count("note: elliot's nDCG@k is graded gain") == 1


def test_every_command_takes_the_evaluator(tmp_path, capsys):
    rng = np.random.default_rng(5)
    N = 800
    ranks = {}
    for name, p in (("a", 0.02), ("b", 0.005)):
        x = np.minimum(rng.geometric(p, 600) - 1, N)
        ids = _distinct(rng, 1, N + 1, x.size, 100)
        ranks[name] = 1 + (ids <= x[:, None]).sum(1)          # Elliot: distinct draws
        np.savetxt(tmp_path / f"{name}.txt", ranks[name], fmt="%d")
    a, b = str(tmp_path / "a.txt"), str(tmp_path / "b.txt")
    # estimate and compare: the law and m = 100 from the entry; the same as given by hand
    for argv in (["estimate", "--ranks", a, "--n", str(N + 1), "--method", "mle",
                  "--bootstrap", "0", "--metric", "recall@10"],
                 ["compare", a, b, "--n", str(N + 1), "--method", "cls",
                  "--metric", "recall@10", "--bootstrap", "100"]):
        code, by_name, err = run_cli(capsys, *argv, "--evaluator", "elliot", "--format", "csv")
        assert code == 0, err
        code, by_hand, err = run_cli(capsys, *argv, "--m", "100", "--sampling",
                                     "hypergeometric", "--format", "csv")
        assert code == 0, err
        assert by_name == by_hand
    # bound: SASRec's published HR@10 and NDCG@10 under its own law, m = its 100
    code, out, err = run_cli(capsys, "bound", "--n", "3417", "--observed",
                             "hr@10=0.8245,ndcg@10=0.5905", "--evaluator", "sasrec",
                             "--format", "csv")
    assert code == 0, err
    own = pd.read_csv(pd.io.common.StringIO(out))
    code, out, err = run_cli(capsys, "bound", "--n", "3417", "--m", "100", "--observed",
                             "hr@10=0.8245,ndcg@10=0.5905", "--format", "csv")
    generic = pd.read_csv(pd.io.common.StringIO(out))
    # a self-draw can only push the positive down: the same published values need a better
    # full ranking under SASRec's law than under the generic one
    assert (own.high >= generic.high - 1e-9).all() and (own.high > generic.high).any()
    # one rule for a law and an evaluator: the law of its draws is accepted, another refused
    code, out, _ = run_cli(capsys, "bound", "--n", "3417", "--observed", "hr@10=0.8245,"
                           "ndcg@10=0.5905", "--evaluator", "sasrec", "--sampling", "binomial",
                           "--format", "csv")
    assert code == 0 and pd.read_csv(pd.io.common.StringIO(out)).equals(own)
    code, _, err = run_cli(capsys, "bound", "--n", "3417", "--observed", "hr@10=0.8",
                           "--evaluator", "sasrec", "--sampling", "hypergeometric")
    assert code == 2 and ("--sampling 'hypergeometric' contradicts --evaluator 'sasrec', whose "
                          "ranks follow the binomial law") in err
    code, _, err = run_cli(capsys, "bound", "--n", "3417", "--observed", "hr@10=0.8",
                           "--evaluator", "bert4rec")
    assert code == 2 and "evaluator 'bert4rec': negatives drawn distinct" in err


@pytest.mark.parametrize("name", sorted(SIMULATED))
def test_the_librarys_simulation_draws_by_the_same_law(name):
    """simulate_candidates and reported_ranks (the evaluator-cost study's draws) against
    the law, and from_scores' rows of the same draws against the binomial or
    hypergeometric law they are corrected under."""
    from sampled_metrics.evaluators import reported_ranks, simulate_candidates
    N, x, m = 250, 30, 100
    rng = np.random.default_rng([len(name), 1])
    scores, items = simulate_candidates(name, np.full(REPS, x), N, rng, m=m)
    ranks = reported_ranks(name, scores, items, rng)
    law = reported_rank_pmf(name, N, m, x=[x])[0]
    assert chi_square_p(np.bincount(ranks - 1, minlength=m + 1), REPS * law) > ALPHA
    table = from_scores(scores, N, evaluator=name, items=items)
    sampling = get_evaluator(name).sampling
    expected = np.zeros(m + 1)
    for d, count in table.n_negatives.value_counts().items():
        pmf = (stats.binom.pmf(np.arange(d + 1), d, x / N) if sampling == "binomial" else
               stats.hypergeom.pmf(np.arange(d + 1), N, x, d))
        expected[:d + 1] += count * pmf
    assert chi_square_p(np.bincount(table.position - 1, minlength=m + 1), expected) > ALPHA


def test_evaluator_cost_study_corrects_the_same_draws_both_ways(tmp_path):
    from conftest import toy_rank_file
    from sampled_metrics.workflow.steps.evaluator_cost import cost_frame, cost_summary
    rng = np.random.default_rng(2)
    exact = np.minimum(rng.geometric(0.01, 700), 1200)
    path = tmp_path / "T.npz"
    toy_rank_file(exact, 1200, 20, rng, repeats=1, recommender="T").write(path)
    frame = cost_frame({"T": str(path)}, evaluators=["rechorus-replacement", "sasrec"],
                       repeats=range(2))
    assert len(frame) == 2 * 2 * 2 * 2 * 2      # evaluators, repeats, metrics, laws, corrections
    truth = parse_metric("ndcg@10").mean(exact, np.full(exact.size, 1200))
    assert np.allclose(frame[frame.metric == "ndcg@10"].exact, truth)
    wide = frame.pivot_table(index=["evaluator", "repeat", "metric", "correction"],
                             columns="law", values="value")
    # no self-draws, duplicates counted: the printed rank is the row, the law the same
    same = wide.loc["rechorus-replacement"]
    assert np.allclose(same["own"], same["generic"])
    # SASRec: the printed rank carries the self-draw ties, the rows do not
    assert not np.allclose(wide.loc["sasrec"]["own"], wide.loc["sasrec"]["generic"])
    summary = cost_summary(frame)
    assert set(summary.covers[summary.correction == "cls"]) == {""}
    assert summary.covers[summary.correction == "recommended"].str.startswith("; covers").all()
