"""A renamed config key keeps working for one release, with a one-line notice."""
import copy
import subprocess
import sys

import pytest

from sampled_metrics.configuration.check import ConfigError, check_config
from sampled_metrics.configuration.renamed import RENAMED, upgrade_renamed_keys

from conftest import copy_workflow
from test_bad_inputs import BASE, SCHEMA


def test_the_old_practice_key_is_merged_over_the_new_one():
    config = copy.deepcopy(BASE)
    config["protocols"] = {"enabled": True, "m": 20}
    notes = check_config(config, SCHEMA)
    assert notes == ["config key protocols is now practice (the old name is read until the "
                     "next release)"]
    assert "protocols" not in config
    assert config["practice"] == {**BASE["practice"], "enabled": True, "m": 20}
    assert check_config(copy.deepcopy(BASE), SCHEMA) == []


def test_an_old_key_is_checked_under_its_new_name():
    config = copy.deepcopy(BASE)
    config["protocols"] = {"datasets": ["nowhere"]}
    with pytest.raises(ConfigError, match=r"config key practice\.datasets\[0\]: dataset "
                                          r"'nowhere' is not in 'datasets'"):
        check_config(config, SCHEMA)


def test_a_recommenders_old_num_threads_is_its_threads():
    """``recommenders.<name>.num_threads`` is read as ``threads``, for every recommender
    that has it, each with its own line."""
    config = copy.deepcopy(BASE)
    config["recommenders"]["Y"] = {"model": "itemknn", "q": 3.0, "num_threads": 2}
    config["recommenders"]["EASE"] = {**config["recommenders"]["EASE"], "num_threads": 1}
    notes = check_config(config, SCHEMA)
    assert notes == [f"config key recommenders.{name}.num_threads is now recommenders.{name}"
                     f".threads (the old name is read until the next release)"
                     for name in ("Y", "EASE")]
    assert config["recommenders"]["Y"] == {"model": "itemknn", "q": 3.0, "threads": 2}
    assert config["recommenders"]["EASE"]["threads"] == 1


def test_every_renamed_key_names_a_schema_key():
    """Every new key is in the schema, or is a keyword of every recommender kind (the open
    ``recommenders`` entries: the schema lists only ``model``); ``*`` steps match."""
    import inspect

    import yaml

    from sampled_metrics.recommenders import KINDS
    schema = yaml.safe_load(open(SCHEMA))
    for old, new in RENAMED.items():
        assert old != new and len(old) == len(new)
        assert [i for i, k in enumerate(old) if k == "*"] == [i for i, k in enumerate(new)
                                                             if k == "*"]
        if new[0] == "recommenders":
            assert all(new[-1] in inspect.signature(kind).parameters for kind in KINDS.values())
        else:
            node = schema
            for key in new:
                node = node["additionalProperties"] if key == "*" else node["properties"][key]
        config = {}
        target = config
        for key in old[:-1]:
            target = target.setdefault("A" if key == "*" else key, {})
        target[old[-1]] = {}
        assert len(upgrade_renamed_keys(config)) == 1


@pytest.mark.workflow
def test_snakemake_reads_the_old_key_with_a_notice(tmp_path):
    wd = copy_workflow(tmp_path)
    (wd / "my.yaml").write_text("protocols:\n  enabled: true\n")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile",
                           "config/test.yaml", "my.yaml"], cwd=wd, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    notice = [line for line in proc.stderr.splitlines() if "protocols" in line]
    assert notice == ["sampled-metrics: config key protocols is now practice (the old name "
                      "is read until the next release)"]
    assert "practice_table" in proc.stdout + proc.stderr


@pytest.mark.workflow
def test_snakemake_reads_a_recommenders_num_threads_with_a_notice(tmp_path):
    wd = copy_workflow(tmp_path)
    (wd / "my.yaml").write_text("recommenders:\n  Y:\n    model: itemknn\n    q: 3.0\n"
                                "    num_threads: 1\n")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile",
                           "config/test.yaml", "my.yaml"], cwd=wd, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    notice = [line for line in proc.stderr.splitlines() if "num_threads" in line]
    assert notice == ["sampled-metrics: config key recommenders.Y.num_threads is now "
                      "recommenders.Y.threads (the old name is read until the next release)"]

