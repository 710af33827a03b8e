"""The package's exception (the text inputs' ``DataError``, raised by every reader of a data
file), and one-line checks of values against JSON-schema fragments.

The registry describes every dataset spec key by a small JSON-schema fragment (draft 2020-12)
that serves twice: in :func:`~sampled_metrics.datasets.dataset_schema` (the config schema)
and here, where :func:`check_fields` applies the same fragments to a spec given to the
library directly, with one-line errors naming the key. Only the keywords in
``SCHEMA_KEYWORDS`` are used by the fragments (a test keeps it so), so this small checker
and a full JSON-schema validator agree.
"""
from __future__ import annotations

import difflib
import numbers
import re
from collections.abc import Iterable, Mapping

from ..textfile import DataError

__all__ = ["DataError", "SCHEMA_KEYWORDS", "check_fields"]

#: the JSON-schema keywords that spec key fragments may use
SCHEMA_KEYWORDS = frozenset({"type", "minimum", "maximum", "exclusiveMinimum", "pattern",
                             "description"})

_TYPES = {"integer": "an integer", "number": "a number", "string": "a string"}


def check_fields(values: Mapping, properties: Mapping[str, dict],
                 required: Iterable[str] = (), where: str = "") -> None:
    """Check ``values`` against per-key schema fragments; ValueError on the first problem.

    Parameters
    ----------
    values : mapping
        Key -> value, e.g. a dataset spec.
    properties : mapping
        Allowed key -> its schema fragment (keywords of ``SCHEMA_KEYWORDS``).
    required : iterable of str
        Keys that must be present.
    where : str
        Prefix of the message, e.g. ``"dataset 'ml-1m'"``.

    Raises
    ------
    ValueError
        A key not in ``properties`` (with the closest allowed key, if any), a missing
        required key, or a value of the wrong type or out of range.

    Examples
    --------
    >>> check_fields({"n_user": 5}, {"n_users": {"type": "integer"}}, where="synthetic")
    Traceback (most recent call last):
    ...
    ValueError: synthetic: unknown key 'n_user' (did you mean 'n_users'?); allowed: n_users
    """
    prefix = f"{where}: " if where else ""
    for key in values:
        if key not in properties:
            close = difflib.get_close_matches(str(key), list(properties), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"{prefix}unknown key {key!r}{hint}; allowed: "
                             f"{', '.join(sorted(properties))}")
    for key in required:
        if key not in values:
            about = properties.get(key, {}).get("description")
            raise ValueError(f"{prefix}{key!r} is required" + (f" ({about})" if about else ""))
    for key, value in values.items():
        problem = _problem(value, properties[key])
        if problem:
            raise ValueError(f"{prefix}{key} must be {problem}, got {value!r}")


def _problem(value, schema: Mapping) -> str | None:
    """What ``value`` should be if it violates ``schema``, else None."""
    kind = schema.get("type")
    wanted = [_TYPES.get(kind, kind)] if kind else []
    bounds = [f"{op} {schema[k]}" for k, op in (("minimum", ">="), ("exclusiveMinimum", ">"),
                                                  ("maximum", "<=")) if k in schema]
    text = " ".join(wanted + [" and ".join(bounds)]).strip()
    if kind == "string":
        if not isinstance(value, str):
            return text
        pattern = schema.get("pattern")
        if pattern and not re.search(pattern, value):
            return f"a string matching {pattern}"
        return None
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return text
        if kind == "integer" and not float(value).is_integer():
            return text
    if "minimum" in schema and value < schema["minimum"]:
        return text
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return text
    if "maximum" in schema and value > schema["maximum"]:
        return text
    return None
