"""EASE (Steck 2019, "Embarrassingly Shallow Autoencoders"), the fourth recommender of the
Jin et al. (AAAI'21) experiments.

Closed form: with the binary users x items matrix X and G = XᵀX + λI,

    P = G⁻¹,    B = I - P · diag(1 / diag(P))      (so diag(B) = 0),
    ŷ(u, ·) = X_u B.

B is a dense items x items matrix (the model is dense by construction): fine for ML-1M
(3,706 items, 110 MB), not for catalogues beyond a few tens of thousands of items.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg

from .base import Recommender, check_train

__all__ = ["EASE"]


class EASE(Recommender):
    """EASE with L2 regularisation ``lam`` (λ)."""

    def __init__(self, lam: float = 500.0):
        if not lam > 0:
            raise ValueError(f"EASE needs lam > 0, got {lam!r}")
        self.lam = float(lam)

    def __repr__(self) -> str:
        return f"EASE(lam={self.lam:g})"

    def fit(self, train) -> "EASE":
        """B = I - P diag(1/diag(P)), P = (XᵀX + λI)⁻¹."""
        train = check_train(train)
        gram = (train.T @ train).toarray()
        gram[np.diag_indices_from(gram)] += self.lam
        P = linalg.inv(gram, overwrite_a=True, check_finite=False)
        B = P / (-np.diag(P))[None, :]
        B[np.diag_indices_from(B)] = 0.0
        self.weights_ = B
        self.train_ = train
        return self

    def _score(self, users: np.ndarray) -> np.ndarray:
        return np.asarray(self.train_[users] @ self.weights_)
