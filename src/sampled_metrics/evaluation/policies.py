"""The names of an evaluation's choices: tie policies and candidate sets (read by the rank
file and the configuration check without loading the compiled engine)."""
from __future__ import annotations

__all__ = ["TIES", "DEFAULT_TIE", "CANDIDATES"]

#: How a tie between the held-out item's score and others counts (KDD'20 Sec. 6).
TIES = ("pessimistic", "optimistic", "average", "random", "random_per_ranking")
DEFAULT_TIE = "random_per_ranking"
#: Candidate sets: ``unseen`` (items outside H_u, KDD'20 and NCF) or ``all`` (every item,
#: the user's training items included, as Jin et al.'s code ranks and samples).
CANDIDATES = ("unseen", "all")
