"""A package's public names loaded on first use (PEP 562), so that importing the package, or
one light module of it, does not import the heavy modules behind its other names.

Examples
--------
>>> get, listing = lazy_names("json", {"JSONDecoder": "decoder"}, ["JSONDecoder"])
>>> get("JSONDecoder")().decode("[1, 2]")
[1, 2]
"""
from __future__ import annotations

import importlib
import sys

__all__ = ["lazy_names"]


def lazy_names(package: str, names: dict, public) -> tuple:
    """``(__getattr__, __dir__)`` for ``package``: a name of ``names`` (name -> module under
    ``package``) is imported from its module when first asked for, then kept in the
    package's namespace; ``__dir__`` lists the package's namespace and ``public``."""

    def __getattr__(name: str):
        if name in names:
            value = getattr(importlib.import_module(f"{package}.{names[name]}"), name)
            module = sys.modules.get(package)
            if module is not None:
                setattr(module, name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        module = sys.modules.get(package)
        return sorted(set(vars(module) if module is not None else ()) | set(public))

    return __getattr__, __dir__
