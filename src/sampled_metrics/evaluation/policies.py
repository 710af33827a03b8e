"""The names of an evaluation's choices: tie policies and candidate sets, two registries
(read by the rank file and the configuration check without loading the compiled engine)."""
from __future__ import annotations

from ..registry import Entry, Registry

__all__ = ["TIE_POLICIES", "DEFAULT_TIE", "CANDIDATES"]

#: How a tie between the held-out item's score and others counts (KDD'20 Sec. 6; g candidates
#: score above the held-out item, e tie with it; the engine's module docstring).
TIE_POLICIES = Registry("tie policy", [
    Entry("pessimistic", "r = 1 + g + e: the tied candidates rank above"),
    Entry("optimistic", "r = 1 + g: the tied candidates rank below"),
    Entry("average", "r = 1 + g + e / 2: the mean of the two (may end in .5)"),
    Entry("random", "one seeded random order of the tied, shared by every ranking of a user"),
    Entry("random_per_ranking", "a fresh uniform position among the tied in every ranking"),
])
DEFAULT_TIE = "random_per_ranking"
#: Candidate sets: ``unseen`` (items outside H_u, KDD'20 and NCF) or ``all`` (every item,
#: the user's training items included, as Jin et al.'s code ranks and samples).
CANDIDATES = Registry("candidate set", [
    Entry("unseen", "the items outside the user's training set H_u (KDD'20, NCF)"),
    Entry("all", "every item, the user's training items included (Jin et al.'s code)"),
])
