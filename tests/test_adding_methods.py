"""Adding a recommender, a correction or an estimator touches only the places docs/design.md
lists (its bullets "a recommender", "a correction" and "an estimator" under "Where a new
piece goes"): in a copy of the library, a toy recommender kind (item popularity), a toy
correction (half the uncorrected metric) and a toy estimator (the uniform P(R)) are added in
exactly those places; the library then computes with them by name and ``snakemake -n``
plans a config that ranks the toy kind and names the others in the study and in Jin et al.'s
tables."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, copy_workflow, snakemake

KINDS = "src/sampled_metrics/recommenders/__init__.py"
VECTORS = "src/sampled_metrics/corrections/vectors.py"
DISPATCH = "src/sampled_metrics/estimators/dispatch.py"

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
from sampled_metrics.corrections import correction
from sampled_metrics.estimators import estimate_from_histogram, metric_from_distribution
half = correction("recall@10", 200, 20, "half")
assert np.allclose(half, 0.5 * correction("recall@10", 200, 20, "sampled"))
p = estimate_from_histogram(np.ones(21), 200, 20, "flat")
assert np.allclose(p, 1 / 200)
assert abs(metric_from_distribution("recall@10", p) - 10 / 200) < 1e-12
print("used")
'''


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
    """The toy recommender, correction and estimator, each in the places of its bullet only."""
    (src / "src/sampled_metrics/recommenders/popular.py").write_text(POPULAR)
    _edit(src / KINDS, "KINDS = {", "from .popular import Popular  # noqa: E402\n\nKINDS = {\"popular\": Popular, ")
    vectors = src / VECTORS
    text = vectors.read_text()
    registry = re.search(r"^CORRECTIONS = \((.*?)\)$", text, re.M)
    _edit(vectors, registry.group(0), f'CORRECTIONS = ({registry.group(1)}, "half")')
    _edit(vectors, '            elif name == "mapping":\n',
          '            elif name == "half":\n'
          '                out[k, e] = 0.5 * sampled_metric_weights(metric, m)\n'
          '            elif name == "mapping":\n')
    dispatch = src / DISPATCH
    _edit(dispatch, 'ESTIMATORS = {"mle":', 'ESTIMATORS = {"flat": (), "mle":')
    _edit(dispatch, '    if name == "mes":\n',
          '    if name == "flat":\n        return np.full(n, 1.0 / n)\n    if name == "mes":\n')


def test_the_bullets_name_the_places_the_test_edits():
    assert "`Recommender` subclass in `recommenders/`" in _bullet("a recommender")
    assert "`recommenders.KINDS`" in _bullet("a recommender")
    assert "`CORRECTIONS`" in _bullet("a correction")
    assert "`correction_array`" in _bullet("a correction")
    assert "`ESTIMATORS`" in _bullet("an estimator")
    assert "`estimate_from_histogram`" in _bullet("an estimator")


def test_an_unregistered_name_is_refused_where_it_is_used():
    from sampled_metrics.corrections import correction
    from sampled_metrics.estimators import estimate_from_histogram
    with pytest.raises(ValueError, match="unknown correction 'half'; expected one of sampled, "
                                         "rank_estimate, minimal_bias, cls, bv_<gamma>, mapping"):
        correction("recall@10", 200, 20, "half")
    with pytest.raises(ValueError, match="unknown estimator 'flat'; expected one of mle, wmle"):
        estimate_from_histogram([1] * 21, 200, 20, "flat")


@pytest.mark.workflow
def test_a_recommender_a_correction_and_an_estimator_added_in_the_documented_places_are_used(tmp_path):
    root = copy_workflow(tmp_path)
    shutil.copytree(ROOT / "src", root / "src")
    _add_toys(root)
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    used = subprocess.run([sys.executable, "-c", USE], capture_output=True, text=True, env=env,
                          timeout=300)
    assert used.stdout.strip() == "used", used.stderr[-3000:]
    (root / "my.yaml").write_text(
        "recommenders:\n  P: {model: popular}\n"
        "study:\n  recommenders: [X, Y, Z, P]\n  corrections: [sampled, cls, half]\n"
        "jin:\n  corrections: [cls, half]\n  estimators: [mle, flat]\n")
    proc = snakemake(root, "-n", "--configfile", "config/test.yaml", "my.yaml", timeout=300,
                     env=env)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "estimates" in proc.stdout
    assert re.search(r"wildcards: dataset=synthetic, recommender=P\b", proc.stdout)
