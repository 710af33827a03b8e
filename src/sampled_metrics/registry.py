"""The registries: every named set a user types, one entry per name, and the one resolver
of their names.

A :class:`Registry` maps each canonical name to its entry, in the order help texts list
them: here the named methods (the corrections of KDD'20 Sec. 5 and Li et al., the
estimators of the rank distribution of Jin et al., the methods ``compare`` and ``correct``
take) and the sampling laws; elsewhere the evaluators (``evaluators.catalogue``), the tie
policies and candidate sets (``evaluation.policies``) and the dataset formats
(``datasets.registry``). A method's entry names its callable as ``'module:function'`` under
this package (loaded on first use, so that reading the names costs no import), its
options, its aliases and one line of help. The command line's choices and help, the error
messages, the workflow's config check and the docs' registry table all read these; adding a
method is one :meth:`Registry.register` call (or one entry below).

Every name is resolved by :func:`resolve_name`: stripped, in any case, ``-`` and ``_``
alike, an alias read as its name; the canonical name is what the library stores and
writes. An unknown name gets the one message of :func:`unknown_name`.

Examples
--------
>>> CORRECTIONS.resolve("BV_0.1")
('bv', 0.1)
>>> ESTIMATORS["mes"].options
('eta', 'eta_scaling', 'max_iter', 'tol')
>>> "mn" in COMPARE_METHODS, "wmle" in COMPARE_METHODS
(True, False)
>>> SAMPLING_LAWS.canonical(" Hypergeometric")
'hypergeometric'
>>> ESTIMATORS.canonical("mlee")
Traceback (most recent call last):
...
ValueError: unknown estimator 'mlee'; expected one of mle, wmle, mes, bv_<gamma>
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Entry", "Registry", "CORRECTIONS", "ESTIMATORS", "COMPARE_METHODS",
           "CORRECT_METHODS", "RECOMMENDED", "SAMPLING_LAWS", "DEFAULT_METRICS",
           "DEFAULT_METHODS", "FAMILYWISE_METHODS", "PAIRINGS", "name_list", "check_sampling",
           "resolve_name", "unknown_name"]

#: the metrics every command reports unless told otherwise
DEFAULT_METRICS = ("recall@10", "ndcg@10", "ap")
#: the name of the recommended answer: the full-ranking metric with an interval that covers it
RECOMMENDED = "recommended"
#: the methods each task uses unless told otherwise (wmle, biased, only when named)
DEFAULT_METHODS = {"correct": (RECOMMENDED, "sampled", "cls", "bv_0.1"),
                   "estimate": ("mle", "mes", "bv_0.1"),
                   "compare": ("sampled", "cls", "bv_0.1", "mn", "mes"),
                   "plan": ("sampled", "bv_0.1")}

_PARAMETER_RE = re.compile(r"^([a-z_]+?)[_ -]?(\d*\.?\d+(?:e-?\d+)?)$")


def _key(name: str) -> str:
    """A name as resolution compares it: stripped, in lower case, ``-`` read as ``_``."""
    return name.strip().lower().replace("-", "_")


def unknown_name(what: str, name, choices) -> ValueError:
    """The one error of a name no registry holds: ``unknown <what> <name as written>;
    expected one of <choices>`` (``choices``: the names, or the text that lists them; the
    name's repr cut at 80 characters).

    Examples
    --------
    >>> unknown_name("shape", "flat", ("non-increasing", "none"))
    ValueError("unknown shape 'flat'; expected one of non-increasing, none")
    """
    listed = choices if isinstance(choices, str) else ", ".join(map(str, choices))
    return ValueError(f"unknown {what} {name!r:.80}; expected one of {listed}")


def resolve_name(what: str, name, names, aliases: Mapping | None = None, *,
                 choices=None, shown=None) -> str:
    """The canonical name ``name`` spells: the one of ``names`` (a collection, or a mapping
    by name) it matches, or the name its alias stands for (``aliases``: alias -> name),
    compared stripped, in any case, with ``-`` and ``_`` alike. Else the ValueError of
    :func:`unknown_name`, listing ``choices`` (default ``names``) and showing ``shown``
    (default ``name``, as the user wrote it). Every registry resolves its names so.

    Examples
    --------
    >>> resolve_name("tie policy", "Random-Per-Ranking", ("random", "random_per_ranking"))
    'random_per_ranking'
    >>> resolve_name("metric", "MAP", ("ap", "ndcg"), {"map": "ap"})
    'ap'
    >>> resolve_name("shape", None, ("non-increasing", "none"))
    Traceback (most recent call last):
    ...
    ValueError: unknown shape None; expected one of non-increasing, none
    """
    if isinstance(name, str):
        if name in names:                   # the canonical name itself: the common case
            return name
        table = {_key(alias): target for alias, target in (aliases or {}).items()}
        table.update((_key(x), x) for x in names)
        found = table.get(_key(name))
        if found is not None:
            return found
    raise unknown_name(what, name if shown is None else shown,
                       names if choices is None else choices)


def check_sampling(sampling) -> str:
    """The canonical name of the law of :data:`SAMPLING_LAWS` that ``sampling`` names (in
    any case), else a one-line ValueError.

    Examples
    --------
    >>> check_sampling("Hypergeometric")
    'hypergeometric'
    >>> check_sampling("poisson")
    Traceback (most recent call last):
    ...
    ValueError: unknown sampling law 'poisson'; expected one of binomial, hypergeometric
    """
    return SAMPLING_LAWS.canonical(sampling)


def name_list(names, what: str) -> list:
    """The methods asked for, as a list: a string is one name or several separated by
    commas (never its letters), else an iterable of them; blanks dropped, names stripped. A
    one-line ValueError for anything else or for none (``what``: 'correction', ...)."""
    if isinstance(names, str):
        names = names.split(",")
    elif isinstance(names, bytes) or not isinstance(names, Iterable):
        raise ValueError(f"{what}s must be a name or a list of names, got {names!r:.60}")
    out = [x.strip() if isinstance(x, str) else x for x in names]
    out = [x for x in out if not isinstance(x, str) or x]
    if not out:
        raise ValueError(f"no {what} given")
    return out


@dataclass(frozen=True)
class Entry:
    """One named method, law or rule.

    Attributes
    ----------
    name : str
        The canonical name (lower case).
    summary : str
        One line for help texts and the docs.
    target : str or callable, optional
        The callable, or ``'module:function'`` relative to ``sampled_metrics``; none for a
        name that only selects (a sampling law).
    aliases : tuple of str
        Other accepted spellings.
    options : tuple of str
        The keyword options the callable takes.
    parameter : str or None
        A number the name carries, as in ``bv_<gamma>``: its meaning.
    moments : bool
        (corrections) solved from the moments of the rank law.
    """

    name: str
    summary: str
    target: str | Callable | None = None
    aliases: tuple = ()
    options: tuple = ()
    parameter: str | None = None
    moments: bool = False
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        """The name as help texts show it (``bv_<gamma>``)."""
        return f"{self.name}_<{self.parameter}>" if self.parameter else self.name

    def load(self) -> Callable:
        """The callable (imported on first use)."""
        if callable(self.target):
            return self.target
        if self.target is None:
            raise TypeError(f"{self.name!r} names no callable")
        if "fn" not in self._cache:
            module, _, name = self.target.partition(":")
            self._cache["fn"] = getattr(importlib.import_module(f"sampled_metrics.{module}"),
                                        name)
        return self._cache["fn"]


class Registry(Mapping):
    """Name -> entry of one named set, in the order help texts list them; the entries of the
    registries in ``includes`` come first, or after this registry's own with ``own_first``
    (read when used, so that a method registered there later appears here too).

    An entry is an :class:`Entry` or any object with a ``name`` (an evaluator, a dataset
    format); its ``aliases``, ``parameter`` and ``label`` are read where it has them.
    ``kind`` is what the messages call one of them (``'correction'``, ``'sampling law'``).
    """

    def __init__(self, kind: str, entries=(), includes=(), *, own_first: bool = False):
        self.kind = kind
        self._own: dict = {}
        self._includes = tuple(includes)
        self._own_first = own_first
        for entry in entries:
            self.register(entry)

    @property
    def _entries(self) -> dict:
        if not self._includes:
            return self._own
        entries = dict(self._own) if self._own_first else {}
        for registry in self._includes:
            entries.update(registry._entries)
        entries.update(self._own)
        return entries

    def register(self, entry):
        """Add ``entry``; ValueError if its name or an alias is taken (as resolution reads
        names: in any case, ``-`` as ``_``)."""
        taken = {_key(x) for x in (*self._entries, *self.aliases())}
        clash = [x for x in (entry.name, *getattr(entry, "aliases", ())) if _key(x) in taken]
        if clash:
            raise ValueError(f"{self.kind} {', '.join(sorted(clash))} is registered already")
        self._own[entry.name] = entry
        return entry

    def __getitem__(self, name: str):
        return self._entries[name]

    def __iter__(self):
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self)})"

    def aliases(self) -> dict:
        """alias -> canonical name."""
        return {a: e.name for e in self._entries.values() for a in getattr(e, "aliases", ())}

    def labels(self) -> list[str]:
        """The names as help texts show them (``bv_<gamma>``)."""
        return [getattr(e, "label", e.name) for e in self._entries.values()]

    def choices(self) -> str:
        """``'sampled, rank_estimate, ..., bv_<gamma>'``: the one listing of help texts and
        messages."""
        return ", ".join(self.labels())

    def canonical(self, name, *, shown=None) -> str:
        """The canonical name ``name`` spells (:func:`resolve_name`: any case, an alias);
        the one-line ValueError of :func:`unknown_name` for an unknown name, showing
        ``shown`` (default ``name``)."""
        return resolve_name(self.kind, name, self._entries, self.aliases(),
                            choices=self.choices(), shown=shown)

    def resolve(self, name, *, shown=None) -> tuple[str, float | None]:
        """(canonical name, the number the name carries or None): ``'BV_0.1'`` -> ('bv',
        0.1), ``'mb'`` -> ('minimal_bias', None); otherwise as :meth:`canonical`."""
        entries = self._entries
        match = _PARAMETER_RE.match(name.strip().lower()) if isinstance(name, str) else None
        if match and match.group(1) in entries and getattr(entries[match.group(1)],
                                                           "parameter", None):
            return match.group(1), float(match.group(2))
        return self.canonical(name, shown=shown), None


#: how the m sampled items are drawn: with replacement or without
SAMPLING_LAWS = Registry("sampling law", [
    Entry("binomial", "the m items drawn uniformly with replacement"),
    Entry("hypergeometric", "the m items drawn uniformly without replacement"),
])

CORRECTIONS = Registry("correction", [
    Entry("sampled", "no correction: M^(r~) = M_{m+1}(r~)", "corrections.vectors:sampled_vectors",
          aliases=("none", "uncorrected")),
    Entry("rank_estimate", "M(floor(1 + (n - 1)(r~ - 1)/m)) (KDD'20 eq. 20)",
          "corrections.vectors:rank_estimate_vectors", aliases=("rank",)),
    Entry("minimal_bias", "least squared bias over p(r) (KDD'20 eq. 21-23)",
          "corrections.vectors:minimal_bias_vectors", aliases=("mb",), moments=True),
    Entry("cls", "minimal bias with M^ non-increasing (constrained least squares)",
          "corrections.vectors:cls_vectors", moments=True),
    Entry("bv", "bias plus gamma times variance (KDD'20 eq. 24-25; bv_1: posterior mean)",
          "corrections.vectors:bv_vectors", parameter="gamma", moments=True),
    Entry("mapping", "Li et al.'s mapping of cut-offs: the full top-K at the sampled "
          "top f^-1(K)", "corrections.mapping:mapping_vectors"),
])

ESTIMATORS = Registry("estimator", [
    Entry("mle", "maximum likelihood P^ by (SQUAREM) EM (Jin et al. eq. 19-21)",
          "estimators.dispatch:mle_distribution",
          options=("max_iter", "tol", "init", "solver", "epochs")),
    Entry("wmle", "MLE weighted by the metric, biased (Jin et al. eq. 22-23)",
          "estimators.dispatch:wmle_distribution",
          options=("weight", "C", "reading", "max_iter", "tol", "init", "solver", "epochs")),
    Entry("mes", "maximal entropy with squared distance (Jin et al. eq. 24-27)",
          "estimators.dispatch:mes_distribution", options=("eta", "eta_scaling", "max_iter", "tol")),
    Entry("bv", "differences of KDD'20's BV corrections of Recall@r (Jin et al. eq. 15)",
          "estimators.bv:bv_distribution", options=("gamma", "prior"), parameter="gamma"),
])

#: ``compare``'s methods: the corrections, MN and two estimators, each with its own interval
COMPARE_METHODS = Registry("method", [
    Entry("mn", "Li et al.'s MN correction, prior = each recommender's MES P^ (AAAI'23)",
          "corrections.mn:mn_correction"),
    Entry("mle", ESTIMATORS["mle"].summary + "; interval by refits",
          ESTIMATORS["mle"].target),
    Entry("mes", ESTIMATORS["mes"].summary + "; interval by the delta method",
          ESTIMATORS["mes"].target),
], includes=(CORRECTIONS,))

#: ``correct``'s methods: the recommended answer (its interval covers the full-ranking
#: metric), then every correction
CORRECT_METHODS = Registry("correction", [
    Entry(RECOMMENDED, "the full-ranking metric with an interval that covers it",
          "intervals.recommended:recommended_interval"),
], includes=(CORRECTIONS,), own_first=True)


#: the family-wise procedures of the results table, the default first
#: (:mod:`sampled_metrics.compare.familywise`; here so that the config check reads them
#: without importing the comparison code)
FAMILYWISE_METHODS = ("maxstat", "holm")
#: how a comparison resamples its users, the default first: ``paired``, the same users in the
#: same order resampled together; ``unpaired``, each recommender's users on their own
#: (:func:`sampled_metrics.compare_ranks`, ``compare --pairing``)
PAIRINGS = ("paired", "unpaired")
