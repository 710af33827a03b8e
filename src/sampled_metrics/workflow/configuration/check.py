"""The workflow's configuration, checked before any job runs (so ``snakemake -n`` fails).

Three layers, each failing with a one-line :class:`ConfigError` that names the key as the
user wrote it (``study.figure5.edge``), what was expected and what was found:

1. :func:`check_config_files` reads every YAML file the run merges and refuses duplicate keys
   (YAML itself keeps the last one silently) and files that are not a mapping.
2. :func:`check_schema` validates the merged config against the closed JSON schema of
   ``workflow/schemas/config.schema.yaml`` (unknown keys rejected at every level; integers
   written as integers, not 2048.0; each ``datasets`` entry against its format's own keys,
   generated from the dataset registry; every enumeration, e.g.
   ``recommenders.<name>.model`` or ``study.tie``, filled from the library's registry of
   that idea by :func:`library_enums`).
3. :func:`check_semantics` checks what the schema cannot: metric, correction and estimator
   names; the recommenders each table names exist and their parameters build a model; the tie
   policy gives integer sampled ranks; every m of every branch is below the dataset's item
   count where it can be known now (a synthetic dataset, a published MovieLens archive, a
   local ``interactions`` file of at most 100 MB, read here); the sampled ranks (repeats
   x users) fit in memory where the config decides them; the local archives the run reads
   exist, and pyarrow is installed where one is Parquet. Which datasets, recommenders and m
   the run has is the workflow's own fan-out plan
   (:class:`sampled_metrics.workflow.configuration.fanout.FanOut`), so these checks walk the jobs that
   will run.

What only the data can decide (candidates per user, users left after the split) is checked by
the first job that reads the data, the split, before any model is fitted.
"""
from __future__ import annotations

import copy
import difflib
import inspect
import math
import os
import re
from collections.abc import Mapping

import jsonschema
import yaml
from jsonschema.exceptions import best_match

from ...corrections.lookup import N_MODES
from ...corrections.vectors import parse_correction
from ...datasets import (FORMATS, check_datasets, check_local_file, dataset_schema, known_items,
                        known_users, read_interactions, synthetic_parameters)
from ...datasets.download import LOCAL_CONFIG
from ...datasets.interactions import parquet_source, pyarrow_available
from ...estimators.dispatch import parse_estimator
from ...evaluation.engine import CANDIDATES, TIES, check_sampled_ranks_size
from ...metrics import parse_metric
from ...multipositive.holdout import SPLITS
from ...recommenders import KINDS, needs_torch, torch_available
from ...registry import FAMILYWISE_METHODS
from ...sampling import SAMPLING_LAWS
from ...textfile import check_readable
from .fanout import FanOut

__all__ = ["LOCAL_CONFIG", "ConfigError", "check_config_files", "check_schema", "check_semantics",
           "check_config", "library_enums", "with_library_enums"]



class ConfigError(ValueError):
    """A mistake in the configuration (one line, naming the key)."""


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping."""


def _construct_mapping(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigError(f"key {_short(key)} appears twice in one mapping (lines "
                              f"{seen[key] + 1} and {key_node.start_mark.line + 1}); YAML "
                              f"would keep only the last")
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml_strict(path) -> dict:
    """The mapping of a YAML config file; ConfigError naming the file for a missing or
    unreadable file, bad YAML, a duplicate key or a top level that is not a mapping."""
    shown = str(path)
    try:  # missing, a directory, a pipe, unreadable: the text readers' one check
        path = check_readable(path, shown, "YAML config file")
    except ValueError as err:
        raise ConfigError(f"config file {err}") from None
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"config file {shown}: cannot read ({type(err).__name__}: "
                          f"{str(err)[:80]})") from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except ConfigError as err:
        raise ConfigError(f"config file {shown}: {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ConfigError(f"config file {shown}:{where}: not valid YAML ({problem})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {shown}: expected a mapping of keys at the top, "
                          f"found {type(data).__name__}")
    return data


def check_config_files(paths) -> None:
    """:func:`load_yaml_strict` on every file of ``paths`` (the run's config files), each
    named relative to the working directory when it lies below it (as the user typed it)."""
    for path in paths:
        rel = os.path.relpath(path)
        load_yaml_strict(path if rel.startswith("..") else rel)


# --- the schema ---------------------------------------------------------------------------

def _key(path) -> str:
    parts = []
    for p in path:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "(top level)"


def _describe(error) -> str:
    """One line for a jsonschema error: the key, what was expected, what was found."""
    where = _key(error.absolute_path)
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance,
                                                                        Mapping) else []
        hint = ""
        if extra:
            close = difflib.get_close_matches(str(extra[0]), allowed, n=1)
            hint = f"; did you mean {close[0]!r}" if close else ""
        names = ", ".join(map(repr, extra)) or "?"
        return (f"config key {where}: unknown key {names}{hint} (allowed: "
                f"{', '.join(allowed) or 'none'})")[:240]
    if error.validator == "required":
        return f"config key {where}: {error.message}"
    if error.validator == "enum":
        return (f"config key {where}: expected one of {', '.join(map(str, error.validator_value))}"
                f", found {_short(error.instance)}")
    if error.validator == "type":
        expected = error.validator_value
        if isinstance(expected, list):
            expected = " or ".join(expected)
        return (f"config key {where}: expected {expected}, found "
                f"{_short(error.instance)} ({type(error.instance).__name__})")
    if error.validator in ("minimum", "maximum", "exclusiveMinimum"):
        return (f"config key {where}: expected {error.validator} {error.validator_value}, "
                f"found {_short(error.instance)}")
    if error.validator == "multipleOf":
        return (f"config key {where}: expected a multiple of {error.validator_value}, found "
                f"{_short(error.instance)}")
    if error.validator == "uniqueItems":
        return (f"config key {where}: expected every value once, found "
                f"{_short(error.instance)}")
    if error.validator in ("minItems", "minProperties"):
        return f"config key {where}: must not be empty, found {_short(error.instance)}"
    return f"config key {where}: {error.message[:160]}"


def library_enums() -> dict:
    """The schema's enumerations, each the library's registry of its idea: {path: values}.

    A path names the schema's properties from the top; ``*`` is any entry of a catalogue
    (``additionalProperties``), ``[]`` an array's items. Registering a new recommender kind,
    tie policy, sampling law, candidate set, n mode or split therefore needs no schema edit.
    """
    return {
        ("toy", "table2", "sampling"): SAMPLING_LAWS,
        ("recommenders", "*", "model"): tuple(KINDS),
        ("study", "tie"): TIES,
        ("study", "sampling"): SAMPLING_LAWS,
        ("study", "n_mode"): N_MODES,
        ("study", "results_table", "familywise"): FAMILYWISE_METHODS,
        ("dataset_protocols", "*", "candidates"): CANDIDATES,
        ("dataset_protocols", "*", "sampling"): SAMPLING_LAWS,
        ("practice", "splits", "[]"): SPLITS,
    }


def _schema_node(schema: dict, path) -> dict:
    node = schema
    for step in path:
        node = (node["additionalProperties"] if step == "*" else node["items"] if step == "[]"
                else node["properties"][step])
    return node


def with_library_enums(schema: Mapping) -> dict:
    """A copy of ``schema`` whose every :func:`library_enums` path has its registry as
    ``enum``."""
    schema = copy.deepcopy(dict(schema))
    for path, values in library_enums().items():
        _schema_node(schema, path)["enum"] = list(values)
    return schema


def _with_dataset_formats(schema: dict) -> dict:
    schema = dict(schema)
    props = dict(schema.get("properties", {}))
    if "datasets" in props:
        props["datasets"] = {**props["datasets"], "additionalProperties": dataset_schema()}
    schema["properties"] = props
    return schema


def _is_integer(checker, instance) -> bool:
    """An integer as written: 2048, not 2048.0 (JSON Schema's own "integer" takes any float
    with no fractional part), and never a boolean."""
    return isinstance(instance, int) and not isinstance(instance, bool)


#: The schema's validator, whose "integer" is exact (:func:`_is_integer`).
_EXACT_TYPES = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


def check_schema(config: Mapping, schema) -> None:
    """Validate ``config`` against the closed schema (a mapping or a YAML path), each
    ``datasets`` entry against its format; an integer must be written as one (2048, not
    2048.0). ConfigError for the most relevant error."""

    if not isinstance(schema, Mapping):
        schema = load_yaml_strict(schema)
    schema = _with_dataset_formats(with_library_enums(schema))
    for name, spec in (config.get("datasets") or {}).items():
        if isinstance(spec, Mapping) and "format" not in spec:
            raise ConfigError(f"config key datasets.{name}: 'format' is missing (one of "
                              f"{', '.join(FORMATS)}); found keys {', '.join(map(str, spec))}")
        try:  # the registry's messages name the dataset and suggest the close key
            check_datasets({name: spec})
        except ValueError as err:
            raise ConfigError(f"config key datasets.{name}: {str(err).split(': ', 1)[-1]}"
                              [:240]) from None
    validator = _EXACT_TYPES(schema)
    error = best_match(validator.iter_errors(dict(config)))
    if error is not None:
        # within if/then the deepest error is the useful one
        while error.context:
            error = best_match(error.context)
        raise ConfigError(_describe(error))


# --- what the schema cannot say -------------------------------------------------------------

def _names(config, path):
    node = config
    for p in path:
        if not isinstance(node, Mapping) or p not in node:
            return None
        node = node[p]
    return node


def _each(config, path, check) -> None:
    values = _names(config, path)
    if values is None:
        return
    for i, value in enumerate(values if isinstance(values, list) else [values]):
        where = _key(path) + (f"[{i}]" if isinstance(values, list) else "")
        try:
            check(value)
        except (ValueError, TypeError) as err:
            raise ConfigError(f"config key {where}: {str(err)[:180]}") from None


def _metric(value) -> None:
    parse_metric(value)


def _correction(value) -> None:
    if not isinstance(value, str):
        raise ValueError(f"expected a correction name, found {_short(value)}")
    parse_correction(value)


def _positive_list(config, path, *, sorted_=False) -> None:
    values = _names(config, path)
    if values is not None and sorted_ and list(values) != sorted(set(values)):
        raise ConfigError(f"config key {_key(path)}: expected strictly increasing values, "
                          f"found {_short(values)}")


def _recommender_refs(config, path) -> None:
    known = config.get("recommenders") or {}
    values = _names(config, path)
    for i, name in enumerate(values if isinstance(values, list) else
                             ([values] if values is not None else [])):
        if name not in known:
            where = _key(path) + (f"[{i}]" if isinstance(values, list) else "")
            raise ConfigError(f"config key {where}: recommender {_short(name)} is not in "
                              f"'recommenders' (defined: {', '.join(map(str, known)) or 'none'})")


def _check_recommenders(config) -> None:
    for name, spec in (config.get("recommenders") or {}).items():
        params = {k: v for k, v in spec.items() if k != "model"}
        kind = spec.get("model")
        if kind not in KINDS:
            continue  # the schema reports it
        if needs_torch(spec) and name in FanOut(config).ranked_recommenders() \
                and not torch_available():
            raise ConfigError(f"config key recommenders.{name}: model {kind!r} needs PyTorch, "
                              f"which is not installed: pip install 'sampled-metrics[neural]'")
        signature = inspect.signature(KINDS[kind])
        allowed = [p for p in signature.parameters if p != "self"]
        for key, value in params.items():
            default = signature.parameters[key].default if key in allowed else None
            numeric = isinstance(default, (int, float)) and not isinstance(default, bool)
            if numeric and (isinstance(value, (str, bool)) or value is None):
                raise ConfigError(f"config key recommenders.{name}.{key}: expected a number, "
                                  f"found {_short(value)} ({type(value).__name__})")
        unknown = sorted(set(params) - set(allowed))
        if unknown:
            raise ConfigError(f"config key recommenders.{name}: model {kind!r} takes no "
                              f"parameter {unknown[0]!r} (it takes: {', '.join(allowed)})")
        try:
            KINDS[kind](**params)
        except (ValueError, TypeError) as err:
            raise ConfigError(f"config key recommenders.{name}: {str(err)[:180]}") from None


#: A local ``interactions`` file (``datasets.<name>.path``) up to this size is read when the
#: config is checked, to count its items (about a second for 100 MB of CSV); a larger one,
#: or one still to download, is checked by the split job, before any fit.
READ_ITEMS_MAX_BYTES = 100 * 2 ** 20


def _item_count(spec) -> tuple[int, str] | None:
    """(|I|, how it is known) of a dataset where it can be known before any job runs: a
    synthetic dataset's ``n_items``, a published MovieLens archive's (by its MD5), the items
    of a local ``interactions`` file of at most READ_ITEMS_MAX_BYTES (read here); else None.
    A file that cannot be read now is left to the split job, which names the problem."""
    if not isinstance(spec, Mapping):
        return None
    n = known_items(spec)
    if n is not None:
        return n, (f"n_items = {n}" if spec.get("format") == "synthetic" else
                   f"{n} items (the published {spec['format']})")
    path = spec.get("path")
    if spec.get("format") != "interactions" or not isinstance(path, str):
        return None
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > READ_ITEMS_MAX_BYTES:
            return None
        n = int(read_interactions(path, spec)["item"].nunique())
    except (OSError, ValueError, ImportError):   # DataError is a ValueError
        return None
    return n, f"{n} items in {path}"


def _check_study(config) -> None:
    study = config.get("study")
    if not study:
        return
    _recommender_refs(config, ("study", "recommenders"))
    _recommender_refs(config, ("study", "results_table", "recommenders"))
    known = config.get("datasets") or {}
    for i, name in enumerate(study.get("datasets", [])):
        if name not in known:
            raise ConfigError(f"config key study.datasets[{i}]: dataset {_short(name)} is not "
                              f"in 'datasets' (defined: {', '.join(map(str, known)) or 'none'})")
    _each(config, ("study", "metrics"), _metric)
    _each(config, ("study", "corrections"), _correction)
    _each(config, ("study", "figure6", "metric"), _metric)
    _each(config, ("study", "figure6", "corrections"), _correction)
    _positive_list(config, ("study", "figure5", "edges"), sorted_=True)
    if study.get("tie") == "average":
        raise ConfigError("config key study.tie: 'average' gives fractional ranks, but sampled "
                          "ranks must be integers; use random_per_ranking, random, pessimistic "
                          "or optimistic")
    seeds = study.get("model_seeds")
    if isinstance(seeds, list) and None in seeds and len(seeds) > 1:
        raise ConfigError(f"config key study.model_seeds: null (each recommender's own seed) "
                          f"stands alone; list integer seeds instead, found {_short(seeds)}")
    # every m of every rank file (FanOut.rank_files), named by the first key that asks for
    # it, then Figure 6's largest m and the practice study's m, against the items of the
    # dataset ranked, where they can be known now (_item_count)
    plan = FanOut(config)
    checks = list(dict.fromkeys((plan.base_of(dataset), key, m)
                                for dataset, _, sizes in plan.rank_files()
                                for key, m in plan.m_keys() if m in sizes))
    max_m = study.get("figure6", {}).get("max_m")
    checks += [(dataset, "study.figure6.max_m", max_m) for dataset in plan.study_datasets()]
    practice = config.get("practice") or {}
    checks += [(dataset, "practice.m", practice.get("m"))
               for dataset in plan.practice_datasets()]
    items = {}
    for dataset, key, m in checks:
        if not isinstance(m, int) or dataset not in known:
            continue
        if dataset not in items:
            items[dataset] = _item_count(known[dataset])
        if items[dataset] is not None and m >= items[dataset][0]:
            n, how = items[dataset]
            hint = "; or set jin.enabled: false" if key.startswith("jin.") else ""
            raise ConfigError(f"config key {key}: m = {m} sampled items, but dataset "
                              f"{dataset!r} has only {how} (need m < "
                              f"{'n_items' if how.startswith('n_items') else n}){hint}")


def _check_repeats(config) -> None:
    """The sampled ranks of every rank file (FanOut.rank_files: study.repeats at each of its
    m) fit in memory, where the config decides the users (a synthetic dataset, a published
    MovieLens archive; the ranks job checks the others before ranking)."""
    study, entries = config.get("study") or {}, config.get("datasets") or {}
    if not isinstance(study.get("repeats"), int) or not isinstance(study.get("m"), int):
        return
    plan = FanOut(config)
    for dataset, _, sizes in plan.rank_files():
        users = known_users(entries.get(plan.base_of(dataset)) or {})
        if users is None:
            continue
        try:
            check_sampled_ranks_size(users, sizes, dataset)
        except ValueError as err:
            raise ConfigError(f"config key study.repeats: {err}") from None


def _check_local_files(config) -> None:
    """A local archive (``datasets.<name>.path``) of a dataset the run reads must exist now,
    not only when its job runs; an ``interactions`` file known to be Parquet
    (:func:`~sampled_metrics.datasets.interactions.parquet_source`) needs pyarrow now."""
    entries = config.get("datasets") or {}
    for name in FanOut(config).used_datasets():
        spec = entries.get(name) or {}
        try:
            check_local_file(spec)
        except ValueError as err:
            raise ConfigError(f"config key datasets.{name}.path: {str(err)[:200]}") from None
        parquet = parquet_source(spec) if spec.get("format") == "interactions" else None
        if parquet and not pyarrow_available():
            raise ConfigError(f"config key datasets.{name}: {_short(parquet, 80)} is a Parquet "
                              f"file, which needs pyarrow, not installed: pip install pyarrow "
                              f"(or convert it to CSV)")


def _check_jin(config) -> None:
    jin = config.get("jin")
    if not jin or not jin.get("enabled"):
        return
    if not config.get("study"):
        raise ConfigError("config key jin.enabled: Jin's tables reuse the study's datasets, "
                          "split and negatives, but there is no 'study' section")
    _recommender_refs(config, ("jin", "recommenders"))
    _recommender_refs(config, ("jin", "figure3", "recommender"))
    if "figure1" in jin:
        _recommender_refs(config, ("jin", "figure1", "recommender"))
        chosen, listed = (jin["figure1"] or {}).get("recommender"), jin.get("recommenders") or []
        if chosen not in listed:     # Figure 1 draws the P(R) estimated for Jin's tables
            raise ConfigError(f"config key jin.figure1.recommender: {_short(chosen)} is not in "
                              f"jin.recommenders ({', '.join(map(str, listed))}); add it there "
                              f"or choose one of them")
    known = FanOut(config).dataset_names()
    for i, dataset in enumerate(jin.get("datasets") or []):
        if dataset not in known:
            raise ConfigError(f"config key jin.datasets[{i}]: {dataset!r} is not defined in "
                              f"'datasets' or as a view in 'dataset_protocols' (defined: "
                              f"{', '.join(map(str, known)) or 'none'})")
    for key in ("metrics", "table2_metrics"):
        _each(config, ("jin", key), _metric)
    _each(config, ("jin", "corrections"), _correction)
    options = jin.get("options") or {}
    for estimator, opts in options.items():
        try:
            parse_estimator(estimator, **({"gamma": 0.1} if estimator == "bv" else {}), **opts)
        except ValueError as err:
            raise ConfigError(f"config key jin.options.{estimator}: {str(err)[:180]}") from None
    for key in (("estimators",), ("figure1", "estimators"), ("figure2", "estimators"),
                ("figure3", "estimators")):
        _each(config, ("jin", *key),   # as steps.jin
              lambda estimator: parse_estimator(estimator, **(options.get(estimator) or {})))


def _check_toy(config) -> None:
    toy = config.get("toy") or {}
    if not toy.get("enabled"):
        return
    n = toy.get("n")
    _each(config, ("toy", "figure4", "metric"), _metric)
    checks = [("toy.table2.m", toy.get("table2", {}).get("m")),
              ("toy.figure4.m", toy.get("figure4", {}).get("m"))]
    checks += [(f"toy.figure3.m_values[{i}]", m)
               for i, m in enumerate(toy.get("figure3", {}).get("m_values", []))]
    for key, m in checks:
        if isinstance(m, int) and isinstance(n, int) and m >= n:
            raise ConfigError(f"config key {key}: m = {m} sampled items, but toy.n = {n} "
                              f"(need m < n)")
    top = toy.get("figure3", {}).get("top")
    if isinstance(top, int) and isinstance(n, int) and top > n:
        raise ConfigError(f"config key toy.figure3.top: {top} ranks shown, but toy.n = {n}")


def _check_practice(config) -> None:
    """The practice section: recommenders, datasets, metric and correction names
    (``minimal_bias`` is refused: its pseudo-inverse has no interpolation grid, so every
    distinct n of every repeat would be solved exactly)."""
    practice = config.get("practice")
    if not practice:
        return
    _recommender_refs(config, ("practice", "recommenders"))
    for i, name in enumerate(practice.get("datasets", [])):
        if name not in (config.get("datasets") or {}):
            raise ConfigError(f"config key practice.datasets[{i}]: dataset {_short(name)} is "
                              f"not in 'datasets'")
    _each(config, ("practice", "metrics"), _metric)
    _each(config, ("practice", "corrections"), _correction)
    for i, correction in enumerate(practice.get("corrections", [])):
        if str(correction).strip().lower() in ("minimal_bias", "mb", "bv_0"):
            raise ConfigError(f"config key practice.corrections[{i}]: {_short(correction)} "
                              f"is not offered in the practice study; use cls or "
                              f"bv_<gamma > 0>")


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _check_values(node, path=()) -> None:
    """No NaN or infinity anywhere (the schema's bounds let them through)."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            _check_values(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _check_values(value, (*path, i))
    elif isinstance(node, float) and not math.isfinite(node):
        raise ConfigError(f"config key {_key(path)}: expected a finite number, found {node}")


def _check_dataset_protocols(config) -> None:
    """A protocol entry names a dataset (its own split and fits) or, with ``of``, is a view
    of one (a new name: the dataset's split and fits, ranked under this protocol)."""
    known = config.get("datasets") or {}
    defined = ", ".join(map(str, known)) or "none"
    for name, protocol in (config.get("dataset_protocols") or {}).items():
        key = f"config key dataset_protocols.{name}"
        if "of" not in protocol:
            if name not in known:
                raise ConfigError(f"{key}: not a dataset defined in 'datasets' (defined: "
                                  f"{defined}); to rank a dataset under a second protocol "
                                  f"without refitting, add 'of: <dataset>'")
            continue
        if name in known:
            raise ConfigError(f"{key}: a view ('of') needs a new name, but {name!r} is a "
                              f"dataset in 'datasets'")
        if protocol["of"] not in known:
            raise ConfigError(f"{key}.of: {_short(protocol['of'])} is not a dataset defined "
                              f"in 'datasets' (defined: {defined})")
    views = set(FanOut(config).views())
    for section in ("study", "practice"):
        for i, name in enumerate((config.get(section) or {}).get("datasets") or []):
            if name in views:
                raise ConfigError(f"config key {section}.datasets[{i}]: {name!r} is a view "
                                  f"(dataset_protocols.{name}.of); views serve jin.datasets "
                                  f"only")


def _check_names(config) -> None:
    """Dataset, view and recommender names become folder and file names: letters, digits,
    _ . -"""
    named = [(section, name) for section in ("datasets", "recommenders")
             for name in config.get(section) or {}]
    for section, name in named + [("dataset_protocols", v) for v in FanOut(config).views()]:
        if not isinstance(name, str) or not _NAME.match(name) or name in (".", ".."):
            raise ConfigError(f"config key {section}.{name}: a name may hold only letters, "
                              f"digits and _ . - (and not start with . _ or -), found "
                              f"{_short(name)}")


def _check_synthetic(config) -> None:
    """Synthetic datasets: their sizes must be consistent (decided by the config alone)."""
    for name, spec in (config.get("datasets") or {}).items():
        if isinstance(spec, Mapping) and spec.get("format") == "synthetic":
            try:
                synthetic_parameters(**{k: v for k, v in spec.items() if k != "format"})
            except (ValueError, TypeError) as err:
                raise ConfigError(f"config key datasets.{name}: {str(err)[:180]}") from None


def _check_cross(config) -> None:
    """Sections that depend on each other."""
    study, jin = config.get("study") or {}, config.get("jin") or {}
    if jin.get("enabled") and study and not study.get("datasets") and not jin.get("datasets"):
        raise ConfigError("config key study.datasets: empty, but jin.enabled is true and Jin's "
                          "tables use the study's datasets; name a dataset or set "
                          "jin.enabled: false")
    if study.get("fixed_negatives"):
        for i, name in enumerate(study.get("datasets") or []):
            fmt = ((config.get("datasets") or {}).get(name) or {}).get("format")
            if fmt != "ncf":
                raise ConfigError(f"config key study.fixed_negatives: true, but dataset "
                                  f"{name!r} (study.datasets[{i}]) has format {fmt!r}; only "
                                  f"'ncf' datasets carry fixed negatives")


def check_semantics(config: Mapping) -> None:
    """Everything config alone decides beyond the schema (see the module docstring)."""
    _check_values(config)
    _check_names(config)
    _check_synthetic(config)
    _check_cross(config)
    _check_recommenders(config)
    _check_toy(config)
    _check_dataset_protocols(config)
    _check_study(config)
    _check_repeats(config)
    _check_jin(config)
    _check_practice(config)
    _check_local_files(config)


def check_config(config: Mapping, schema, files=()) -> None:
    """All three layers: duplicate keys in ``files``, the schema, the semantics."""
    check_config_files(files)
    check_schema(config, schema)
    check_semantics(config)
