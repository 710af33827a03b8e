"""Seeds: every random draw of the project comes from one derivation.

A draw for a purpose is keyed by the config seed and a tuple of keys, e.g.
``(seed, dataset, "negatives", m, repeat, chunk)``; each key is an integer or a string
(strings enter as their CRC-32), and the generator is
``numpy.random.default_rng(SeedSequence([seed, *words]))``. Different keys give
independent streams, equal keys the same stream, whatever the process, block or order in
which the draws are made.
"""
from __future__ import annotations

import zlib

import numpy as np

from .checks import check_integer

__all__ = ["seed_words", "derive_seed", "generator", "as_generator"]


def seed_words(seed: int, *keys) -> list[int]:
    """``[seed, w_1, ..., w_k]`` with w = key for a non-negative int, CRC-32 of str(key) else.

    Raises
    ------
    ValueError
        If ``seed`` is not a non-negative integer.
    """
    words = [check_integer("seed", seed, 0)]
    for key in keys:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and key >= 0:
            words.append(int(key))
        else:
            words.append(zlib.crc32(str(key).encode()))
    return words


def derive_seed(seed: int, *keys) -> int:
    """A 32-bit integer seed derived from ``seed`` and ``keys`` (see :func:`seed_words`)."""
    return int(np.random.SeedSequence(seed_words(seed, *keys)).generate_state(1)[0])


def generator(seed: int, *keys) -> np.random.Generator:
    """``default_rng(SeedSequence(seed_words(seed, *keys)))``: the stream for these keys.

    Examples
    --------
    >>> a = generator(1, "ml-1m", "negatives", 100, 0).random()
    >>> b = generator(1, "ml-1m", "negatives", 100, 0).random()
    >>> a == b
    True
    """
    return np.random.default_rng(np.random.SeedSequence(seed_words(seed, *keys)))


def as_generator(rng) -> np.random.Generator:
    """``rng`` as a numpy Generator: a Generator (or a bit generator or seed sequence) as
    numpy reads it, a seed (an integer >= 0) or None (fresh entropy) for ``default_rng``; a
    one-line ValueError for anything else."""
    if rng is not None and not isinstance(rng, (np.random.Generator, np.random.BitGenerator,
                                                np.random.SeedSequence)):
        rng = check_integer("rng (a numpy Generator or a seed)", rng, 0)
    return np.random.default_rng(rng)
