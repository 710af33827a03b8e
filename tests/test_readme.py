"""The README is short and speaks of the project only: at most 250 lines, no history or
workspace words. Its command lines and Python blocks run in tests/test_doc_blocks.py."""
from conftest import ROOT

README = (ROOT / "README.md").read_text()


def test_readme_is_short_and_speaks_of_the_project_only():
    assert len(README.splitlines()) <= 250
    for word in ("issue ", "this session", "this machine", "../shared", "the redesign"):
        assert word not in README, word
