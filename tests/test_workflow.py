"""End-to-end: run the Snakemake workflow on config/test.yaml in a temporary copy."""
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import (LOCAL_CONFIG, ROOT, copy_workflow, place_local_files, snakemake,
                      write_zip)

from sampled_metrics.workflow.paper import KDD_TABLE1

pytestmark = [pytest.mark.workflow, pytest.mark.slow]


@pytest.fixture(scope="module")
def workdir(local_run):
    return local_run


def test_toy_artefacts(workdir):
    for i in (1, 2, 3, 4):
        for ext in ("pdf", "png"):
            assert (workdir / f"figures/figure{i}.{ext}").stat().st_size > 1000
    t1 = pd.read_csv(workdir / "results/toy/table1.csv")
    assert list(t1.columns) == ["recommender", "metric", "value"]
    for row in t1.itertuples():
        assert round(row.value, 3) == pytest.approx(KDD_TABLE1[row.recommender][row.metric])
    t2 = pd.read_csv(workdir / "results/toy/table2.csv")
    assert list(t2.columns) == ["recommender", "metric", "mean", "std", "expected"]
    assert "paper" in (workdir / "results/toy/table2.md").read_text()
    assert (workdir / "logs/toy/table2.log").read_text().count("done in") == 1


def test_study_artefacts(workdir):
    t3 = pd.read_csv(workdir / "results/synthetic/table3.csv")
    assert list(t3.columns) == ["dataset", "recommender", "metric", "method", "mean", "std"]
    assert set(t3.recommender) == {"X", "Y", "Z"}
    assert set(t3.method) == {"exact", "sampled", "rank_estimate", "cls", "bv_1", "bv_0.1",
                                 "bv_0.01", "bv_0.001"}
    # sampled AUC is unbiased: its mean over repeats is close to the exact AUC
    auc = t3[t3.metric == "auc"].set_index(["recommender", "method"])
    for rec in "XYZ":
        assert abs(auc.loc[(rec, "sampled"), "mean"] - auc.loc[(rec, "exact"), "mean"]) < 0.01
    # sampled Recall@10 is far above the exact one (m = 50 of 400 items)
    rec10 = t3[t3.metric == "recall@10"].set_index(["recommender", "method"])["mean"]
    assert all(rec10[(r, "sampled")] > 1.5 * rec10[(r, "exact")] for r in "XYZ")
    t4 = pd.read_csv(workdir / "results/synthetic/table4.csv")
    assert list(t4.columns) == ["dataset", "pair", "metric", "method", "correct", "repeats"]
    assert set(t4.pair) == {"X vs Y", "X vs Z", "Y vs Z"}
    assert t4.correct.between(0, 10).all() and (t4.repeats == 10).all()
    assert "paper" not in (workdir / "results/synthetic/table3.md").read_text()
    for name in ("figure5", "figure6"):
        for ext in ("pdf", "png"):
            assert (workdir / f"figures/synthetic/{name}.{ext}").stat().st_size > 1000
            # the top-level copies are the paper's dataset's (ml-1m) only, not synthetic's
            assert not (workdir / f"figures/{name}.{ext}").exists()
    buckets = pd.read_csv(workdir / "results/synthetic/figure5.csv")
    assert buckets.groupby("recommender").users.sum().eq(300).all()


def test_results_table_is_the_command_on_the_rank_files(workdir, capsys):
    """The rule's table is what ``sampled-metrics table`` prints on the same rank files (the
    models' rows to the command's 6 printed digits, the Markdown to the byte), and its exact column
    is Table 3's exact metric, computed by another path."""
    from conftest import run_cli

    config = yaml.safe_load((workdir / "config/test.yaml").read_text())
    recs = config["study"]["results_table"]["recommenders"]
    for dataset in config["study"]["datasets"]:
        out = workdir / "results" / dataset
        table = pd.read_csv(out / "results_table.csv")
        assert set(table.model) == set(recs) and set(table.correction) == {"recommended",
                                                                           "sampled"}
        files = [str(out / "ranks" / f"{r}.npz") for r in recs]
        argv = ["table", *files, "--m", str(config["study"]["m"]), "--repeat", "0",
                "--seed", str(config["seed"]), "--metric", ",".join(config["study"]["metrics"]),
                "--method", "recommended,sampled"]
        code, csv, err = run_cli(capsys, *argv, "--format", "csv")
        assert code == 0, err
        cli = pd.read_csv(io.StringIO(csv))
        mine = table.drop(columns=["exact", "repeat"])
        assert list(cli.columns) == list(mine.columns)
        for column in ("value", "std_error", "ci_low", "ci_high"):
            # the command prints 6 significant digits (%.6g), the file 10: half a unit of
            # the 6th digit, 5e-6 relative, plus the file's 5e-10
            np.testing.assert_allclose(mine[column], cli[column], rtol=5e-6 + 5e-10, atol=0)
        assert mine[["model", "letter", "metric", "correction", "beats"]].fillna("").equals(
            cli[["model", "letter", "metric", "correction", "beats"]].fillna(""))
        code, md, err = run_cli(capsys, *argv, "--format", "markdown")
        assert code == 0 and md == (out / "results_table.md").read_text(), err
        t3 = pd.read_csv(out / "table3.csv").query("method == 'exact'")
        exact = t3.set_index(["recommender", "metric"])["mean"]
        both = table[table.model.isin(exact.index.get_level_values(0))]
        # the same mean of the same per-user metric, summed in another order
        np.testing.assert_allclose(both.exact, [exact[(r, x)] for r, x in
                                                zip(both.model, both.metric)],
                                   rtol=1e-9, atol=0)
        tex = (out / "results_table.tex").read_text()
        assert r"\toprule" in tex and tex.count(r"\textbf{") == len(config["study"]["metrics"])
        assert "<table>" in (out / "results_table.html").read_text()
        for ext in ("pdf", "png"):
            assert (workdir / f"figures/{dataset}/results_table.{ext}").stat().st_size > 1000


def test_jin_artefacts(workdir):
    t2 = pd.read_csv(workdir / "results/synthetic/jin_table2.csv")
    assert list(t2.columns) == ["dataset", "recommender", "metric", "method", "mean", "std"]
    assert set(t2.recommender) == {"X", "Y", "Z", "EASE"}
    assert set(t2.metric) == {"recall@10", "ndcg@10", "ap@10"}
    assert {"exact", "cls", "bv_0.1", "mle", "wmle", "mes", "dist_bv_0.1"} <= set(t2.method)
    t4 = pd.read_csv(workdir / "results/synthetic/jin_table4.csv")
    assert t4.correct.between(0, 10).all()
    assert "recall@1" in set(t4.metric)
    f2 = pd.read_csv(workdir / "results/synthetic/jin_figure2.csv")
    exact = f2[f2.method == "exact"]
    assert exact.groupby("panel").cdf.max().le(1 + 1e-12).all()
    for name in ("jin_figure2", "jin_figure3"):
        assert (workdir / f"figures/synthetic/{name}.png").stat().st_size > 1000
        assert not (workdir / f"figures/{name}.png").exists()


def test_each_model_is_fitted_once(workdir):
    """Fit once, score in shards: one fit job per (dataset, recommender), one ranks job per
    shard of ranks.users_per_shard users (synthetic-small's 1,100 users: two), and the rank
    file holds every sample size the tables ask for."""
    from sampled_metrics.evaluation.rankfile import read_rank_file
    for d, shards in (("synthetic", 1), ("synthetic-small", 2)):
        fits = sorted(p.stem for p in (workdir / f"logs/{d}").glob("fit_*.log"))
        assert fits == ["fit_EASE", "fit_X", "fit_Y", "fit_Z"]
        for rec in ("X", "Y", "Z", "EASE"):
            parts = sorted((workdir / f"logs/{d}").glob(f"ranks_{rec}_*.log"))
            assert [p.stem for p in parts] == [f"ranks_{rec}_{k}" for k in range(shards)]
        sizes = {r: read_rank_file(workdir / f"results/{d}/ranks/{r}.npz").m_values
                 for r in ("X", "Y", "Z", "EASE")}
        # X: Table 3 (m = 50), Jin (49) and Jin Figure 3 (49, 99); EASE: Jin's and the results
        # table's (study.m)
        assert sizes == {"X": [49, 50, 99], "Y": [49, 50], "Z": [49, 50], "EASE": [49, 50]}
    assert not list((workdir / "data/synthetic-small/shards").rglob("*.npz"))   # temporary
    # the view of synthetic (Jin's protocol) ranks synthetic's fits: no fit of its own, only
    # Jin's tables' m (Figure 3 is not drawn for a view)
    assert not list((workdir / "logs/synthetic-all").glob("fit_*.log"))
    assert not (workdir / "data/synthetic-all/models").exists()
    for r in ("X", "Y", "Z", "EASE"):
        view = read_rank_file(workdir / f"results/synthetic-all/ranks/{r}.npz")
        assert view.m_values == [49] and view.dataset == "synthetic-all"
        assert view.sampling == "binomial" and (view.n_u == view.n_items).all()
    assert (workdir / "results/synthetic-all/jin_table2.csv").exists()
    assert not (workdir / "figures/synthetic-all/jin_figure3.png").exists()
    assert (workdir / "figures/synthetic-all/jin_figure2.png").exists()


def test_model_seeds_fit_once_per_seed(workdir):
    """study.model_seeds [0, 1, 2]: X (iALS) is fitted once per seed, seed 0 (its own) being
    the default fit; Y and Z (item-kNN) draw nothing and are fitted once. The seeds table is
    mean and sd over the fits, and the one-seed Table 3 is seed 0's."""
    from sampled_metrics.workflow.steps.kdd_study import read_per_seed
    for d, shards in (("synthetic", 1), ("synthetic-small", 2)):
        logs = workdir / f"logs/{d}"
        assert sorted(p.parent.name for p in logs.glob("seed*/fit_*.log")) == ["seed1", "seed2"]
        assert {p.name for p in logs.glob("seed*/*.log")} == {
            "fit_X.log", "ranks_X.log", *(f"ranks_X_{k}.log" for k in range(shards))}
        assert sorted(p.name for p in (workdir / f"data/{d}/models/X").iterdir()) == [
            "seed1.pkl", "seed2.pkl"]
        assert not (workdir / f"data/{d}/models/Y").exists()
        per_seed = read_per_seed(workdir / f"results/{d}/m50/per_seed.csv")
        per_repeat = pd.read_csv(workdir / f"results/{d}/m50/per_repeat.csv")
        x0 = per_seed[(per_seed.recommender == "X") & (per_seed.seed == 0)]
        one = per_repeat[per_repeat.recommender == "X"]
        assert x0.value.tolist() == one.value.tolist()
        assert per_seed[per_seed.recommender != "X"].seed.isna().all()
        spread = pd.read_csv(workdir / f"results/{d}/table3_seeds.csv")
        assert list(spread.columns) == ["dataset", "recommender", "metric", "method", "seeds",
                                        "mean", "sd"]
        assert spread.groupby("recommender").seeds.first().to_dict() == {"X": 3, "Y": 1,
                                                                         "Z": 1}
        assert (spread[spread.recommender != "X"].sd == 0).all()
        assert "seeds 0, 1, 2" in (workdir / f"results/{d}/table3_seeds.md").read_text()


def test_two_datasets_in_one_run(workdir):
    for d in ("synthetic", "synthetic-small"):
        t3 = pd.read_csv(workdir / f"results/{d}/table3.csv")
        assert set(t3.dataset) == {d}
        info = (workdir / f"results/{d}/split_info.json").read_text()
        assert '"evaluated_users": ' + ("300" if d == "synthetic" else "1100") in info


PAPER_COPIES = [f"figures/{name}.{ext}" for name in ("figure5", "figure6", "jin_figure1",
                                                     "jin_figure2", "jin_figure3")
                for ext in ("pdf", "png")]


def test_paper_figure_copies_are_made_from_ml1m_only(workdir, tmp_path):
    """figures/figure5.pdf and the other top-level copies of the papers' figures come from
    ml-1m's only. The run on config/test.yaml's datasets made none; with copies already
    there (from an ML-1M run) a run on other datasets plans no job that writes them; with
    ml-1m in the study, each copy's job reads figures/ml-1m/ (dry runs: nothing is read)."""
    assert not [c for c in PAPER_COPIES if (workdir / c).exists()]
    wd = copy_workflow(tmp_path)
    for copy in PAPER_COPIES:
        (wd / copy).parent.mkdir(exist_ok=True)
        (wd / copy).write_text("ML-1M's")
    proc = snakemake(wd, "-n", "--forceall")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "rule paper_figure:" not in proc.stdout + proc.stderr
    assert not [c for c in PAPER_COPIES if c in proc.stdout + proc.stderr]
    (wd / "ml-1m.zip").touch()
    (wd / "ml1m.yaml").write_text(yaml.safe_dump({
        "datasets": {"ml-1m": {"format": "ml-1m", "path": "ml-1m.zip",
                               "md5": "c4d9eecfca2ab87c1945afe126590906"}},
        "study": {"datasets": ["synthetic", "ml-1m"]}}))
    proc = snakemake(wd, "ml1m.yaml", "-n", "--forceall")
    assert proc.returncode == 0, proc.stderr[-2000:]
    copies = re.findall(r"cp (figures/\S+) (figures/\S+) 2>", proc.stdout + proc.stderr)
    assert sorted(out for _, out in copies) == sorted(PAPER_COPIES)
    assert all(src == out.replace("figures/", "figures/ml-1m/") for src, out in copies)
    assert all((wd / c).read_text() == "ML-1M's" for c in PAPER_COPIES)


def _test_config() -> dict:
    from snakemake.utils import update_config

    from sampled_metrics.workflow.configuration.check import load_yaml_strict
    config = load_yaml_strict(ROOT / "config" / "config.yaml")
    update_config(config, load_yaml_strict(ROOT / "config" / "test.yaml"))
    return config


def test_run_summary_reads_what_the_run_wrote(workdir, tmp_path):
    """The lines a successful run ends with (the Snakefile's onsuccess): where the tables,
    figures, report and logs are, and Table 3's headline, from the files the run wrote. What
    is absent is not mentioned, and nothing in it can fail the run."""
    import io

    from sampled_metrics.workflow.summary import print_run_summary, run_summary
    config = _test_config()
    lines = run_summary(config, [workdir / "config/config.yaml", "config/test.yaml"], workdir)
    t3 = pd.read_csv(workdir / "results/synthetic/table3.csv")
    x = t3[(t3.recommender == "X") & (t3.metric == "recall@10")].set_index("method")["mean"]
    assert lines[:7] == [
        "sampled-metrics: the run is complete.",
        "  tables   results/<name>/ for toy, synthetic, synthetic-small, synthetic-all (CSV; "
        ".md, .tex and .html beside)",
        "  figures  figures/ and figures/<name>/ for synthetic, synthetic-small, synthetic-all "
        "(PDF and PNG)",
        "  report   snakemake --report report.html --configfile config/test.yaml (every table "
        "and figure, captioned)",
        "  logs     logs/ (one per job; timings in logs/benchmarks/)",
        "  headline results/synthetic/table3.csv: recall@10 in %, mean over 10 repeats of "
        "m = 50 sampled items",
        f"    X: exact {100 * x['exact']:.2f}, sampled {100 * x['sampled']:.2f}, bv_0.1 "
        f"{100 * x['bv_0.1']:.2f}"]
    assert [line.split(":")[0] for line in lines[7:]] == ["    Y", "    Z"]
    assert run_summary(config, [], tmp_path) == [
        "sampled-metrics: the run is complete.",
        "  report   snakemake --report report.html (every table and figure, captioned)"]
    out = io.StringIO()
    print_run_summary(None, file=out)
    assert out.getvalue().startswith("sampled-metrics: the run is complete (no summary: ")


def test_a_run_ends_with_the_summary(tmp_path):
    wd = copy_workflow(tmp_path)
    proc = snakemake(wd, "--cores", "1", "results/toy/table1.csv")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ("sampled-metrics: the run is complete.\n  tables   results/<name>/ for toy "
            "(CSV; .md, .tex and .html beside)\n") in proc.stdout, proc.stdout[-2000:]
    assert "headline" not in proc.stdout       # no Table 3 yet


def _clicks(path: Path) -> tuple[int, int, int]:
    """An interactions CSV of 30 users over 60 items, user u rating 4 + u of them, and 7
    duplicate rows; returns the users with n_u <= 50, the smallest n_u and the duplicates."""
    items = {u: [(2 * u + j) % 60 for j in range(4 + u)] for u in range(30)}
    rows = [(f"user{u}", i, 100 * u + j) for u in items for j, i in enumerate(items[u])]
    rows += [(f"user{u}", items[u][0], 5000 + u) for u in range(7)]
    path.write_text("uid,iid,when\n" + "".join(f"{u},{i},{t}\n" for u, i, t in rows))
    n_items = len({i for u in items for i in items[u]})
    n_u = [n_items - (len(items[u]) - 1) for u in items]     # items outside the training set
    assert n_items == 60
    return sum(n <= 50 for n in n_u), min(n_u), 7


def test_own_dataset_split_counts_duplicates_and_users_with_few_candidates(tmp_path):
    """The quick start's own dataset: duplicate rows collapsed are a warning in the split's
    log and ratings - interactions in split_info.json; users with n_u <= m stop the split
    before any fit, naming how many, unless study.drop_users_with_few_candidates leaves them
    out (counted in the log and in split_info.json)."""
    wd = copy_workflow(tmp_path)
    few, fewest, duplicates = _clicks(wd / "clicks.csv")
    spec = {"format": "interactions", "path": "clicks.csv",
            "md5": hashlib.md5((wd / "clicks.csv").read_bytes()).hexdigest(),
            "user_col": "uid", "item_col": "iid", "time_col": "when"}
    config = {"datasets": {"mine": spec}, "study": {"datasets": ["mine"]},
              "jin": {"enabled": False}}
    (wd / "my.yaml").write_text(yaml.safe_dump(config))
    proc = snakemake(wd, "my.yaml", "--cores", "1")
    assert proc.returncode != 0
    assert (f"clicks.csv (dataset 'mine'): {few} of 30 evaluated users have n_u <= m = 50 "
            f"items outside their training set (fewest: {fewest}); lower study.m, or set "
            f"study.drop_users_with_few_candidates: true to leave them out") in proc.stderr
    assert not (wd / "data/mine/models").exists()
    config["study"]["drop_users_with_few_candidates"] = True
    (wd / "my.yaml").write_text(yaml.safe_dump(config))
    proc = snakemake(wd, "my.yaml", "--cores", "1", "results/mine/split_info.json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    info = json.loads((wd / "results/mine/split_info.json").read_text())
    assert info["ratings"] - info["interactions"] == duplicates
    assert (info["few_candidate_users"], info["evaluated_users"]) == (few, 30 - few)
    log = (wd / "logs/mine/split.log").read_text()
    assert f"WARNING sampled_metrics.datasets.split: {duplicates} duplicate (user, item) rows " \
           f"collapsed" in log
    assert f"{few} of 30 evaluated users have n_u <= m = 50 items outside their training set " \
           f"(fewest: {fewest}): not evaluated (study.drop_users_with_few_candidates)" in log


def test_report_builds(workdir):
    proc = snakemake(workdir, "--report", "report.html")
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = (workdir / "report.html").read_text(errors="replace")
    for caption in ("Table 3", "Table 3 over model seeds", "Figure 5", "Jin et al.",
                    "running example"):
        assert caption in html
    assert "synthetic, synthetic-small with recommenders" in html      # prose, not reprs
    for table in ("table3", "table4", "table3_seeds", "jin_table2", "jin_table4"):  # rendered
        assert f"{table}.html" in html


def test_lint_is_clean(workdir):
    proc = snakemake(workdir, "--lint")
    assert proc.returncode == 0
    assert "Congratulations, your workflow is in a good condition" in proc.stdout + proc.stderr


def test_nothing_left_to_do(workdir):
    proc = snakemake(workdir, "-n", "--cores", "1")
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr


def _outputs(workdir: Path) -> dict[str, str]:
    """Every file the default target's jobs write in ``workdir``, with the rule that writes it
    (``snakemake --summary``; the temporary shards too)."""
    proc = snakemake(workdir, "--summary")
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert rows[0][:3] == ["output_file", "date", "rule"], proc.stdout[:500]
    return {row[0]: row[2] for row in rows[1:]}


def test_forced_rerun_in_one_shard_on_one_core_is_byte_identical(workdir, tmp_path):
    """Rerun on one core with every dataset in one shard: the same bytes in every file under
    results/ (CSV, md, tex, json, rank files, estimates) and data/ (split, models).

    Forced are the jobs of the toy and of the datasets ranked in more than one shard
    (synthetic-small's 1,100 users: two shards of 1,024, here one of 4,096), with everything
    upstream; not those of the datasets ranked in one shard either way (synthetic and its view
    synthetic-all): their jobs are the same rules on inputs that the shard size leaves alone,
    and one core changes only where and when a job runs and the threads of a rule of more
    than one, which the sharded dataset's jobs go through too. That subset runs every rule the
    whole run runs (asserted from ``snakemake --summary``: a rule added later is in it, or the
    test says which is not), in about half its jobs."""
    outputs = _outputs(workdir)                                 # file -> rule, the whole run
    sharded = {p.parent.name for p in (workdir / "logs").glob("*/ranks_*_1.log")}
    assert sharded, "config/test.yaml ranks no dataset in more than one shard"
    one_shard = {p.parent.parent.name for p in (workdir / "results").glob("*/ranks/*.npz")}
    one_shard -= sharded
    subset = {f: rule for f, rule in outputs.items()
              if not {*Path(f).parent.parts, Path(f).stem} & one_shard}
    assert set(subset.values()) == set(outputs.values()), \
        f"rules the rerun leaves out: {set(outputs.values()) - set(subset.values())}"
    targets = sorted(f for f in subset if (workdir / f).is_file())   # not the temporary shards
    before = {p: p.read_bytes() for d in ("results", "data") for p in (workdir / d).rglob("*")
              if p.is_file()}
    one_shard_yaml = tmp_path / "one_shard.yaml"
    one_shard_yaml.write_text("ranks:\n  users_per_shard: 4096\n")
    start = time.time_ns()
    proc = snakemake(workdir, str(one_shard_yaml), "--cores", "1", "--forceall", *targets)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ranks_shard" in proc.stdout + proc.stderr
    rewritten = {p for p in before if p.stat().st_mtime_ns >= start}
    assert {workdir / f for f in targets if f.startswith(("results/", "data/"))} <= rewritten
    for p, content in before.items():
        assert p.read_bytes() == content, p


SHIPPED_CONFIGS = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("config/*.yaml"),
                                                            *ROOT.glob("config/datasets/*.yaml")]
                         if p != ROOT / LOCAL_CONFIG)          # a developer's own, not shipped


@pytest.fixture(scope="module", autouse=True)
def shipped_plans(request, tmp_path_factory):
    """The dry runs of the selected shipped configs, started in the background when this
    module's first test starts, on every core but one (each is CPU-bound Snakemake start-up):
    the module's tests before theirs, the one-core rerun among them, leave a core free. Config
    file -> future of the finished process."""
    selected = [item.callspec.params["configfile"] for item in request.session.items
                if getattr(item, "module", None) is request.module
                and getattr(item, "originalname", None) == "test_every_shipped_config_plans"]

    def plan(configfile: str, folder: Path) -> subprocess.CompletedProcess:
        wd = folder / "wf"
        wd.mkdir()
        copy_workflow(wd)
        place_local_files(yaml.safe_load((ROOT / configfile).read_text()).get("datasets") or {},
                          wd, folder)
        cmd = [sys.executable, "-m", "snakemake", "-n", "--quiet", "--configfile", configfile]
        return subprocess.run(cmd, cwd=wd, capture_output=True, text=True, timeout=300)

    folders = {c: tmp_path_factory.mktemp("plan") for c in selected}
    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 1) - 1)) as pool:
        yield {c: pool.submit(plan, c, folders[c]) for c in selected}


@pytest.mark.parametrize("configfile", SHIPPED_CONFIGS)
def test_every_shipped_config_plans(configfile, shipped_plans):
    """`snakemake -n` with each shipped config file (on top of config/config.yaml) plans a
    run: every target has a rule and every input function answers. The local files a config
    names (placeholders here) must exist for it to plan."""
    proc = shipped_plans[configfile].result()
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-2000:]


def test_bad_archive_md5_fails_cleanly(tmp_path):
    wd = copy_workflow(tmp_path)
    bad = wd / "bad.zip"
    bad.write_bytes(b"not a zip at all")
    cfg = (wd / "config/test.yaml").read_text()
    entry = "\n".join(["datasets:", "  broken:", "    format: ml-1m", f"    path: {bad}",
                       "    md5: " + "deadbeef" * 4, ""])
    assert cfg.count("\ndatasets:\n") == 1
    cfg = cfg.replace("\ndatasets:\n", "\n" + entry)
    cfg = cfg.replace("datasets: [synthetic, synthetic-small]", "datasets: [broken]")
    (wd / "config/test.yaml").write_text(cfg)
    proc = snakemake(wd, "--cores", "1", "data/raw/broken.zip")
    assert proc.returncode != 0
    assert (f"{bad}: MD5 mismatch, expected {'deadbeef' * 4}, got "
            f"{hashlib.md5(b'not a zip at all').hexdigest()}; the file is left as it is; if it "
            f"is the right one, set datasets.broken.md5: ") in proc.stderr, proc.stderr[-2000:]
    assert "else correct datasets.broken.path" in proc.stderr
    assert not (wd / "data/raw/broken.zip").exists() and bad.read_bytes() == b"not a zip at all"


def test_invalid_config_is_rejected(tmp_path):
    wd = copy_workflow(tmp_path)
    cfg = (wd / "config/test.yaml").read_text().replace("repeats: 200", "repeats: -1")
    (wd / "config/test.yaml").write_text(cfg)
    proc = snakemake(wd, "-n")
    assert proc.returncode != 0
    assert "repeats" in proc.stderr + proc.stdout
    bad = cfg.replace("repeats: -1", "repeats: 10") + "\nrepeets: 10\n"   # a misspelt key
    (wd / "config/test.yaml").write_text(bad)
    proc = snakemake(wd, "-n")
    assert proc.returncode != 0
    assert "repeets" in proc.stderr + proc.stdout
    # a misspelt key inside a dataset entry fails too (schema from the format registry)
    typo = cfg.replace("repeats: -1", "repeats: 10").replace("    n_users: 300", "    n_user: 300")
    (wd / "config/test.yaml").write_text(typo)
    proc = snakemake(wd, "-n")
    assert proc.returncode != 0
    assert "config key datasets.synthetic: unknown key 'n_user'" in proc.stderr + proc.stdout


def test_resume_after_kill_9(workdir, tmp_path):
    """kill -9 of snakemake and its jobs mid-run, then the two documented commands
    (``snakemake --unlock``, then the run again) finish the run with the same bytes, and no
    partial or temporary file is left."""
    import os
    import signal
    import time

    wd = copy_workflow(tmp_path)
    target = "results/synthetic-small/table3.csv"
    cmd = [sys.executable, "-m", "snakemake", "--configfile", "config/test.yaml", "--cores",
           "2", target]
    proc = subprocess.Popen(cmd, cwd=wd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 300
    while not list((wd / "results" / "synthetic-small").glob("ranks/*.npz")):
        assert proc.poll() is None and time.time() < deadline, "run ended before the kill"
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (wd / target).exists()
    assert snakemake(wd, "--unlock").returncode == 0
    rerun = snakemake(wd, "--cores", "2", target)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (wd / target).read_bytes() == (workdir / target).read_bytes()
    leftovers = [p for d in ("results", "data") for p in (wd / d).rglob(".*") if p.is_file()]
    assert leftovers == []


def _tiny_movielens(path: Path) -> str:
    """A MovieLens-1M-format zip of 40 users x 30 items; returns its MD5."""
    import hashlib
    rng = np.random.default_rng(0)
    lines = [f"{u}::{i}::{rng.integers(1, 6)}::{1000 * u + t}"
             for u in range(1, 41) for t, i in enumerate(rng.choice(30, 8, replace=False) + 1)]
    return hashlib.md5(write_zip(path, "\n".join(lines) + "\n").read_bytes()).hexdigest()


def test_offline_and_online_share_outputs_and_a_failed_download_says_how(tmp_path):
    """The same archive copied from a local file (offline) or, in a later run, to be had from
    the URL (online) is one dataset: switching configs reruns nothing. A failed download
    names the config key that takes a local copy."""
    (tmp_path / "wf").mkdir()
    (tmp_path / "fresh").mkdir()
    wd = copy_workflow(tmp_path / "wf")
    md5 = _tiny_movielens(tmp_path / "ml.zip")
    entry = ["datasets:", "  tiny:", "    format: ml-1m",
             "    url: http://127.0.0.1:9/ml-1m.zip", f"    md5: {md5}"]
    online = wd / "config" / "online.yaml"
    online.write_text("\n".join(entry) + "\n")
    offline = wd / "config" / "offline-tiny.yaml"
    offline.write_text("\n".join(entry + [f"    path: {tmp_path / 'ml.zip'}"]) + "\n")
    target = "data/tiny/split.npz"
    proc = snakemake(wd, "--cores", "1", target, "--configfile", "config/test.yaml",
                     str(offline))
    assert proc.returncode == 0, proc.stderr[-2000:]
    for configs in ([str(online)], [str(offline)]):
        proc = snakemake(wd, "-n", target, "--configfile", "config/test.yaml", *configs)
        assert proc.returncode == 0 and "Nothing to be done" in proc.stdout + proc.stderr, \
            (proc.stdout + proc.stderr)[-2000:]
    fresh = copy_workflow(tmp_path / "fresh")
    (fresh / "config" / "online.yaml").write_text(online.read_text())
    proc = snakemake(fresh, "--cores", "1", target, "--configfile", "config/test.yaml",
                     "config/online.yaml")
    assert proc.returncode != 0
    assert ("download failed" in proc.stderr and "download it elsewhere, then set "
            "datasets.tiny.path to your copy in config/local.yaml, which every run reads, or "
            "in a --configfile (datasets.tiny.md5 must be its MD5)") in proc.stderr, \
        proc.stderr[-2000:]
    assert not (fresh / "data/raw/tiny.zip").exists()


def test_a_local_copy_in_config_local_yaml_serves_every_run(tmp_path):
    """config/local.yaml, read by every run when present (after config/config.yaml, before
    --configfile), takes a dataset from a local archive: a run and a targeted rerun without
    the offline --configfile copy it instead of downloading (its URL refuses), the file that
    the rerun needs gone or not; the run's summary does not ask for it in the report command.
    A --configfile still has the last word."""
    wd = copy_workflow(tmp_path)
    md5 = _tiny_movielens(tmp_path / "ml.zip")
    (wd / LOCAL_CONFIG).write_text("\n".join([
        "datasets:", "  tiny:", "    format: ml-1m", "    url: http://127.0.0.1:9/ml-1m.zip",
        f"    path: {tmp_path / 'ml.zip'}", f"    md5: {md5}", ""]))
    archive = wd / "data/raw/tiny.zip"
    proc = snakemake(wd, "--cores", "1", "data/raw/tiny.zip")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert archive.read_bytes() == (tmp_path / "ml.zip").read_bytes()
    assert ("report   snakemake --report report.html --configfile config/test.yaml "
            "(every table") in proc.stdout
    archive.unlink()                                      # a targeted rerun rebuilds it
    proc = snakemake(wd, "-n", "data/tiny/split.npz")
    assert proc.returncode == 0 and "dataset_archive" in proc.stdout, proc.stderr[-2000:]
    proc = snakemake(wd, "--cores", "1", "data/raw/tiny.zip")
    assert proc.returncode == 0 and archive.is_file(), proc.stderr[-2000:]
    elsewhere = wd / "elsewhere.yaml"                     # the command line's file comes last
    elsewhere.write_text("datasets:\n  tiny:\n    path: missing.zip\n")
    # --forcerun takes every name after it: the target comes before it, or the run would
    # take the rest of the workflow as its targets too
    proc = snakemake(wd, str(elsewhere), "--cores", "1", "data/raw/tiny.zip", "--forcerun",
                     "dataset_archive")
    assert proc.returncode != 0
    assert "rule fit:" not in proc.stdout + proc.stderr, proc.stderr[-2000:]
    assert "missing.zip: local archive not found; correct datasets.tiny.path" in proc.stderr, \
        proc.stderr[-2000:]
