"""The conda files stay in step with pyproject.toml, the one list of dependencies: the
workflow's rule environments hold the library's and the workflow extra's packages at the
same lower bounds (conda names where they differ), the neural one adds PyTorch at the
`neural` extra's pin, each has its post-deploy script, and environment.yml installs what
the README's two commands need."""
import re
import tomllib

import pytest
import yaml
from conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
ENVS = ROOT / "workflow" / "envs"
#: pip name -> conda-forge name, where they differ
CONDA_NAMES = {"matplotlib": "matplotlib-base"}
#: pip-only tools the rules do not import (snakemake runs the rules; the checker is its own)
NOT_IN_RULES = {"snakemake", "jsonschema"}


def _requirement(text: str) -> tuple[str, str]:
    """(name, version spec) of a requirement; its extras, e.g. snakemake[reports], dropped."""
    name, spec = re.match(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*)$",
                          text.split("#")[0].strip()).groups()
    return name.lower(), spec.replace(" ", "")


def _conda(env: dict) -> dict:
    out = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str) and not dep.startswith(("python", "pip")):
            name, spec = _requirement(dep)
            out[name] = spec
    return out


def _pip(env: dict) -> dict:
    pips = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    return dict(_requirement(x) for x in (pips[0] if pips else []))


def _needed() -> dict:
    deps = PYPROJECT["dependencies"] + PYPROJECT["optional-dependencies"]["workflow"]
    out = {}
    for text in deps:
        name, spec = _requirement(text)
        if name not in NOT_IN_RULES and not name.startswith("sampled-metrics"):
            out[CONDA_NAMES.get(name, name)] = spec
    return out


@pytest.mark.parametrize("env", ["sampled-metrics", "neural"])
def test_rule_environments_hold_the_library_and_workflow_packages(env):
    spec = yaml.safe_load((ENVS / f"{env}.yaml").read_text())
    assert _conda(spec) == _needed()
    assert (ENVS / f"{env}.post-deploy.sh").read_text() == \
        (ENVS / "sampled-metrics.post-deploy.sh").read_text()


def test_neural_environment_pins_torch_as_the_extra():
    (torch,) = PYPROJECT["optional-dependencies"]["neural"]
    name, pin = _requirement(torch)
    assert _pip(yaml.safe_load((ENVS / "neural.yaml").read_text())) == {name: pin}
    assert "torch" not in _pip(yaml.safe_load((ENVS / "sampled-metrics.yaml").read_text()))


def _extras(text: str) -> set:
    return set(re.search(r"\[([a-z,]+)\]", text).group(1).split(","))


def test_environment_yml_installs_what_the_readme_commands_need():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pips = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    (line,) = pips[0]
    installed = _extras(line)
    for extra in list(installed):                 # extras an extra brings, e.g. test
        for req in PYPROJECT["optional-dependencies"][extra]:
            if req.startswith("sampled-metrics["):
                installed |= _extras(req)
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r'pip install -e "(\.\[[a-z,]+\])" && (snakemake|pytest)', readme)
    assert sorted(c for _, c in commands) == ["pytest", "snakemake"]
    for extras, command in commands:
        assert _extras(extras) <= installed, (command, extras, installed)
