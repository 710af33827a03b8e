"""The NCF data (He et al. 2017): their leave-one-out split and fixed test negatives, read
as given, and packed deterministically into one archive."""
from __future__ import annotations

import logging
import re
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..atomic import atomic_output
from ..textfile import parse_table, show, strip_bom
from .errors import DataError
from .members import describe, member_names, read_member
from .split import Split

__all__ = ["read_ncf", "read_ncf_spec", "pack_ncf"]

log = logging.getLogger(__name__)

_NCF_SUFFIXES = (".train.rating", ".test.rating", ".test.negative")
_NEG_HEAD = re.compile(rb"^\((\d+),(\d+)\)\t", re.M)
_NEG_LINE = re.compile(rb"^\((\d+),(\d+)\)((?:\t\d+)+)\t?\r?$")


def _ncf_files(path, prefix: str) -> dict[str, tuple[bytes, str] | None]:
    """{suffix: (bytes, display name) or None} from a directory or a zip."""
    path = Path(path)
    out: dict[str, tuple[bytes, str] | None] = {}
    if path.is_dir():
        existing = sorted(p.name for p in path.iterdir())
        for suffix in _NCF_SUFFIXES:
            file = path / (prefix + suffix)
            if file.exists() and not file.is_file():
                raise DataError(f"{file}: not a regular file (a directory?), expected NCF's "
                                f"{suffix[1:]} file")
            out[suffix] = (file.read_bytes(), str(file)) if file.is_file() else None
    else:
        existing = member_names(path)
        for suffix in _NCF_SUFFIXES:
            target = prefix + suffix
            hits = [n for n in existing if n == target or n.endswith("/" + target)]
            if len(hits) > 1:
                raise DataError(f"{path}: several members named {target!r}: {hits}")
            out[suffix] = read_member(path, hits[0]) if hits else None
    for suffix in _NCF_SUFFIXES[:2]:
        if out[suffix] is None:
            raise DataError(f"{path}: no {prefix + suffix!r} (prefix {prefix!r}); it holds "
                            f"{describe(existing)}")
    return out


def _ncf_ratings(raw: bytes, name: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(users, items, first line's field count) of a .rating file (3 or 4 fields)."""
    first = raw.partition(b"\n")[0].rstrip(b"\r")
    k = first.count(b"\t") + 1
    if k not in (3, 4):
        raise DataError(f"{name}: line 1: expected 4 tab-separated fields (user item rating "
                        f"timestamp; timestamp may be absent), got {show(first)}")
    fields = ("user", "item", "rating", "timestamp")[:k]
    cols = parse_table(raw, "\t", fields, "iif" + "i" * (k - 3), name)
    for label, col in zip(("user", "item"), cols[:2]):
        if col.size and col.min() < 0:
            line = int(np.argmax(col < 0)) + 1
            raise DataError(f"{name}: line {line}: negative {label} id {int(col.min())}; NCF "
                            f"ids are 0-based")
    return cols[0], cols[1], k


def _ncf_negatives(raw: bytes, name: str) -> tuple[np.ndarray, np.ndarray]:
    """((n, 2) (user, item) pairs, (n, K) negatives) of a .test.negative file."""
    body = re.sub(rb"[ \t]+(\r?)$", rb"\1", strip_bom(raw), flags=re.M)  # trailing tabs
    if not body.strip():
        raise DataError(f"{name}: no data lines")
    lines = body.count(b"\n") + (not body.endswith(b"\n"))
    if len(_NEG_HEAD.findall(body)) == lines:
        first = body.partition(b"\n")[0]
        k = first.count(b"\t") + 2
        table = _NEG_HEAD.sub(rb"\1\t\2\t", body)
        fields = ("user", "item") + tuple(f"negative{j}" for j in range(1, k - 1))
        try:
            cols = parse_table(table, "\t", fields, "i" * k, name, expected=f"(user,item) "
                                f"and {k - 2} tab-separated negatives as on line 1")
        except DataError as exc:  # show the line as written, not as rewritten for parsing
            found = re.search(r": line (\d+): ", str(exc))
            if found is None:
                raise
            number = int(found.group(1))
            line = body.split(b"\n", number)[number - 1]
            shown = f", got {show(line)}"
            message = re.sub(r", got .*$", lambda _: shown, str(exc), flags=re.S)
            raise DataError(message) from None
        pairs = np.column_stack(cols[:2])
        negatives = np.column_stack(cols[2:]) if k > 2 else np.empty((len(pairs), 0))
        if negatives.size and negatives.min() < 0:
            row = negatives[int(np.argmax((negatives < 0).any(axis=1)))]
            raise DataError(f"{name}: line {int(np.argmax((negatives < 0).any(axis=1))) + 1}: "
                            f"negative item id {int(row[row < 0][0])}; NCF ids are 0-based")
        return pairs, negatives
    for number, line in enumerate(body.split(b"\n"), start=1):
        if number > lines:
            break
        if not _NEG_LINE.match(line):
            raise DataError(f"{name}: line {number}: expected '(user,item)' then "
                            f"tab-separated negative item ids, got {show(line)}")
    raise DataError(f"{name}: malformed (user,item) heads")


def _load_ncf(path, prefix: str) -> tuple[Split, np.ndarray | None, dict]:
    files = _ncf_files(path, prefix)
    train_raw, train_name = files[".train.rating"]
    test_raw, test_name = files[".test.rating"]
    tr_user, tr_item, _ = _ncf_ratings(train_raw, train_name)
    te_user, te_item, _ = _ncf_ratings(test_raw, test_name)
    seen = np.zeros(0, dtype=np.int64)
    if te_user.size:
        order = np.argsort(te_user, kind="stable")
        dup = np.flatnonzero(te_user[order][1:] == te_user[order][:-1])
        if dup.size:
            line = int(order[dup + 1].min()) + 1
            raise DataError(f"{test_name}: line {line}: user {int(te_user[line - 1])} has a "
                            f"second test item (leave-one-out: one per user)")
    negatives = pairs = None
    if files[".test.negative"] is not None:
        neg_raw, neg_name = files[".test.negative"]
        pairs, negatives = _ncf_negatives(neg_raw, neg_name)
        if len(pairs) != te_user.size:
            raise DataError(f"{neg_name}: {len(pairs)} lines, but {test_name} has "
                            f"{te_user.size}: each line must match the test line of the same "
                            f"number")
        mismatch = np.flatnonzero((pairs[:, 0] != te_user) | (pairs[:, 1] != te_item))
        if mismatch.size:
            j = int(mismatch[0])
            raise DataError(f"{neg_name}: line {j + 1}: ({pairs[j, 0]},{pairs[j, 1]}) but "
                            f"{test_name} line {j + 1} is ({te_user[j]},{te_item[j]}): "
                            f"negatives must follow the test file's user order")
        seen = negatives.ravel()
    n_users = int(max(tr_user.max(initial=-1), te_user.max(initial=-1))) + 1
    n_items = int(max(tr_item.max(initial=-1), te_item.max(initial=-1),
                      seen.max(initial=-1))) + 1
    train = sp.csr_matrix((np.ones(tr_user.size), (tr_user, tr_item)),
                          shape=(n_users, n_items))
    train.sum_duplicates()
    duplicates = int(tr_user.size - train.nnz)
    if duplicates:
        log.info("%s: %d duplicate (user, item) training lines kept once", train_name,
                 duplicates)
    train.data[:] = 1.0
    in_train = np.asarray(train[te_user, te_item]).ravel() > 0
    if in_train.any():
        j = int(np.argmax(in_train))
        raise DataError(f"{test_name}: line {j + 1}: test pair ({te_user[j]},{te_item[j]}) is "
                        f"also in {train_name}")
    order = np.argsort(te_user, kind="stable")
    users, test_items = te_user[order], te_item[order]
    in_history = 0
    if negatives is not None:
        negatives = negatives[order]
        rows = np.repeat(users, negatives.shape[1])
        hit = np.asarray(train[rows, negatives.ravel()]).ravel() > 0
        hit |= negatives.ravel() == np.repeat(test_items, negatives.shape[1])
        in_history = int(hit.sum())
        if in_history:
            log.warning("%s: %d negatives are training or test items of their user",
                        files[".test.negative"][1], in_history)
    split = Split(train, test_items, users, n_dropped=int(n_users - users.size),
                  negatives=negatives)
    counts = {"ratings": int(tr_user.size + te_user.size),
              "interactions": int(train.nnz + users.size), "users": n_users,
              "items": n_items, "train_interactions": int(train.nnz),
              "evaluated_users": int(users.size), "dropped_users": split.n_dropped,
              "duplicate_train_pairs": duplicates,
              "negatives_per_user": 0 if negatives is None else int(negatives.shape[1]),
              "negatives_in_history": in_history}
    return split, negatives, counts


def read_ncf(path, prefix: str) -> tuple[Split, np.ndarray | None]:
    """The NCF pre-split data (He et al. 2017) as a Split and its fixed test negatives.

    Reads ``<prefix>.train.rating``, ``<prefix>.test.rating`` and, when present,
    ``<prefix>.test.negative`` from directory ``path`` or from zip ``path`` (at the root
    or in any folder). Layout: see ``FORMATS['ncf'].layout``.

    Returns
    -------
    split : Split
        ``train``: ones at the training pairs (duplicate lines kept once), shape
        (max user id + 1, max item id + 1) over all files; ``users``: users of the test
        file, ascending, with their ``test_items``; ``n_dropped``: users without a test line.
    negatives : numpy.ndarray or None
        int64 (len(split.users), K) (K = 99 in the NCF files), row r for user
        ``split.users[r]``; None without a ``.test.negative`` file.

    Raises
    ------
    DataError
        Missing file, malformed line, a user with two test items, a test pair also in the
        training file, or a negatives file whose line count or (user,item) order differs
        from the test file.
    """
    split, negatives, _ = _load_ncf(path, prefix)
    return split, negatives


def read_ncf_spec(path, spec: dict) -> tuple[Split, dict]:
    """The NCF split of ``path`` for a dataset spec with ``prefix``: (Split with its
    ``negatives``, ``{"counts": {...}, "negatives": ndarray | None}``)."""
    prefix = spec.get("prefix")
    if not prefix:
        raise ValueError("format 'ncf' needs 'prefix' in the dataset spec "
                         "(e.g. ml-1m or pinterest-20)")
    split, negatives, counts = _load_ncf(path, prefix)
    log.info("ncf %s: %s", prefix, counts)
    return split, {"counts": counts, "negatives": negatives}


def pack_ncf(src, prefix: str, out) -> Path:
    """Zip ``<prefix>.train.rating``, ``.test.rating`` (and ``.test.negative``) of directory
    or zip ``src`` into ``out``, deterministically (stored, fixed dates): the zip's MD5
    depends only on the three files' bytes. Returns ``out``."""
    files = _ncf_files(src, prefix)
    out = Path(out)
    with atomic_output(out) as tmp, zipfile.ZipFile(tmp, "w",
                                                    compression=zipfile.ZIP_STORED) as zf:
        for suffix in _NCF_SUFFIXES:
            if files[suffix] is not None:
                info = zipfile.ZipInfo(prefix + suffix, date_time=(1980, 1, 1, 0, 0, 0))
                info.create_system, info.external_attr = 3, 0o644 << 16
                zf.writestr(info, files[suffix][0])
    return out
