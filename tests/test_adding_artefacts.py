"""Adding a table or a figure touches only the places docs/design.md lists (its bullet "a table
or figure" under "Where a new piece goes"): in a copy of the workflow and the library, a toy
table and a toy figure are added to each branch (the running example, the KDD'20 study, Jin et
al.) in exactly those places, and ``snakemake -n`` on the test config plans their jobs in the
default target. A place the bullet does not name (a hand-kept target list, say) makes the dry
run plan none of them."""
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, copy_workflow, snakemake

#: the places of the bullet, as it names them -> the file each edit lands in (``{branch}``: the
#: branch's rule file, ``{steps}``: its steps module, ``{name}``: the new rule)
PLACES = {
    "`workflow/steps/` module": "src/sampled_metrics/workflow/steps/{steps}.py",
    "`workflow/rules/<branch>.smk`": "workflow/rules/{branch}.smk",
    "`workflow/scripts/`": "workflow/scripts/{name}.py",
    "`workflow/report/`": "workflow/report/{name}.rst",
}

#: branch -> (its steps module, the directory of its files, the new rules' input, how many
#: jobs per new rule the test config plans: one, one per study dataset, one per Jin dataset)
BRANCHES = {
    "toy": ("toy", "toy", "", 1),
    "kdd_study": ("kdd_study", "{dataset}",
                  'expand(rules.corrections.output, m=PLAN.study["m"], allow_missing=True)', 2),
    "jin": ("jin", "{dataset}", 'unpack(get_rank_files(PLAN.jin["recommenders"]))', 3),
}

STEP = '''

def {name}_frame(inputs: dict) -> pd.DataFrame:
    """A toy frame: how many inputs."""
    return pd.DataFrame({{"inputs": [len(inputs)]}})


def {name}(inputs: dict, outputs: dict) -> pd.DataFrame:
    """A toy artefact: the frame as CSV."""
    frame = {name}_frame(inputs)
    frame.to_csv(outputs["csv"], index=False)
    return frame
'''

SCRIPT = '''from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.{steps} import {name}

with script_logging(snakemake):
    {name}(dict(snakemake.input), dict(snakemake.output))
'''

RULE = '''

rule {name}:{input}
    output:
        {outputs}
    conda:
        ENV
    log:
        "logs/{folder}/{name}.log",
    script:
        "../scripts/{name}.py"
'''

#: the outputs of a toy table and a toy figure (``{folder}``, ``{name}``, ``{category}``)
OUTPUTS = {
    "table": ['csv=report("results/{folder}/{name}.csv", caption="../report/{name}.rst", '
              'category="{category}")', 'md="results/{folder}/{name}.md"'],
    "figure": ['pdf="figures/{folder}/{name}.pdf"',
               'png=report("figures/{folder}/{name}.png", caption="../report/{name}.rst", '
               'category="{category}")', 'csv="results/{folder}/{name}.csv"'],
}


def _bullet() -> str:
    """The design notes' bullet on where a table or figure goes."""
    text = (ROOT / "docs" / "design.md").read_text()
    match = re.search(r"^- \*\*a table or figure\*\*:(.*?)(?=^- \*\*|^\n)", text, re.S | re.M)
    assert match, "docs/design.md has no bullet '- **a table or figure**:'"
    return " ".join(match.group(1).split())


def _append(root: Path, place: str, text: str, **names) -> Path:
    """Append ``text`` to the file of ``place`` (a key of PLACES) in the copy ``root``."""
    path = root / PLACES[place].format(**names)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        handle.write(text)
    return path


def _add_artefact(root: Path, branch: str, kind: str) -> str:
    """Add a toy ``kind`` (table or figure) to ``branch`` in the places of PLACES; its rule."""
    steps, folder, inputs, _ = BRANCHES[branch]
    name = f"{branch}_extra_{kind}"
    names = {"branch": branch, "steps": steps, "name": name}
    _append(root, "`workflow/steps/` module", STEP.format(name=name), **names)
    _append(root, "`workflow/scripts/`", SCRIPT.format(steps=steps, name=name), **names)
    _append(root, "`workflow/report/`", f"A toy {kind} of the {branch} branch.\n", **names)
    outputs = "\n        ".join(o.format(folder=folder, name=name, category=branch) + ","
                                for o in OUTPUTS[kind])
    _append(root, "`workflow/rules/<branch>.smk`",
            RULE.format(name=name, input=f"\n    input:\n        {inputs}," if inputs else "",
                        outputs=outputs, folder=folder), **names)
    return name


def _job_counts(output: str) -> dict[str, int]:
    """The 'Job stats' table of a dry run: {rule: jobs}."""
    table = output.split("Job stats:", 1)[1].split("total", 1)[0]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def test_the_bullet_names_every_place_the_test_edits():
    bullet = _bullet()
    missing = [place for place in PLACES if place not in bullet]
    assert not missing, f"docs/design.md's 'a table or figure' no longer names {missing}"


@pytest.mark.workflow
@pytest.mark.slow
def test_a_table_and_a_figure_added_in_the_documented_places_are_planned(tmp_path):
    root = copy_workflow(tmp_path)
    shutil.copytree(ROOT / "src", root / "src")
    added = {}
    for branch, (*_, jobs) in BRANCHES.items():
        for kind in OUTPUTS:
            added[_add_artefact(root, branch, kind)] = jobs
    for path in [*root.glob("src/sampled_metrics/workflow/steps/*.py"), *root.glob("workflow/scripts/*")]:
        compile(path.read_text(), path, "exec")     # a dry run runs no script
    proc = snakemake(root, "-n", timeout=300, env={**os.environ, "PYTHONPATH": str(root / "src")})
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    counts = _job_counts(proc.stdout)
    planned = {name: counts.get(name, 0) for name in added}
    assert planned == added, (
        "a table or figure added where docs/design.md says is not (fully) planned by "
        f"`snakemake -n`: jobs {planned}, expected {added}; the bullet misses a place")
