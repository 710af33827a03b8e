"""Implicit ALS matrix factorisation, recommender X of KDD'20 (appendix).

The paper's model ŷ(u, i) = <w_u, h_i> minimises (its parameterisation, after [3])

    L(W, H) = Σ_{(u,i) ∈ H} (ŷ(u,i) - 1)^2 + α Σ_{u ∈ U} Σ_{i ∈ I} ŷ(u,i)^2 + λ (||W||² + ||H||²)

with d = 16, λ = 10, α = 0.2. ``implicit`` (0.7.3, ``cpu.als``) minimises instead, for a
confidence matrix C (C_ui = c at observed pairs: it multiplies the input by its ``alpha``),

    L'(W', H') = Σ_{obs} c (1 - ŷ')^2 + Σ_{unobs} ŷ'^2 + λ' (||W'||² + ||H'||²).

Dividing L by α and completing the square at the observed pairs shows L is L' up to a
constant with ŷ' = (1 + α) ŷ (factors scaled by sqrt(1 + α)), c = 1 + 1/α and
λ' = λ (1 + α) / α. So X is implicit's exact (Cholesky, ``use_cg=False``) ALS with
``alpha = 1 + 1/α = 6`` and ``regularization = λ (1 + α)/α = 60`` on the binary matrix;
the stored factors are rescaled by 1/sqrt(1 + α), so scores are on the paper's scale.
"""
from __future__ import annotations

import logging
import time

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from ..logs import progress
from .base import Recommender, check_train

__all__ = ["IALS", "paper_loss"]

log = logging.getLogger(__name__)
_CHUNK = 1 << 16


def paper_loss(train: sp.csr_matrix, user_factors: np.ndarray, item_factors: np.ndarray,
               alpha: float, regularization: float) -> float:
    """The paper's iALS objective L(W, H) (see module docstring).

    Σ_all ŷ² is computed through Gramians, trace(WᵀW HᵀH), so the cost is
    O(nnz·d + (|U| + |I|)·d²) instead of O(|U|·|I|·d).
    """
    rows = np.repeat(np.arange(train.shape[0]), np.diff(train.indptr))
    observed = 0.0
    for start in range(0, train.nnz, _CHUNK):  # chunks avoid two nnz x d temporaries
        part = slice(start, start + _CHUNK)
        y = np.einsum("ij,ij->i", user_factors[rows[part]], item_factors[train.indices[part]])
        observed += np.sum((y - 1.0) ** 2)
    gram_all = np.sum((user_factors.T @ user_factors) * (item_factors.T @ item_factors))
    penalty = np.sum(user_factors ** 2) + np.sum(item_factors ** 2)
    return float(observed + alpha * gram_all + regularization * penalty)


class IALS(Recommender):
    """Recommender X: iALS with the paper's loss, fitted by ``implicit``'s CPU ALS.

    Parameters
    ----------
    factors : int
        Embedding dimension d.
    regularization : float
        λ of the paper's loss.
    alpha : float
        α, the weight of the all-pairs term Σ_all ŷ² in the paper's loss.
    iterations : int
        ALS sweeps (each solves all users, then all items). On ML-1M the paper's loss
        changes by < 5e-5 relative per sweep after 20 sweeps (the default); the metrics are
        flat from 10 sweeps on (seed-to-seed spread of Recall@10 ±0.15 points is larger).
    seed : int
        Seed of implicit's random initialisation.
    threads : int
        Threads of implicit's solver. Each row is an exact Cholesky solve, so factors are
        bit-identical for 1 and 2 threads (measured); 1 avoids oversubscription when the
        workflow runs jobs in parallel.
    track_loss : bool
        Record the paper's loss after every sweep in ``loss_history_``.

    Attributes
    ----------
    user_factors_, item_factors_ : numpy.ndarray
        W and H on the paper's scale (float64).
    loss_history_ : list of float
        L(W, H) after each sweep (empty unless ``track_loss``).
    fit_seconds_ : float
        Wall time of the ALS sweeps.
    """

    def __init__(self, factors: int = 16, regularization: float = 10.0, alpha: float = 0.2,
                 iterations: int = 20, seed: int = 0, threads: int = 1,
                 track_loss: bool = True):
        if int(factors) != factors or factors < 1:
            raise ValueError(f"IALS factors must be a positive integer, got {factors!r}")
        if int(seed) != seed or seed < 0:
            raise ValueError(f"IALS seed must be a non-negative integer, got {seed!r}")
        if int(iterations) != iterations or iterations < 1:
            raise ValueError(f"IALS iterations must be a positive integer, got {iterations!r}")
        if not alpha > 0 or not regularization >= 0:
            raise ValueError(f"IALS needs alpha > 0 and regularization >= 0, got "
                             f"alpha={alpha!r}, regularization={regularization!r}")
        self.factors, self.regularization, self.alpha = int(factors), float(regularization), \
            float(alpha)
        self.iterations, self.seed, self.threads = int(iterations), int(seed), \
            int(threads)
        self.track_loss = bool(track_loss)

    def __repr__(self) -> str:
        return (f"IALS(factors={self.factors}, regularization={self.regularization:g}, "
                f"alpha={self.alpha:g}, iterations={self.iterations}, seed={self.seed})")

    def implicit_params(self) -> dict:
        """implicit's ``alpha`` (= c) and ``regularization`` (= λ') for the paper's loss."""
        return {"alpha": 1.0 + 1.0 / self.alpha,
                "regularization": self.regularization * (1.0 + self.alpha) / self.alpha}

    def fit(self, train) -> "IALS":
        """Run ``iterations`` exact ALS sweeps on the binary users x items matrix."""
        # implicit is the workflow extra's, not the library's: loaded when a model is fitted
        from implicit.cpu.als import AlternatingLeastSquares

        train = check_train(train)
        scale = 1.0 / np.sqrt(1.0 + self.alpha)
        self.loss_history_: list[float] = []

        def record(iteration, _elapsed, _loss):
            bar.advance()
            if self.track_loss:
                loss = self._loss(train, model.user_factors * scale, model.item_factors * scale)
                self.loss_history_.append(loss)
                log.info("iALS sweep %d/%d: paper loss %.2f", iteration + 1,
                         self.iterations, loss)

        with threadpool_limits(1, "blas"), \
                progress("fit iALS", total=self.iterations) as bar:   # one step per sweep
            model = AlternatingLeastSquares(
                factors=self.factors, dtype=np.float64, use_cg=False, use_native=True,
                iterations=self.iterations, num_threads=self.threads,
                random_state=self.seed, **self.implicit_params())
            start = time.perf_counter()
            model.fit(train, show_progress=False, callback=record)
            self.fit_seconds_ = time.perf_counter() - start
        self.user_factors_ = model.user_factors * scale
        self.item_factors_ = model.item_factors * scale
        self.train_ = train
        return self

    def _loss(self, train, user_factors, item_factors) -> float:
        return paper_loss(train, user_factors, item_factors, self.alpha, self.regularization)

    def loss(self, train=None) -> float:
        """The paper's loss of the fitted factors on ``train`` (default: the fit data)."""
        train = self._fitted() if train is None else check_train(train)
        return self._loss(train, self.user_factors_, self.item_factors_)

    def _score(self, users: np.ndarray) -> np.ndarray:
        """ŷ(u, i) = <w_u, h_i> for all items: one BLAS product W_users H^T.

        BLAS may round the last bit differently for other block shapes; the evaluation
        scores fixed blocks of users (:data:`sampled_metrics.evaluation.negatives.BLOCK_USERS`) with
        single-threaded BLAS, so its scores are reproducible whatever the number of cores.
        """
        return self.user_factors_[users] @ self.item_factors_.T
