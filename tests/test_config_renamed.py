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


def test_every_renamed_key_names_a_schema_key():
    import yaml
    schema = yaml.safe_load(open(SCHEMA))
    for old, new in RENAMED.items():
        node = schema
        for key in new:
            node = node["properties"][key]
        assert old != new
        config = {}
        target = config
        for key in old[:-1]:
            target = target.setdefault(key, {})
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
