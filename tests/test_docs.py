"""The documentation site builds with no warning (strict), its command-line page shows the
program's own help, and every page in the navigation exists."""
import os
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow
pytest.importorskip("mkdocs", reason="the docs extra (mkdocs) is not installed")


def test_site_builds_strictly(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", COLUMNS="100")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    cli = (tmp_path / "site" / "cli" / "index.html").read_text()
    for command in ("correct", "estimate", "plan", "compare", "bound"):
        assert f"sampled-metrics {command}" in cli, command
