"""Recommenders X (iALS) and Y/Z (item-based CF, eq. 27-30)."""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_binary
from rounding import U, gamma, product_bound

from sampled_metrics.recommenders import (EASE, IALS, KINDS, ItemKNN, NeuMF,
                                          dense_items_matrix, make_recommender, model_seed,
                                          needs_torch, paper_loss, paper_recommender,
                                          topk_mask)


# ----------------------------------------------------------------------------- iALS

def paper_gradients(X, U, V, alpha, lam):
    """dL/dU, dL/dV of L = Σ_obs (UVᵀ-1)² + α||UVᵀ||² + λ(||U||² + ||V||²)."""
    residual = X.multiply(U @ V.T) - X  # (ŷ - 1) at the observed pairs
    grad_u = 2 * (residual @ V + alpha * U @ (V.T @ V) + lam * U)
    grad_v = 2 * (residual.T @ U + alpha * V @ (U.T @ U) + lam * V)
    return np.asarray(grad_u), np.asarray(grad_v)


def test_ials_maps_paper_loss_to_implicit():
    assert IALS(alpha=0.2, regularization=10).implicit_params() == pytest.approx(
        {"alpha": 6.0, "regularization": 60.0})


def test_ials_solves_the_paper_loss():
    X = random_binary()
    alpha, lam = 0.2, 0.5
    model = IALS(factors=4, regularization=lam, alpha=alpha, iterations=300).fit(X)
    U, V = model.user_factors_, model.item_factors_
    grad_u, grad_v = paper_gradients(X, U, V, alpha, lam)
    scale = np.abs(U).max() + np.abs(V).max()
    assert np.abs(grad_v).max() < 1e-10 * scale  # the last half-sweep solved the items exactly
    assert np.abs(grad_u).max() < 1e-6 * scale   # and the sweeps have converged
    history = np.array(model.loss_history_)
    assert history.size == 300 and np.all(np.diff(history) <= 1e-9 * history[0])


@pytest.mark.numerical
def test_paper_loss_matches_dense_computation():
    X = random_binary(seed=1)
    rng = np.random.default_rng(0)
    U, V = rng.normal(size=(40, 3)), rng.normal(size=(25, 3))
    Y, D = U @ V.T, X.toarray()
    dense = ((Y - 1) ** 2 * D).sum() + 0.3 * (Y ** 2).sum() + 2.0 * ((U ** 2).sum() + (V ** 2).sum())
    # both forms sum the same products u_ia v_ja u_ib v_jb (paper_loss as sum (U^T U)(V^T V))
    # and the residuals in other orders, through fewer than N roundings each: 2 gamma(N)
    # times the absolute terms
    aU, aV = np.abs(U), np.abs(V)
    terms = (((aU @ aV.T + 1) ** 2 * D).sum() + 0.3 * ((aU.T @ aU) * (aV.T @ aV)).sum()
             + 2.0 * ((U ** 2).sum() + (V ** 2).sum()))
    N = Y.size + U.shape[0] + V.shape[0] + U.shape[1] ** 2
    assert abs(paper_loss(X, U, V, 0.3, 2.0) - dense) <= 2 * gamma(N) * terms


@pytest.mark.numerical
def test_ials_is_deterministic_and_scores_blocks():
    X = random_binary(seed=2)
    a, b = IALS(iterations=3, seed=5).fit(X), IALS(iterations=3, seed=5).fit(X)
    assert np.array_equal(a.user_factors_, b.user_factors_)
    assert not np.array_equal(a.item_factors_, IALS(iterations=3, seed=6).fit(X).item_factors_)
    users = np.array([3, 0, 39, 7])
    scores = a.score(users)
    assert scores.shape == (4, 25) and scores.dtype == np.float64
    blocks = list(a.score_blocks(users, block_size=3))
    assert [len(u) for u, _ in blocks] == [3, 1]
    # one BLAS product per block: the same block gives the same bits, another block shape
    # may differ in the last bit (the evaluation scores fixed blocks of users)
    assert np.array_equal(a.score(users), scores)
    U_, V_ = a.user_factors_[users], a.item_factors_          # two orders of the k-term sums
    assert np.all(np.abs(np.vstack([s for _, s in blocks]) - scores)
                  <= 2 * product_bound(U_, V_.T))
    assert np.array_equal(scores, a.user_factors_[users] @ a.item_factors_.T)


def test_ials_rejects_bad_input():
    with pytest.raises(ValueError, match="not fitted"):
        IALS().score([0])
    with pytest.raises(ValueError, match="binary"):
        IALS().fit(2 * random_binary())
    with pytest.raises(ValueError, match="user indices must lie in 0..39"):
        IALS(iterations=1).fit(random_binary()).score([40])


# ----------------------------------------------------------------------------- ItemKNN
# Users x items; n = (2, 3, 3, 1); cosines s01 = 2/√6, s02 = 1/√6, s12 = 2/3, s23 = 1/√3.
HAND = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 0], [0, 0, 1, 1]],
                              dtype=float))


def test_itemknn_hand_example_full_similarity():
    model = ItemKNN(q=1, norm="l2", denominator=False).fit(HAND)
    # ŷ(u0, 2) = (s20 + s21) / ||s_2||, ||s_2||² = 1/6 + 4/9 + 1 + 1/3 = 35/18
    expected = (1 / np.sqrt(6) + 2 / 3) / np.sqrt(35 / 18)
    assert model.score([0])[0, 2] == pytest.approx(expected)
    model.denominator = True  # eq. 30: the row norm cancels
    assert model.score([0])[0, 2] == pytest.approx(
        (1 / np.sqrt(6) + 2 / 3) / (1 / np.sqrt(6) + 2 / 3 + 1 + 1 / np.sqrt(3)))
    cubed = ItemKNN(q=3, denominator=True).fit(HAND).score([0])[0, 2]
    assert cubed == pytest.approx((6 ** -1.5 + (2 / 3) ** 3)
                                  / (6 ** -1.5 + (2 / 3) ** 3 + 1 + 3 ** -1.5))


def test_itemknn_hand_example_neighbour_readings():
    # Diagonal excluded: N_1(0) = {1}, N_1(1) = {0}, N_1(2) = {1}, N_1(3) = {2}.
    column = ItemKNN(q=1, k_prime=1, diagonal="exclude", neighbours="column",
                     denominator=True).fit(HAND)
    # s'_ij kept iff i ∈ N_1(j): row 1 keeps j = 0 (2/√6) and j = 2 (2/3)
    assert column.score([3])[0, 1] == pytest.approx((2 / 3) / (2 / np.sqrt(6) + 2 / 3))
    assert column.score([3])[0, 0] == 0.0
    literal = ItemKNN(q=1, k_prime=1, diagonal="exclude", neighbours="literal",
                      denominator=True).fit(HAND)
    # s'_ij kept iff j ∈ N_1(i): row 1 keeps only j = 0, which user 3 lacks
    assert literal.score([3])[0, 1] == 0.0
    assert literal.score([0])[0, 2] == pytest.approx(1.0)  # row 2 keeps j = 1 only


def reference_itemknn(X, q, k, k_prime, diagonal, neighbours, norm, denominator):
    """Loop transcription of eq. 27-30 for a dense 0/1 matrix X."""
    X = X.toarray()
    n = X.shape[1]
    s = np.zeros((n, n))
    for i, j in itertools.product(range(n), repeat=2):
        ni, nj = X[:, i].sum(), X[:, j].sum()
        if ni and nj and (i != j or diagonal == "keep"):
            s[i, j] = ((X[:, i] * X[:, j]).sum() / np.sqrt(ni * nj)) ** q

    def nearest(j, size):  # N_size(j): largest s_j·, ties to the lower index, s > 0 only
        if size is None:
            return set(range(n))
        order = sorted((x for x in range(n) if s[j, x] > 0), key=lambda x: (-s[j, x], x))
        return set(order[:size])

    k_row, k_col = (k_prime, k) if neighbours == "literal" else (k, k_prime)
    s1 = np.array([[s[i, j] * (i in nearest(j, k_col)) * (j in nearest(i, k_row))
                    for j in range(n)] for i in range(n)])
    p = {"l2": 2, "l1": 1, "none": 0}[norm]
    norms = (s1 ** p).sum(1) ** (1 / p) if p else np.ones(n)
    s2 = np.divide(s1, norms[:, None], out=np.zeros_like(s1), where=norms[:, None] > 0)
    y = X @ s2.T
    if denominator:
        sums = s2.sum(1)
        y = np.divide(y, sums, out=np.zeros_like(y), where=sums > 0)
    return y


@pytest.mark.parametrize("k,k_prime,diagonal,neighbours,norm,denominator", [
    (None, None, "keep", "literal", "l2", False),
    (None, 3, "exclude", "column", "l2", False),
    (None, 3, "keep", "literal", "l1", True),
    (4, 2, "exclude", "literal", "none", False),
    (2, 5, "keep", "column", "l2", True),
])
@pytest.mark.numerical
def test_itemknn_matches_loop_reference(k, k_prime, diagonal, neighbours, norm, denominator):
    X = random_binary(30, 12, density=0.3, seed=3)
    X = X[:, np.flatnonzero(X.getnnz(axis=0))].tocsr()
    params = dict(k=k, k_prime=k_prime, diagonal=diagonal, neighbours=neighbours, norm=norm,
                  denominator=denominator)
    model = ItemKNN(q=2, block_size=5, dtype="float64", **params).fit(X)
    expected = reference_itemknn(X, 2, **params)
    # s is computed by the same operations both ways (so are its ties, hence the
    # neighbours); the row norms, the row sums and the scores are sums of <= n terms of one
    # sign in other orders (gamma(n) each) with a few divisions, roots and powers: relative
    # 2 (3 gamma(n) + 8 u) per path pair
    n = X.shape[1]
    assert np.allclose(model.score(np.arange(X.shape[0])), expected,
                       rtol=2 * (3 * gamma(n) + 8 * U), atol=0)


def test_itemknn_is_deterministic_and_handles_empty_items():
    X = sp.hstack([random_binary(seed=4), sp.csr_matrix((40, 2))]).tocsr()  # 2 unused items
    a = ItemKNN(q=3, k_prime=5).fit(X).score(np.arange(40))
    b = ItemKNN(q=3, k_prime=5, block_size=7).fit(X).score(np.arange(40))
    assert a.shape == (40, 27) and np.array_equal(a, b)
    assert np.isfinite(a).all() and not a[:, -2:].any()


def test_topk_mask_breaks_ties_towards_lower_index():
    block = np.array([[0.5, 0.9, 0.5, 0.0, 0.5], [0.0, 0.0, 0.1, 0.0, 0.0]])
    assert topk_mask(block, 2).astype(int).tolist() == [[1, 1, 0, 0, 0], [0, 0, 1, 0, 0]]


@pytest.mark.parametrize("kwargs,match", [
    (dict(norm="l3"), "^unknown ItemKNN norm 'l3'; expected one of l2, l1, none$"),
    (dict(k=0), "k must be a positive integer"), (dict(q=-1), "q must be a positive"),
    (dict(neighbours="row"), "^unknown ItemKNN neighbours 'row'; expected one of literal, "
                             "column$")])
def test_itemknn_rejects_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ItemKNN(**kwargs)


@pytest.mark.parametrize("k_prime,same_as", [(None, "keep"), (3, "exclude")])
def test_itemknn_auto_diagonal(k_prime, same_as):
    X = random_binary(seed=5)
    auto = ItemKNN(q=2, k_prime=k_prime, diagonal="auto").fit(X).score(np.arange(40))
    other = ItemKNN(q=2, k_prime=k_prime, diagonal=same_as).fit(X).score(np.arange(40))
    assert np.array_equal(auto, other)


def test_paper_presets_and_factory():
    z = paper_recommender("Z")
    assert (z.q, z.k, z.k_prime, z.diagonal, z.neighbours, z.norm, z.denominator) == \
        (1.0, None, 10, "auto", "column", "l2", False)
    assert paper_recommender("X", iterations=3).implicit_params()["alpha"] == pytest.approx(6)
    assert isinstance(make_recommender("itemknn", q=3), ItemKNN)
    with pytest.raises(ValueError, match="unknown recommender kind"):
        make_recommender("svd")
    with pytest.raises(ValueError, match="unexpected keyword"):
        make_recommender("ials", factor=3)


def test_ease_closed_form_solves_its_objective():
    """B minimises ||X - XB||² + λ||B||² s.t. diag(B) = 0: the gradient (XᵀX + λI)B - XᵀX
    vanishes off the diagonal (the diagonal carries the Lagrange multipliers)."""
    import scipy.sparse as sp

    from sampled_metrics.recommenders import EASE, make_recommender
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random((40, 25)) < 0.2).astype(float))
    model = make_recommender("ease", lam=3.0, dtype="float64").fit(X)
    B = model.weights_
    G = (X.T @ X).toarray()
    grad = (G + 3.0 * np.eye(25)) @ B - G
    off = ~np.eye(25, dtype=bool)
    assert np.abs(np.diag(B)).max() == 0
    assert np.abs(grad[off]).max() < 1e-10
    assert np.allclose(model.score([0, 3]), X[[0, 3]].toarray() @ B)
    with pytest.raises(ValueError, match="lam"):
        EASE(lam=0)


# ----------------------------------------------------------------------------- the kinds

def test_what_a_kind_needs_is_read_from_its_class(monkeypatch):
    """The workflow's plan per kind (PyTorch or not, a dense items x items model or not, a
    model seed or not) comes from the class KINDS holds: a toy kind registered in-process
    needs no other list."""
    assert {k for k in KINDS if needs_torch({"model": k})} == {"neumf", "multivae"}
    assert [dense_items_matrix(s) for s in ({"model": "ease"}, {"model": "itemknn"},
                                            {"model": "itemknn", "k": 5}, {"model": "ials"},
                                            {"model": "unknown"})] == [True, True, False,
                                                                       False, False]

    class ToyTorch(NeuMF):
        """A toy kind: NeuMF under another name."""

    class ToyDense(EASE):
        """A toy kind: EASE under another name."""
    monkeypatch.setitem(KINDS, "toy_torch", ToyTorch)
    monkeypatch.setitem(KINDS, "toy_dense", ToyDense)
    torch_spec, dense_spec = {"model": "toy_torch"}, {"model": "toy_dense", "lam": 5.0}
    assert (needs_torch(torch_spec), needs_torch(dense_spec)) == (True, False)
    assert (dense_items_matrix(torch_spec), dense_items_matrix(dense_spec)) == (False, True)
    assert model_seed(torch_spec) == model_seed({"model": "neumf"})
    assert model_seed(dense_spec) is None
    assert isinstance(make_recommender("toy_dense", lam=5.0), ToyDense)
    with pytest.raises(ValueError, match="unknown recommender kind 'toy'; expected one of"):
        model_seed({"model": "toy"})
