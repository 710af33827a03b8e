"""Recommenders X (iALS), Y and Z (item-based CF) of KDD'20, EASE, NeuMF and MultiVAE
(Jin et al.; the last two need the ``neural`` extra), one interface.

``fit(train_csr) -> self``; ``score(users)`` -> (len(users), n_items) float64;
``score_blocks(users, block_size)`` yields ``(user_block, scores)``.
"""
import inspect
from typing import Mapping

from ..registry import resolve_name
from .base import Recommender, check_train
from .ials import IALS, paper_loss
from .ease import EASE
from .itemknn import ItemKNN, topk_mask
from .neural import MultiVAE, NeuMF, torch_available
from .store import load_model, save_model

__all__ = ["Recommender", "IALS", "ItemKNN", "EASE", "paper_loss", "topk_mask", "check_train",
           "NeuMF", "MultiVAE",
           "torch_available", "save_model", "load_model", "KINDS", "PAPER_RECOMMENDERS",
           "recommender_class", "make_recommender", "paper_recommender", "needs_torch",
           "dense_items_matrix", "model_seed", "with_model_seed"]

#: The recommender kinds: a config's ``model`` -> its class (which says what the kind needs:
#: :attr:`Recommender.needs_torch`, :meth:`Recommender.dense_items_matrix`).
KINDS = {"ials": IALS, "itemknn": ItemKNN, "ease": EASE, "neumf": NeuMF, "multivae": MultiVAE}

#: The paper's recommenders (appendix Sec. 9); ItemKNN's other defaults are the readings of
#: eq. 27-30 that reproduce Table 3 (see :mod:`.itemknn`).
PAPER_RECOMMENDERS = {
    "X": ("ials", {"factors": 16, "regularization": 10.0, "alpha": 0.2}),
    "Y": ("itemknn", {"q": 3.0, "k": None, "k_prime": None}),
    "Z": ("itemknn", {"q": 1.0, "k": None, "k_prime": 10}),
}


def recommender_class(kind: str) -> type[Recommender]:
    """The class of recommender kind ``kind`` (a key of :data:`KINDS`, in any case); the
    registries' one-line ValueError naming the kinds if there is none.

    Examples
    --------
    >>> recommender_class("EASE").__name__
    'EASE'
    """
    return KINDS[resolve_name("recommender kind", kind, KINDS)]


def needs_torch(spec: Mapping) -> bool:
    """Whether the model of ``spec`` (``{'model': kind, **parameters}``, a config catalogue
    entry) needs the optional PyTorch extra (the neural kinds); False for an unknown kind.

    Examples
    --------
    >>> needs_torch({"model": "neumf"}), needs_torch({"model": "ease", "lam": 500.0})
    (True, False)
    """
    kind = KINDS.get(spec.get("model"))
    return kind is not None and kind.needs_torch


def dense_items_matrix(spec: Mapping) -> bool:
    """Whether the model of ``spec`` (``{'model': kind, **parameters}``, a config catalogue
    entry) holds a dense items x items matrix (EASE; item-kNN without a neighbour limit),
    whose fit briefly needs 12 x items^2 bytes (float64 and float32); False for an unknown
    kind.

    Examples
    --------
    >>> dense_items_matrix({"model": "ease"})
    True
    >>> dense_items_matrix({"model": "itemknn", "q": 1.0, "k_prime": 10})
    False
    """
    kind = KINDS.get(spec.get("model"))
    return kind is not None and kind.dense_items_matrix(spec)


def model_seed(spec: Mapping) -> int | None:
    """The seed a model of ``spec`` (a config catalogue entry) is fitted with: its ``seed``,
    else its kind's default; None for a kind whose fit draws nothing (item-kNN, EASE), which
    gives the same model whatever the seed.

    Examples
    --------
    >>> model_seed({"model": "ials", "factors": 16}), model_seed({"model": "ials", "seed": 3})
    (0, 3)
    >>> model_seed({"model": "itemknn", "q": 3.0}) is None
    True
    """
    parameter = inspect.signature(recommender_class(spec.get("model"))).parameters.get("seed")
    if parameter is None:
        return None
    return int(spec.get("seed", parameter.default))


def with_model_seed(spec: Mapping, seed: int) -> dict:
    """``spec`` fitted with model seed ``seed`` (``spec`` itself for a kind without a seed).

    Examples
    --------
    >>> with_model_seed({"model": "ials", "factors": 16, "seed": 0}, 4)
    {'model': 'ials', 'factors': 16, 'seed': 4}
    >>> with_model_seed({"model": "ease", "lam": 500.0}, 4)
    {'model': 'ease', 'lam': 500.0}
    """
    if model_seed(spec) is None:
        return dict(spec)
    return {**spec, "seed": int(seed)}


def make_recommender(kind: str, **params) -> Recommender:
    """Construct a recommender by kind name (a key of :data:`KINDS`) and parameters."""
    cls = recommender_class(kind)
    try:
        return cls(**params)
    except TypeError as exc:  # unknown parameter name
        raise ValueError(f"recommender {kind!r}: {exc}") from None


def paper_recommender(name: str, **overrides) -> Recommender:
    """Recommender ``'X'``, ``'Y'`` or ``'Z'`` of the paper, with optional overrides."""
    kind, params = PAPER_RECOMMENDERS[resolve_name("paper recommender", name,
                                                   PAPER_RECOMMENDERS)]
    return make_recommender(kind, **{**params, **overrides})
