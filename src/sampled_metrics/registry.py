"""The named methods, one registry per idea: the corrections (KDD'20 Sec. 5, Li et al.),
the estimators of the rank distribution (Jin et al.) and the methods ``compare`` takes.

Each entry names its callable as ``'module:function'`` under this package (loaded on first
use, so that reading the names costs no import), its options, its aliases and one line of
help. The command line's choices and help, the error messages, the workflow's config check
and the docs' registry table all read these; adding a method is one :meth:`Registry.register`
call (or one entry below).

Examples
--------
>>> CORRECTIONS.resolve("BV_0.1")
('bv', 0.1)
>>> ESTIMATORS["mes"].options
('eta', 'eta_scaling', 'max_iter', 'tol')
>>> "mn" in COMPARE_METHODS, "wmle" in COMPARE_METHODS
(True, False)
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Entry", "Registry", "CORRECTIONS", "ESTIMATORS", "COMPARE_METHODS",
           "SAMPLING_LAWS", "DEFAULT_METRICS", "DEFAULT_METHODS", "name_list",
           "check_sampling"]

#: how the m sampled items are drawn: with replacement or without
SAMPLING_LAWS = ("binomial", "hypergeometric")
#: the metrics every command reports unless told otherwise
DEFAULT_METRICS = ("recall@10", "ndcg@10", "ap")
#: the methods each task uses unless told otherwise (``recommended``: the full-ranking
#: metric with an interval that covers it; wmle, biased, only when named)
DEFAULT_METHODS = {"correct": ("recommended", "sampled", "cls", "bv_0.1"),
                   "estimate": ("mle", "mes", "bv_0.1"),
                   "compare": ("sampled", "cls", "bv_0.1", "mn", "mes"),
                   "plan": ("sampled", "bv_0.1")}

def check_sampling(sampling) -> str:
    """``sampling`` if it names a law of :data:`SAMPLING_LAWS`, else a one-line ValueError.

    Examples
    --------
    >>> check_sampling("hypergeometric")
    'hypergeometric'
    >>> check_sampling("poisson")
    Traceback (most recent call last):
    ...
    ValueError: unknown sampling law 'poisson'; expected one of binomial, hypergeometric
    """
    if sampling not in SAMPLING_LAWS:
        raise ValueError(f"unknown sampling law {sampling!r}; expected one of "
                         f"{', '.join(SAMPLING_LAWS)}")
    return sampling


_PARAMETER_RE = re.compile(r"^([a-z_]+?)[_ -]?(\d*\.?\d+(?:e-?\d+)?)$")


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
    """One named method.

    Attributes
    ----------
    name : str
        The canonical name (lower case).
    summary : str
        One line for help texts and the docs.
    target : str or callable
        The callable, or ``'module:function'`` relative to ``sampled_metrics``.
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
    target: str | Callable
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
        if "fn" not in self._cache:
            module, _, name = self.target.partition(":")
            self._cache["fn"] = getattr(importlib.import_module(f"sampled_metrics.{module}"),
                                        name)
        return self._cache["fn"]


class Registry(Mapping):
    """Name -> :class:`Entry` of one kind of method, in the order help texts list them;
    the entries of the registries in ``includes`` come first (read when used, so a method
    registered there later appears here too)."""

    def __init__(self, kind: str, entries=(), includes=()):
        self.kind = kind
        self._own: dict[str, Entry] = {}
        self._includes = tuple(includes)
        for entry in entries:
            self.register(entry)

    @property
    def _entries(self) -> dict:
        entries = {}
        for registry in self._includes:
            entries.update(registry._entries)
        entries.update(self._own)
        return entries

    def register(self, entry: Entry) -> Entry:
        """Add ``entry``; ValueError if its name or an alias is taken."""
        taken = {entry.name, *entry.aliases} & (set(self._entries) | set(self.aliases()))
        if taken:
            raise ValueError(f"{self.kind} {', '.join(sorted(taken))} is registered already")
        self._own[entry.name] = entry
        return entry

    def __getitem__(self, name: str) -> Entry:
        return self._entries[name]

    def __iter__(self):
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def aliases(self) -> dict:
        """alias -> canonical name."""
        return {a: e.name for e in self._entries.values() for a in e.aliases}

    def labels(self) -> list[str]:
        """The names as help texts show them (``bv_<gamma>``)."""
        return [e.label for e in self._entries.values()]

    def choices(self) -> str:
        """``'sampled, rank_estimate, ..., bv_<gamma>'`` for help texts and messages."""
        return ", ".join(self.labels())

    def resolve(self, name) -> tuple[str, float | None]:
        """(canonical name, the number the name carries or None): ``'BV_0.1'`` -> ('bv',
        0.1), ``'mb'`` -> ('minimal_bias', None); a one-line ValueError for an unknown name."""
        if not isinstance(name, str):
            raise ValueError(f"a {self.kind} must be a name (a string), got {name!r}")
        text = name.strip().lower()
        match = _PARAMETER_RE.match(text)
        entries = self._entries
        if match and match.group(1) in entries and entries[match.group(1)].parameter:
            return match.group(1), float(match.group(2))
        text = text.replace("-", "_")
        text = self.aliases().get(text, text)
        if text not in entries:
            raise ValueError(f"unknown {self.kind} {name!r}; expected one of {self.choices()}")
        return text, None


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
