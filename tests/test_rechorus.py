"""The ReChorus adapter on files written as ReChorus' notebooks and main.py write them (a
re-implementation of the facts its entry states: ReChorus is not on the package index):
positions equal its metric's rank (pred >= pred[:, 0]).sum() with ties and repeats, the law
is read from the data, and the recommended interval holds the rows' full-ranking metric."""
import numpy as np
import pandas as pd
import pytest

from sampled_metrics.integrations.rechorus import long_format, read_candidates
from sampled_metrics.intervals import correct_positions
from sampled_metrics.metrics import parse_metric

ITEMS, USERS = 1500, 1200


def _write(folder, replacement: bool, seed: int = 0):
    """train/dev/test.csv (ML-1M notebook: distinct negatives; Amazon: with replacement) and
    rec-MF-test.csv with every candidate's score (sorted, the positive first among ties);
    returns the full ranks of the test rows (a negative with an equal score above)."""
    rng = np.random.default_rng(seed)
    folder.mkdir()
    quality = rng.normal(size=ITEMS + 1)
    rows = {"train.csv": [], "dev.csv": [], "test.csv": []}
    clicked = {}
    for u in range(1, USERS + 1):
        items = rng.choice(np.arange(1, ITEMS + 1), size=rng.integers(5, 20), replace=False)
        clicked[u] = set(items.tolist())
        rows["train.csv"] += [(u, int(i), t) for t, i in enumerate(items[:-2])]
        rows["dev.csv"].append((u, int(items[-2]), 90))
        rows["test.csv"].append((u, int(items[-1]), 99))
    for name in ("train.csv", "dev.csv"):
        pd.DataFrame(rows[name], columns=["user_id", "item_id", "time"]).to_csv(
            folder / name, sep="\t", index=False)
    test, recs, full = [], [], []
    for u, pos, t in rows["test.csv"]:
        pool = np.setdiff1d(np.arange(1, ITEMS + 1), sorted(clicked[u]))
        neg = rng.choice(pool, 99, replace=replacement)
        scores = np.round(quality + rng.normal(scale=2.0, size=ITEMS + 1), 1)  # some ties
        cands = np.r_[pos, neg]
        test.append((u, pos, t, str(neg.tolist())))
        order = sorted(zip(cands.tolist(), scores[cands].tolist()), key=lambda p: p[1],
                       reverse=True)[:100]
        recs.append((u, str([i for i, _ in order]), str([s for _, s in order])))
        full.append((1 + (scores[pool] >= scores[pos]).sum(), pool.size + 1,
                     1 + (scores[neg] >= scores[pos]).sum()))
    pd.DataFrame(test, columns=["user_id", "item_id", "time", "neg_items"]).to_csv(
        folder / "test.csv", sep="\t", index=False)
    pd.DataFrame(recs, columns=["user_id", "rec_items", "rec_predictions"]).to_csv(
        folder / "rec-MF-test.csv", sep="\t", index=False)
    return np.array(full)


@pytest.mark.parametrize("replacement", [False, True])
def test_long_format_follows_rechorus_rank_and_law(tmp_path, replacement):
    full = _write(tmp_path / "data", replacement)
    table = long_format(tmp_path / "data", tmp_path / "data" / "rec-MF-test.csv",
                        n_items=ITEMS)
    assert table.attrs["evaluator"] == ("rechorus-replacement" if replacement else "rechorus")
    assert (table.position.to_numpy() == full[:, 2]).all()      # ReChorus' own gt_rank
    assert (table.n_nonrelevant.to_numpy() == full[:, 1] - 1).all()
    assert (table.n_negatives == 99).all()
    result = correct_positions(table, ["hit@10", "ndcg@10"], ["recommended"],
                               evaluator=table.attrs["evaluator"])
    for row in result.itertuples():
        truth = parse_metric(row.metric).mean(full[:, 0], full[:, 1])
        assert row.ci_low <= truth <= row.ci_high, row.metric


def test_bad_rechorus_files_are_named(tmp_path):
    _write(tmp_path / "data", False)
    rows, items = read_candidates(tmp_path / "data")
    assert items.shape == (USERS, 100)
    frame = pd.read_csv(tmp_path / "data" / "test.csv", sep="\t")
    frame.loc[3, "neg_items"] = "[1, 2"
    frame.to_csv(tmp_path / "data" / "test.csv", sep="\t", index=False)
    with pytest.raises(ValueError, match="test.csv row 5: expected a list of item ids"):
        read_candidates(tmp_path / "data")
    frame.drop(columns="neg_items").to_csv(tmp_path / "data" / "test.csv", sep="\t",
                                           index=False)
    with pytest.raises(ValueError, match="no neg_items column"):
        read_candidates(tmp_path / "data")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no train.csv"):
        read_candidates(tmp_path / "empty")
