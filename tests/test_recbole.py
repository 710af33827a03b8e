"""The RecBole adapter against real RecBole: its own trainer and evaluator, uni<N> and pop<N>,
one and several test positives per user, a model with many ties (Pop). The metrics recomputed
from the captured positions equal RecBole's to all 10 printed decimals.

RecBole 1.2.1 pins packages that clash with the main environment (its ray needs numpy < 2),
so it runs in a virtualenv of its own (``pip install -e ".[test,recbole]"``; .ci/run makes
one). Where RecBole is not installed the test is skipped saying so, or fails if
``SAMPLED_METRICS_REQUIRE_RECBOLE=1`` (set by CI where it installed RecBole).
"""
import os

import numpy as np
import pytest

pytestmark = pytest.mark.slow

REQUIRE = "SAMPLED_METRICS_REQUIRE_RECBOLE"
try:
    import recbole  # noqa: F401
    from recbole.config import Config
    from recbole.data import create_dataset, data_preparation
    from recbole.utils import get_model, get_trainer, init_seed
except Exception as err:    # ImportError, or its dependencies failing at import
    if os.environ.get(REQUIRE) == "1":
        raise
    pytest.skip(f"RecBole not importable ({type(err).__name__}: {err}); install the extra "
                f"[recbole] in its own virtualenv", allow_module_level=True)

from sampled_metrics.integrations.recbole import capture  # noqa: E402

METRICS = ["Recall", "MRR", "NDCG", "Hit", "Precision", "MAP"]


@pytest.fixture(scope="module")
def data_path(tmp_path_factory):
    """A RecBole atomic file: 120 users, 250 items of Zipf-like popularity, 12-30 timed
    interactions per user."""
    root = tmp_path_factory.mktemp("recbole")
    (root / "toy").mkdir()
    rng = np.random.default_rng(0)
    pop = rng.zipf(1.5, 250).astype(float)
    pop /= pop.sum()
    lines = ["user_id:token\titem_id:token\ttimestamp:float"]
    for u in range(120):
        items = rng.choice(250, size=rng.integers(12, 30), replace=False, p=pop)
        lines += [f"u{u}\ti{i}\t{1000 * u + t}" for t, i in enumerate(items)]
    (root / "toy" / "toy.inter").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """RecBole's trainer writes log_tensorboard/ into the working directory."""
    monkeypatch.chdir(tmp_path)


def _run(data_path, model, mode, split):
    """Train ``model`` one epoch and evaluate the test set under ``mode``, captured."""
    split = {"LS": "valid_and_test"} if split == "leave-one-out" else {"RS": [0.7, 0.1, 0.2]}
    config = Config(model=model, dataset="toy", config_dict={
        "data_path": str(data_path), "epochs": 1, "topk": [5, 10], "metrics": METRICS,
        "metric_decimal_place": 10, "show_progress": False, "state": "ERROR",
        "eval_args": {"split": split, "order": "TO", "group_by": "user",
                      "mode": {"valid": mode, "test": mode}},
        "load_col": {"inter": ["user_id", "item_id", "timestamp"]}, "use_gpu": False,
        "checkpoint_dir": str(data_path / "saved"), "log_wandb": False})
    init_seed(config["seed"], config["reproducibility"])
    train, valid, test = data_preparation(config, create_dataset(config))
    net = get_model(config["model"])(config, train._dataset).to(config["device"])
    trainer = get_trainer(config["MODEL_TYPE"], config["model"])(config, net)
    trainer.fit(train, valid, saved=False, show_progress=False)
    record = capture(trainer)
    result = trainer.evaluate(test, load_best_model=False)
    record.stop()
    return record, result


@pytest.mark.parametrize("model,mode,split", [
    ("BPR", "uni100", "leave-one-out"), ("BPR", "uni100", "ratio"), ("Pop", "uni50", "ratio"),
    ("ItemKNN", "pop100", "leave-one-out"), ("Pop", "pop100", "ratio"),
    ("BPR", "full", "ratio"), ("Pop", "full", "leave-one-out")])
def test_recomputed_metrics_equal_recboles(data_path, model, mode, split):
    record, result = _run(data_path, model, mode, split)
    ours = record.metrics([name.replace("map@", "ap@") for name in result])
    for name, value in result.items():
        assert round(ours[name.replace("map@", "ap@")], 10) == value, (name, ours, result)
    frame = record.frame()
    per_user = frame.groupby("user").agg(k=("position", "size"), D=("n_negatives", "first"),
                                         M=("n_draws", "first"), N=("n_nonrelevant", "first"),
                                         deepest=("position", "max"))
    if mode == "full":                      # every non-history item is a candidate
        assert (per_user.D == per_user.N).all() and (per_user.M == per_user.N).all()
        with pytest.raises(ValueError, match="full ranking: its metrics are exact"):
            record.correct(["recall@10"])
        return
    sample = int(mode[3:])
    assert (per_user.M == sample * per_user.k).all()             # N draws per positive, pooled
    assert (per_user.D <= per_user.M).all() and (per_user.D <= per_user.N).all()
    assert (per_user.deepest <= per_user.k + per_user.D).all()
    assert not frame.duplicated(["user", "position"]).any()
    if mode.startswith("uni"):
        assert (per_user.D < per_user.M).any()                   # repeats collapsed
    if model == "Pop":
        assert frame.n_tied.sum() > 0                            # ties, ordered as RecBole did


def test_correct_uses_the_law_of_the_evaluator(data_path):
    record, result = _run(data_path, "BPR", "uni100", "ratio")
    table = record.correct(["recall@10", "hit@10", "mrr@10"], ["sampled", "cls", "bv_0.1"],
                           bootstrap=0)
    assert set(table.law) == {"hypergeometric"}
    sampled = table.set_index(["metric", "correction"]).value
    for name in ("recall@10", "hit@10", "mrr@10"):
        assert round(sampled[(name, "sampled")], 10) == result[name]
    assert ((table.value >= 0) & (table.value <= 1)).all()
    record, _ = _run(data_path, "ItemKNN", "pop100", "leave-one-out")
    table = record.correct(["recall@10"], ["sampled", "weighted_rank_estimate"], bootstrap=0)
    assert set(table.law) == {"weighted"} and len(table) == 2
    draws = record.draws_frame()
    assert len(draws) == record.frame().n_draws.sum()            # every draw of every positive
    with pytest.raises(ValueError, match="popularity-sampled draws allow the corrections"):
        record.correct(["recall@10"], ["cls"])


def test_the_docs_script_runs_as_written(data_path, capsys, monkeypatch):
    """docs/recbole.md's script, on the local toy dataset instead of RecBole's ML-100K
    download (the only change), with RecBole's default best-model reload."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "recbole.md").read_text()
    script = text.split("```python\n")[1].split("```")[0]
    original = 'Config(model="BPR", dataset="ml-100k", config_dict={'
    assert original in script
    script = script.replace(original, 'Config(model="BPR", dataset="toy", config_dict={'
                            f'"data_path": {str(data_path)!r}, "epochs": 1, "state": "ERROR", '
                            '"load_col": {"inter": ["user_id", "item_id", "timestamp"]}, '
                            '"show_progress": False, '
                            f'"checkpoint_dir": {str(data_path / "saved_docs")!r}, ')
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", raising=False)  # unset after
    namespace = {}
    exec(compile(script, "docs/recbole.md", "exec"), namespace)
    table, result = namespace["record"].correct(["recall@10"], ["sampled"]), namespace["result"]
    assert round(table.value[0], 4) == result["recall@10"]
    printed = capsys.readouterr().out
    assert "cls" in printed and "recommended" in printed and "full metric" in printed
