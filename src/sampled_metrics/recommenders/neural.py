"""Neural recommenders of Jin et al.'s experiments, in PyTorch on CPU (optional extra
``pip install 'sampled-metrics[neural]'``): NeuMF (He et al. 2017) and MultiVAE (Liang et
al. 2018).

PyTorch is imported when a model is fitted, not when this module is imported, so the
catalogue (and the config checker) can construct and validate them without it; fitting
without PyTorch raises a one-line error naming the extra.

Determinism: every random draw (initial weights, dropout, the VAE's noise, the order of
the mini-batches, NeuMF's negatives) comes from generators seeded by ``seed``, and the fit
runs on ``threads`` CPU threads (default 1, as the ranks jobs run): the same seed and
threads give bit-identical scores on one machine. Across CPUs they do not: PyTorch's kernels
sum in an order that depends on the instruction set, so the trained weights, and with them
the ranks, differ (see the Jin et al. reproduction page).
"""
from __future__ import annotations

import contextlib
import importlib

import numpy as np

from ..logs import progress
from .base import Recommender, check_train

__all__ = ["NeuMF", "MultiVAE", "torch_available"]


def torch_available() -> bool:
    """Whether PyTorch can be imported (without importing it)."""
    return importlib.util.find_spec("torch") is not None


def _torch():
    try:
        return importlib.import_module("torch")
    except ImportError:
        raise ImportError("the neural recommenders (neumf, multivae) need PyTorch: "
                          "pip install 'sampled-metrics[neural]'") from None


@contextlib.contextmanager
def _torch_threads(torch, threads: int):
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _positive_float(name: str, value, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not (
            np.isfinite(value) and (value >= 0 if allow_zero else value > 0)):
        raise ValueError(f"{name} must be a {'non-negative' if allow_zero else 'positive'} "
                         f"number, got {value!r}")
    return float(value)


def _seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _member(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` is in ``sorted_keys`` (ascending): binary search, as
    ``np.isin`` but without sorting the 4-per-interaction negative keys every epoch."""
    pos = np.searchsorted(sorted_keys, keys)
    found = np.zeros(keys.shape, dtype=bool)
    inside = pos < sorted_keys.size
    found[inside] = sorted_keys[pos[inside]] == keys[inside]
    return found


class _TorchRecommender(Recommender):
    """Shared: seeded generator, fixed threads, loss history, scoring without gradients."""

    needs_torch = True

    def _training(self, epochs, batch_size, lr, weight_decay, seed, threads) -> None:
        """Validate and set the parameters of the training loop."""
        self.epochs = _positive_int("epochs", epochs)
        self.batch_size = _positive_int("batch_size", batch_size)
        self.lr = _positive_float("lr", lr)
        self.weight_decay = _positive_float("weight_decay", weight_decay, allow_zero=True)
        self.seed = _seed(seed)
        self.threads = _positive_int("threads", threads)

    def _start(self, train):
        torch = _torch()
        train = check_train(train)
        gen = torch.Generator().manual_seed(self.seed)
        return torch, train, gen

    def _score(self, users: np.ndarray) -> np.ndarray:
        torch = _torch()
        with _torch_threads(torch, self.threads), torch.no_grad():
            return self._forward_scores(torch, users).double().numpy()


class NeuMF(_TorchRecommender):
    """Neural matrix factorisation (He et al. 2017, "Neural Collaborative Filtering").

    ŷ(u, i) = σ(hᵀ [p_u^G ⊙ q_i^G ; MLP([p_u^M ; q_i^M])]): a GMF branch (element-wise
    product of ``factors``-dimensional embeddings) and an MLP branch (ReLU tower ``layers``,
    its input the concatenated user and item embeddings of size layers[0]/2 each), fused by
    one output layer; log loss on each training pair and ``negatives`` items drawn per
    positive, uniformly among the user's non-training items, afresh every epoch; Adam.

    Defaults from the NCF paper (Sec. 4.1: 4 negatives per positive, learning rate 0.001,
    predictive factors 8 with the MLP tower 32 -> 16 -> 8, N(0, 0.01) initial embeddings,
    no pre-training here), except ``batch_size`` 1024 (Jin et al.'s code, AAAI'23
    repository; NCF used 256) and ``epochs`` 10 (the NCF paper's figures show HR@10
    saturating after ~10 epochs on ML-1M), both for CPU time.
    """

    def __init__(self, factors: int = 8, layers=(64, 32, 16, 8), negatives: int = 4,
                 epochs: int = 10, batch_size: int = 1024, lr: float = 0.001,
                 weight_decay: float = 0.0, seed: int = 0, threads: int = 1):
        self.factors = _positive_int("factors", factors)
        layers = tuple(layers) if isinstance(layers, (list, tuple)) else layers
        if not isinstance(layers, tuple) or len(layers) < 1 or any(
                isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in layers) \
                or layers[0] % 2:
            raise ValueError(f"layers must be a list of positive integers, the first even "
                             f"(user and item embeddings of half its size), got {layers!r}")
        self.layers = layers
        self.negatives = _positive_int("negatives", negatives)
        self._training(epochs, batch_size, lr, weight_decay, seed, threads)

    def __repr__(self) -> str:
        return (f"NeuMF(factors={self.factors}, layers={list(self.layers)}, "
                f"negatives={self.negatives}, epochs={self.epochs}, "
                f"batch_size={self.batch_size}, lr={self.lr:g}, seed={self.seed})")

    def _build(self, torch, n_users: int, n_items: int):
        nn = torch.nn
        half = self.layers[0] // 2
        net = nn.ModuleDict({
            "user_gmf": nn.Embedding(n_users, self.factors),
            "item_gmf": nn.Embedding(n_items, self.factors),
            "user_mlp": nn.Embedding(n_users, half),
            "item_mlp": nn.Embedding(n_items, half),
            "tower": nn.Sequential(*[m for a, b in zip(self.layers[:-1], self.layers[1:])
                                     for m in (nn.Linear(a, b), nn.ReLU())]),
            "out": nn.Linear(self.factors + self.layers[-1], 1),
        })
        for key in ("user_gmf", "item_gmf", "user_mlp", "item_mlp"):
            nn.init.normal_(net[key].weight, std=0.01, generator=self._gen)
        for module in net.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight, generator=self._gen)
                nn.init.zeros_(module.bias)
        return net

    def _logits(self, net, users, items):
        torch = _torch()
        gmf = net["user_gmf"](users) * net["item_gmf"](items)
        mlp = net["tower"](torch.cat([net["user_mlp"](users), net["item_mlp"](items)], 1))
        return net["out"](torch.cat([gmf, mlp], 1)).squeeze(1)

    def fit(self, train) -> "NeuMF":
        """Adam on the log loss of positives and fresh uniform negatives each epoch."""
        torch, train, self._gen = self._start(train)
        rng = np.random.default_rng(self.seed)
        n_users, n_items = train.shape
        users = np.repeat(np.arange(n_users), np.diff(train.indptr))
        items = train.indices.astype(np.int64)
        seen = users * n_items + items                        # sorted (CSR order)
        self.loss_history_ = []
        with _torch_threads(torch, self.threads), \
                progress("fit NeuMF", total=self.epochs) as bar:
            torch.manual_seed(self.seed)
            net = self._build(torch, n_users, n_items)
            opt = torch.optim.Adam(net.parameters(), lr=self.lr,
                                   weight_decay=self.weight_decay, fused=True)
            loss_fn = torch.nn.BCEWithLogitsLoss()
            for _ in range(self.epochs):
                neg_u = np.repeat(users, self.negatives)
                neg_i = rng.integers(n_items, size=neg_u.size)
                bad = np.flatnonzero(_member(neg_u * n_items + neg_i, seen))
                while bad.size:                               # redraw training items
                    neg_i[bad] = rng.integers(n_items, size=bad.size)
                    bad = bad[_member(neg_u[bad] * n_items + neg_i[bad], seen)]
                u = torch.from_numpy(np.concatenate([users, neg_u]))
                i = torch.from_numpy(np.concatenate([items, neg_i]))
                y = torch.cat([torch.ones(users.size), torch.zeros(neg_u.size)])
                order = torch.randperm(u.numel(), generator=self._gen)
                total = 0.0
                for lo in range(0, order.numel(), self.batch_size):
                    b = order[lo:lo + self.batch_size]
                    opt.zero_grad()
                    loss = loss_fn(self._logits(net, u[b], i[b]), y[b])
                    loss.backward()
                    opt.step()
                    total += loss.item() * b.numel()
                self.loss_history_.append(total / order.numel())
                bar.advance(detail=f"loss {self.loss_history_[-1]:.4g}")
        net.eval()
        self.net_, self.train_ = net, train
        return self

    def _forward_scores(self, torch, users):
        """The logits of :meth:`_logits` for every (user, item), without gathering a pair's
        embeddings: with h = [h_G; h_M] the output weights, the GMF term is
        (p_u^G ⊙ h_G) · q_i^G, a matrix product; the tower's first layer splits as
        W [p_u^M; q_i^M] + b = W_U p_u^M + (W_I q_i^M + b), so only the ReLU and the
        narrower layers run per pair (in blocks of users)."""
        net, half = self.net_, self.layers[0] // 2
        u = torch.from_numpy(np.asarray(users, dtype=np.int64))
        weight, bias = net["out"].weight[0], net["out"].bias
        h_gmf, h_mlp = weight[:self.factors], weight[self.factors:]
        gmf = (net["user_gmf"](u) * h_gmf) @ net["item_gmf"].weight.T
        user_mlp, item_mlp = net["user_mlp"](u), net["item_mlp"].weight
        tower = list(net["tower"])
        if not tower:                                   # no hidden layer: h_M . [p; q]
            return gmf + (user_mlp @ h_mlp[:half])[:, None] + (item_mlp @ h_mlp[half:]) + bias
        first, rest = tower[0], torch.nn.Sequential(*tower[1:])
        user_part = user_mlp @ first.weight[:, :half].T
        item_part = item_mlp @ first.weight[:, half:].T + first.bias
        block = max(1, 2 ** 22 // max(1, item_part.numel()))   # ~16 MB per block
        mlp = torch.cat([rest(user_part[lo:lo + block, None, :] + item_part[None])
                         @ h_mlp for lo in range(0, u.numel(), block)])
        return gmf + mlp + bias


class MultiVAE(_TorchRecommender):
    """Variational autoencoder with multinomial likelihood (Liang et al. 2018).

    Encoder: x_u / ||x_u||, dropout, tanh tower ``dims`` (items -> 600 -> 200) giving the
    mean and log-variance of z; decoder the mirror tower (200 -> 600 -> items); loss
    -sum_i x_ui log softmax(f(z))_i + beta KL(q(z|x_u) || N(0, I)), beta annealed
    linearly from 0 by 1/``anneal_steps`` per mini-batch, capped at ``anneal_cap``. Score:
    the decoder's logits at z = the mean.

    Defaults from Liang et al. (Sec. 4.3 and their code): hidden 600, latent 200, tanh,
    input dropout 0.5, Adam with learning rate 1e-3, batch of 500 users, KL annealing
    capped at 0.2 over 200,000 steps; ``epochs`` 50 (they train 200 on ML-20M; fewer here
    for CPU time: ML-1M has 13 batches per epoch).
    """

    def __init__(self, hidden: int = 600, latent: int = 200, dropout: float = 0.5,
                 epochs: int = 50, batch_size: int = 500, lr: float = 0.001,
                 anneal_cap: float = 0.2, anneal_steps: int = 200_000,
                 weight_decay: float = 0.0, seed: int = 0, threads: int = 1):
        self.hidden = _positive_int("hidden", hidden)
        self.latent = _positive_int("latent", latent)
        dropout = _positive_float("dropout", dropout, allow_zero=True)
        if dropout >= 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.dropout = dropout
        self.anneal_cap = _positive_float("anneal_cap", anneal_cap, allow_zero=True)
        self.anneal_steps = _positive_int("anneal_steps", anneal_steps)
        self._training(epochs, batch_size, lr, weight_decay, seed, threads)

    def __repr__(self) -> str:
        return (f"MultiVAE(hidden={self.hidden}, latent={self.latent}, "
                f"dropout={self.dropout:g}, epochs={self.epochs}, "
                f"batch_size={self.batch_size}, lr={self.lr:g}, "
                f"anneal_cap={self.anneal_cap:g}, seed={self.seed})")

    def _build(self, torch, n_items: int):
        nn = torch.nn
        net = nn.ModuleDict({
            "enc": nn.Sequential(nn.Linear(n_items, self.hidden), nn.Tanh(),
                                 nn.Linear(self.hidden, 2 * self.latent)),
            "dec": nn.Sequential(nn.Linear(self.latent, self.hidden), nn.Tanh(),
                                 nn.Linear(self.hidden, n_items)),
        })
        for module in net.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight, generator=self._gen)
                nn.init.normal_(module.bias, std=0.001, generator=self._gen)
        return net

    def _encode(self, torch, rows: np.ndarray, train: bool):
        """q(z | x_u) of the users ``rows``: (mu, log-variance).

        The first layer is W x_u / ||x_u|| + b over the user's items only (an embedding
        bag of W's columns weighted by 1 / ||x_u||, after dropout of those weights): the
        same function as the dense product, at the cost of the non-zeros.
        """
        fn = torch.nn.functional
        x = self.train_[rows]
        counts = np.diff(x.indptr)
        weights = np.repeat(1.0 / np.sqrt(np.maximum(counts, 1)), counts).astype(np.float32)
        weights = torch.from_numpy(weights)
        if train and self.dropout > 0:
            keep = torch.rand(weights.shape, generator=self._gen) >= self.dropout
            weights = weights * keep / (1 - self.dropout)
        first, rest = self.net_["enc"][0], self.net_["enc"][1:]
        h = fn.embedding_bag(torch.from_numpy(x.indices.astype(np.int64)),
                             first.weight.t().contiguous(),
                             torch.from_numpy(x.indptr[:-1].astype(np.int64)), mode="sum",
                             per_sample_weights=weights) + first.bias
        h = rest(h)
        return h[:, :self.latent], h[:, self.latent:]

    def fit(self, train) -> "MultiVAE":
        """Adam on the annealed negative ELBO, mini-batches of users in seeded order."""
        torch, train, self._gen = self._start(train)
        n_users, n_items = train.shape
        active = np.flatnonzero(np.diff(train.indptr) > 0)
        self.loss_history_ = []
        self.train_ = train
        step = 0
        with _torch_threads(torch, self.threads), \
                progress("fit MultiVAE", total=self.epochs) as bar:
            self.net_ = self._build(torch, n_items)
            opt = torch.optim.Adam(self.net_.parameters(), lr=self.lr,
                                   weight_decay=self.weight_decay, fused=True)
            for _ in range(self.epochs):
                order = active[torch.randperm(active.size, generator=self._gen).numpy()]
                total = 0.0
                for lo in range(0, order.size, self.batch_size):
                    rows = order[lo:lo + self.batch_size]
                    x = torch.from_numpy(train[rows].toarray().astype(np.float32))
                    mu, logvar = self._encode(torch, rows, train=True)
                    eps = torch.randn(mu.shape, generator=self._gen)
                    z = mu + eps * torch.exp(0.5 * logvar)
                    logits = self.net_["dec"](z)
                    nll = -(torch.log_softmax(logits, 1) * x).sum(1).mean()
                    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1).mean()
                    beta = min(self.anneal_cap, step / self.anneal_steps)
                    loss = nll + beta * kl
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    step += 1
                    total += loss.item() * rows.size
                self.loss_history_.append(total / max(order.size, 1))
                bar.advance(detail=f"loss {self.loss_history_[-1]:.4g}")
        self.net_.eval()
        return self

    def _forward_scores(self, torch, users):
        mu, _ = self._encode(torch, users, train=False)
        return self.net_["dec"](mu)
