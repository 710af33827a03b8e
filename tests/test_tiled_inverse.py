"""The tiled inverse of EASE's Gram matrix (``inverse='tiled'``): G⁻¹ to rounding, the same
bits for any number of threads, and on MovieLens-1M the ranks of the LAPACK inverse."""
import numpy as np
import pytest
from conftest import random_binary
from rounding import U32, gamma
from scipy import linalg

from sampled_metrics.recommenders import make_recommender
from sampled_metrics.recommenders.tiled_inverse import tiled_spd_inverse


def gram(n_users, n_items, seed, lam=7.0):
    X = random_binary(n_users, n_items, 0.1, seed)
    return (X.T @ X).toarray() + lam * np.eye(n_items)


@pytest.mark.numerical
@pytest.mark.parametrize("n,tile", [(150, 64), (150, 150), (150, 1000), (97, 10)])
def test_tiled_inverse_is_the_inverse(n, tile):
    G = gram(400, n, 1)
    expected = linalg.inv(G, check_finite=False)
    kappa = np.linalg.cond(G)
    P = tiled_spd_inverse(G, threads=2, tile=tile)
    assert P is G
    assert np.array_equal(P, P.T)                                 # exactly symmetric
    # each inverse of a matrix of condition kappa is within ~kappa gamma(n) ||G^-1|| of the
    # exact one (Higham, Accuracy and Stability, ch. 14), so two within twice that
    bound = 2 * kappa * gamma(n) * np.linalg.norm(expected, 2)
    assert np.all(np.abs(P - expected) <= bound)


@pytest.mark.numerical
def test_tiled_inverse_bits_do_not_depend_on_threads():
    G = gram(500, 230, 2)
    results = [tiled_spd_inverse(G.copy(), threads=t, tile=32) for t in (1, 2, 3, 5)]
    for other in results[1:]:
        assert np.array_equal(other, results[0])


@pytest.mark.numerical
@pytest.mark.parametrize("inverse", ["tiled", "lapack"])
def test_float32_inverse_is_the_inverse_to_float32_rounding(inverse):
    """In float32 (single-precision BLAS and LAPACK) the inverse is within
    2 kappa gamma32(n) ||G^-1|| of the exact one, as in float64 with float32's roundoff; the
    tiled one has the same bits for any number of threads."""
    from sampled_metrics.recommenders.ease import spd_inverse_inplace
    G = gram(400, 150, 4)
    expected = linalg.inv(G, check_finite=False)
    kappa = np.linalg.cond(G)
    results = [spd_inverse_inplace(G.astype(np.float32), threads=t, inverse=inverse)
               if inverse == "lapack" else tiled_spd_inverse(G.astype(np.float32), threads=t,
                                                             tile=32)
               for t in (1, 2, 3)]
    for P in results:
        assert P.dtype == np.float32 and np.array_equal(P, results[0])
        assert np.array_equal(P, P.T)
    bound = 2 * kappa * gamma(150, U32) * np.linalg.norm(expected, 2)
    error = np.abs(results[0] - expected)
    assert np.all(error <= bound)
    assert error.max() > 2 * kappa * gamma(150) * np.linalg.norm(expected, 2)  # not float64


def test_tiled_inverse_refuses():
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        tiled_spd_inverse(-np.eye(5), tile=2)
    bad = gram(100, 40, 3)
    bad[30, 30] = -1.0                                            # fails in a later tile
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        tiled_spd_inverse(bad, tile=16)
    with pytest.raises(ValueError, match="C-contiguous"):
        tiled_spd_inverse(np.eye(4).T[:, :3])
    with pytest.raises(ValueError, match="tile must be"):
        tiled_spd_inverse(np.eye(4), tile=0)


@pytest.mark.numerical
def test_ease_inverse_option(monkeypatch):
    X = random_binary(300, 80, 0.08, 6)
    lapack_b = [make_recommender("ease", dtype="float64", lam=5.0, threads=t).fit(X).weights_
                for t in (1, 2)]
    monkeypatch.setattr("sampled_metrics.recommenders.tiled_inverse.TILE", 16)
    tiled = [make_recommender("ease", dtype="float64", lam=5.0, threads=t,
                              inverse="tiled").fit(X).weights_ for t in (1, 2)]
    assert np.array_equal(lapack_b[0], lapack_b[1]) and np.array_equal(tiled[0], tiled[1])
    assert not np.array_equal(tiled[0], lapack_b[0])             # another path ...
    # ... the same B: two inverses within 2 kappa gamma(n) ||G^-1|| (kappa ~ 20 here, so
    # ~4e-13 of max |B|), scaled by the diagonal
    assert np.allclose(tiled[0], lapack_b[0], rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="^unknown EASE inverse 'qr'; expected one of lapack, "
                                         "tiled$"):
        make_recommender("ease", inverse="qr")


@pytest.mark.numerical
def test_ease_float32_fit():
    """``precision='float32'``: G counted exactly in float32, inverted and scaled in float32.
    B = -P / diag(P) is then within the float32 inverse's error of the float64 fit's B:
    |dB_ij| <= (|dP_ij| + |B_ij| |dP_jj|) / (|P_jj| - |dP_jj|) + 2 u32 |B_ij| (the float32
    division and scaling), with |dP| <= 2 kappa gamma32(n) ||P||_2."""
    from sampled_metrics.recommenders.dense_kernels import cooccurrence
    X = random_binary(300, 80, 0.08, 6)
    assert np.array_equal(cooccurrence(X, out=np.zeros((80, 80), dtype=np.float32)),
                          cooccurrence(X))                        # exact integer counts
    lam = 5.0
    B64 = make_recommender("ease", dtype="float64", lam=lam).fit(X).weights_
    B32 = make_recommender("ease", dtype="float64", lam=lam, precision="FLOAT32").fit(X).weights_
    G = (X.T @ X).toarray() + lam * np.eye(80)
    P = linalg.inv(G)
    dP = 2 * np.linalg.cond(G) * gamma(80, U32) * np.linalg.norm(P, 2)
    diag = np.abs(np.diag(P))[None, :]
    bound = (dP + np.abs(B64) * dP) / (diag - dP) + 2 * U32 * np.abs(B64)
    assert np.all(np.abs(B32 - B64) <= bound)
    assert not np.array_equal(B32, B64)
    with pytest.raises(ValueError, match="^unknown EASE precision 'float16'; expected one of "
                                         "float32, float64$"):
        make_recommender("ease", precision="float16")


@pytest.mark.slow
def test_ml1m_ranks_of_the_tiled_inverse_are_lapacks(ml1m, tmp_path, monkeypatch):
    """EASE on MovieLens-1M through the tiled inverse (tiles of 1,024: 4 x 4) ranks every
    user as through LAPACK's, exact and sampled (100 x m = 100)."""
    from sampled_metrics.datasets import load_split, make_split
    from sampled_metrics.evaluation import evaluate

    make_split(ml1m, "ml-1m", tmp_path / "split.npz")
    split = load_split(tmp_path / "split.npz")

    def ranks(inverse):
        model = make_recommender("ease", lam=500.0, threads=2, inverse=inverse)
        e = evaluate(model.fit(split.train), split, {100: 100}, tie="random_per_ranking",
                     seed=11)
        return e.ranks, e.sampled[100]

    lapack_ranks = ranks("lapack")
    monkeypatch.setattr("sampled_metrics.recommenders.tiled_inverse.TILE", 1024)
    tiled_ranks = ranks("tiled")
    assert np.array_equal(tiled_ranks[0], lapack_ranks[0])
    assert np.array_equal(tiled_ranks[1], lapack_ranks[1])
