"""The cluster path: config/test.yaml through ``profiles/slurm`` on a real SLURM cluster.

Tables 3-4 and Jin et al.'s Tables 2 and 4 of the test configuration's second dataset
(synthetic-small) are made through SLURM, and every file the cluster run wrote under results/
(the tables in csv, md and tex, rank files, per-repeat corrections, estimates, split) must be
byte-identical to the local run's (``local_run``); the fan-out must map to SLURM jobs as the
the docs say (one fit job per (dataset, recommender), one ranks job per shard of users, here
two per recommender, one corrections job per (dataset, m), one estimates job per (dataset,
recommender, m); the gather of the shards runs locally), as ``sacct`` records them. One dataset and
no figures keep CI short: each SLURM job costs 10-20 s of Snakemake start-up on 2 shared cores,
and these 22 jobs are every kind of dataset job (the other dataset only repeats them; a full
``all`` run of config/test.yaml, 52 jobs, was checked identical the same way, docs/guide/cluster.md).

Needs ``sbatch``, a node up, SLURM accounting (``sacct``) and the executor plugin
(``pip install -e ".[slurm]"``); on a Debian machine, as root, ``workflow/cluster/local-slurm.sh
up`` provides the cluster (.ci/run does it). Otherwise the test is skipped saying why, or fails
if ``SAMPLED_METRICS_REQUIRE_SLURM=1`` (CI sets it where it stood the cluster up, so a broken
cluster cannot pass as a skip).
"""
import getpass
import importlib.util
import os
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import copy_workflow, snakemake, snakemake_command

pytestmark = [pytest.mark.workflow, pytest.mark.slow]
REQUIRE = "SAMPLED_METRICS_REQUIRE_SLURM"


def _out(*cmd: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed: {(proc.stderr or proc.stdout).strip()}")
    return proc.stdout


def slurm_unavailable() -> str | None:
    """Why the host cannot run the workflow through SLURM, or None if it can."""
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "snakemake-executor-plugin-slurm is not installed (pip install -e '.[slurm]')"
    for tool in ("sbatch", "sinfo", "sacct", "sacctmgr"):
        if shutil.which(tool) is None:
            return (f"no {tool} on PATH: no SLURM here (as root on Debian: "
                    f"workflow/cluster/local-slurm.sh up)")
    try:
        if not _out("sinfo", "-h", "-t", "idle,mixed,allocated", "-o", "%n").strip():
            return "SLURM has no node up (sinfo lists none idle, mixed or allocated)"
        _out("sacct", "-n", "-X", "-S", "now-1minutes")
    except RuntimeError as err:
        return f"the SLURM cluster does not answer: {err}"
    return None


@pytest.fixture(scope="module")
def slurm():
    """Skip (or fail, under SAMPLED_METRICS_REQUIRE_SLURM=1) where SLURM cannot run."""
    reason = slurm_unavailable()
    if reason and os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{REQUIRE}=1 but {reason}")
    if reason:
        pytest.skip(reason)


def partition_and_account() -> tuple[str, str]:
    """The cluster's default partition and this user's default account, as a user reads them."""
    parts = _out("sinfo", "-h", "-o", "%P").split()
    partition = next((p for p in parts if p.endswith("*")), parts[0]).rstrip("*")
    account = _out("sacctmgr", "-n", "-P", "show", "user", getpass.getuser(),
                   "format=defaultaccount").strip()
    return partition, account


DATASET = "synthetic-small"


def table_targets() -> list[str]:
    """KDD'20 Tables 3-4 and Jin et al. Tables 2 and 4 of DATASET, in their three renderings."""
    return [f"results/{DATASET}/{t}.{ext}" for t in ("table3", "table4", "jin_table2",
                                                     "jin_table4") for ext in ("csv", "md", "tex")]


@pytest.fixture(scope="module")
def slurm_run(slurm, tmp_path_factory, request):
    """The documented cluster command on config/test.yaml; partition and account given on the
    command line (the profile names none). While the cluster runs it, this machine makes the
    local run the results are compared with (``local_run``): the cluster's jobs, a few
    seconds each, leave the cores idle between sacct's polls. Returns the workdir, sacct's
    rows of its jobs and (partition, account)."""
    wd = copy_workflow(tmp_path_factory.mktemp("slurm"))
    log = tmp_path_factory.mktemp("slurm_log") / "snakemake.log"
    partition, account = partition_and_account()
    start = time.strftime("%Y-%m-%dT%H:%M:%S")
    deadline = time.monotonic() + 1500
    cmd = snakemake_command("--workflow-profile", "profiles/slurm",
                            "--default-resources", f"slurm_partition={partition}",
                            f"slurm_account={account}",
                            # poll sacct every 5 s, not 40 s: the test's jobs last seconds
                            "--slurm-init-seconds-before-status-checks", "5",
                            *table_targets())
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=wd, stdout=out, stderr=subprocess.STDOUT)
        try:
            request.getfixturevalue("local_run")
            returncode = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            if proc.poll() is None:          # local_run failed or the cluster timed out
                proc.terminate()             # snakemake cancels its SLURM jobs
                try:
                    proc.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    proc.kill()
    assert returncode == 0, log.read_text()[-3000:]
    rows = _out("sacct", "-n", "-X", "-P", "-S", start, "-o",
                "JobID,State,Partition,Account,WorkDir,Comment").splitlines()
    jobs = [dict(zip(("id", "state", "partition", "account", "workdir", "comment"),
                     r.split("|"))) for r in rows]
    return wd, [j for j in jobs if Path(j["workdir"]) == wd], (partition, account)


def test_results_are_byte_identical_to_the_local_run(slurm_run, request):
    wd = slurm_run[0]
    local_run = request.getfixturevalue("local_run")   # made by slurm_run, beside the cluster
    cluster = sorted(p.relative_to(wd) for p in (wd / "results").rglob("*") if p.is_file())
    assert {Path(t) for t in table_targets()} <= set(cluster)
    assert len(cluster) > 20          # also the rank files, corrections and estimates
    differ = [str(p) for p in cluster if (wd / p).read_bytes() != (local_run / p).read_bytes()]
    assert not differ, f"differ from the local run: {differ}"


def test_each_job_ran_on_slurm_as_the_readme_maps_it(slurm_run):
    wd, jobs, (partition, account) = slurm_run
    assert jobs, "sacct records no job of this run"
    assert {j["state"] for j in jobs} == {"COMPLETED"}
    assert {(j["partition"], j["account"]) for j in jobs} == {(partition, account)}
    rules = Counter(j["comment"].split("_wildcards_")[0].removeprefix("rule_") for j in jobs)
    # X, Y, Z, EASE each fitted once and ranked in two shards (every sample size in each);
    # corrections at m = 50 (Table 3) and 49 (Jin); estimates of the 4 Jin recommenders at
    # m = 49; one job per table rule; the download and split
    assert rules == {"fit": 4, "ranks_shard": 8, "corrections": 2, "estimates": 4,
                     "kdd_tables": 1, "jin_tables": 1, "dataset_archive": 1, "split": 1}
    proc = snakemake(wd, "-n", "--cores", "1", *table_targets())
    assert "Nothing to be done" in proc.stdout + proc.stderr
    # each job's own log is in logs/, as in a local run
    assert (wd / f"logs/{DATASET}/fit_X.log").read_text().count(" fit: {") == 1
    assert (wd / f"logs/{DATASET}/ranks_X_1.log").read_text().count(" ranks: {") == 1


def test_fit_and_ranks_jobs_get_the_profiles_resources(tmp_path):
    """The fit and the shard jobs (of a dataset, of a view and of a seeded fit) get what the
    profile (or --set-resources) gives rules ``fit`` and ``ranks_shard`` and their seeded
    copies. A dry run: no cluster needed, only the SLURM plugin the profile names."""
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("the SLURM executor plugin is not installed (pip install -e '.[slurm]')")
    wd = copy_workflow(tmp_path)
    targets = ["data/synthetic/models/EASE.pkl", "data/synthetic-all/shards/X/0.npz",
               "data/synthetic-small/shards/Y/1.npz", "data/synthetic/shards/X/seed1/0.npz"]

    def planned(*extra):
        proc = snakemake(wd, "-n", "--workflow-profile", "profiles/slurm", *targets, *extra)
        assert proc.returncode == 0, proc.stderr[-2000:]
        blocks = (proc.stdout + proc.stderr).split("\nrule ")[1:]
        return {b.split(":")[0]: b for b in blocks if b.startswith(("fit", "ranks"))}

    jobs = planned()
    assert sorted(jobs) == ["fit", "fit_seed", "ranks_shard", "ranks_shard_seed"]
    for fit in ("fit", "fit_seed"):
        assert "mem_mb=16000" in jobs[fit] and "runtime=120" in jobs[fit], jobs[fit]
    for shard in ("ranks_shard", "ranks_shard_seed"):
        assert "mem_mb=8000" in jobs[shard] and "runtime=60" in jobs[shard], jobs[shard]
    jobs = planned("--set-resources", "ranks_shard:mem_mb=3000")
    assert "mem_mb=3000" in jobs["ranks_shard"]
