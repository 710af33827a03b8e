"""Text inputs: numbers read from text files, users' rank files and datasets' rating files.

Modules, one idea each:

``text``     UTF-8 after a byte-order mark, the header line, a line or token quoted in a
             message; ``DataError``, the error of a malformed data file
``files``    is it a readable file, does it look like text (before parsing)
``numbers``  which values pass as integers or finite numbers; how a token reads
``chunks``   chunks of whole lines, parsed fast, and line by line where that fails
``columns``  a user's file: integers one per line, or columns of a CSV with a header
``table``    a headerless table of numeric fields in memory (the datasets' rating files)
"""
from .columns import Column, read_columns, read_integers
from .files import check_readable
from .numbers import EXACT, bad_values
from .table import parse_table
from .text import DataError, show, split_header, strip_bom

__all__ = ["read_integers", "read_columns", "Column", "check_readable", "parse_table",
           "strip_bom", "split_header", "show", "DataError", "EXACT", "bad_values"]
