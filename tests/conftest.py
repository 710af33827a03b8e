"""Shared fixtures and helpers: where the real MovieLens-1M archive is, if anywhere; one local
run of the workflow on config/test.yaml (``local_run``), shared by the end-to-end and the SLURM
tests; the tiny data and models many tests build on (``write_zip``, ``random_binary``,
``synthetic_split``, ``TINY_SPECS``, ``toy_rank_file``); running the command line and
snakemake.

No path of any one machine: the archive is given by ``--ml1m PATH`` or the environment
variable ``SAMPLED_METRICS_ML1M``, else looked for at ``<project root>/../shared/data/ml-1m/
ml-1m.zip``; the tests that need it are skipped, saying why, when it is absent.
"""
import fcntl
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from sampled_metrics.cli import main
from sampled_metrics.datasets import download, make_split, prepare_archive
from sampled_metrics.evaluation.rankfile import RankFile
from sampled_metrics.sampling import draw_sampled_ranks

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ML1M = ROOT.parent / "shared" / "data" / "ml-1m" / "ml-1m.zip"
ML1M_ENV = "SAMPLED_METRICS_ML1M"
#: the git-ignored config file every run reads when present (the Snakefile's LOCAL_CONFIG)
LOCAL_CONFIG = Path(download.LOCAL_CONFIG)

#: tiny recommenders of each kind the study uses: X (iALS), Y and Z (item-kNN), quick to fit
TINY_SPECS = {"X": {"model": "ials", "factors": 4, "iterations": 3, "seed": 0},
              "Y": {"model": "itemknn", "q": 3.0},
              "Z": {"model": "itemknn", "q": 1.0, "k_prime": 10}}


#: the test modules that use the session's ``local_run``: they come first, so that under
#: ``pytest -n`` (one worker per module, ``--dist loadfile``) the longest modules start first
LOCAL_RUN_MODULES = ("test_workflow.py", "test_slurm.py")


def pytest_collection_modifyitems(config, items):
    """The modules that use ``local_run`` first (a stable sort: the order within is kept)."""
    items.sort(key=lambda item: item.path.name not in LOCAL_RUN_MODULES)


def pytest_addoption(parser):
    parser.addoption("--ml1m", metavar="PATH", default=None,
                     help=f"the MovieLens-1M zip for the tests on real data (default: "
                          f"${ML1M_ENV}, else <project root>/../shared/data/ml-1m/ml-1m.zip)")


@pytest.fixture(scope="session")
def ml1m(request) -> Path:
    """Path of the MovieLens-1M archive; skips the test when there is none."""
    given = request.config.getoption("--ml1m") or os.environ.get(ML1M_ENV)
    path = Path(given or DEFAULT_ML1M)
    if not path.is_file():   # the skip names what to set, not where the archive was looked for
        why = (f"the --ml1m or {ML1M_ENV} given is not a file" if given else
               "no MovieLens-1M archive given")
        pytest.skip(f"{why}: give GroupLens' ml-1m.zip with --ml1m PATH or set {ML1M_ENV}")
    return path


def write_zip(path: Path, text: str | bytes, member: str = "ml-1m/ratings.dat",
              compression: int = zipfile.ZIP_STORED) -> Path:
    """A zip at ``path`` holding ``text`` as its one ``member`` (default: MovieLens-1M's
    ratings file)."""
    with zipfile.ZipFile(path, "w", compression) as zf:
        zf.writestr(member, text)
    return Path(path)


def random_binary(n_users=40, n_items=25, density=0.25, seed=0) -> sp.csr_matrix:
    """A random binary users x items training matrix (CSR), seeded."""
    X = sp.random(n_users, n_items, density=density, format="csr", random_state=seed)
    X.data[:] = 1.0
    return X


def synthetic_split(folder: Path, n_users: int, n_items: int, seed: int) -> Path:
    """``folder/split.npz``: the leave-last-out split of a synthetic dataset ``syn``
    (archive ``folder/syn.zip``)."""
    prepare_archive("syn", {"format": "synthetic", "n_users": n_users, "n_items": n_items,
                            "seed": seed}, folder / "syn.zip")
    make_split(folder / "syn.zip", "synthetic", folder / "split.npz")
    return folder / "split.npz"


def toy_rank_file(exact, n: int, m: int, rng, *, repeats: int, sampling: str = "binomial",
                  n_items: int | None = None, **fields) -> RankFile:
    """A rank file of the exact ranks ``exact``, each among ``n`` candidates, with ``repeats``
    draws of their sampled ranks at ``m`` under ``sampling`` (:func:`draw_sampled_ranks` with
    ``rng``); ``n_items`` defaults to ``n``; ``fields``: further RankFile fields (dataset,
    recommender)."""
    users = len(exact)
    sampled = draw_sampled_ranks(exact, n, m, sampling, rng, size=(repeats, users))
    return RankFile(users=np.arange(users), exact=exact, n_u=np.full(users, n),
                    sampled={m: sampled}, n_items=n if n_items is None else n_items,
                    sampling=sampling, tie="random", seed=0, **fields)


def copy_workflow(dest: Path) -> Path:
    """Copy the Snakefile, workflow/, config/ and profiles/ into ``dest``, without the
    developer's own git-ignored config/local.yaml, which every run would read."""
    for item in ("Snakefile", "workflow", "config", "profiles"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / item)
    (dest / LOCAL_CONFIG).unlink(missing_ok=True)
    return dest


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``sampled-metrics ARGV`` in this process: (exit code, stdout, stderr)."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def place_local_files(datasets: dict, wd: Path, inside: Path) -> None:
    """Empty stand-ins for the local files that ``datasets`` entries name (``path``, relative
    to ``wd``; a directory for ``ncf``), so that a config naming them passes its check; each
    must lie below ``inside``."""
    for spec in datasets.values():
        if "path" in spec:
            local = (wd / spec["path"]).resolve()
            assert local.is_relative_to(inside), spec["path"]
            if spec["format"] == "ncf":
                local.mkdir(parents=True)
            else:
                local.parent.mkdir(parents=True, exist_ok=True)
                local.touch()


def snakemake_command(*args: str) -> list[str]:
    """The command line ``snakemake --configfile config/test.yaml ARGS``, run by this Python."""
    return [sys.executable, "-m", "snakemake", "--configfile", "config/test.yaml", *args]


def snakemake(cwd: Path, *args: str, timeout: int = 900,
              env: dict | None = None) -> subprocess.CompletedProcess:
    """``snakemake --configfile config/test.yaml ARGS`` in ``cwd`` (``env``: the environment,
    default this process's)."""
    return subprocess.run(snakemake_command(*args), cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture(scope="session")
def local_run(tmp_path_factory) -> Path:
    """A copy of the workflow in which ``snakemake --cores 2`` has made every default target,
    made once per test session: under ``pytest -n`` the first worker that asks for it makes
    it in the workers' shared temporary directory, and the others wait for it (a file lock)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):              # each worker's basetemp is below
        shared = shared.parent                              # the session's
    wd, outcome = shared / "local_run", shared / "local_run.stderr"
    with open(shared / "local_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)                    # released when the file closes
        if not outcome.exists():
            wd.mkdir()
            proc = snakemake(copy_workflow(wd), "--cores", "2")
            outcome.write_text("" if proc.returncode == 0 else proc.stderr[-3000:] or "failed")
    assert not outcome.read_text(), outcome.read_text()
    return wd
