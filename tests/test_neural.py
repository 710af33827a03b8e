"""NeuMF and MultiVAE (the ``neural`` extra): seeded determinism, score shapes, and that a
tiny fit learns (held-out items of a planted block structure ranked well above chance)."""
import numpy as np
import pytest
import scipy.sparse as sp

from sampled_metrics.recommenders import make_recommender

torch = pytest.importorskip("torch")

SMALL = {"neumf": {"factors": 4, "layers": [16, 8], "epochs": 8, "batch_size": 256,
                   "lr": 0.01},
         "multivae": {"hidden": 32, "latent": 8, "epochs": 40, "batch_size": 50, "lr": 0.01,
                      "anneal_steps": 200}}


def block_data(n_users=120, n_items=60, groups=3, seed=0):
    """Users of group g interact only with items of group g: a held-out item of the user's
    group should rank near the top (chance: the middle)."""
    rng = np.random.default_rng(seed)
    ug = np.arange(n_users) % groups
    ig = np.arange(n_items) % groups
    dense = (ug[:, None] == ig[None, :]) & (rng.random((n_users, n_items)) < 0.5)
    test = np.array([rng.choice(np.flatnonzero((ig == ug[u]) & ~dense[u])) for u in
                     range(n_users)])
    return sp.csr_matrix(dense, dtype=np.float64), test


@pytest.mark.parametrize("kind", ["neumf", "multivae"])
def test_fit_is_deterministic_and_learns(kind):
    train, test = block_data()
    a = make_recommender(kind, seed=3, **SMALL[kind]).fit(train)
    b = make_recommender(kind, seed=3, **SMALL[kind]).fit(train)
    c = make_recommender(kind, seed=4, **SMALL[kind]).fit(train)
    users = np.arange(train.shape[0])
    sa, sb, sc = a.score(users), b.score(users), c.score(users)
    assert sa.shape == (train.shape[0], train.shape[1]) and sa.dtype == np.float64
    assert np.array_equal(sa, sb)                 # same seed: bit-identical
    assert not np.array_equal(sa, sc)             # another seed: another model
    # another batch of users: the same scores up to float32 rounding of the batched products
    # (the workflow always scores the same blocks of users, so its files are identical)
    assert np.allclose(a.score([5, 1]), sa[[5, 1]], rtol=1e-5, atol=1e-5)
    # rank of the held-out item among the user's non-training items; chance ~ 1/2 of them
    masked = np.where(train.toarray() > 0, -np.inf, sa)
    rank = 1 + (masked > sa[users, test][:, None]).sum(axis=1)
    n_cand = train.shape[1] - np.diff(train.indptr)
    assert np.mean(rank / n_cand) < 0.3
    assert len(a.loss_history_) == SMALL[kind]["epochs"]
    assert a.loss_history_[-1] < a.loss_history_[0]


@pytest.mark.parametrize("kind, params", [
    ("neumf", {"layers": [15, 8]}), ("neumf", {"negatives": 0}), ("neumf", {"lr": -1}),
    ("multivae", {"dropout": 1.0}), ("multivae", {"epochs": 1.5}),
    ("multivae", {"seed": -1}), ("neumf", {"seed": True})])
def test_bad_parameters_one_line_value_error(kind, params):
    with pytest.raises(ValueError) as err:
        make_recommender(kind, **params)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("layers", [[16, 8], [16], [8, 4, 2]])
def test_neumf_scores_equal_its_pairwise_logits(layers):
    """The all-items scoring (GMF as a matrix product, the tower's first layer split into a
    user and an item part) is the network of the training loss, pair by pair."""
    train, _ = block_data()
    model = make_recommender("neumf", **{**SMALL["neumf"], "layers": layers, "epochs": 2})
    model.fit(train)
    users = np.array([0, 7, 7, 119])
    n_items = train.shape[1]
    with torch.no_grad():
        pairs = model._logits(model.net_, torch.from_numpy(np.repeat(users, n_items)),
                              torch.from_numpy(np.tile(np.arange(n_items), users.size)))
    expected = pairs.double().numpy().reshape(users.size, n_items)
    assert np.allclose(model.score(users), expected, rtol=1e-5, atol=1e-6)


def test_multivae_sparse_encoder_equals_the_dense_layer():
    """The encoder's first layer over the user's items only equals W x_u / ||x_u|| + b."""
    train, _ = block_data()
    model = make_recommender("multivae", **{**SMALL["multivae"], "epochs": 2}).fit(train)
    rows = np.array([3, 0, 50])
    with torch.no_grad():
        mu, logvar = model._encode(torch, rows, train=False)
        x = torch.nn.functional.normalize(
            torch.from_numpy(train[rows].toarray().astype(np.float32)), dim=1)
        dense = model.net_["enc"](x)
    assert np.allclose(mu.numpy(), dense[:, :8].numpy(), rtol=1e-5, atol=1e-6)
    assert np.allclose(logvar.numpy(), dense[:, 8:].numpy(), rtol=1e-5, atol=1e-6)
