"""The point and width ablation (workflow/ablations/recommended_point_width.py): its rows do
not depend on how many worker processes compute them, and its summary reads them."""
import subprocess
import sys
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[1] / "workflow/ablations/recommended_point_width.py"
#: two cells, one n for all users and one n_u per user (several positives need m < n: none)
GRID = ["--n", "300", "--m", "20", "--shapes", "ml1m", "--sampling", "binomial", "--draws", "1",
        "--per-user-n", "300", "--several-n", "20", "--users", "200", "--no-centre"]


def run(out: Path, processes: int) -> None:
    subprocess.run([sys.executable, str(SCRIPT), *GRID, "--processes", str(processes),
                    "--out", str(out)], check=True, capture_output=True, text=True)


def test_the_rows_do_not_depend_on_the_processes_and_the_summary_reads_them(tmp_path):
    run(tmp_path / "one" / "ablation", 1)
    run(tmp_path / "two" / "ablation", 2)
    one, two = (tmp_path / "one" / "ablation.csv"), (tmp_path / "two" / "ablation.csv")
    assert one.read_bytes() == two.read_bytes()
    rows = pd.read_csv(one)
    assert sorted(rows["pool"].unique()) == ["common", "per_user"]
    assert len(rows) == 2 * 3                       # pools x metrics
    summary = pd.read_csv(tmp_path / "one" / "ablation_summary.csv")
    values = summary[(summary["kind"] == "value") & (summary["group"] == "all")]
    today = values[values["candidate"] == "today"]
    assert (today["rmse_ratio"] == 1.0).all()
    # each value's RMSE is the root mean square of its errors over the same rows; the files
    # hold 10 significant digits (half a unit: 5e-10 relative), and the RMS is 1-Lipschitz
    # in the errors, each off by at most 5e-10 (|point| + |truth|)
    part = rows[rows["metric"] == "recall@10"]
    mle = values[(values["candidate"] == "mle") & (values["metric"] == "recall@10")]
    expected = ((part["point_mle"] - part["truth"]) ** 2).mean() ** 0.5
    rounding = 5e-10 * (float((part["point_mle"].abs() + part["truth"].abs()).max()) + expected)
    assert abs(float(mle["rmse"].iloc[0]) - expected) <= rounding
