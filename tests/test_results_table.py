"""The results table of k models (`sampled-metrics table`, `compare.table.results_table`):
each model's rows are `correct`'s, each pair's verdict is `compare`'s at the level the
family-wise procedure sets, the family-wise error on simulated evaluations with known truth
stays within its bound, and the outputs have the structure a paper and a terminal need."""
import io
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli, toy_rank_file
from threadpoolctl import threadpool_limits

from sampled_metrics.compare.familywise import familywise_levels, sorted_positions
from sampled_metrics.compare.paired import compare_positives, compare_ranks
from sampled_metrics.compare.table import VERDICT_METHODS, results_table
from sampled_metrics.intervals.table import correct, correct_positions
from sampled_metrics.metrics import parse_metric
from sampled_metrics.multipositive.longformat import read_long
from sampled_metrics.sampling import draw_sampled_ranks
from sampled_metrics.writers import latex_escape

N, M, USERS = 600, 30, 800
METRICS = ["recall@10", "ndcg@10"]


def _true_ranks(scales, users, rng):
    """True ranks of ``len(scales)`` models sharing each user's difficulty: the larger the
    scale, the lower (worse) the ranks."""
    z = rng.random(users)
    return [np.clip(np.ceil(s * z ** 2.5 * N + rng.integers(0, 5, users)), 1, N).astype(int)
            for s in scales]


@pytest.fixture(scope="module")
def sampled():
    rng = np.random.default_rng(7)
    ranks = _true_ranks([0.2, 0.25, 0.6, 0.6], USERS, rng)
    return {name: draw_sampled_ranks(r, N, M, rng=rng) for name, r in zip("WXYZ", ranks)}


@pytest.fixture(scope="module")
def table(sampled):
    with threadpool_limits(1):
        return results_table(sampled, METRICS, ["recommended", "sampled", "cls"], n=N, m=M,
                             bootstrap=800, seed=3)


def test_each_models_rows_are_corrects(sampled, table):
    # bit-identical: the same calls on the same ranks, BLAS on one thread in both
    with threadpool_limits(1):
        for name, ranks in sampled.items():
            want = correct(ranks, N, M, METRICS, ["recommended", "sampled", "cls"],
                           bootstrap=800, seed=3)
            got = table.models[table.models.model == name].drop(
                columns=["model", "letter", "beats"]).reset_index(drop=True)
            pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_models_are_ordered_and_lettered_by_the_recommended_value(table):
    rows = table.models[(table.models.correction == "recommended")
                        & (table.models.metric == METRICS[0])]
    assert rows.value.is_monotonic_decreasing
    assert rows.letter.tolist() == ["a", "b", "c", "d"]


def test_each_verdict_is_compares_at_its_level(sampled, table):
    for pair in table.pairs.itertuples():
        with threadpool_limits(1):
            # the pair alone with the same seed: the same resampled users, so the same
            # replicates and interval ends, bit for bit
            want = compare_ranks({pair.a: sampled[pair.a], pair.b: sampled[pair.b]}, N, M,
                                 METRICS, [VERDICT_METHODS["ranks"]], level=pair.level,
                                 bootstrap=800, seed=3)
        row = want[want.metric == pair.metric].iloc[0]
        assert (row.verdict, row.low, row.high) == (pair.verdict, pair.low, pair.high)
        assert pair.level >= 0.95


def test_beats_are_the_confident_verdicts(table):
    letters = dict(zip(table.models.model, table.models.letter))
    for row in table.models[table.models.correction == "recommended"].itertuples():
        mine = table.pairs[table.pairs.metric == row.metric]
        won = mine[(mine.a == row.model) & (mine.verdict == "a_better")].b.tolist() + \
            mine[(mine.b == row.model) & (mine.verdict == "b_better")].a.tolist()
        assert row.beats == "".join(sorted(letters[x] for x in won))
    assert (table.models[table.models.correction != "recommended"].beats == "").all()
    assert "family-wise level 0.95" in table.notes[0]


def test_holm_levels_follow_its_steps(sampled):
    t = results_table(sampled, METRICS, ["sampled"], n=N, m=M, familywise="holm",
                      bootstrap=2 * 12 * 20, seed=1)
    H = len(t.pairs)
    # each level is 1 - alpha / R for the R comparisons still open at its step
    steps = {round(0.05 / (1 - x)) for x in t.pairs.level}
    assert steps <= set(range(1, H + 1)) and max(steps) == H


def test_processes_do_not_change_the_table(sampled, table):
    with threadpool_limits(1):
        two = results_table(sampled, METRICS, ["recommended", "sampled", "cls"], n=N, m=M,
                            bootstrap=800, seed=3, processes=2)
    # bit-identical: each model's answer is the same call in a worker (map_items)
    pd.testing.assert_frame_equal(two.models, table.models, check_exact=True)
    pd.testing.assert_frame_equal(two.pairs, table.pairs, check_exact=True)


def _long_frame(positions, pool):
    users = np.repeat(np.arange(positions.shape[0]), positions.shape[1])
    return pd.DataFrame({"user": [f"u{u}" for u in users], "position": positions.ravel(),
                         "n_nonrelevant": np.repeat(pool, positions.shape[1]),
                         "n_negatives": M})


def test_long_format_rows_and_verdicts_are_correct_positions_and_compare_positives():
    rng = np.random.default_rng(2)
    users = 400
    pool = N - rng.integers(0, 50, users)
    frames = {}
    for name, p in (("A", 0.2), ("B", 0.05), ("C", 0.05)):
        first = np.minimum(rng.geometric(p, users), M)
        second = np.minimum(first + 1 + rng.integers(0, 3, users), M + 2)
        frames[name] = _long_frame(np.stack([first, second], axis=1), pool)
    with threadpool_limits(1):
        t = results_table(frames, METRICS, ["recommended", "cls"], bootstrap=600, seed=5)
        for name, frame in frames.items():
            want = correct_positions(frame, METRICS, ["recommended", "cls"], bootstrap=600,
                                     seed=5)
            got = t.models[t.models.model == name].drop(columns=["model", "letter", "beats"])
            pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_exact=True)
        tables = {x: read_long(f).table for x, f in frames.items()}
        for pair in t.pairs.itertuples():
            want = compare_positives({pair.a: tables[pair.a], pair.b: tables[pair.b]},
                                     METRICS, ["bv_0.1"], level=pair.level, bootstrap=600,
                                     seed=5)
            row = want[want.metric == pair.metric].iloc[0]
            assert (row.verdict, row.low, row.high) == (pair.verdict, pair.low, pair.high)
    assert t.method == "bv_0.1" and t.n is None and "several positives" in t.notes[1]


@pytest.mark.slow
def test_familywise_error_on_known_truth_stays_within_its_bound():
    """Five models of one law (every pair's exact difference is the users' noise, the
    hardest case): over R simulated evaluations the share with any confidently wrong verdict
    (against the exact difference of the same users) is at most alpha plus three binomial
    standard errors, for both procedures. (Each pair read at 0.95 alone, compare's own
    level, is wrong in about a fifth of these evaluations.)"""
    rng = np.random.default_rng(11)
    repeats, alpha = 60, 0.05
    wrong = {"maxstat": 0, "holm": 0}
    for _ in range(repeats):
        ranks = _true_ranks([0.3] * 5, 1000, rng)
        sampled = {f"R{i}": draw_sampled_ranks(r, N, M, rng=rng) for i, r in enumerate(ranks)}
        exact = {f"R{i}": [parse_metric(x).weights(N)[r - 1].mean() for x in METRICS]
                 for i, r in enumerate(ranks)}
        seed = int(rng.integers(1 << 30))
        for procedure in wrong:
            t = results_table(sampled, METRICS, ["sampled"], n=N, m=M, familywise=procedure,
                              seed=seed).pairs
            truth = np.array([np.sign(exact[a][METRICS.index(x)] - exact[b][METRICS.index(x)])
                              for a, b, x in zip(t.a, t.b, t.metric)])
            said = np.where(t.verdict == "a_better", 1,
                            np.where(t.verdict == "b_better", -1, 0))
            wrong[procedure] += bool(np.any((said != 0) & (said != truth)))
    bound = alpha + 3 * np.sqrt(alpha * (1 - alpha) / repeats)   # 3 binomial SE above alpha
    for procedure, count in wrong.items():
        assert count / repeats <= bound, (procedure, count)


def test_sorted_positions_are_scipys_average_ranks():
    from scipy import stats
    rng = np.random.default_rng(5)
    for X in (rng.integers(0, 6, (300, 4, 2)).astype(float), rng.standard_normal((301, 3))):
        assert np.array_equal(sorted_positions(X), stats.rankdata(X, axis=0) - 1)


def test_familywise_levels_hold_jointly_on_the_replicates():
    """In the bootstrap world the max-statistic level covers every statistic of a replicate
    jointly in a share >= 1 - alpha of the replicates (by construction)."""
    rng = np.random.default_rng(4)
    common = rng.standard_normal((4000, 1, 1))
    reps = 0.7 * common + 0.3 * rng.standard_normal((4000, 30, 2))     # correlated family
    levels, _ = familywise_levels(reps, 0.9)
    lo, hi = np.quantile(reps, [(1 - levels[0]) / 2, (1 + levels[0]) / 2], axis=0)
    inside = ((reps >= lo) & (reps <= hi)).all(axis=(1, 2)).mean()
    assert inside >= 0.9
    assert levels[0] < 1 - 0.1 / 60             # below Bonferroni over 30 x 2 statistics


# --- the command line ---

@pytest.fixture()
def files(tmp_path, sampled):
    paths = []
    for name, ranks in sampled.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(map(str, ranks)) + "\n")
        paths.append(str(path))
    return paths


ARGS = ["--n", str(N), "--m", str(M), "--bootstrap", "800", "--seed", "3"]


def test_csv_is_the_tidy_rows(capsys, files, table):
    code, out, err = run_cli(capsys, "table", *files, *ARGS, "--metric", ",".join(METRICS),
                             "--method", "recommended,sampled,cls", "--format", "csv")
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert frame.columns.tolist() == table.models.columns.tolist()
    assert frame.model.tolist() == table.models.model.tolist()
    assert frame.beats.tolist() == table.models.beats.tolist()
    assert "family-wise level 0.95" in err


def test_terminal_table_fits_100_columns(capsys, files):
    code, out, err = run_cli(capsys, "table", *files, *ARGS, "--metric",
                             "recall@10,ndcg@10,ap,mrr@10,hit@5")
    assert code == 0, err
    lines = out.splitlines()
    assert max(map(len, lines)) <= 100
    blocks = out.split("\n\n")
    assert len(blocks) >= 3                        # the metrics in blocks, then the caption
    for block in blocks[:-1]:
        rows = block.splitlines()
        assert rows[0].split()[:2] == ["#", "model"] and len(rows) == 5
    assert "family-wise level 95 %" in " ".join(blocks[-1].split())


def _latex_rows(text):
    body = text.split("\\midrule\n")[1].split("\\bottomrule")[0]
    return [line.removesuffix(" \\\\") for line in body.strip().splitlines()]


def test_latex_is_booktabs_with_bold_best_and_letters(capsys, files, table):
    code, out, err = run_cli(capsys, "table", *files, *ARGS, "--metric", ",".join(METRICS),
                             "--method", "recommended,sampled,cls", "--format", "latex")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:3] == ["\\begin{table}[t]", "\\centering", "\\begin{tabular}{clcc}"]
    assert lines[3] == "\\toprule" and "\\midrule" in lines and "\\bottomrule" in lines
    assert lines[-1] == "\\end{table}" and lines[-2].startswith("\\caption{")
    caption = lines[-2]
    verdicts = latex_escape(f"the {VERDICT_METHODS['ranks']} verdict")
    for part in ("with replacement", "n = 600", "m = 30", verdicts, "family-wise level 95 \\%",
                 "max-statistic"):
        assert part in caption, part
    assert out.count("{") == out.count("}")
    rows = [re.split(r"(?<!\\)&", row) for row in _latex_rows(out)]
    assert all(len(row) == 4 for row in rows)
    heads = table.models[table.models.correction == "recommended"]
    for j, metric in enumerate(METRICS):
        cells = [row[2 + j] for row in rows]
        best = heads[heads.metric == metric].value.max()
        bold = [cell.strip().startswith("\\textbf") for cell in cells]
        values = heads[heads.metric == metric].value.tolist()
        assert bold == [v == best for v in values]
        letters = [re.findall(r"\$\^\{([a-z]+)\}\$", cell) for cell in cells]
        assert [x[0] if x else "" for x in letters] == heads[heads.metric == metric].beats.tolist()


@pytest.mark.skipif(not shutil.which("pdflatex"), reason="no LaTeX engine (pdflatex) installed")
def test_latex_compiles(capsys, files, tmp_path):
    code, out, err = run_cli(capsys, "table", *files, *ARGS, "--format", "latex")
    assert code == 0, err
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\\usepackage{booktabs}\\begin{document}\n" + out
                   + "\\end{document}\n")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_markdown_has_a_row_per_model_and_the_caption(capsys, files):
    code, out, err = run_cli(capsys, "table", *files, *ARGS, "--metric", "recall@10",
                             "--format", "markdown")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0] == "| # | model | recall@10 |" and lines[1] == "|---|---|---|"
    assert [line.split(" | ")[0] for line in lines[2:6]] == ["| a", "| b", "| c", "| d"]
    assert sum("**" in line for line in lines[2:6]) == 1
    assert lines[-1].startswith("recall@10 in %:")


def test_pairs_print_each_pairs_level(capsys, files, table):
    code, out, err = run_cli(capsys, "table", *files, *ARGS, "--metric", ",".join(METRICS),
                             "--method", "recommended,sampled,cls", "--pairs", "--format",
                             "csv")
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert frame.verdict.tolist() == table.pairs.verdict.tolist()
    assert np.allclose(frame.level, table.pairs.level, rtol=1e-5)   # CSV keeps 6 digits


def test_rank_files_and_their_recommenders(tmp_path, capsys):
    rng = np.random.default_rng(3)
    paths = []
    for name, p in (("X", 0.05), ("Y", 0.02), ("Z", 0.02)):
        f = toy_rank_file(np.minimum(rng.geometric(p, 300), 400), 400, 30, rng, repeats=2,
                          recommender=name)
        paths.append(str(f.write(tmp_path / f"{name.lower()}.npz")))
    code, out, err = run_cli(capsys, "table", *paths, "--metric", "recall@10", "--method",
                             "recommended", "--bootstrap", "400", "--format", "csv")
    assert code == 0, err
    assert sorted(pd.read_csv(io.StringIO(out)).model) == ["X", "Y", "Z"]


@pytest.mark.parametrize("make, extra, message", [
    (lambda p: p[:1], [], "at least two files, got 1"),
    (lambda p: [p[0], p[0]], [], "are both named 'W'; give --names"),
    (lambda p: p[:2], ["--names", "A,A"], "--names names 'A' twice"),
    (lambda p: p[:3], ["--names", "A,B"], "--names must give one non-empty name per file"),
    (lambda p: p[:2], ["--verdict-method", "mle"], "cannot be 'mle'"),
    (lambda p: p[:2], ["--verdict-method", "cls,mes"], "the verdicts take one method"),
    (lambda p: p[:2], ["--thin-to", "5"], "--thin-to only applies"),
    (lambda p: p[:2], ["--bootstrap", "0"], "--bootstrap 0 is too few draws"),
    (lambda p: p[:3], ["--familywise", "holm", "--bootstrap", "100"],
     "needs at least 360 bootstrap draws, got 100"),
    (lambda p: p[:2] + ["SHORT"], [], "short.txt: 3 users, but"),
    (lambda p: p[:2] + ["LONG"], [], "takes the long position format"),
])
def test_bad_input_one_line(capsys, files, tmp_path, make, extra, message):
    short = tmp_path / "short.txt"
    short.write_text("1\n2\n3\n")
    long = tmp_path / "long.csv"
    long.write_text("user,position,n_nonrelevant,n_negatives\nu1,3,500,30\nu2,1,500,30\n")
    paths = [{"SHORT": str(short), "LONG": str(long)}.get(x, x) for x in make(files)]
    code, out, err = run_cli(capsys, "table", *paths, "--n", str(N), "--m", str(M), *extra)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_long_files_of_other_users_are_refused(capsys, tmp_path):
    header = "user,position,n_nonrelevant,n_negatives\n"
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(header + "u1,3,500,30\nu2,1,500,30\nu3,5,500,30\n")
    b.write_text(header + "u1,3,500,30\nu2,1,500,30\nu9,5,500,30\n")
    code, out, err = run_cli(capsys, "table", str(a), str(b), "--method", "sampled")
    assert code == 2 and f"{b}: the inputs hold different users" in err \
        and "user 'u9' is in" in err and err.count("\n") == 1, err
    b.write_text(header.replace("\n", ",evaluator\n")
                 + "u1,3,500,30,rechorus\nu2,1,500,30,rechorus\nu3,5,500,30,rechorus\n")
    a.write_text(header.replace("\n", ",evaluator\n")
                 + "u1,3,500,30,ncf\nu2,1,500,30,ncf\nu3,5,500,30,ncf\n")
    code, out, err = run_cli(capsys, "table", str(a), str(b), "--method", "sampled")
    assert code == 2 and f"{a} names evaluator ncf, but {b} names rechorus" in err \
        and err.count("\n") == 1, err


def test_table_repeats_is_the_table_of_each_repeat_scored_against_the_exact_order():
    """table_repeats gives, per repeat and variant, results_table's pairs on that repeat's
    ranks (same seed plumbing) with the exact difference, and familywise_summary counts
    the repeats with any confidently wrong verdict and the share of exact orders found."""
    from sampled_metrics.compare.repeats import familywise_summary, table_repeats

    rng = np.random.default_rng(11)
    files = {name: toy_rank_file(r, N, M, rng, repeats=3)
             for name, r in zip("ABC", _true_ranks([0.2, 0.22, 0.6], USERS, rng))}
    variants = [("mes", "maxstat"), ("sampled", "holm")]
    with threadpool_limits(1):
        pairs, models = table_repeats(files, M, METRICS, variants, seed=5, bootstrap=400)
        again = results_table({k: f.sampled_ranks(M, 2) for k, f in files.items()}, METRICS,
                              ["sampled"], n=N, m=M, verdict_method="sampled",
                              familywise="holm", seed=5 + 2, bootstrap=400)
    mine = pairs[(pairs.repeat == 2) & (pairs.method == "sampled")].reset_index(drop=True)
    assert mine[list(again.pairs.columns)].equals(again.pairs)
    exact = {(k, x): parse_metric(x).mean(f.exact, f.n_u) for k, f in files.items()
             for x in METRICS}
    assert pairs.exact_difference.tolist() == [exact[(a, x)] - exact[(b, x)] for a, b, x in
                                               zip(pairs.a, pairs.b, pairs.metric)]
    confident = pairs.verdict != "not_distinguishable"
    assert not (pairs.wrong & pairs.found).any() and (confident == pairs.wrong | pairs.found).all()
    right = np.where(pairs.verdict == "a_better", 1, -1) == np.sign(pairs.exact_difference)
    assert (pairs.found == confident & right).all()
    summary = familywise_summary(pairs).set_index(["method", "familywise"])
    for (method, fw), part in pairs.groupby(["method", "familywise"]):
        row = summary.loc[(method, fw)]
        assert row.repeats == 3 and row.comparisons == 3 * len(METRICS)
        assert row.familywise_wrong == part.groupby("repeat").wrong.any().sum()
        assert row.power == part.found.sum() / (3 * (part[part.repeat == 0]
                                                     .exact_difference != 0).sum())
    heads = models[models.method == "mes"]
    assert set(heads.correction) == {"recommended"}
    assert (heads.covers_exact == ((heads.ci_low <= heads.exact)
                                   & (heads.exact <= heads.ci_high))).all()


@pytest.mark.parametrize("H, S, level", [(60, 2, 0.95), (60, 1, 0.95), (45, 2, 0.9),
                                         (7, 2, 0.99)])
def test_familywise_draws_are_the_fewest_that_read_the_worst_family(H, S, level):
    """The worst family for the max-statistic procedure puts every statistic's most extreme
    draws (its min and its max) on draws of their own: 2 H S draws of extremity 1. With
    familywise_draws(H, S) draws it is read; with one draw fewer it is refused."""
    from sampled_metrics.compare.familywise import familywise_draws

    need = familywise_draws(H, S, level, least=1)

    def worst(B):
        X = np.tile(np.linspace(-1, 1, B - 2 * H * S)[:, None], (1, H * S)) + 1.0
        X = np.vstack([X, np.full((2 * H * S, H * S), 1.0)])     # mid values elsewhere
        for j in range(H * S):
            X[B - 2 * H * S + 2 * j, j], X[B - 2 * H * S + 2 * j + 1, j] = 10.0, -10.0
        return X.reshape(B, H, S)

    levels, _ = familywise_levels(worst(need), level)
    assert np.all(levels < 1)
    with pytest.raises(ValueError, match="too few"):
        familywise_levels(worst(need - 1), level)


def test_names_are_read_in_any_case(sampled):
    """'Recommended' and 'CLS' are the registry's names: the same table, the recommended
    row the headline."""
    with threadpool_limits(1):
        a = results_table(sampled, METRICS, ["Recommended", "CLS"], n=N, m=M, bootstrap=400)
        b = results_table(sampled, METRICS, ["recommended", "cls"], n=N, m=M, bootstrap=400)
    assert a.headline == "recommended" and a.models.equals(b.models)
