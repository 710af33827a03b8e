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

__all__ = ["seed_words", "derive_seed", "generator"]


def seed_words(seed: int, *keys) -> list[int]:
    """``[seed, w_1, ..., w_k]`` with w = key for a non-negative int, CRC-32 of str(key) else.

    Raises
    ------
    ValueError
        If ``seed`` is not a non-negative integer.
    """
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    words = [int(seed)]
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
