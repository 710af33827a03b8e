"""Every shell and Python block of the README and of the guide's quick-start pages runs as
written, so that the documentation cannot drift from what the tools do.

Pages: README.md and docs/guide/{correcting, several-positives, compare, bounds, workflow,
troubleshooting, cluster}.md. Each line of a ```bash block (``\\`` continuations joined,
``# comments`` dropped, ``&&`` splitting it into commands) must be of a known kind, or
``test_every_shell_line_has_a_kind`` fails; each block or line is one test, named page:line.

What is run:

- ``sampled-metrics ...``: in this process, in a folder holding the inputs the pages name:
  ranks.txt, ranks_A.txt, ranks_B.txt (sampled ranks 1..101, m = 100), positives.csv and
  draws.csv (the long formats of docs/formats.md) and results/ml-1m/ranks/{X,Y}.npz (rank
  files written by ``RankFile.write``: 3,706 items, 400 users, m = 100). Exit code 0; where a
  plain block right below shows the output, the printed table equals it (whitespace aside),
  except output the page took from real MovieLens data (``REAL_DATA_OUTPUT``), of which only
  the columns and the rows' labels are compared.
- ``snakemake ...``: a dry run (``-n`` added) in a copy of the workflow holding empty
  stand-ins for the local files its configs name (a dry run checks that they exist; their MD5
  is checked by the job that reads them) and the page's YAML block written to the file the
  command names (absolute paths in it moved into the copy). A YAML block no command names is
  dry-run as a ``--configfile`` of its own. ``snakemake --unlock`` runs for real. A run
  repeated on several pages is run once; the runs are subprocesses started together when the
  first test of this file starts (each spends most of its time starting Snakemake).
- ```python blocks: executed in the input folder.
- ```text transcripts (``$ command`` then its output): each command, given the bad input its
  error line implies (``BAD_INPUTS``), prints that line, with the exit code the
  troubleshooting page gives (2 for the command line, 1 for the workflow).

What is not run, and why (reported as skips with that reason):

- set-up commands (``python3 -m venv .venv``, ``. .venv/bin/activate``, ``pip install -e
  ".[extras]"``, ``pytest``, ``sudo workflow/cluster/local-slurm.sh up|status|down``): they
  build the environment these tests run in, or are this suite; CI's ``.ci/run`` runs them.
  Checked here: each is one of these patterns, names only extras pyproject.toml declares and
  actions the script takes.
- ``snakemake --report``: needs a finished run (tests/test_workflow.py builds the report
  after its full run).
- ``--workflow-profile profiles/slurm``: dry-run when the SLURM executor plugin is installed,
  else skipped (tests/test_slurm.py runs the profile on a real SLURM).
- Python fragments around a RecBole ``trainer``: tests/test_recbole.py runs the complete
  script of docs/recbole.md against real RecBole.
- plain blocks that do not show a command's output (workflow.md's data flow): not code.
"""
import ast
import builtins
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import ROOT, copy_workflow, place_local_files, run_cli, toy_rank_file


PAGES = ["README.md", *(f"docs/guide/{name}.md" for name in (
    "correcting", "several-positives", "compare", "bounds", "workflow", "troubleshooting",
    "cluster"))]

#: set-up commands, not run here: pattern -> what it does
SETUP = {
    r"python3 -m venv \.venv": "creates the virtualenv these tests run in",
    r"\. \.venv/bin/activate": "activates the virtualenv these tests run in",
    r"pip install -e \.\[(?P<extras>[\w,-]+)\]": "installs the package these tests import",
    r"pytest": "runs this test suite",
    r"sudo workflow/cluster/local-slurm\.sh (?P<action>\w+)":
        "stands up, checks or takes down a SLURM as root (tests/test_slurm.py uses it)",
}
SETUP_SKIP = "set-up, run by CI's .ci/run, not by this test: "

#: snakemake commands a dry run cannot stand for: option -> why
NOT_DRY_RUN = {
    "--report": "needs a finished run: the report gathers the tables and figures a run made "
                "(tests/test_workflow.py builds it after its full run)",
}
SLURM_PLUGIN = "snakemake_executor_plugin_slurm"

#: output a page shows from real data: (page, part of the command) -> why it is not compared
REAL_DATA_OUTPUT = {
    ("docs/guide/compare.md", "results/ml-1m/ranks/X.npz"):
        "the table is MovieLens-1M's (the offline workflow's rank files); the stand-in rank "
        "files give other numbers",
}

#: the exit code of a command that refuses its input, as docs/guide/troubleshooting.md says
ERROR_EXIT = {"sampled-metrics": 2, "snakemake": 1}

#: names a Python fragment may leave to the RecBole script around it
RECBOLE_NAMES = {"trainer", "test_data"}
RECBOLE_SKIP = ("a fragment around a RecBole trainer (uses {names}); tests/test_recbole.py "
                "runs the complete script of docs/recbole.md against real RecBole")

N_ITEMS, M = 3706, 100


# ---------------------------------------------------------------------------- the pages


@dataclass(frozen=True)
class Block:
    """One fenced block: its page, the line of its opening fence (1-based), its language,
    its text (dedented) and the text of a plain block right below it, if any."""
    page: str
    line: int
    lang: str
    text: str
    below: "str | None" = None


def _blocks(page: str) -> list[Block]:
    lines = (ROOT / page).read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        opening = re.fullmatch(r"( *)```(\w*)\s*", lines[i])
        if not opening:
            i += 1
            continue
        indent, lang = opening.groups()
        j = i + 1
        while not re.fullmatch(rf"{indent}```\s*", lines[j]):
            j += 1
        text = "".join(line[len(indent):] + "\n" for line in lines[i + 1:j])
        found.append((Block(page, i + 1, lang, text), j + 1))
        i = j + 1
    blocks = []
    for k, (block, closing) in enumerate(found):
        after = found[k + 1][0] if k + 1 < len(found) else None
        if after is not None and after.lang == "" and after.line == closing + 1:
            block = Block(block.page, block.line, block.lang, block.text, after.text)
        blocks.append(block)
    return blocks


BLOCKS = [block for page in PAGES for block in _blocks(page)]


def _shell_lines(block: Block):
    """(line number, text) of each line of a shell block, continuations joined."""
    pending, start = "", None
    for k, raw in enumerate(block.text.splitlines()):
        start = block.line + 1 + k if start is None else start
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        yield start, pending + raw
        pending, start = "", None


def _commands(line: str) -> list[tuple[str, ...]] | None:
    """The commands of a shell line (split at ``&&``, comment dropped), or None when it
    holds other shell syntax (pipes, redirections, ``;``)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands, current = [], []
    for token in lexer:
        if token == "&&":
            commands.append(tuple(current))
            current = []
        elif set(token) <= set(lexer.punctuation_chars):
            return None
        else:
            current.append(token)
    return [command for command in (*commands, tuple(current)) if command]


def _kind(argv: tuple[str, ...]) -> str | None:
    if argv[0] in ("sampled-metrics", "snakemake"):
        return argv[0]
    if any(re.fullmatch(pattern, " ".join(argv)) for pattern in SETUP):
        return "setup"
    return None


def _configfiles(argv) -> list[str]:
    return [argv[k + 1] for k, arg in enumerate(argv[:-1]) if arg == "--configfile"]


def _named_yaml(page: str) -> dict[str, str]:
    """The page's YAML blocks that name their file on their first line (``# my.yaml``)."""
    named = {}
    for block in BLOCKS:
        first = block.text.partition("\n")[0]
        if block.page == page and block.lang == "yaml" and re.fullmatch(r"# \S+\.yaml", first):
            named[first[2:]] = block.text
    return named


@dataclass(frozen=True)
class Run:
    """One snakemake subprocess: its arguments and the files written into its copy of the
    workflow ((name, text) pairs)."""
    argv: tuple[str, ...]
    files: tuple[tuple[str, str], ...] = ()


def _dry_run(argv: tuple[str, ...], files=()) -> Run:
    """``snakemake ARGV`` with ``-n`` added (``--unlock`` as it is)."""
    args = argv[1:] if "--unlock" in argv or "-n" in argv else ("-n", *argv[1:])
    return Run(args, tuple(files))


@dataclass(frozen=True)
class Case:
    """One test: a command of a page (for a set-up line, all of its commands), a Python
    block, or a transcript's command; the output the page shows, the snakemake run."""
    page: str
    line: int
    argv: tuple = ()
    output: "str | None" = None
    run: "Run | None" = None
    code: str = ""

    def __str__(self):
        return f"{self.page}:{self.line}"


# ---------------------------------------------------------------------------- transcripts


def _bad_ranks(match, argv):
    """The rank file, its line ``line`` holding the out-of-range rank, the others valid."""
    ranks = ["1"] * (int(match["line"]) + 3)
    ranks[int(match["line"]) - 1] = match["rank"]
    return ((match["file"], "\n".join(ranks) + "\n"),)


def _unknown_key(match, argv):
    """The config file the command names, the unknown key where the message puts it."""
    tree = {match["bad"]: 1}
    for key in reversed(match["key"].split(".")):
        tree = {key: tree}
    return ((_configfiles(argv)[-1], yaml.safe_dump(tree)),)


#: an error line of a transcript -> the input files ((name, text), ...) that make the command
#: print it
BAD_INPUTS = [
    (r"sampled-metrics \w+: error: (?P<file>[\w.]+):(?P<line>\d+): sampled rank (?P<rank>\d+) "
     r"outside 1\.\.m\+1=\d+", _bad_ranks),
    (r"sampled-metrics: config key (?P<key>[\w.-]+): unknown key '(?P<bad>[\w-]+)'; .*",
     _unknown_key),
]


def _bad_input(output: str) -> tuple | None:
    """The files that make a command print ``output`` (its last line), or None."""
    last = output.strip().rpartition("\n")[2]
    for pattern, make in BAD_INPUTS:
        match = re.fullmatch(pattern, last)
        if match:
            return lambda argv: make(match, argv)
    return None


def _transcript(block: Block) -> list[Case]:
    """The ``$ command`` lines of a transcript, each with the lines below it."""
    commands = []
    for k, text in enumerate(block.text.splitlines()):
        if text.startswith("$ "):
            commands.append((block.line + 1 + k, tuple(shlex.split(text[2:])), []))
        elif commands:
            commands[-1][2].append(text)
    cases = []
    for line, argv, output in commands:
        output = "\n".join(output)
        make = _bad_input(output)
        run = _dry_run(argv, make(argv)) if argv[0] == "snakemake" and make else None
        cases.append(Case(block.page, line, argv, output, run))
    return cases


# ---------------------------------------------------------------------------- the cases


def _collect():
    """The test cases of every kind, and what is of no known kind."""
    cases = {"sampled-metrics": [], "snakemake": [], "setup": [], "python": [],
             "transcript": []}
    unknown, used_yaml = [], set()
    for block in BLOCKS:
        if block.lang == "bash":
            lines = list(_shell_lines(block))
            for line, text in lines:
                commands = _commands(text)
                if commands is None or not all(map(_kind, commands)):
                    unknown.append(f"{block.page}:{line}: {text.strip()}")
                    continue
                setup = tuple(c for c in commands if _kind(c) == "setup")
                if setup:
                    cases["setup"].append(Case(block.page, line, setup))
                named = _named_yaml(block.page)
                for argv in (c for c in commands if _kind(c) != "setup"):
                    shown = block.below if line == lines[-1][0] else None
                    files = [(f, named[f]) for f in _configfiles(argv) if f in named]
                    used_yaml.update(text for _, text in files)
                    run = (_dry_run(argv, files) if argv[0] == "snakemake"
                           and not any(option in argv for option in NOT_DRY_RUN) else None)
                    cases[argv[0]].append(Case(block.page, line, argv, shown, run))
        elif block.lang == "python":
            cases["python"].append(Case(block.page, block.line, code=block.text))
        elif block.lang == "text":
            transcript = _transcript(block)
            cases["transcript"] += transcript
            if not transcript:
                unknown.append(f"{block.page}:{block.line}: a text block with no '$ command'")
        elif block.lang not in ("yaml", ""):
            unknown.append(f"{block.page}:{block.line}: a ```{block.lang} block")
    for block in BLOCKS:                # a YAML block no command names: dry-run on its own
        if block.lang == "yaml" and block.text not in used_yaml:
            name = f"{Path(block.page).stem}-{block.line}.yaml"
            argv = ("snakemake", "-n", "--configfile", name)
            cases["snakemake"].append(Case(block.page, block.line, argv,
                                           run=_dry_run(argv, [(name, block.text)])))
    return cases, unknown


CASES, UNKNOWN = _collect()


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """The files the pages' commands and Python blocks read (module docstring)."""
    folder = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(0)
    for name, p in (("ranks.txt", 0.05), ("ranks_A.txt", 0.05), ("ranks_B.txt", 0.2)):
        ranks = np.minimum(rng.geometric(p, 2000), M + 1)
        (folder / name).write_text("\n".join(map(str, ranks)) + "\n")
    positions = ["user,position,n_nonrelevant,n_negatives"]
    draws = ["user,position,n_nonrelevant,above,prob"]
    for user in range(200):
        k = int(rng.integers(1, 4))                 # positives; 100 negatives per positive
        n_nonrelevant = N_ITEMS - 20 - k
        listed = np.sort(rng.choice(np.arange(1, 101 * k + 1), size=k, replace=False))
        positions += [f"u{user},{p},{n_nonrelevant},{100 * k}" for p in listed]
        # popularity sampling: 100 draws pooled per user, the i-th positive (by position)
        # outranked by p_i - i of them
        listed = np.sort(rng.choice(np.arange(1, k + 101), size=k, replace=False))
        prob, order = rng.uniform(1e-5, 1e-3, 100), rng.permutation(100)
        for i, p in enumerate(listed, 1):
            above = np.zeros(100, dtype=int)
            above[order[:p - i]] = 1
            draws += [f"u{user},{p},{n_nonrelevant},{a},{q:.6g}" for a, q in zip(above, prob)]
    (folder / "positives.csv").write_text("\n".join(positions) + "\n")
    (folder / "draws.csv").write_text("\n".join(draws) + "\n")
    ranks_dir = folder / "results" / "ml-1m" / "ranks"
    ranks_dir.mkdir(parents=True)
    users, n_u = 400, N_ITEMS - 20
    for name, p in (("X", 0.003), ("Y", 0.004)):
        exact = np.minimum(rng.geometric(p, users), n_u)
        toy_rank_file(exact, n_u, M, rng, repeats=2, n_items=N_ITEMS, dataset="ml-1m",
                      recommender=name).write(ranks_dir / f"{name}.npz")
    return folder


def _copy(folder: Path, files, configs) -> Path:
    """A copy of the workflow with ``files`` written in (absolute ``path:`` entries moved
    into the copy) and empty stand-ins for the local files that ``configs`` name."""
    wd = copy_workflow(folder)
    for name, text in files:
        (wd / name).write_text(re.sub(r"(?m)^(\s*path:\s*)/", lambda m: f"{m[1]}{wd}/", text))
    for config in configs:
        place_local_files((yaml.safe_load((wd / config).read_text()) or {}).get("datasets")
                          or {}, wd, wd)
    return wd


def _snakemake(run: Run, wd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run([sys.executable, "-m", "snakemake", *run.argv], cwd=wd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module", autouse=True)
def snakemake_runs(request, tmp_path_factory):
    """The snakemake runs of the selected tests, started together when the first test of
    this file starts (one copy of the workflow per set of written files): run -> future."""
    cases = [item.callspec.params["case"] for item in request.session.items
             if getattr(item, "module", None) is request.module and hasattr(item, "callspec")]
    runs = {case.run for case in cases} - {None}
    if not importlib.util.find_spec(SLURM_PLUGIN):
        runs = {run for run in runs if "--workflow-profile" not in run.argv}
    copies = {}
    for files in {run.files for run in runs}:
        configs = {c for run in runs if run.files == files for c in _configfiles(run.argv)}
        copies[files] = _copy(tmp_path_factory.mktemp("wf"), files, configs)
    with ThreadPoolExecutor(max_workers=max(1, len(runs))) as pool:
        yield {run: pool.submit(_snakemake, run, copies[run.files]) for run in runs}


# ---------------------------------------------------------------------------- the tests


def test_every_shell_line_has_a_kind():
    """A shell line or block of a kind this file does not know fails here, so that it
    cannot go untested."""
    assert not UNKNOWN, "\n".join(UNKNOWN)
    assert all(CASES.values()), {kind: len(cases) for kind, cases in CASES.items()}


def _table(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


@pytest.mark.parametrize("case", CASES["sampled-metrics"], ids=str)
def test_command_line(case, inputs, monkeypatch, capsys):
    monkeypatch.chdir(inputs)
    code, out, err = run_cli(capsys, *case.argv[1:])
    assert code == 0, err
    if case.output is None:
        return
    printed, shown = _table(out), _table(case.output)
    if any(page == case.page and part in case.argv for page, part in REAL_DATA_OUTPUT):
        assert printed[0] == shown[0]                                   # the columns
        assert [row[:2] for row in printed] == [row[:2] for row in shown]   # (metric, method)
    else:
        assert printed == shown


def _free_names(code: str) -> set[str]:
    nodes = list(ast.walk(ast.parse(code)))
    bound = {(alias.asname or alias.name).split(".")[0] for node in nodes
             if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    bound |= {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    used = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return used - bound - set(dir(builtins))


@pytest.mark.parametrize("case", CASES["python"], ids=str)
def test_python_block(case, inputs, monkeypatch):
    free = _free_names(case.code)
    if free and free <= RECBOLE_NAMES:
        pytest.skip(RECBOLE_SKIP.format(names=", ".join(sorted(free))))
    monkeypatch.chdir(inputs)
    exec(compile(case.code, str(case), "exec"), {"__name__": "__doc_block__"})


@pytest.mark.parametrize("case", CASES["setup"], ids=str)
def test_setup_line(case):
    """Not run (module docstring); the extras it installs exist, the actions it asks of
    local-slurm.sh are the script's."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    script = (ROOT / "workflow/cluster/local-slurm.sh").read_text()
    what = []
    for argv in case.argv:
        pattern = next(p for p in SETUP if re.fullmatch(p, " ".join(argv)))
        named = re.fullmatch(pattern, " ".join(argv)).groupdict()
        if "extras" in named:
            assert set(named["extras"].split(",")) <= set(extras), named["extras"]
        if "action" in named:
            assert re.search(rf"(?m)^\s*{named['action']}\) ", script), named["action"]
        what.append(SETUP[pattern])
    pytest.skip(SETUP_SKIP + "; ".join(what))


@pytest.mark.parametrize("case", [  # a snakemake transcript runs snakemake: slow
    pytest.param(c, marks=pytest.mark.slow) if c.argv[0] == "snakemake" else c
    for c in CASES["transcript"]], ids=str)
def test_transcript(case, tmp_path, monkeypatch, capsys, snakemake_runs):
    """The command, given the input its error line implies, prints that line."""
    make = _bad_input(case.output)
    assert make, f"no input known that makes {case.argv[0]} print {case.output!r}"
    if case.argv[0] == "snakemake":
        proc = snakemake_runs[case.run].result()
        code, err = proc.returncode, proc.stderr
    else:
        assert case.argv[0] == "sampled-metrics", case.argv
        for name, text in make(case.argv):
            (tmp_path / name).write_text(text)
        monkeypatch.chdir(tmp_path)
        code, _, err = run_cli(capsys, *case.argv[1:])
    assert code == ERROR_EXIT[case.argv[0]], err
    assert err.strip().splitlines()[-1] == case.output.strip()


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES["snakemake"], ids=str)
def test_snakemake_line(case, snakemake_runs):
    for option, why in NOT_DRY_RUN.items():
        if option in case.argv:
            pytest.skip(why)
    if "--workflow-profile" in case.argv and not importlib.util.find_spec(SLURM_PLUGIN):
        pytest.skip(f"the SLURM executor plugin ({SLURM_PLUGIN}) is not installed: "
                    f'pip install -e ".[slurm]"')
    proc = snakemake_runs[case.run].result()
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0, said[-3000:]
    if "--unlock" in case.argv:
        assert "Unlocked working directory." in said
    else:
        assert "This was a dry-run" in said, said[-3000:]
