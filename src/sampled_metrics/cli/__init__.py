"""The ``sampled-metrics`` command line: :mod:`.main` builds the parser and runs a command,
one module per command (:mod:`.correct`, :mod:`.estimate`, :mod:`.plan`, :mod:`.compare`,
:mod:`.bound`) adds its options and makes its table, and :mod:`.inputs` holds what they
share. The console script and ``python -m sampled_metrics.cli`` call :func:`main`."""
from .inputs import read_sampled_ranks
from .main import build_parser, main

__all__ = ["build_parser", "main", "read_sampled_ranks"]
