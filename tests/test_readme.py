"""The README is short and true: at most 250 lines, no history or workspace words, and its
command-line examples and its Python quick start run as written (on sampled ranks made
here, m = 100)."""
import re
import shlex

import numpy as np
import pytest
from conftest import ROOT, run_cli

README = (ROOT / "README.md").read_text()


def test_readme_is_short_and_speaks_of_the_project_only():
    assert len(README.splitlines()) <= 250
    for word in ("issue ", "this session", "this machine", "../shared", "the redesign"):
        assert word not in README, word


def _commands():
    lines = [line for block in re.findall(r"```bash\n(.*?)```", README, re.S)
             for line in block.splitlines() if line.startswith("sampled-metrics ")]
    assert lines
    return lines


@pytest.fixture()
def sampled_files(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    for name, p in (("ranks.txt", 0.05), ("ranks_A.txt", 0.05), ("ranks_B.txt", 0.2)):
        ranks = np.minimum(rng.geometric(p, 2000), 101)
        (tmp_path / name).write_text("\n".join(map(str, ranks)) + "\n")
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("line", _commands())
def test_command_line_examples_run(line, sampled_files, capsys):
    argv = shlex.split(line.split("#")[0])[1:]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err


def test_python_quick_start_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    block = re.findall(r"```python\n(.*?)```", README, re.S)[0]
    exec(compile(block, "README.md", "exec"), {})
