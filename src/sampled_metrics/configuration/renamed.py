"""Config keys renamed in this release, and the one step that still reads their old names.

A renamed key keeps working for one release: :func:`upgrade_renamed_keys` moves a config's
old key to its new name (a mapping given under the old name is merged over the new key's
defaults, key by key, as Snakemake merges a ``--configfile`` over the defaults) and returns
one line per old key found, telling the user the new name. One file giving a key under both
names is a mistake (:func:`given_twice`): which one should win? The registry :data:`RENAMED`
is the one list of renamed keys (paths from the top of the config; ``*`` is every entry of a
catalogue, the same entry in the old and the new path).

Examples
--------
>>> config = {"practice": {"enabled": False, "m": 100}, "protocols": {"enabled": True}}
>>> upgrade_renamed_keys(config)
['config key protocols is now practice (the old name is read until the next release)']
>>> config
{'practice': {'enabled': True, 'm': 100}}
>>> config = {"recommenders": {"Y": {"model": "itemknn", "num_threads": 2}}}
>>> [note.split(" (")[0] for note in upgrade_renamed_keys(config)]
['config key recommenders.Y.num_threads is now recommenders.Y.threads']
>>> config
{'recommenders': {'Y': {'model': 'itemknn', 'threads': 2}}}
"""
from __future__ import annotations

from collections.abc import MutableMapping

__all__ = ["RENAMED", "upgrade_renamed_keys", "given_twice"]

#: old key path -> new key path (``*``: every entry of a catalogue)
RENAMED = {
    ("protocols",): ("practice",),
    ("recommenders", "*", "num_threads"): ("recommenders", "*", "threads"),
}


def _merge(into: MutableMapping, value) -> object:
    """``value`` merged over ``into`` (mappings key by key, anything else replaces)."""
    if not (isinstance(into, MutableMapping) and isinstance(value, MutableMapping)):
        return value
    for key, item in value.items():
        into[key] = _merge(into[key], item) if key in into else item
    return into


def _entries(config, old: tuple, new: tuple) -> list[tuple[tuple, tuple]]:
    """The (old, new) key paths of one :data:`RENAMED` entry in ``config``: its first ``*``
    replaced by each key of the mapping there (in both paths), and so on."""
    if "*" not in old:
        return [(old, new)]
    i = old.index("*")
    node = config
    for key in old[:i]:
        node = node.get(key) if isinstance(node, MutableMapping) else None
    if not isinstance(node, MutableMapping):
        return []
    return [pair for key in list(node)
            for pair in _entries(config, (*old[:i], key, *old[i + 1:]),
                                 (*new[:i], key, *new[i + 1:]))]


def _parent(config, path: tuple):
    """The mapping that holds the last key of ``path``, or None."""
    node = config
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, MutableMapping) else None
    return node if isinstance(node, MutableMapping) else None


def _holds(config, path: tuple) -> bool:
    parent = _parent(config, path)
    return parent is not None and path[-1] in parent


def given_twice(config: MutableMapping) -> list[tuple[str, str]]:
    """The (new, old) keys, dotted, of every :data:`RENAMED` entry that ``config`` gives
    under both names (then one would silently win over the other).

    Parameters
    ----------
    config : mapping
        One config file as written (before it is merged with the defaults, which hold new
        names the old name of another file is meant to override).

    Returns
    -------
    list of (str, str)

    Examples
    --------
    >>> given_twice({"recommenders": {"Y": {"threads": 1, "num_threads": 2}}})
    [('recommenders.Y.threads', 'recommenders.Y.num_threads')]
    """
    return [(".".join(new), ".".join(old))
            for old, new in (pair for entry in RENAMED.items()
                             for pair in _entries(config, *entry))
            if _holds(config, old) and _holds(config, new)]


def upgrade_renamed_keys(config: MutableMapping) -> list[str]:
    """Move every old key of :data:`RENAMED` found in ``config`` (in place) to its new
    name; the deprecation lines, one per key moved."""
    notes = []
    for old, new in (pair for entry in RENAMED.items() for pair in _entries(config, *entry)):
        if not _holds(config, old):
            continue
        value = _parent(config, old).pop(old[-1])
        target = config
        for key in new[:-1]:
            target = target.setdefault(key, {})
        target[new[-1]] = _merge(target.get(new[-1]), value) if new[-1] in target else value
        notes.append(f"config key {'.'.join(old)} is now {'.'.join(new)} (the old name is "
                     f"read until the next release)")
    return notes
