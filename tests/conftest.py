"""Shared fixtures: where the real MovieLens-1M archive is, if anywhere; one local run of the
workflow on config/test.yaml (``local_run``), shared by the end-to-end and the SLURM tests.

No path of any one machine: the archive is given by ``--ml1m PATH`` or the environment
variable ``SAMPLED_METRICS_ML1M``, else looked for at ``<project root>/../shared/data/ml-1m/
ml-1m.zip``; the tests that need it are skipped, saying why, when it is absent.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sampled_metrics.cli import main

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


def copy_workflow(dest: Path) -> Path:
    """Copy the Snakefile, workflow/, config/ and profiles/ into ``dest``."""
    for item in ("Snakefile", "workflow", "config", "profiles"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / item)
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


def snakemake(cwd: Path, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """``snakemake --configfile config/test.yaml ARGS`` in ``cwd``."""
    cmd = [sys.executable, "-m", "snakemake", "--configfile", "config/test.yaml", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def local_run(tmp_path_factory) -> Path:
    """A copy of the workflow in which ``snakemake --cores 2`` has made every default target."""
    wd = copy_workflow(tmp_path_factory.mktemp("wf"))
    proc = snakemake(wd, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return wd
