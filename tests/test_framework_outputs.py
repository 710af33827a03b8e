"""The guide's recipes (docs/guide/evaluators.md) on what the frameworks' own code wrote.

The fixtures under tests/fixtures/<framework>/ were written by each framework's own code run
on the project's own data (each folder's README.md gives the commit and the commands; its
regenerate_<framework>.py writes them again). Each test reads them as the guide's recipe
does and checks the long format's positions against the framework's own per-row ranks and
its printed metrics, and that the recommended interval holds the full-ranking metric of the
same model.
"""
import importlib.util
import io
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

from sampled_metrics.datasets.ncf import read_ncf
from sampled_metrics.metrics import parse_metric

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SASREC, NCF = FIXTURES / "sasrec", FIXTURES / "ncf"
BERT4REC, ELLIOT = FIXTURES / "bert4rec-pytorch", FIXTURES / "elliot"
EPS = np.finfo(float).eps


def sequences() -> dict:
    """{user: items in time order} of the sequential data the SASRec, BERT4Rec-port and
    Elliot fixtures share (toyseq.txt)."""
    data = np.loadtxt(SASREC / "toyseq.txt", dtype=np.int64)
    return {int(u): data[data[:, 0] == u, 1] for u in np.unique(data[:, 0])}


def guide_block(section: str) -> str:
    """The Python block of a section of docs/guide/evaluators.md."""
    text = (ROOT / "docs" / "guide" / "evaluators.md").read_text()
    text = text[text.index(f"\n## {section}\n"):]
    return re.search(r"```python\n(.*?)```", text[:text.index("\n## ", 1)], re.S).group(1)


def recommended(capsys, long_csv: Path) -> dict:
    """``sampled-metrics correct --ranks LONG --metric hit@10,ndcg@10`` as the guide writes
    it (the file's evaluator column names the law): {metric: (ci_low, ci_high)} of the
    recommended rows."""
    code, out, err = run_cli(capsys, "correct", "--ranks", str(long_csv), "--metric",
                             "hit@10,ndcg@10", "--method", "recommended", "--format", "csv")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    return {row.metric: (row.ci_low, row.ci_high) for row in table.itertuples()}


# ------------------------------------------------------------------------------- SASRec
def _sasrec():
    """(the recipe's long format, the fixture's rows: SASRec's rank, candidates, full
    ranking; the candidates as an array)."""
    long = pd.read_csv(SASREC / "sasrec_long.csv")
    rows = pd.read_csv(SASREC / "sasrec_rows.csv")
    ids = np.array([list(map(int, s.split())) for s in rows.item_idx])
    return long, rows, ids


def test_sasrec_rows_are_its_evaluated_users_and_pools():
    """One row per user SASRec evaluates (4 or more interactions: training = all but the
    last two), N = the items randint may keep (1..itemnum outside the training sequence)
    but the positive, which is the user's last item."""
    seqs = sequences()
    itemnum = int(max(s.max() for s in seqs.values()))
    long, rows, ids = _sasrec()
    evaluated = [u for u, s in seqs.items() if s.size >= 4]
    assert rows.user.tolist() == evaluated and len(long) == len(evaluated)
    for r, u in enumerate(evaluated):
        train = set(seqs[u][:-2].tolist())
        assert ids[r, 0] == seqs[u][-1] and ids[r, 0] not in train
        assert not train & set(ids[r, 1:].tolist())            # drawn outside the training
        assert rows.pool[r] == itemnum - len(train)
    assert (long.n_nonrelevant == rows.pool - 1).all()


def test_sasrec_positions_are_its_own_ranks():
    """The position is SASRec's rank + 1 where no candidate ties the positive; a self-draw
    (the positive drawn as a negative: same item, same score) is dropped, so SASRec's
    unstable argsort may have put it above: rank + 1 - S <= position <= rank + 1."""
    long, rows, ids = _sasrec()
    self_draws = (ids[:, 1:] == ids[:, [0]]).sum(axis=1)
    assert (long.n_negatives == 100 - self_draws).all()
    assert (rows.tied == 0).all()          # no distinct item scored the positive's float32
    plain = self_draws == 0
    assert plain.sum() > 100 and (~plain).sum() > 50
    assert (long.position[plain] == rows["rank"][plain] + 1).all()
    above = rows["rank"] + 1 - long.position
    assert ((above >= 0) & (above <= self_draws)).all()
    assert above.max() > 0                 # the argsort did put some self-draws above


def test_sasrec_ranks_give_its_printed_metrics():
    """SASRec's own ranks give the NDCG@10 and HR@10 it printed (to its 4 decimals), and
    the long format's positions give the same HR@10 where no self-draw moved a rank across
    10."""
    printed = re.search(r"test \(NDCG@10: ([\d.]+), HR@10: ([\d.]+)\)",
                        (SASREC / "evaluate.log").read_text())
    long, rows, _ = _sasrec()
    rank = rows["rank"].to_numpy() + 1
    # printed with %.4f: off by <= 0.5e-4, plus the rounding of a mean of 400 terms
    tol = 0.5e-4 + len(rank) * EPS
    assert abs(parse_metric("ndcg@10").mean(rank) - float(printed.group(1))) <= tol
    assert abs(parse_metric("hit@10").mean(rank) - float(printed.group(2))) <= tol
    moved = (long.position <= 10) != (rank <= 10)
    assert parse_metric("hit@10").mean(long.position) == pytest.approx(
        parse_metric("hit@10").mean(rank) + moved.sum() / len(rank), abs=tol)


def test_sasrec_recommended_interval_holds_its_full_ranking(capsys):
    """The full ranking of the same model: the test item among every item of SASRec's pool
    (1..itemnum outside the training sequence), scored by one model.predict call."""
    _, rows, _ = _sasrec()
    assert (rows.full_tied == 0).all()
    rank, n = rows.full_above.to_numpy() + 1, rows.pool.to_numpy()
    intervals = recommended(capsys, SASREC / "sasrec_long.csv")
    for metric, (low, high) in intervals.items():
        assert low <= parse_metric(metric).mean(rank, n) <= high, metric


# ---------------------------------------------------------------------------------- NCF
@pytest.fixture
def ncf(tmp_path, monkeypatch):
    """The guide's NCF block run as written, with the stand-in model that scored NCF's own
    evaluation and the fixture's files for NCF's Data/ml-1m: (its candidates, scores and
    the long format it wrote, read back; NCF's own per-line results; the model)."""
    spec = importlib.util.spec_from_file_location("ncf_standin", NCF / "ncf_standin.py")
    standin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(standin)
    block = guide_block("NCF")
    assert block.count('candidates("Data", "ml-1m")') == 1
    monkeypatch.chdir(tmp_path)
    names = {"model": standin.StandIn(NCF)}
    exec(block.replace('candidates("Data", "ml-1m")', f'candidates({str(NCF)!r}, "toy")'),
         names)
    table = pd.read_csv(tmp_path / "ncf_long.csv")
    own = pd.read_csv(NCF / "ncf_eval.csv")
    assert own.user.tolist() == names["found"].users.tolist() == table.user.tolist()
    return names["found"], names["scores"], table, own, names["model"]


def test_ncf_positions_are_its_own_ranks(ncf):
    """NCF's rank of every line (its NDCG with topK = 100 is log 2 / log(rank + 1)) is the
    position, but on a line holding the test item that ties a negative coming after it in
    the line: NCF's dict keeps the item's place in the line, so that negative goes below;
    the position counts every tie above (the catalogue's rule for NCF)."""
    found, scores, table, own, _ = ncf
    ncf_rank = np.exp(math.log(2) / own.ndcg100.to_numpy()) - 1
    # log(2)/ndcg is log(rank + 1) <= log(101) to <= 4 eps relative; exp turns that
    # absolute error (<= 19 eps) into a relative one, plus its own rounding
    assert (np.abs(ncf_rank - np.rint(ncf_rank)) <= (ncf_rank + 1) * 24 * EPS).all()
    ncf_rank = np.rint(ncf_rank).astype(int)
    held = found.items[:, -1]
    place = np.where(found.items[:, :-1] == held[:, None], np.arange(99), 99).min(axis=1)
    tied = scores[:, :-1] == scores[:, [-1]]
    after = (tied & (np.arange(99) > place[:, None])).sum(axis=1)
    assert (table.position - after == ncf_rank).all()
    own_line = np.isin(found.users, found.self_lines)
    assert (after[~own_line] == 0).all() and after.max() > 0
    assert (table.n_negatives == np.where(own_line, 98, 99)).all()
    assert tied.any(axis=1).sum() > 50       # the tie rule is exercised off those lines too


def test_ncf_hits_and_ndcgs_are_its_own(ncf):
    """NCF's per-line hit and NDCG (topK = 10) are the project's hit@10 and ndcg@10 of its
    rank, and their means are the line NeuMF.py prints."""
    _, _, _, own, _ = ncf
    rank = np.rint(np.exp(math.log(2) / own.ndcg100.to_numpy()) - 1)
    assert (own.hr10 == parse_metric("hit@10")(rank)).all()
    # log(2)/log(r+1) against 1/log2(r+1): two roundings each side
    np.testing.assert_allclose(own.ndcg10, parse_metric("ndcg@10")(rank), rtol=4 * EPS)
    printed = re.search(r"HR = ([\d.]+), NDCG = ([\d.]+)", (NCF / "evaluate.log").read_text())
    tol = 0.5e-4 + len(rank) * EPS            # %.4f, and a mean of 400 terms
    assert abs(own.hr10.mean() - float(printed.group(1))) <= tol
    assert abs(own.ndcg10.mean() - float(printed.group(2))) <= tol


def test_ncf_recommended_interval_holds_its_full_ranking(ncf, capsys, tmp_path):
    """The full ranking of the stand-in model: the test item among every item outside the
    user's training set, a tie counted above (NCF's rule for the test item inserted last)."""
    _, _, table, _, model = ncf
    every = model.every()
    # integers below 2**24: the float32 the stand-in returned to NCF held them exactly
    assert np.abs(every).max() < 2 ** 24
    split, _ = read_ncf(NCF, "toy")
    truth = []
    for r, u in enumerate(split.users):
        pool = np.ones(every.shape[1], dtype=bool)
        pool[split.train[u].indices] = False
        truth.append(((every[u, pool] >= every[u, split.test_items[r]]).sum(), pool.sum()))
    truth = np.array(truth)
    assert (table.n_nonrelevant == truth[:, 1] - 1).all()
    for metric, (low, high) in recommended(capsys, tmp_path / "ncf_long.csv").items():
        assert low <= parse_metric(metric).mean(truth[:, 0], truth[:, 1]) <= high, metric


# ------------------------------------------------------------------- the BERT4Rec port
def test_bert4rec_port_positions_are_its_own_ranks():
    """The position is the port's rank (its recalls_and_ndcgs_for_ks on the row alone);
    100 distinct negatives from N = the ids its sampler may draw (the positive not among
    them, so N is the pool itself)."""
    long = pd.read_csv(BERT4REC / "bert4rec_long.csv")
    rows = pd.read_csv(BERT4REC / "bert4rec_rows.csv")
    assert len(long) == len(sequences()) == len(rows)
    assert (long.position == rows["rank"]).all()
    assert (long.n_negatives == 100).all() and (long.n_nonrelevant == rows.pool).all()
    # its sampler: ids 1..N (N = the items, 0..N-1 inside) outside the user's items
    sizes = np.array([np.unique(s).size for s in sequences().values()])
    assert ((rows.pool >= 300 - sizes) & (rows.pool <= 300 - sizes + 1)).all()


def test_bert4rec_port_prints_means_of_batch_means():
    """test_metrics.json (the port's own file) holds, for each k, the mean over test batches
    of 128 users (the template's batch) of the batch means of Recall@k (= hit@k with one
    answer) and NDCG@k of its ranks: not the mean over users when the last batch is short."""
    rank = pd.read_csv(BERT4REC / "bert4rec_rows.csv")["rank"].to_numpy()
    printed = pd.read_json(BERT4REC / "test_metrics.json", typ="series")
    # a batch mean of <= 128 float32 terms in [0, 1]: <= 128 roundings of eps32 / 128 each,
    # twice over (the terms and the sum)
    tol = 2 * 128 * np.finfo(np.float32).eps / 128
    for k in (1, 5, 10, 20, 50, 100):
        for own, ours in (("Recall", "hit"), ("NDCG", "ndcg")):
            batches = [parse_metric(f"{ours}@{k}").mean(rank[i:i + 128])
                       for i in range(0, rank.size, 128)]
            assert abs(np.mean(batches) - printed[f"{own}@{k}"]) <= tol, (own, k)
    assert abs(parse_metric("ndcg@10").mean(rank) - printed["NDCG@10"]) > 100 * tol


def test_bert4rec_port_recommended_interval_holds_its_full_ranking(capsys):
    """The full ranking of the same model: model(seqs)[:, -1, :] over every id of the pool
    its sampler draws from, the test item ranked among them (n = N + 1)."""
    rows = pd.read_csv(BERT4REC / "bert4rec_rows.csv")
    assert (rows.full_tied == 0).all()
    rank, n = rows.full_above.to_numpy() + 1, rows.pool.to_numpy() + 1
    for metric, (low, high) in recommended(capsys, BERT4REC / "bert4rec_long.csv").items():
        assert low <= parse_metric(metric).mean(rank, n) <= high, metric


# --------------------------------------------------------------------------------- Elliot
def test_elliot_positions_are_its_own_ranks():
    """The guide's block on Elliot's saved lists: the position is the test item's place in
    Elliot's own ranked list of its candidates; N = the items (those of the data) outside
    the user's training and test items."""
    long = pd.read_csv(ELLIOT / "elliot_long.csv")
    rows = pd.read_csv(ELLIOT / "elliot_rows.csv")
    seqs = sequences()
    assert long.user.tolist() == rows.user.tolist() == sorted(seqs)
    assert (rows.tied == 0).all()          # no candidate scored the test item's float32
    assert (long.position == rows["rank"]).all() and (long.n_negatives == 100).all()
    items = np.unique(np.concatenate(list(seqs.values()))).size
    assert (long.n_nonrelevant == [items - np.unique(seqs[u]).size for u in long.user]).all()


def test_elliot_ranks_give_its_metrics():
    """Elliot's performance file: HR@10 and nDCGRendle2020@10, means over users of its
    ranks (a mean of 400 terms in [0, 1], summed in another order: 400 eps)."""
    rank = pd.read_csv(ELLIOT / "elliot_rows.csv")["rank"].to_numpy()
    printed = pd.read_csv(ELLIOT / "elliot_performance.tsv", sep="\t").iloc[0]
    assert abs(parse_metric("hit@10").mean(rank) - printed.HR) <= rank.size * EPS
    assert abs(parse_metric("ndcg@10").mean(rank) - printed.nDCGRendle2020) <= rank.size * EPS


def test_elliot_recommended_interval_holds_its_full_ranking(capsys):
    """Elliot's own full ranking of the same model (no negative sampling: the items outside
    the user's training set), n = N + 1."""
    long = pd.read_csv(ELLIOT / "elliot_long.csv")
    rows = pd.read_csv(ELLIOT / "elliot_rows.csv")
    assert (rows.full_tied == 0).all()
    rank, n = rows.full_rank.to_numpy(), long.n_nonrelevant.to_numpy() + 1
    for metric, (low, high) in recommended(capsys, ELLIOT / "elliot_long.csv").items():
        assert low <= parse_metric(metric).mean(rank, n) <= high, metric
