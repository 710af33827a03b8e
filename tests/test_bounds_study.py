"""The bounds checked on recommenders with known exact ranks (steps.bounds_study): synthetic
data always, the ML-1M study when its archive is present (conftest's ``ml1m``)."""
import numpy as np
import pandas as pd
import pytest
import yaml

from sampled_metrics.datasets import make_split
from sampled_metrics.evaluation.rankfile import read_rank_file
from sampled_metrics.workflow.steps.bounds_study import (OBSERVED_SETS, bounds_frame, validation,
                                                widths_frame)
from sampled_metrics.workflow.steps.ranks import rank_recommender
from conftest import ROOT, TINY_SPECS, synthetic_split

STUDY = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["recommenders"]


def rank_both_protocols(split, d, dataset, specs, m, repeats):
    """Rank files per recommender: every item a candidate with replacement (the law the
    bounds assume exactly) and, as a view, the study's unseen items without replacement."""
    paths = {}
    for rec, spec in specs.items():
        out, view = d / f"{rec}-all.npz", d / f"{rec}-unseen.npz"
        rank_recommender(split, rec, spec, out, dataset=dataset, seed=1,
                         sample_sizes={m: repeats}, tie="random", sampling="binomial",
                         candidates="all", views={f"{dataset}-unseen": {
                             "out": view, "candidates": "unseen",
                             "sampling": "hypergeometric"}})
        paths[rec] = (out, view)
    return paths


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    d = tmp_path_factory.mktemp("bounds")
    specs = {rec: TINY_SPECS[rec] for rec in "XY"}
    return d, rank_both_protocols(synthetic_split(d, 300, 120, seed=5), d, "syn", specs, 20, 4)


def test_intervals_contain_the_exact_value_synthetic(synthetic):
    d, paths = synthetic
    files = {rec: read_rank_file(p[0]) for rec, p in paths.items()}
    frame = bounds_frame(files, 20, dataset="syn")
    assert len(frame) == 2 * 4 * len(OBSERVED_SETS) * 2 * 2
    free = frame[frame["shape"] == "none"]
    assert free.contains.all(), free[~free.contains]
    # the shape is an assumption: Y's held-out items sit mid-catalogue on this synthetic
    # data (its Recall@10 is that of a random ranking, 10 / 120), a P no non-increasing one
    # imitates, and the shaped intervals miss its exact value
    shaped = frame[(frame["shape"] == "non-increasing") & (frame.recommender == "Y")]
    assert not shaped.contains.any()
    # the exact value is each file's mean metric over its users
    x = files["X"]
    exact = frame[(frame.recommender == "X") & (frame.target == "recall@10")].exact
    assert np.allclose(exact, np.mean(x.exact <= 10))
    # more observed metrics never widen an interval (the sets are nested)
    wide = frame.pivot_table(index=["recommender", "repeat", "shape", "target"],
                             columns="observed", values="width")[list(OBSERVED_SETS)]
    assert (np.diff(wide.to_numpy(), axis=1) <= 1e-7).all()       # HiGHS tolerances


def test_validation_writes_its_tables(synthetic, tmp_path):
    d, paths = synthetic
    widths = validation({rec: p[0] for rec, p in paths.items()}, 20, tmp_path / "v",
                        dataset="syn", repeats=range(2))
    assert (tmp_path / "v_per_repeat.csv").is_file() and (tmp_path / "v.md").is_file()
    assert set(widths.repeats) == {2}
    assert (widths[widths["shape"] == "none"].coverage == 1).all()
    assert np.allclose(widths.high - widths.low, widths.width)


@pytest.mark.slow
def test_ml1m_study_intervals_contain_the_exact_values(ml1m, tmp_path):
    """X, Y, Z of the study on ML-1M: from each repeat's sampled means the intervals without
    shape contain the exact Recall@10 and NDCG@10 under both protocols; with the
    non-increasing shape they do under the study's (unseen items), where P(r) decays, and not
    for Y when the training items are candidates too: they take the top ranks, so P(r) is
    zero there (Y's exact Recall@10 is 0) and the shape's assumption fails."""
    make_split(ml1m, "ml-1m", tmp_path / "split.npz")
    specs = {rec: STUDY[rec] for rec in ("X", "Y", "Z")}
    paths = rank_both_protocols(tmp_path / "split.npz", tmp_path, "ml-1m", specs, 100, 2)
    frames = {}
    for protocol, name in enumerate(("all", "unseen")):
        files = {rec: read_rank_file(p[protocol]) for rec, p in paths.items()}
        frames[name] = bounds_frame(files, 100, dataset="ml-1m")
    free = pd.concat(frames.values())
    free = free[free["shape"] == "none"]
    assert free.contains.all(), free[~free.contains]
    assert frames["unseen"].contains.all(), frames["unseen"][~frames["unseen"].contains]
    y_all = frames["all"][(frames["all"].recommender == "Y")]
    assert (y_all.exact == 0).all() and not y_all[y_all["shape"] != "none"].contains.any()
    widths = widths_frame(frames["unseen"]).set_index(["recommender", "observed", "target"])
    shaped = widths[widths["shape"] == "non-increasing"].width
    assert (shaped < widths[widths["shape"] == "none"].width).all()
