"""Adding a recommender, a correction or an estimator touches only the places docs/design.md
lists (its bullets "a recommender", "a correction" and "an estimator" under "Where a new
piece goes"). A toy correction (half the uncorrected metric) and a toy estimator (the
uniform P(R)) are registered through the registries' public ``register`` (the same call as
one entry in ``registry.py``), with no source text edited; the library, the command line and
the config check then use them by name. A toy recommender kind (item popularity) is added to
a copy of the library in the places of its bullet, and ``snakemake -n`` plans a config that
ranks it."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import ROOT, copy_workflow, snakemake

KINDS = "src/sampled_metrics/recommenders/__init__.py"

#: the toy kind's module, a ``Recommender`` subclass in ``recommenders/``
POPULAR = '''"""A toy recommender: every user scores an item by its training interactions."""
import numpy as np

from .base import Recommender, check_train


class Popular(Recommender):
    """Item popularity."""

    def fit(self, train) -> "Popular":
        self.train_ = check_train(train)
        self.counts_ = np.asarray(self.train_.sum(axis=0), dtype=np.float64).ravel()
        return self

    def _score(self, users):
        return np.tile(self.counts_, (len(users), 1))
'''

USE = '''
import numpy as np
import scipy.sparse as sp
from sampled_metrics.recommenders import make_recommender
model = make_recommender("popular").fit(sp.csr_matrix(np.eye(3)[[0, 0, 1]]))
assert model.score([0]).tolist() == [[2.0, 1.0, 0.0]]
print("used")
'''


def half_vectors(problem, gamma=None):
    """The toy correction: half the uncorrected metric."""
    from sampled_metrics.corrections.vectors import sampled_vectors
    return 0.5 * sampled_vectors(problem)


def flat_distribution(hist, design):
    """The toy estimator: the uniform P(R) over the design's n items."""
    return np.full(design.n, 1.0 / design.n)


@pytest.fixture
def toys(monkeypatch):
    """The toy correction and estimator, registered for one test (the registries restored
    after it)."""
    from sampled_metrics.registry import CORRECTIONS, ESTIMATORS, Entry
    for registry in (CORRECTIONS, ESTIMATORS):
        monkeypatch.setattr(registry, "_own", dict(registry._own))
    CORRECTIONS.register(Entry("half", "half the uncorrected metric", half_vectors))
    ESTIMATORS.register(Entry("flat", "the uniform P(R)", flat_distribution))


def _bullet(name: str) -> str:
    text = (ROOT / "docs" / "design.md").read_text()
    match = re.search(rf"^- \*\*{name}\*\*:(.*?)(?=^- \*\*|^\n)", text, re.S | re.M)
    assert match, f"docs/design.md has no bullet '- **{name}**:'"
    return " ".join(match.group(1).split())


def _edit(path: Path, anchor: str, new: str) -> None:
    """Replace the one occurrence of ``anchor`` in ``path`` by ``new``."""
    text = path.read_text()
    assert text.count(anchor) == 1, (path, anchor)
    path.write_text(text.replace(anchor, new))


def _add_toys(src: Path) -> None:
    """The toy recommender, in the places of its bullet only."""
    (src / "src/sampled_metrics/recommenders/popular.py").write_text(POPULAR)
    _edit(src / KINDS, "KINDS = {", "from .popular import Popular  # noqa: E402\n\nKINDS = {\"popular\": Popular, ")


def test_the_bullets_name_the_places_the_test_edits():
    assert "`Recommender` subclass in `recommenders/`" in _bullet("a recommender")
    assert "`recommenders.KINDS`" in _bullet("a recommender")
    assert "`registry.CORRECTIONS`" in _bullet("a correction")
    assert "`registry.ESTIMATORS`" in _bullet("an estimator")


def test_an_unregistered_name_is_refused_where_it_is_used():
    from sampled_metrics.corrections import correction
    from sampled_metrics.estimators import estimate_from_histogram
    with pytest.raises(ValueError, match="unknown correction 'half'; expected one of sampled, "
                                         "rank_estimate, minimal_bias, cls, bv_<gamma>, mapping"):
        correction("recall@10", 200, 20, "half")
    with pytest.raises(ValueError, match="unknown estimator 'flat'; expected one of mle, wmle"):
        estimate_from_histogram([1] * 21, 200, 20, "flat")


def test_a_registered_correction_and_estimator_are_used_by_name(toys, capsys, tmp_path):
    from sampled_metrics import correct, correction
    from sampled_metrics.cli import build_parser, main
    from sampled_metrics.workflow.configuration.check import check_semantics
    from sampled_metrics.estimators import estimate_from_histogram, metric_from_distribution
    half = correction("recall@10", 200, 20, "half")
    assert np.allclose(half, 0.5 * correction("recall@10", 200, 20, "sampled"))
    ranks = np.array([1, 2, 5, 21])
    table = correct(ranks, 200, 20, "recall@10", ["sampled", "half"], bootstrap=0)
    assert table.value.tolist() == [0.75, 0.375]        # 3 of 4 in the sampled top 10
    p = estimate_from_histogram(np.ones(21), 200, 20, "flat")
    assert np.allclose(p, 1 / 200)
    assert abs(metric_from_distribution("recall@10", p) - 10 / 200) < 1e-12
    help_text = build_parser()._subparsers._group_actions[0].choices["correct"].format_help()
    assert "half" in help_text
    (tmp_path / "r.txt").write_text("1\n2\n5\n21\n")
    assert main(["correct", "--ranks", str(tmp_path / "r.txt"), "--n", "200", "--m", "20",
                 "--metric", "recall@10", "--method", "half", "--bootstrap", "0",
                 "--format", "csv"]) == 0
    assert "recall@10,half,0.375" in capsys.readouterr().out
    assert main(["estimate", "--ranks", str(tmp_path / "r.txt"), "--n", "200", "--m", "20",
                 "--metric", "recall@10", "--method", "flat", "--bootstrap", "0",
                 "--format", "csv"]) == 0
    assert "recall@10,flat,0.05" in capsys.readouterr().out
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config["study"]["corrections"] = ["sampled", "half"]
    config["jin"]["estimators"] = ["mle", "flat"]
    check_semantics(config)


@pytest.mark.workflow
@pytest.mark.slow
def test_a_recommender_added_in_the_documented_places_is_used(tmp_path):
    root = copy_workflow(tmp_path)
    shutil.copytree(ROOT / "src", root / "src")
    _add_toys(root)
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    used = subprocess.run([sys.executable, "-c", USE], capture_output=True, text=True, env=env,
                          timeout=300)
    assert used.stdout.strip() == "used", used.stderr[-3000:]
    (root / "my.yaml").write_text(
        "recommenders:\n  P: {model: popular}\n"
        "study:\n  recommenders: [X, Y, Z, P]\n")
    proc = snakemake(root, "-n", "--configfile", "config/test.yaml", "my.yaml", timeout=300,
                     env=env)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert re.search(r"wildcards: dataset=synthetic, recommender=P\b", proc.stdout)
