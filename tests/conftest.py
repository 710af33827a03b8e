"""Shared fixtures: where the real MovieLens-1M archive is, if anywhere.

No path of any one machine: the archive is given by ``--ml1m PATH`` or the environment
variable ``SAMPLED_METRICS_ML1M``, else looked for at ``<project root>/../shared/data/ml-1m/
ml-1m.zip``; the tests that need it are skipped, saying why, when it is absent.
"""
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ML1M = ROOT.parent / "shared" / "data" / "ml-1m" / "ml-1m.zip"
ML1M_ENV = "SAMPLED_METRICS_ML1M"


def pytest_addoption(parser):
    parser.addoption("--ml1m", metavar="PATH", default=None,
                     help=f"the MovieLens-1M zip for the tests on real data (default: "
                          f"${ML1M_ENV}, else <project root>/../shared/data/ml-1m/ml-1m.zip)")


@pytest.fixture(scope="session")
def ml1m(request) -> Path:
    """Path of the MovieLens-1M archive; skips the test when there is none."""
    path = Path(request.config.getoption("--ml1m") or os.environ.get(ML1M_ENV)
                or DEFAULT_ML1M)
    if not path.is_file():
        pytest.skip(f"MovieLens-1M archive not found at {path} (give --ml1m PATH or set "
                    f"{ML1M_ENV})")
    return path
