"""The error of a malformed data file."""
from __future__ import annotations

__all__ = ["DataError"]


class DataError(ValueError):
    """A data file is missing, corrupt, truncated or malformed."""
