"""One seed derivation and one process-pool helper."""
import operator

import numpy as np
import pytest

from sampled_metrics.parallel import map_items
from sampled_metrics.seeds import derive_seed, generator, seed_words


def test_derive_seed_depends_on_keys():
    assert derive_seed(1, "ml-1m") == derive_seed(1, "ml-1m")
    assert derive_seed(1, "ml-1m") != derive_seed(1, "ml-20m")
    assert derive_seed(1, "a", 0) != derive_seed(2, "a", 0)


def test_generator_streams():
    assert generator(3, "negatives", 100, 0).random() == generator(3, "negatives", 100, 0).random()
    assert generator(3, "negatives", 100, 0).random() != generator(3, "negatives", 100, 1).random()
    assert generator(3, "ties", 100, 0).random() != generator(3, "negatives", 100, 0).random()
    assert seed_words(5, "a", 7) == [5, seed_words(0, "a")[1], 7]
    with pytest.raises(ValueError, match="seed must be >= 0, got -1"):
        generator(-1)


def test_map_items_keeps_order_and_does_not_depend_on_processes():
    items = list(range(11))
    one = map_items(operator.mul, items, 3, processes=1)
    assert one == [3 * i for i in items]
    assert map_items(operator.mul, items, 3, processes=2) == one
    assert map_items(operator.mul, [], 3, processes=2) == []
    out = map_items(np.linalg.norm, [np.ones(4) * k for k in range(5)], processes=2)
    assert out == [2.0 * k for k in range(5)]
