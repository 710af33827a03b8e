"""Text inputs: numbers read from text files, users' rank files and datasets' rating files.

Modules, one idea each:

``text``     ``DataError``, the error of a malformed data file
``columns``  a user's file: integers one per line, or columns of a CSV with a header
``table``    a headerless table of numeric fields in memory (the datasets' rating files)
"""
from .columns import Column, check_readable, read_columns, read_integers
from .table import parse_table, show, split_header, strip_bom
from .text import DataError

__all__ = ["read_integers", "read_columns", "Column", "check_readable", "parse_table",
           "strip_bom", "split_header", "show", "DataError"]
