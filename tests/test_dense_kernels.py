"""The multi-threaded dense kernels of Y (ItemKNN without sparsification) and EASE: the same
bits as scipy's products whatever the number of threads; float32 weights are the float64
ones rounded; on MovieLens-1M the ranks are those of the scipy path."""
import numba
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_binary
from rounding import U, gamma
from scipy import linalg
from threadpoolctl import threadpool_limits

from sampled_metrics.recommenders import EASE, ItemKNN, make_recommender
from sampled_metrics.recommenders.dense_kernels import (cooccurrence, sparse_dense_product,
                                                        symmetrize_from_lower, thread_count)
from sampled_metrics.recommenders.ease import spd_inverse_inplace

THREADS = sorted({1, 2, numba.config.NUMBA_NUM_THREADS})


def random_rows(n_rows, n_items, seed):
    """CSR with row lengths 0..9 (the kernel's 4-row passes and remainders)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 10, size=n_rows)
    indices = np.concatenate([np.sort(rng.choice(n_items, k, replace=False)) for k in lengths])
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    return sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n_rows, n_items))


@pytest.mark.parametrize("threads", THREADS + [None])
def test_sparse_dense_product_is_scipys_product_bit_for_bit(threads):
    rng = np.random.default_rng(0)
    W = rng.normal(size=(300, 170)) * rng.lognormal(0, 3, size=(300, 1))  # spread magnitudes
    for X in (random_rows(120, 300, 1), random_binary(50, 300, 0.2, 2)):
        assert np.array_equal(sparse_dense_product(X, W, threads), X @ W)
        weighted = X.copy()
        weighted.data = rng.normal(size=X.nnz)
        assert np.array_equal(sparse_dense_product(weighted, W, threads), weighted @ W)
    empty = sp.csr_matrix((3, 300))
    assert np.array_equal(sparse_dense_product(empty, W, threads), np.zeros((3, 170)))


def test_sparse_dense_product_widens_float32_exactly():
    rng = np.random.default_rng(1)
    W32 = rng.normal(size=(200, 90)).astype(np.float32)
    X = random_rows(60, 200, 3)
    for threads in THREADS:
        out = sparse_dense_product(X, W32, threads)
        assert out.dtype == np.float64
        assert np.array_equal(out, X @ W32.astype(np.float64))


def test_sparse_dense_product_rejects_bad_weights():
    X = random_rows(5, 10, 0)
    with pytest.raises(ValueError, match="do not multiply"):
        sparse_dense_product(X, np.zeros((11, 4)))
    with pytest.raises(ValueError, match="C-contiguous"):
        sparse_dense_product(X, np.zeros((4, 10)).T)
    with pytest.raises(ValueError, match="threads must be"):
        sparse_dense_product(X, np.zeros((10, 4)), 0)


@pytest.mark.parametrize("threads", THREADS)
def test_cooccurrence_counts_are_scipys(threads):
    X = random_binary(200, 60, 0.15, 4)
    full = (X.T @ X).toarray()
    assert np.array_equal(cooccurrence(X, threads=threads), full)
    out = np.full((17, 60), 7.0)
    assert np.array_equal(cooccurrence(X, 20, 37, out=out, threads=threads), full[20:37])
    assert np.array_equal(out, full[20:37])


def test_symmetrize_from_lower():
    a = np.random.default_rng(5).normal(size=(131, 131))
    expected = np.tril(a) + np.tril(a, -1).T
    for threads in THREADS:
        b = a.copy()
        assert symmetrize_from_lower(b, threads) is b and np.array_equal(b, expected)


@pytest.mark.numerical
def test_spd_inverse_is_scipys_inverse_in_place():
    X = random_binary(400, 150, 0.1, 8)
    G = (X.T @ X).toarray() + 7.0 * np.eye(150)
    with threadpool_limits(1, "blas"):        # the fit's LAPACK runs on one thread
        expected = linalg.inv(G, check_finite=False)
    P = spd_inverse_inplace(G)
    assert P is G and np.array_equal(P, expected)
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        spd_inverse_inplace(-np.eye(3))


def test_thread_count_is_restored():
    before = numba.get_num_threads()
    with thread_count(1) as n:
        assert n == 1 and numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with pytest.raises(ValueError, match="threads must be"):
        ItemKNN(threads=0)
    with pytest.raises(ValueError, match="dtype"):
        EASE(dtype="float16")


def old_itemknn_weights(X, q):
    """Y's W as the scipy path built it: s (eq. 27) from the sparse co-occurrence, W = s ·
    diag(1/||s_i||)."""
    counts = np.asarray(X.sum(axis=0)).ravel()
    co = (X.T @ X).toarray()
    denom = np.sqrt(np.outer(counts, counts))
    s = np.divide(co, denom, out=np.zeros_like(co), where=denom > 0) ** q
    norms = np.sqrt((np.abs(s) ** 2).sum(axis=1))
    return s * np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)[None, :]


def old_ease_weights(X, lam):
    gram = (X.T @ X).toarray()
    gram[np.diag_indices_from(gram)] += lam
    with threadpool_limits(1, "blas"):
        P = linalg.inv(gram, overwrite_a=True, check_finite=False)
    B = P / (-np.diag(P))[None, :]
    B[np.diag_indices_from(B)] = 0.0
    return B


@pytest.mark.numerical
@pytest.mark.parametrize("kind", ["itemknn", "ease"])
def test_dense_models_score_as_the_scipy_path(kind):
    X = random_binary(300, 80, 0.08, 6)
    params, old = (({"q": 3.0}, old_itemknn_weights(X, 3.0)) if kind == "itemknn"
                   else ({"lam": 5.0}, old_ease_weights(X, 5.0)))
    users = np.arange(0, 300, 3)
    for threads in THREADS:
        m64 = make_recommender(kind, dtype="float64", threads=threads, **params).fit(X)
        assert m64.weights_.flags.c_contiguous
        if kind == "ease":   # the same inverse, bit for bit
            assert np.array_equal(m64.weights_, old)
        else:   # the same s; the row norms sum <= n squares in blocks (gamma(n) / 2 after
            # the root, per path) and scale by 1 / norm: gamma(n) + 6u relative for two paths
            assert np.allclose(m64.weights_, old, rtol=gamma(X.shape[1]) + 6 * U, atol=0)
        assert np.array_equal(m64.score(users), X[users] @ m64.weights_)
        m32 = make_recommender(kind, threads=threads, **params).fit(X)   # float32 default
        assert m32.weights_.dtype == np.float32
        assert np.array_equal(m32.weights_, m64.weights_.astype(np.float32))
        assert np.array_equal(m32.score(users), X[users] @ m32.weights_.astype(np.float64))


def test_itemknn_row_sums_stay_float64():
    X = random_binary(100, 40, 0.1, 7)
    m64 = ItemKNN(q=3.0, dtype="float64", denominator=True).fit(X)
    m32 = ItemKNN(q=3.0, denominator=True).fit(X)
    assert m32.row_sums_.dtype == np.float64 and np.array_equal(m32.row_sums_, m64.row_sums_)


@pytest.mark.slow
@pytest.mark.parametrize("kind,params", [("itemknn", {"q": 3.0}), ("ease", {"lam": 500.0})])
def test_ml1m_ranks_are_those_of_the_scipy_path(ml1m, tmp_path, kind, params):
    """Y and EASE on MovieLens-1M: exact and sampled ranks (100 x m = 100) of the kernel,
    float64 and float32 weights, are those of scipy's product on the float64 weights."""
    from sampled_metrics.datasets import load_split, make_split
    from sampled_metrics.evaluation import evaluate

    make_split(ml1m, "ml-1m", tmp_path / "split.npz")
    split = load_split(tmp_path / "split.npz")
    model = make_recommender(kind, dtype="float64", threads=2, **params).fit(split.train)

    class Scipy:   # today's path: CSR x dense in scipy
        def score(self, users):
            return np.asarray(split.train[users] @ model.weights_)

    def ranks(m):
        e = evaluate(m, split, {100: 100}, tie="random_per_ranking", seed=11)
        return e.ranks, e.sampled[100]

    reference = ranks(Scipy())
    for weights in (model.weights_, model.weights_.astype(np.float32)):
        model.weights_ = weights
        exact, sampled = ranks(model)
        assert np.array_equal(exact, reference[0]) and np.array_equal(sampled, reference[1])
