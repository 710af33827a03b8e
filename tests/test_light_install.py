"""`pip install .` is the library and the command line: its dependencies leave out the
workflow's, and every command runs with Snakemake, matplotlib, implicit, PyYAML, jsonschema
and PyTorch made unimportable."""
import subprocess
import sys

import pytest
from conftest import ROOT

tomllib = pytest.importorskip("tomllib", reason="tomllib is in Python >= 3.11")

WORKFLOW_ONLY = ("snakemake", "matplotlib", "implicit", "yaml", "jsonschema", "torch")

SCRIPT = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError(f"{{name}} is not installed (blocked)")
sys.meta_path.insert(0, Block())
import sampled_metrics
from sampled_metrics.cli import main
ranks = {ranks!r}
open(ranks, "w").write("1\\n5\\n30\\n2\\n")
for argv in (["correct", "--ranks", ranks, "--n", "500", "--m", "50"],
             ["estimate", "--ranks", ranks, "--n", "500", "--m", "50", "--bootstrap", "0",
              "--method", "mle"],
             ["plan", "--n", "500", "--metric", "recall@10", "--target-bias", "0.05"],
             ["compare", ranks, ranks, "--n", "500", "--m", "50",
              "--method", "sampled,cls", "--bootstrap", "40"],
             ["table", ranks, ranks, "--names", "a,b", "--n", "500", "--m", "50",
              "--metric", "recall@10", "--method", "recommended,cls", "--format", "latex"],
             ["bound", "--n", "500", "--m", "50", "--observed", "hr@10=0.5",
              "--metric", "recall@10"]):
    assert main(argv) == 0, argv
"""


def test_base_dependencies_leave_out_the_workflow():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = " ".join(meta["dependencies"]).lower()
    for name in ("snakemake", "matplotlib", "implicit", "pyyaml", "jsonschema", "torch"):
        assert name not in base, name
    assert "snakemake" in " ".join(meta["optional-dependencies"]["workflow"])


def test_every_command_runs_without_the_workflow_packages(tmp_path):
    code = SCRIPT.format(blocked=set(WORKFLOW_ONLY), ranks=str(tmp_path / "ranks.txt"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
