"""The full-ranking metric with an interval that covers it, from one sampled evaluation: the
recommended answer (profile likelihood over the non-increasing rank distributions,
:mod:`.recommended`), its atoms (:mod:`.atoms`) and solver (:mod:`.profile`), and the table
of ``correct`` that puts it before the corrections (:mod:`.table`)."""
from __future__ import annotations

from ..lazy import lazy_names

#: each public name -> the module defining it, imported on first use: a command that only
#: checks a shape's name (``plan --target-bias``) does not load the answer's machinery
_NAMES = {**dict.fromkeys(["RECOMMENDED", "recommended_interval"], "recommended"),
          **dict.fromkeys(["DEFAULT_CORRECTIONS", "correct", "correct_positions"], "table")}

__all__ = ["RECOMMENDED", "recommended_interval", "correct", "correct_positions",
           "DEFAULT_CORRECTIONS"]

__getattr__, __dir__ = lazy_names(__name__, _NAMES, __all__)
