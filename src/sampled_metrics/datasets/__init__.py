"""Datasets: obtain an archive, read it in its format, split it leave-last-out.

    prepare_archive (download + MD5 | generate | pack) -> archive
    make_split: FORMATS[format] reads it -> index_interactions -> leave_last_out -> split.npz

Modules, one idea each:

``registry``      ``Format``, ``FORMATS``: every format, its source, reader and spec keys;
                  ``prepare_archive``, ``make_split``, ``read_interactions``,
                  ``dataset_schema`` (the config schema of a dataset entry)
``download``      checked download or local copy (MD5, atomic, progress logging)
``members``       files inside zip archives
``movielens``     the GroupLens catalogue (URLs, MD5s) and one reader for its six layouts
``interactions``  your own CSV/TSV/Parquet file with a header
``ncf``           the NCF pre-split files with fixed negatives; packing them
``citeulike``     citeulike-a's users.dat (items per user, no time: a seeded random order)
``eals``          the eALS data file (yelp.rating): headerless user, item, rating, time
``synthetic``     the vectorised generator of MovieLens-shaped data
``split``         ``Split``, indexing, the leave-last-out split and its npz file
``errors``        ``DataError`` and the one-line checks of spec values

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> spec = {"format": "synthetic", "n_users": 40, "n_items": 200, "seed": 1}
>>> with tempfile.TemporaryDirectory() as tmp:
...     archive = prepare_archive("tiny", spec, Path(tmp) / "tiny.zip")
...     info = make_split(archive, spec, Path(tmp) / "split.npz")
...     split = load_split(Path(tmp) / "split.npz")
>>> info["evaluated_users"], split.n_users, split.train.nnz + split.users.size
(40, 40, 1400)
"""
from .download import fetch_archive, md5sum
from .errors import DataError
from .interactions import read_interactions_file
from .movielens import LAYOUTS, ML_LATEST_SMALL_RELEASE, MOVIELENS, read_movielens
from .ncf import pack_ncf, read_ncf
from .registry import (FORMATS, Format, Source, archive_identity, check_datasets,
                       check_local_file, dataset_schema, get_format, known_items, known_users,
                       make_split, prepare_archive, read_interactions)
from .split import (Split, index_interactions, leave_last_out, load_split, save_split,
                    split_ratings)
from .synthetic import PARAMETERS, generate_synthetic, read_synthetic, synthetic_parameters

__all__ = ["DataError", "Split", "Format", "Source", "FORMATS", "get_format", "MOVIELENS",
           "ML_LATEST_SMALL_RELEASE", "LAYOUTS", "prepare_archive", "make_split",
           "read_interactions", "dataset_schema", "check_datasets", "check_local_file",
           "known_users", "known_items", "archive_identity", "save_split", "load_split",
           "index_interactions", "leave_last_out", "split_ratings", "md5sum",
           "fetch_archive", "read_movielens", "read_interactions_file", "read_ncf",
           "pack_ncf", "generate_synthetic", "read_synthetic", "synthetic_parameters",
           "PARAMETERS"]
