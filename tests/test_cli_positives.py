"""``sampled-metrics correct`` on the long-format CSV of several positives per user."""
import io

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli
from rounding import sum_bound

from sampled_metrics.multipositive import correct_multi_positive
from sampled_metrics.multipositive.weighted import weighted_corrected_metric, weighted_rank_estimate


@pytest.mark.numerical
def test_positions_csv_one_positive_equals_rank_input(tmp_path, capsys):
    rng = np.random.default_rng(7)
    ranks = rng.integers(1, 52, 200)
    (tmp_path / "ranks.txt").write_text("\n".join(map(str, ranks)))
    pd.DataFrame({"user": np.arange(200), "position": ranks, "n_nonrelevant": 999,
                  "n_negatives": 50}).to_csv(tmp_path / "pos.csv", index=False)
    args = ["--metric", "recall@10,ap", "--method", "sampled,cls,bv_0.1",
            "--format", "csv", "--bootstrap", "50"]
    code, text, _ = run_cli(capsys, "correct", "--ranks", str(tmp_path / "pos.csv"), *args)
    assert code == 0
    code2, text2, _ = run_cli(capsys, "correct", "--ranks", str(tmp_path / "ranks.txt"),
                              "--n", "1000", "--m", "50", *args)
    assert code2 == 0
    long, plain = pd.read_csv(io.StringIO(text)), pd.read_csv(io.StringIO(text2))
    # printed with %.6g: two computations that differ by rounding alone (the same vectors,
    # sums in another order: ~1e-14 of the value) print equal or one unit apart in the 6th
    # significant digit, which is <= 1e-5 of the value
    np.testing.assert_allclose(long["value"], plain["value"], rtol=1e-5)
    np.testing.assert_allclose(long["std_error"], plain["std_error"], rtol=1e-5)
    assert (long["ci_low"] <= long["value"]).all() and (long["value"] <= long["ci_high"]).all()


@pytest.mark.numerical
def test_positions_csv_several_positives(tmp_path, capsys):
    rows = [(5, 1, 300, 40), (5, 7, 300, 40), (9, 2, 200, 20), (9, 3, 200, 20),
            (9, 22, 200, 20), (1, 4, 100, 10)]
    pd.DataFrame(rows, columns=["user", "position", "n_nonrelevant", "n_negatives"]
                 ).to_csv(tmp_path / "pos.csv", index=False)
    code, text, _ = run_cli(capsys, "correct", "--ranks", str(tmp_path / "pos.csv"),
                            "--metric", "ndcg@10", "--method", "bv_0.1", "--format", "csv")
    assert code == 0
    got = pd.read_csv(io.StringIO(text))["value"].iloc[0]
    values = correct_multi_positive("ndcg@10", [[4], [1, 7], [2, 3, 22]], [100, 300, 200],
                                    [10, 40, 20], "bv_0.1")
    # %.6g is within half a unit of the 6th significant digit (<= 5e-6 |got|), and the
    # mean of the users' values in another order within 2 sum_bound / U
    assert abs(got - values.mean()) <= 5e-6 * abs(got) + 2 * sum_bound(values) / values.size


@pytest.mark.numerical
def test_draws_csv_weighted(tmp_path, capsys):
    rng = np.random.default_rng(8)
    rows = []
    for user, positions in ((1, [2, 5]), (2, [1])):
        for p in positions:
            for _ in range(30):
                rows.append((user, p, 400, int(rng.random() < 0.1), rng.uniform(1e-4, 1e-2)))
    frame = pd.DataFrame(rows, columns=["user", "position", "n_nonrelevant", "above", "prob"])
    frame.to_csv(tmp_path / "draws.csv", index=False)
    code, text, _ = run_cli(capsys, "correct", "--ranks", str(tmp_path / "draws.csv"),
                            "--metric", "recall@10", "--format", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(text))
    assert list(table["correction"]) == ["sampled", "weighted_rank_estimate"]
    est = weighted_rank_estimate(frame["above"].to_numpy(bool).reshape(3, 30),
                                 frame["prob"].to_numpy().reshape(3, 30))
    values = weighted_corrected_metric("recall@10", [[2, 5], [1]], [400, 400], est)
    got = table["value"].iloc[1]
    # as in test_positions_csv_several_positives: %.6g, and a mean in another order
    assert abs(got - values.mean()) <= 5e-6 * abs(got) + 2 * sum_bound(values) / values.size


@pytest.mark.parametrize("content, extra, message", [
    ("user,position,n_nonrelevant,n_negatives\n1,12,50,10\n", [], "beyond its list"),
    ("user,position,n_nonrelevant,n_negatives\n1,x,50,10\n", [],
     ":2: 'x' in column 'position' is not an integer"),
    ("user,position,n_nonrelevant,n_negatives\n1,1,50,0\n", [], "in.csv:2: n_negatives 0 outside >= 1"),
    ("user,position,n_nonrelevant,n_negatives\n1,1,50,10\n", ["--n", "60"],
     "--n does not apply"),
    ("user,position,n_nonrelevant,above,prob\n1,1,50,1,0\n", [], "in.csv:2: prob 0 outside (0, 1]"),
    ("user,position,n_nonrelevant,above,prob\n1,1,50,2,0.1\n", [],
     "in.csv:2: above 2 outside 0..1"),
    ("user,position,n_nonrelevant,above,prob\n1,1,50,1,0.1\n", ["--method", "cls"],
     "allow the corrections sampled and weighted_rank_estimate, not cls"),
])
def test_bad_csv(tmp_path, capsys, content, extra, message):
    path = tmp_path / "in.csv"
    path.write_text(content)
    code, _, err = run_cli(capsys, "correct", "--ranks", str(path), *extra)
    assert code == 2 and message in err


def test_user_ids_are_labels_read_exactly(tmp_path):
    """Ids are text: tokens work, and two ids a float would merge stay two users."""
    from sampled_metrics.multipositive.longformat import read_positions
    path = tmp_path / "pos.csv"
    path.write_text("user,position,n_nonrelevant,n_negatives\n"
                    "9007199254740992,1,50,10\n9007199254740993,2,50,10\nu7,3,50,10\n")
    table, users = read_positions(path, with_users=True)
    assert list(users) == ["9007199254740992", "9007199254740993", "u7"]
    assert table.k.tolist() == [1, 1, 1] and table.position.tolist() == [1, 2, 3]
