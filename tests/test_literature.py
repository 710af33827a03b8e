"""The literature table (steps.literature): intervals of published values, inconsistent
values named, orderings confirmed only when the intervals separate."""
import pandas as pd
import pytest

from sampled_metrics import bound_full_metric
from sampled_metrics.workflow.steps.literature import (INPUT_COLUMNS, literature_tables,
                                              read_published)
from conftest import ROOT


def curated(tmp_path, rows):
    path = tmp_path / "published.csv"
    pd.DataFrame(rows, columns=INPUT_COLUMNS).to_csv(path, index=False)
    return path


def row(recommender, metric, value, sampler="uniform", evaluator="", n=3706, m=100):
    return ["P", "T1", "d", n, m, sampler, recommender, metric, value, "src", "yes", "yes", "",
            evaluator]


def test_intervals_inconsistencies_and_orderings(tmp_path):
    path = curated(tmp_path, [
        row("A", "hr@10", "0.730"), row("A", "ndcg@10", "0.447"),
        row("B", "hr@10", "0.300"), row("B", "ndcg@10", "0.150"),
        row("C", "hr@10", "0.2983"), row("C", "ndcg@10", "0.0786"),     # NDCG@10 < HR@10 / log2 11
        row("D", "hr@10", "0.5", sampler="popularity")])
    lit, orders = literature_tables(path, tmp_path / "res", tmp_path / "page.md")
    a = lit[(lit.recommender == "A") & (lit.target == "recall@10")].set_index("shape")
    want = bound_full_metric({"hr@10": "0.730", "ndcg@10": "0.447"}, 3706, 100, "recall@10",
                             shape="non-increasing")
    assert (a.loc["non-increasing", "low"], a.loc["non-increasing", "high"]) == \
        pytest.approx(want)
    c = lit[lit.recommender == "C"]
    assert (c.status == "inconsistent: hr@10=0.2983, ndcg@10=0.0786").all()
    assert lit[lit.recommender == "D"].status.str.startswith("sampler popularity").all()
    verdicts = orders.set_index(["published", "target", "shape"]).verdict
    ab = "A > B (hr@10 0.730 vs 0.300)"
    assert verdicts[(ab, "recall@10", "none")] == "not confirmed"    # [0, 0.359] overlaps
    assert verdicts[(ab, "recall@10", "non-increasing")] == "confirmed"
    assert verdicts[("A > C (hr@10 0.730 vs 0.2983)", "recall@10", "none")] == "n.a."
    page = (tmp_path / "page.md").read_text()
    assert "[0.048, 0.242]" in page and "src" in page
    # the unconfirmed orderings: one line per pair, a verdict per target and shape
    line = next(x for x in page.splitlines() if "A > B (hr@10 0.730 vs 0.300)" in x)
    assert line.count("not confirmed") == 3 and line.count("| confirmed") == 1


def test_the_shipped_curated_file_reads():
    published = read_published(ROOT / "workflow" / "literature" / "published_sampled.csv")
    assert set(published.value_verified) <= {"yes", "no"}
    assert published.groupby(["paper", "dataset", "recommender"]).ngroups >= 8


def test_rows_tagged_with_an_evaluator_use_its_law(tmp_path):
    path = curated(tmp_path, [
        row("S", "hit@10", "0.8245", evaluator="sasrec", n=3416),
        row("S", "ndcg@10", "0.5905", evaluator="sasrec", n=3416),
        row("S2", "hit@10", "0.7010", evaluator="sasrec", n=3416),
        row("U", "hit@10", "0.8245", evaluator="sasrec", n=""),
        row("P", "hit@10", "0.6", evaluator="bert4rec")])
    lit, _ = literature_tables(path, tmp_path / "res", tmp_path / "page.md")
    s = lit[(lit.recommender == "S") & (lit.target == "ndcg@10")].set_index("shape")
    want = bound_full_metric("hit@10=0.8245,ndcg@10=0.5905", 3416, 100, "ndcg@10",
                             shape="non-increasing", evaluator="sasrec")
    generic = bound_full_metric("hit@10=0.8245,ndcg@10=0.5905", 3416, 100, "ndcg@10",
                                shape="non-increasing")
    assert (s.loc["non-increasing", "low"], s.loc["non-increasing", "high"]) == \
        pytest.approx(want)
    assert want != pytest.approx(generic)
    assert (lit[lit.recommender == "U"].status == "n not known").all()
    assert (lit[lit.recommender == "P"].status == "evaluator bert4rec: no correction").all()
    assert "| sasrec |" in (tmp_path / "page.md").read_text()
