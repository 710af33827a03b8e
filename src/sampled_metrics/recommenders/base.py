"""The recommender interface shared by X (iALS) and Y, Z (item-based CF)."""
from __future__ import annotations

from typing import Iterator, Mapping

import numpy as np
import scipy.sparse as sp

__all__ = ["Recommender", "check_train"]


def check_train(train) -> sp.csr_matrix:
    """Validate a users x items training matrix and return it as binary float64 CSR."""
    if not sp.issparse(train):
        raise ValueError(f"train must be a scipy.sparse matrix (users x items), got "
                         f"{type(train).__name__}")
    train = sp.csr_matrix(train, dtype=np.float64)
    train.sum_duplicates()
    if train.nnz and (train.data != 1.0).any():
        raise ValueError("train must be binary (ones at the training interactions)")
    return train


class Recommender:
    """Base class: ``fit(train) -> self``; ``score(users)`` -> (len(users), n_items) float64.

    Subclasses implement :meth:`fit` (setting ``train_``) and :meth:`_score`; what the
    workflow plans by (the conda environment, which fits start first and run one at a time)
    it reads from the class: :attr:`needs_torch`, :meth:`dense_items_matrix`.
    """

    train_: sp.csr_matrix | None = None
    #: whether the kind needs the optional PyTorch extra (``pip install 'sampled-metrics[neural]'``)
    needs_torch: bool = False

    @classmethod
    def dense_items_matrix(cls, params: Mapping) -> bool:
        """Whether a model of this kind built with ``params`` (constructor arguments) holds a
        dense items x items matrix, whose fit briefly needs 12 x items^2 bytes; no, unless
        the kind says so."""
        return False

    def fit(self, train) -> "Recommender":  # pragma: no cover - abstract
        raise NotImplementedError

    def _score(self, users: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def n_items(self) -> int:
        return self._fitted().shape[1]

    def _fitted(self) -> sp.csr_matrix:
        if self.train_ is None:
            raise ValueError(f"{type(self).__name__} is not fitted; call fit(train) first")
        return self.train_

    def score(self, users) -> np.ndarray:
        """Scores yhat(u, i) of every item for each user index in ``users``.

        Returns
        -------
        numpy.ndarray
            Shape (len(users), n_items), float64. Training items are *not* masked.
        """
        n_users = self._fitted().shape[0]
        users = np.asarray(users, dtype=np.int64).reshape(-1)
        if users.size and (users.min() < 0 or users.max() >= n_users):
            raise ValueError(f"user indices must lie in 0..{n_users - 1}, got "
                             f"{users.min()}..{users.max()}")
        return np.ascontiguousarray(self._score(users), dtype=np.float64)

    def score_blocks(self, users, block_size: int = 1024
                     ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(user_block, score(user_block))`` for consecutive blocks of ``users``.

        Peak memory is block_size x n_items scores instead of users x items.
        """
        if block_size < 1:
            raise ValueError(f"block_size must be >= 1, got {block_size}")
        users = np.asarray(users, dtype=np.int64).reshape(-1)
        for start in range(0, users.size, block_size):
            block = users[start:start + block_size]
            yield block, self.score(block)
