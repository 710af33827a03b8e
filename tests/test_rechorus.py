"""The ReChorus adapter on what ReChorus itself wrote (tests/fixtures/rechorus: a synthetic
dataset in the MovieLens-1M notebook's layout, and the rec-BPRMF-test.csv,
rec-SASRec-test.csv and printed metrics of ReChorus' own main.py on it;
make_rechorus_fixtures.py there regenerates them).

Read as the guide's recipe reads them (its blocks, run as written), every row's position is
ReChorus' own rank recomputed from its saved scores, the mean HR@k / NDCG@k are the ones it
printed, and the recommended interval holds the full-ranking value its ``--test_all 1`` run
printed for the same model. The laws (distinct and with replacement, the Amazon notebook's)
are checked on files written in ReChorus' layout with known full ranks; bad files are refused
in one line naming file, line and column or user.
"""
import ast
import json
import re
import shlex
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, run_cli

from sampled_metrics.integrations.rechorus import long_format
from sampled_metrics.intervals import correct_positions
from sampled_metrics.metrics import parse_metric

FIXTURES = Path(__file__).parent / "fixtures" / "rechorus"
RECORD = json.loads((FIXTURES / "metrics.json").read_text())
MODELS = list(RECORD["runs"])
#: ReChorus prints its metrics to 4 decimals: the value lies within half a unit of them
PRINTED = 0.5 * 10.0 ** -RECORD["printed_decimals"]
EPS = np.finfo(float).eps


def _recipe() -> tuple[str, str]:
    """The guide's ReChorus recipe: its Python block and its command line."""
    page = (ROOT / "docs" / "guide" / "evaluators.md").read_text()
    section = page.split("## ReChorus\n", 1)[1].split("\n## ", 1)[0]
    python = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    bash = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip()
    return python, bash


def _lay_out(root: Path, model: str) -> None:
    """The fixtures where the recipe looks, as ReChorus lays them out after its notebook
    and main.py: data/MovieLens_1M/ML_1MTOPK/ and log/<model>/<log name>/."""
    shutil.copytree(FIXTURES / RECORD["dataset"], root / "data" / "MovieLens_1M" / "ML_1MTOPK")
    rec = root / "log" / model / f"{model}__ML_1MTOPK__0__lr=0" / f"rec-{model}-test.csv"
    rec.parent.mkdir(parents=True)
    shutil.copyfile(FIXTURES / f"rec-{model}-test.csv", rec)


def _test_rows(model: str) -> list[int]:
    """The test.csv row of each line of the rec file: the row of the line's user whose item
    and neg_items are the line's rec_items."""
    test = pd.read_csv(FIXTURES / RECORD["dataset"] / "test.csv", sep="\t")
    rec = pd.read_csv(FIXTURES / f"rec-{model}-test.csv", sep="\t")
    found = []
    for user, ids in zip(rec.user_id, rec.rec_items):
        rows = [i for i, (u, item, neg) in enumerate(zip(test.user_id, test.item_id,
                                                          test.neg_items))
                if u == user and sorted([item, *ast.literal_eval(neg)]) == sorted(
                    ast.literal_eval(ids))]
        assert len(rows) == 1
        found.append(rows[0])
    return found


def _rechorus_ranks(model: str) -> dict:
    """ReChorus' own rank of each line of its rec file, by its rule gt_rank = #{candidates
    with score >= the positive's} (BaseRunner.evaluate_method), keyed by (user, positive)."""
    test = pd.read_csv(FIXTURES / RECORD["dataset"] / "test.csv", sep="\t")
    rec = pd.read_csv(FIXTURES / f"rec-{model}-test.csv", sep="\t")
    ranks = {}
    for row, ids, values in zip(_test_rows(model), rec.rec_items, rec.rec_predictions):
        user, positive = int(test.user_id[row]), int(test.item_id[row])
        ids, values = ast.literal_eval(ids), np.array(ast.literal_eval(values))
        ranks[user, positive] = int((values >= values[ids.index(positive)]).sum())
    return ranks


@pytest.mark.parametrize("model", MODELS)
def test_guide_recipe_on_rechorus_output(tmp_path, monkeypatch, capsys, model):
    python, bash = _recipe()
    _lay_out(tmp_path, model)
    monkeypatch.chdir(tmp_path)
    exec(python.replace("BPRMF", model), {})                        # the recipe, as written
    code, out, err = run_cli(capsys, *shlex.split(bash)[1:])
    assert code == 0, err
    assert "recommended" in out and "hit@10" in out
    long = pd.read_csv("long.csv", dtype={"user_id": str})
    assert (long.evaluator == "rechorus").all()           # the notebook's distinct negatives

    ranks = _rechorus_ranks(model)
    assert len(long) == len(ranks)
    for row in long.itertuples():
        assert row.position == ranks[int(row.user_id), row.item_id], row

    printed, full = (RECORD["runs"][model][x]["metrics"] for x in ("sampled", "full"))
    r = long.position.to_numpy()
    for name, value in printed.items():
        kind, k = name.split("@")
        hit = r <= int(k)
        ours = (hit if kind == "HR" else hit / np.log2(r + 1)).mean()
        # printed to 4 decimals; our mean sums the rows in another order: len(r) eps |mean|
        assert abs(ours - value) <= PRINTED + len(r) * EPS * ours, name

    metrics = [f"{'hit' if n.startswith('HR') else 'ndcg'}@{n.split('@')[1]}" for n in full]
    table = correct_positions("long.csv", metrics, ["recommended"])   # its evaluator column
    assert table.metric.tolist() == metrics
    for row, name in zip(table.itertuples(), full):
        # ReChorus printed its full-ranking value to 4 decimals: the value is within PRINTED
        assert row.ci_low - PRINTED <= full[name] <= row.ci_high + PRINTED, (name, row)


@pytest.mark.parametrize("model", MODELS)
def test_any_order_of_lines_gives_the_same_table(tmp_path, model):
    folder, path = FIXTURES / RECORD["dataset"], FIXTURES / f"rec-{model}-test.csv"
    lines = pd.read_csv(path, sep="\t", dtype=str)
    table = long_format(folder, path)
    assert table.user_id.tolist() != sorted(table.user_id, key=int)  # test.csv: time order
    assert lines.user_id.tolist() == sorted(lines.user_id, key=int)  # ReChorus: user order
    for name, order in (("shuffled", np.random.default_rng(0).permutation(len(lines))),
                        ("as test.csv", np.argsort(_test_rows(model)))):
        lines.iloc[order].to_csv(tmp_path / "rec.csv", sep="\t", index=False)
        pd.testing.assert_frame_equal(long_format(folder, tmp_path / "rec.csv"), table,
                                      obj=name)


def test_lines_the_file_lacks_are_left_out(tmp_path):
    """ReChorus' sequential models skip a test row with no history: the table has the rows
    the file scores, with the same positions."""
    folder, path = FIXTURES / RECORD["dataset"], FIXTURES / f"rec-{MODELS[0]}-test.csv"
    lines = pd.read_csv(path, sep="\t", dtype=str)
    lines.drop(index=[0, 5, 6]).to_csv(tmp_path / "rec.csv", sep="\t", index=False)
    whole, part = long_format(folder, path), long_format(folder, tmp_path / "rec.csv")
    kept = whole.merge(part[["user_id", "item_id"]], on=["user_id", "item_id"])
    assert len(part) == len(whole) - 3 == len(kept)
    columns = [c for c in whole if c != "user"]
    pd.testing.assert_frame_equal(part[columns], kept[columns])


ITEMS, USERS = 1500, 1200


def _write(folder, replacement: bool, seed: int = 0):
    """train/dev/test.csv as ReChorus' notebooks write them (two test rows per user, test.csv
    in time order; the ML-1M notebook's distinct negatives or the Amazon notebook's with
    replacement) and rec-MF-test.csv as its main.py writes it (lines in (user, time) order,
    every candidate's score, sorted); returns the full rank and pool of each test row (by
    ReChorus' --test_all 1 rule: the items outside the user's), in test.csv's order."""
    rng = np.random.default_rng(seed)
    folder.mkdir()
    quality = rng.normal(size=ITEMS + 1)
    train, dev, test, clicked = [], [], [], {}
    for u in range(1, USERS + 1):
        items = rng.choice(np.arange(1, ITEMS + 1), size=rng.integers(6, 20), replace=False)
        clicked[u] = set(items.tolist())
        train += [(u, int(i), t) for t, i in enumerate(items[:-3])]
        dev.append((u, int(items[-3]), 90))
        test += [(u, int(items[-2]), int(rng.integers(100, 200))),
                 (u, int(items[-1]), int(rng.integers(200, 300)))]
    for name, rows in (("train.csv", train), ("dev.csv", dev)):
        pd.DataFrame(rows, columns=["user_id", "item_id", "time"]).to_csv(
            folder / name, sep="\t", index=False)
    test.sort(key=lambda row: row[2])
    lines, rows, full = [], [], []
    for u, pos, t in test:
        pool = np.setdiff1d(np.arange(1, ITEMS + 1), sorted(clicked[u]))
        neg = rng.choice(pool, 99, replace=replacement)
        scores = np.round(quality + rng.normal(scale=2.0, size=ITEMS + 1), 1)  # some ties
        cands = np.r_[pos, neg]
        rows.append((u, pos, t, str(neg.tolist())))
        order = sorted(zip(cands.tolist(), scores[cands].tolist()), key=lambda p: p[1],
                       reverse=True)[:100]
        lines.append((u, t, str([i for i, _ in order]), str([s for _, s in order])))
        full.append((1 + (scores[pool] >= scores[pos]).sum(), pool.size + 1,
                     1 + (scores[neg] >= scores[pos]).sum()))
    pd.DataFrame(rows, columns=["user_id", "item_id", "time", "neg_items"]).to_csv(
        folder / "test.csv", sep="\t", index=False)
    lines.sort(key=lambda line: line[:2])
    pd.DataFrame([(u, i, s) for u, _, i, s in lines],
                 columns=["user_id", "rec_items", "rec_predictions"]).to_csv(
        folder / "rec-MF-test.csv", sep="\t", index=False)
    return np.array(full)


@pytest.mark.parametrize("replacement", [False, True])
def test_long_format_follows_rechorus_rank_and_law(tmp_path, replacement):
    full = _write(tmp_path / "data", replacement)
    table = long_format(tmp_path / "data", tmp_path / "data" / "rec-MF-test.csv",
                        n_items=ITEMS)
    law = "rechorus-replacement" if replacement else "rechorus"
    assert table.attrs["evaluator"] == law and (table.evaluator == law).all()
    assert (table.position.to_numpy() == full[:, 2]).all()      # ReChorus' own gt_rank
    assert (table.n_nonrelevant.to_numpy() == full[:, 1] - 1).all()
    assert (table.n_negatives == 99).all()
    result = correct_positions(table, ["hit@10", "ndcg@10"], ["recommended"], evaluator=law)
    for row in result.itertuples():
        truth = parse_metric(row.metric).mean(full[:, 0], full[:, 1])
        assert row.ci_low <= truth <= row.ci_high, row.metric


def _edit(path: Path, line: int, column: str, value: str) -> None:
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    frame.loc[line - 2, column] = value
    frame.to_csv(path, sep="\t", index=False)


BAD = [  # (file, edit, the message's start)
    ("test.csv", lambda p: p.write_text(""), r"test.csv: empty file \(expected a tab"),
    ("test.csv", lambda p: p.write_text("user_id\titem_id\ttime\tneg_items\n"),
     r"test.csv: no test rows below the header"),
    ("test.csv", lambda p: _edit(p, 5, "item_id", "i17"),
     r"test.csv:5: column item_id: 'i17' is not an item id \(an integer\)"),
    ("test.csv", lambda p: _edit(p, 4, "neg_items", "[1, 2"),
     r"test.csv:4: column neg_items: expected a list \[a, b, ...\], got '\[1, 2'"),
    ("test.csv", lambda p: _edit(p, 6, "neg_items", "[1, 2, 3]"),
     r"test.csv:6: column neg_items: 3 negatives, but line 2 has 99"),
    ("test.csv", lambda p: pd.read_csv(p, sep="\t").drop(columns="neg_items").to_csv(
        p, sep="\t", index=False), r"test.csv:1: no column neg_items \(ReChorus then"),
    ("train.csv", lambda p: pd.read_csv(p, sep="\t").drop(columns="item_id").to_csv(
        p, sep="\t", index=False), r"train.csv:1: no column item_id \(the header has"),
    ("train.csv", lambda p: p.write_text(p.read_text() + "1\t2\t3\t4\t5\t6\t7\t8\n"),
     r"train.csv:\d+: 8 tab-separated fields, but the header has 7"),
    ("rec.csv", lambda p: _edit(p, 7, "rec_predictions", str(["a"] * 100)),
     r"rec.csv:7: column rec_predictions: \"'a'\" is not a score"),
    ("rec.csv", lambda p: _edit(p, 3, "rec_predictions", "[0.5, nan" + ", 0.1" * 98 + "]"),
     r"rec.csv:3: column rec_predictions: a score is nan"),
    ("rec.csv", lambda p: _edit(p, 8, "rec_items", "[i17" + ", 1" * 99 + "]"),
     r"rec.csv:8: column rec_items: 'i17' is not an item id"),
    ("rec.csv", lambda p: _edit(p, 9, "rec_items", str(list(range(1, 51)))),
     r"rec.csv:9: column rec_items: 50 entries, but test.csv's rows have 100 candidates"),
    ("rec.csv", lambda p: pd.read_csv(p, sep="\t").drop(columns="rec_predictions").to_csv(
        p, sep="\t", index=False), r"rec.csv:1: no column rec_predictions"),
    ("rec.csv", lambda p: _edit(p, 10, "user_id", "9999"),
     r"rec.csv:10: user 9999 \(column user_id\) has no row in test.csv"),
    ("rec.csv", lambda p: _edit(p, 11, "user_id", str(pd.read_csv(p, sep="\t").user_id[20])),
     r"rec.csv:11: user \d+'s rec_items are the candidates of none of the user's rows"),
    ("rec.csv", lambda p: p.write_text(p.read_text() + p.read_text().splitlines()[1] + "\n"),
     r"rec.csv:\d+: user \d+'s row again \(line 2 has these rec_items\)"),
]


@pytest.mark.parametrize("name, edit, message", BAD, ids=[m[:40] for _, _, m in BAD])
def test_bad_rechorus_files_are_named(tmp_path, name, edit, message):
    folder = tmp_path / "data"
    shutil.copytree(FIXTURES / RECORD["dataset"], folder)
    shutil.copyfile(FIXTURES / f"rec-{MODELS[0]}-test.csv", folder / "rec.csv")
    edit(folder / name)
    with pytest.raises(ValueError) as err:
        long_format(folder, folder / "rec.csv")
    assert "\n" not in str(err.value)
    assert re.match(re.escape(str(folder / name)) + " ?" + message.split(name, 1)[1],
                    str(err.value)), str(err.value)
