"""The sampling design of an evaluation as one value: n, m, the law and the evaluator.

A sampled evaluation ranks each positive among itself and m sampled items drawn from the
n - 1 other items, with replacement (``binomial``) or without (``hypergeometric``), by the
code of an evaluator (SASRec, ReChorus, ...) or of the user's own. :class:`Design` holds
these four and checks them once, when it is built, with the one-line messages of the
library; every public function that takes n, m and the law builds its design once
(:func:`as_design`, or :func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator`
where an evaluator is named) and hands the value to the functions below it, which trust it.

Examples
--------
>>> d = Design(3706, 100, "Hypergeometric")
>>> d.n, d.m, d.sampling
(3706, 100, 'hypergeometric')
>>> as_design(d) is d                  # a design is taken as it is: no second check
True
>>> Design(100, 100)
Traceback (most recent call last):
...
ValueError: need n > m: cannot sample m=100 irrelevant items from n - 1=99 others
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .checks import check_integer
from .registry import check_sampling

__all__ = ["Design", "as_design", "check_nm", "require"]


def check_nm(n, m, sampling: str = "binomial") -> tuple[int, int]:
    """Validate (n, m, sampling) and return n and m as ints; ``ValueError`` with one line if
    not: the check :class:`Design` runs when it is built (the command line also runs it on
    its options, to refuse them before reading any input).

    Examples
    --------
    >>> check_nm(3706.0, 100, "binomial")
    (3706, 100)
    >>> check_nm(3706, 0)
    Traceback (most recent call last):
    ...
    ValueError: m (number of sampled items) must be >= 1, got m=0
    """
    check_sampling(sampling)
    return _check_pair(check_integer("n (number of items)", n),
                       check_integer("m (number of sampled items)", m))


def _check_m(m: int) -> int:
    """m, an integer already, unless m < 1: the one-line ValueError."""
    if m < 1:
        raise ValueError(f"m (number of sampled items) must be >= 1, got m={m}")
    return m


def _check_pair(n: int, m: int) -> tuple[int, int]:
    """(n, m), integers already, unless m < 1 or n <= m: the one-line ValueError."""
    if _check_m(m) >= n:
        raise ValueError(f"need n > m: cannot sample m={m} irrelevant items from "
                         f"n - 1={n - 1} others")
    return n, m


@dataclass(frozen=True)
class Design:
    """The sampling design: n items, m sampled items, the law of the draws and the
    evaluator whose code drew them; checked once, when built.

    Attributes
    ----------
    n : int or None
        The items a positive is ranked among (the catalogue, or each user's candidates);
        None where the input gives each user's (the long format) or none is known yet.
    m : int or None
        The sampled (irrelevant) items per positive; None where the input gives each
        user's.
    sampling : {'binomial', 'hypergeometric'}
        With replacement or without; any case on input, stored canonical.
    evaluator : Evaluator or None
        The catalogue entry of the evaluator that drew them
        (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator` sets the law it
        implies).

    A design with both n and m satisfies n > m >= 1 (:func:`check_nm`'s messages). Equality
    and hashing read n, m and the law, not the evaluator: designs of one law share the
    caches of its matrices (a cache whose values depend on the evaluator keys on it too).

    Examples
    --------
    >>> Design(3706, 100)
    Design(n=3706, m=100, sampling='binomial', evaluator=None)
    >>> Design(None, 99, "hypergeometric").m
    99
    >>> Design(3706, 100, "poisson")
    Traceback (most recent call last):
    ...
    ValueError: unknown sampling law 'poisson'; expected one of binomial, hypergeometric
    """

    n: int | None
    m: int | None
    sampling: str = "binomial"
    evaluator: object = field(default=None, compare=False)

    def __post_init__(self):
        sampling = check_sampling(self.sampling)
        n = None if self.n is None else check_integer("n (number of items)", self.n)
        m = None if self.m is None else check_integer("m (number of sampled items)", self.m)
        if n is not None and m is not None:
            n, m = _check_pair(n, m)
        elif m is not None:
            _check_m(m)
        elif n is not None and n < 2:
            raise ValueError(f"n (number of items) must be >= 2, got n={n}")
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "sampling", sampling)

    def known(self) -> "Design":
        """The design itself where n and m are both known, else the one-line error that
        names the one missing.

        Examples
        --------
        >>> Design(None, 99).known()
        Traceback (most recent call last):
        ...
        ValueError: n (number of items) must be an integer, got None
        """
        for name, value in (("n (number of items)", self.n),
                            ("m (number of sampled items)", self.m)):
            if value is None:
                raise ValueError(f"{name} must be an integer, got None")
        return self

    def with_m(self, m) -> "Design":
        """The same design with ``m`` sampled items (checked against n)."""
        return Design(self.n, m, self.sampling, self.evaluator)


def as_design(n, m=None, sampling=None) -> Design:
    """The design of a public function's arguments, built (and so checked) once: ``n`` a
    :class:`Design` is returned as it is (then ``m`` and ``sampling`` must be None), else
    ``Design(n, m, sampling or 'binomial')``; n and m both known (:meth:`Design.known`).

    Examples
    --------
    >>> as_design(3706, 100, "hypergeometric").sampling
    'hypergeometric'
    >>> as_design(Design(3706, 100), m=99)
    Traceback (most recent call last):
    ...
    TypeError: give a Design or n, m and the law, not both
    """
    if isinstance(n, Design):
        if m is not None or sampling is not None:
            raise TypeError("give a Design or n, m and the law, not both")
        return n.known()
    return Design(n, m, "binomial" if sampling is None else sampling).known()


def require(**arguments) -> None:
    """TypeError naming the first of ``arguments`` left None: the arguments that follow
    ``m`` in a signature that takes a :class:`Design` in place of n (so ``m`` and they
    default to None) and are required all the same.

    Examples
    --------
    >>> require(corrections=None)
    Traceback (most recent call last):
    ...
    TypeError: missing required argument 'corrections'
    """
    for name, value in arguments.items():
        if value is None:
            raise TypeError(f"missing required argument {name!r}")
