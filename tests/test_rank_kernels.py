"""The compiled loops of the ranking engine against plain-Python references."""
import doctest

import numpy as np
import pytest
import scipy.sparse as sp

from sampled_metrics.evaluation import kernels, negatives
from sampled_metrics.evaluation.negatives import CandidateTable


def reference_subsets(c, m, rng):
    """The documented draw without replacement, one Python set per row (rows with
    4m <= c_i first, each redraw round one uniform per pending cell, rows in order), then
    the m smallest keys for the other rows."""
    sparse = [i for i, ci in enumerate(c) if 4 * m <= ci]
    dense = [i for i, ci in enumerate(c) if 4 * m > ci]
    sets, pending = {}, {}
    u = rng.random((len(sparse), m))
    for row, i in enumerate(sparse):
        sets[i], pending[i] = set(), 0
        for x in np.floor(u[row] * c[i]).astype(int):
            if x in sets[i]:
                pending[i] += 1
            else:
                sets[i].add(int(x))
    while sum(pending.values()):
        v = rng.random(sum(pending.values()))
        t = 0
        for i in sparse:
            for _ in range(pending[i]):
                x = int(np.floor(v[t] * c[i]))
                t += 1
                if x not in sets[i]:
                    sets[i].add(x)
                    pending[i] -= 1
    if dense:
        keys = rng.random((len(dense), max(c[i] for i in dense)))
        for row, i in enumerate(dense):
            sets[i] = set(np.argsort(keys[row, :c[i]], kind="stable")[:m].tolist())
    return [sets[i] for i in range(len(c))]


def table_with_counts(counts, n_items, seed=0):
    rng = np.random.default_rng(seed)
    rows = [rng.choice(n_items - 1, n_items - 1 - c, replace=False) for c in counts]
    train = sp.csr_matrix((np.ones(sum(map(len, rows))),
                           (np.repeat(np.arange(len(rows)), [len(r) for r in rows]),
                            np.concatenate(rows))), shape=(len(rows), n_items))
    return CandidateTable(train, np.full(len(rows), n_items - 1))


@pytest.mark.parametrize("m", [1, 7, 30])
def test_subsets_follow_the_documented_draw(m):
    table = table_with_counts([200, 119, 40, 31, 500, 30], 600)
    assert table.counts.tolist() == [200, 119, 40, 31, 500, 30]
    for seed in range(5):
        got = table.positions(m, np.random.default_rng(seed), replace=False)
        want = reference_subsets(table.counts, m, np.random.default_rng(seed))
        assert [set(row.tolist()) for row in got] == want
        assert all(len(set(row.tolist())) == m for row in got)      # m distinct each


def test_draws_with_replacement_are_floor_u_c():
    table = table_with_counts([5, 50, 17], 60)
    got = table.positions(9, np.random.default_rng(3), replace=True)
    u = np.random.default_rng(3).random((3, 9))
    assert np.array_equal(got, np.floor(u * table.counts[:, None]).astype(np.int64))


def test_codes_count_like_brute_force():
    rng = np.random.default_rng(1)
    b, n = 40, 25
    train = sp.csr_matrix(rng.random((b, n)) < 0.3)
    test = rng.integers(n, size=b)
    train = train.tolil()
    train[np.arange(b), test] = False
    train = train.tocsr()
    train.eliminate_zeros()
    scores = rng.integers(4, size=(b, n)).astype(float)      # many ties
    keys = rng.random((b, n))
    table = CandidateTable(train, test)
    codes, g, e, a = table.codes(scores, keys)
    for i in range(b):
        cand = [j for j in range(n) if not train[i, j] and j != test[i]]
        s, k = scores[i, test[i]], keys[i, test[i]]
        assert g[i] == sum(scores[i, j] > s for j in cand)
        assert e[i] == sum(scores[i, j] == s for j in cand)
        assert a[i] == sum(scores[i, j] == s and keys[i, j] > k for j in cand)
        assert table.counts[i] == len(cand)
        assert np.array_equal(table.items[i, :len(cand)], cand)
        # sampled counts over positions: duplicates count
        pos = rng.integers(len(cand), size=(3, 1, 12))
        gs, es, as_ = kernels.count_positions(codes[i:i + 1], pos)
        picked = scores[i, np.asarray(cand)[pos[:, 0]]]
        assert np.array_equal(gs[:, 0], (picked > s).sum(axis=1))
        assert np.array_equal(es[:, 0], (picked == s).sum(axis=1))
        picked_keys = keys[i, np.asarray(cand)[pos[:, 0]]]
        assert np.array_equal(as_[:, 0], ((picked == s) & (picked_keys > k)).sum(axis=1))


@pytest.mark.parametrize("module", [kernels, negatives])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
