"""The config schema's enumerations are the library's registries: the YAML schema lists none
of them (one list per idea), the config check fills each from its registry, and registering a new
value (a toy recommender kind) makes the config accept it with no schema edit."""
import pytest
import yaml
from conftest import ROOT

from sampled_metrics import recommenders
from sampled_metrics.workflow.configuration.check import (ConfigError, check_schema, check_semantics,
                                                 library_enums, with_library_enums)

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
CONFIG = ROOT / "config" / "config.yaml"


def _node(schema, path):
    for step in path:
        schema = (schema["additionalProperties"] if step == "*" else schema["items"]
                  if step == "[]" else schema["properties"][step])
    return schema


def _enums(node, found, path=()):
    if isinstance(node, dict):
        if "enum" in node:
            found.append(path)
        for key, value in node.items():
            _enums(value, found, (*path, key))
    return found


def test_the_yaml_schema_lists_no_enumeration():
    assert _enums(yaml.safe_load(SCHEMA.read_text()), []) == []


@pytest.mark.parametrize("path", list(library_enums()), ids=".".join)
def test_each_enumeration_is_its_registry(path):
    filled = with_library_enums(yaml.safe_load(SCHEMA.read_text()))
    assert _node(filled, path)["enum"] == list(library_enums()[path])
    assert len(set(library_enums()[path])) == len(library_enums()[path]) > 1


def test_a_value_outside_the_registry_is_refused_naming_the_registry():
    config = yaml.safe_load(CONFIG.read_text())
    config["study"]["tie"] = "average_ish"
    with pytest.raises(ConfigError, match="config key study.tie: expected one of pessimistic, "
                                          "optimistic, average, random, random_per_ranking"):
        check_schema(config, SCHEMA)


def test_a_registered_toy_recommender_is_accepted_without_a_schema_edit(monkeypatch):
    class Toy(recommenders.KINDS["ease"]):
        """A toy kind: EASE under another name."""
    config = yaml.safe_load(CONFIG.read_text())
    config["recommenders"]["T"] = {"model": "toy", "lam": 10.0}
    with pytest.raises(ConfigError, match="config key recommenders.T.model"):
        check_schema(config, SCHEMA)
    monkeypatch.setitem(recommenders.KINDS, "toy", Toy)
    check_schema(config, SCHEMA)
    config["study"]["recommenders"] = ["X", "T"]
    check_semantics(config)
