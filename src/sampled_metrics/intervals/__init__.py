"""The full-ranking metric with an interval that covers it, from one sampled evaluation: the
recommended answer (profile likelihood over the non-increasing rank distributions,
:mod:`.recommended`), its atoms (:mod:`.atoms`) and solver (:mod:`.profile`), and the table
of ``correct`` that puts it before the corrections (:mod:`.table`)."""
from .recommended import RECOMMENDED, recommended_interval
from .table import DEFAULT_CORRECTIONS, correct, correct_positions

__all__ = ["RECOMMENDED", "recommended_interval", "correct", "correct_positions",
           "DEFAULT_CORRECTIONS"]
