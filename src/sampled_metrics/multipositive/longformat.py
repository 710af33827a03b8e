"""The long-format CSV of a sampled evaluation with several positives per user, read by
``sampled-metrics correct --ranks FILE.csv`` (format detected from the header).

Positions (one row per test positive; uniform negatives, KDD'20 per user or RecBole
``uni<m>`` per positive)::

    user,position,n_nonrelevant,n_negatives
    17,3,3512,200          # user 17's list: its 2 positives + 200 sampled negatives;
    17,41,3512,200         # positives at positions 3 and 41 (1-based, any row order)

User ids are labels (numbers or tokens such as RecBole's, read as text). An optional
``evaluator`` column names the evaluator whose law the rows follow (``sampled-metrics
evaluators``; one name for the whole file, as :func:`~sampled_metrics.evaluators.from_scores`
writes it), so that ``correct`` needs no ``--evaluator``; other columns are ignored. A file
is in the long format when its header (after a byte-order mark; any line ends) has the
columns ``user`` and ``position``; a column the format needs and the header lacks is named,
and a header that names them otherwise (tab- or semicolon-separated, upper case) is refused
rather than read as one sampled rank per line.

``n_nonrelevant`` = N_u (items in neither the user's training nor test set, the pool the
negatives come from), ``n_negatives`` = M_u (negatives in its list in total: 100 k_u for
``uni100``); both constant per user. Corrected with
:func:`sampled_metrics.multipositive.correct_positives`.

Draws (one row per (positive, drawn negative); popularity sampling, RecBole ``pop<m>``)::

    user,position,n_nonrelevant,above,prob
    17,3,3512,0,0.00041    # this draw was not ranked above the positive at position 3
    17,3,3512,1,0.00007    # ...; prob = q_j, probability of one draw picking that item

Every positive of a user must have the same number of draws M_u (the user's pooled
negatives). Corrections: ``sampled`` (uncorrected) and ``weighted_rank_estimate``
(:mod:`sampled_metrics.multipositive.weighted`).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..checks import check_allocation, check_bootstrap_draws, check_integer
from ..corrections.vectors import correction_label
from ..design import Design
from ..evaluators.catalogue import get_evaluator, resolve_evaluator
from ..metrics import parse_metrics
from ..resampling import bootstrap_means, percentile_interval
from ..sampling import check_sampling
from ..textfile import EXACT, Column, read_columns
from ..textfile.text import show, split_header, strip_bom
from .positives import DEFAULT_THIN_TO, PositiveTable, RowError, correct_positives
from .weighted import weighted_corrected_metric, weighted_rank_estimate

__all__ = ["POSITION_COLUMNS", "DRAW_COLUMNS", "EVALUATOR_COLUMN", "LongPositions",
           "long_format", "read_long", "read_positions", "read_draws", "summarise_long",
           "resolve_long_evaluator", "check_pools"]

POSITION_COLUMNS = ("user", "position", "n_nonrelevant", "n_negatives")
DRAW_COLUMNS = ("user", "position", "n_nonrelevant", "above", "prob")
#: the optional column naming the evaluator whose law the rows follow
EVALUATOR_COLUMN = "evaluator"
WEIGHTED = "weighted_rank_estimate"
#: the longest header line looked at
_HEADER_BYTES = 1 << 16


def long_format(path) -> str | None:
    """'positions' or 'draws' if ``path`` is a file whose header line (after a UTF-8
    byte-order mark, either line end) has the columns ``user`` and ``position``
    (draws: and ``above`` or ``prob``), else None (one sampled rank per line, a workflow
    rank file, or a CSV read by --column); a one-line ValueError naming the columns such
    a header lacks.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "long.csv"
    ...     _ = path.write_bytes(b"\\xef\\xbb\\xbfuser,position,n_nonrelevant\\r\\n7,3,900\\r\\n")
    ...     long_format(path)
    Traceback (most recent call last):
    ...
    ValueError: ...long.csv: a long-format header (user, position, ...) lacks the column n_negatives
    """
    header = _header(path)
    if not {"user", "position"} <= header:
        _check_look_alike(path)
        return None
    kind, columns = (("draws", DRAW_COLUMNS) if header & {"above", "prob"} else
                     ("positions", POSITION_COLUMNS))
    missing = [c for c in columns if c not in header]
    if missing:
        raise ValueError(f"{path}: a long-format header (user, position, ...) lacks the "
                         f"column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return kind


def _first_line(path) -> str:
    """The first line of ``path`` (after a byte-order mark, without its line end); empty
    where it is no readable file (the reader that runs next names the fault)."""
    try:
        if not Path(path).is_file():
            return ""
        with open(path, "rb") as handle:
            head = handle.readline(_HEADER_BYTES)
    except OSError:
        return ""
    return split_header(strip_bom(head))[0].decode("utf-8", "replace")


def _header(path) -> set[str]:
    """The column names of the first line of ``path`` (without quotes); empty where it is
    no readable file."""
    return {c.strip().strip('"') for c in _first_line(path).split(",")}


def _check_look_alike(path) -> None:
    """ValueError naming a first line that holds the long format's column names written
    otherwise (another separator, upper case), which would else be read as ranks."""
    head = _first_line(path)
    names = {c.strip().strip('"').lower() for c in re.split(r"[,;\t|]", head)}
    if {"user", "position"} <= names:
        raise ValueError(f"{path}:1: the header {show(head, 60)} names the long format's "
                         f"columns, which are written in lower case and separated by commas "
                         f"({','.join(POSITION_COLUMNS)})")


#: how each column is read (ranges the table checks itself, with the user, are left open)
_COLUMNS = {"user": Column("user id", label=True), "position": Column("position", 1),
            "n_nonrelevant": Column("n_nonrelevant", 1), "n_negatives": Column("n_negatives", 1),
            "above": Column("above", 0, 1), "prob": Column("prob", 0, 1, integer=False,
                                                          open_lo=True),
            EVALUATOR_COLUMN: Column("evaluator", label=True)}


class LongPositions(NamedTuple):
    """A file (or frame) of the position format, read: its :class:`PositiveTable`, the
    user ids of users 0..U-1 as written, the evaluator it names (None if it names none)
    and what it was read from (the path or the frame; messages name its lines)."""

    table: PositiveTable
    users: np.ndarray
    evaluator: str | None
    source: object = None


def _name(path) -> str:
    """How messages name the input: the file, or 'the positions frame' for a DataFrame
    (or what was read from one)."""
    if isinstance(path, LongPositions):
        path = path.source
    return ("the positions frame" if path is None or isinstance(path, pd.DataFrame) else
            str(path))


def _read(path, columns, what: str) -> dict:
    """The columns of a long-format CSV, read by the project's chunked text reader (errors
    name the line), or of a DataFrame made in Python (e.g. by an integration; errors name
    the row, as its index shows it). An optional ``evaluator`` column is read where the
    input has one."""
    frame = isinstance(path, pd.DataFrame)
    if not frame:
        long_format(path)                                 # names a lacking column
    if EVALUATOR_COLUMN in (path.columns if frame else _header(path)):
        columns = (*columns, EVALUATOR_COLUMN)
    if not frame:
        return read_columns(path, {c: _COLUMNS[c] for c in columns}, what)
    missing = [c for c in columns if c not in path.columns]
    if missing or path.empty:
        raise ValueError(f"{_name(path)}: " + (f"lacks column(s) {', '.join(missing)}"
                                               if missing else f"no {what}s found"))
    return {c: _frame_column(path, c) for c in columns}


def _frame_column(frame: pd.DataFrame, column: str) -> np.ndarray:
    """Column ``column`` of a DataFrame, checked as the CSV reader checks it: the first
    missing or wrong value is named with its row (the frame's index) and user."""
    spec = _COLUMNS[column]
    values = frame[column]
    if spec.label:
        text = values.astype(str).str.strip()
        bad = values.isna().to_numpy() | (text == "").to_numpy()
        out = text.to_numpy(dtype=object)
    else:
        out = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
        bad = spec.bad(out)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        user = frame["user"].iloc[j] if "user" in frame.columns else None
        large = not spec.label and np.isfinite(out[j]) and abs(out[j]) > EXACT
        raise ValueError(f"{_name(frame)} row {frame.index[j]!r}"
                         + (f" (user {user})" if column != "user" else "")
                         + f": {show(str(values.iloc[j]), 40)} in column {column!r} "
                         + ("is too large to read exactly (beyond 2**53 - 1)" if large else
                            "is not a label" if spec.label else
                            f"is not {'an integer' if spec.integer else 'a number'} "
                            f"{spec.what} {spec.span()}"))
    return out if spec.label else out.astype(np.int64) if spec.integer else out


def _line(path, row: int) -> str:
    """How a message names input row ``row`` (0-based): ``file:line`` of a CSV (blank lines
    skipped, as the reader skips them), ``frame row <index>`` of a DataFrame."""
    if isinstance(path, LongPositions):
        path = path.source
    if path is None:
        return _name(path)
    if isinstance(path, pd.DataFrame):
        return f"{_name(path)} row {path.index[row]!r}"
    with open(path, "rb") as handle:
        handle.readline()
        seen = -1
        for number, line in enumerate(handle, start=2):
            seen += bool(line.strip())
            if seen == row:
                return f"{path}:{number}"
    return str(path)


def _one_evaluator(path, names) -> str | None:
    """The one evaluator an ``evaluator`` column names (its name as the catalogue spells
    it), None for no column; ValueError for an unknown name or two names."""
    if names is None:
        return None
    codes, distinct = pd.factorize(names)              # names in the order they appear
    resolved = []
    for k, name in enumerate(distinct):
        try:
            resolved.append(get_evaluator(name).name)
        except ValueError as err:
            raise ValueError(f"{_line(path, int(np.argmax(codes == k)))}: {err}") from None
    per_row = np.asarray(resolved, dtype=object)[codes]
    if (per_row != per_row[0]).any():
        j = int(np.argmax(per_row != per_row[0]))
        raise ValueError(f"{_line(path, j)}: evaluator {names[j]!r}, but {_line(path, 0)} "
                         f"names {names[0]!r}: one file holds one evaluator's rows")
    return per_row[0]


def resolve_long_evaluator(given, recorded, where, *, sampling=None,
                           names: tuple[str, str] = ("sampling", "evaluator")
                           ) -> Design:
    """The design of a long-format input, resolved once
    (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator` with ``long=True``):
    of the evaluator ``given`` (an option or argument that ``names[1]`` calls), else of the
    one its ``evaluator`` column ``recorded`` (the catalogue's name, as
    :func:`read_long` gives it; messages call it the evaluator column of ``where``), with
    the law ``sampling`` (that ``names[0]`` calls). A ``given`` that names the column's
    evaluator is accepted (in any case), one that names another refused in one line naming
    both; m is None (each row gives its user's).

    Examples
    --------
    >>> d = resolve_long_evaluator("NCF", "ncf", "long.csv")
    >>> d.evaluator.name, d.sampling, d.m
    ('ncf', 'hypergeometric', None)
    >>> resolve_long_evaluator(None, "rechorus", "long.csv", sampling="binomial")
    Traceback (most recent call last):
    ...
    ValueError: sampling 'binomial' contradicts the evaluator column of long.csv: \
'rechorus', whose ranks follow the hypergeometric law
    >>> resolve_long_evaluator("sasrec", "rechorus", "long.csv", names=("--sampling",
    ...                        "--evaluator"))
    Traceback (most recent call last):
    ...
    ValueError: long.csv: its evaluator column names rechorus, but --evaluator is sasrec
    """
    if given is None:
        column = f"the evaluator column of {_name(where)}:"
        return resolve_evaluator(recorded, sampling=sampling, long=True,
                                 names=(names[0], column))
    design = resolve_evaluator(given, sampling=sampling, long=True, names=names)
    _check_recorded(given, design.evaluator.name, recorded, where, names[1])
    return design


def _check_recorded(given, name: str, recorded, where, option: str) -> None:
    """A one-line ValueError where the evaluator ``given`` (the catalogue's ``name``)
    is not the one the evaluator column of ``where`` ``recorded``."""
    if recorded is not None and recorded != name:
        raise ValueError(f"{_name(where)}: its evaluator column names {recorded}, but "
                         f"{option} is {given}")


def _user_index(users) -> tuple[np.ndarray, np.ndarray]:
    """0-based index of each row's user and the user ids in index order; ids may be any
    labels (numbers or tokens)."""
    codes, labels = pd.factorize(users, sort=True)
    return codes.astype(np.int64), np.asarray(labels)


def read_long(path) -> LongPositions:
    """The position format (module docstring) of a CSV or a DataFrame, read once: the
    table, the user ids as written and the evaluator its ``evaluator`` column (or a
    frame's ``attrs['evaluator']``) names. A one-line ValueError naming the file, the line
    and the user as written for bad input."""
    if isinstance(path, LongPositions):
        return path
    cols = _read(path, POSITION_COLUMNS, "positive")
    user, labels = _user_index(cols["user"])
    try:
        table = PositiveTable.from_long(user, *(cols[c] for c in POSITION_COLUMNS[1:]),
                                        labels=labels)
    except RowError as err:
        raise ValueError(f"{_line(path, err.row)}: {err}") from None
    except ValueError as err:
        raise ValueError(f"{_name(path)}: {err}") from None
    _check_sizes(path, table, user, labels)
    evaluator = _one_evaluator(path, cols.get(EVALUATOR_COLUMN))
    if evaluator is None and isinstance(path, pd.DataFrame):
        evaluator = path.attrs.get("evaluator")
    return LongPositions(table, labels, evaluator, path)


def _check_sizes(path, table: PositiveTable, user, labels) -> None:
    """ValueError naming the line and the user whose list is too large to correct: the law
    of its sampled rank, (N_u + 1) x (M_u + 1) numbers, must fit in memory (``user``: each
    input row's user index)."""
    need = (table.n_nonrelevant + 1.0) * (table.n_negatives + 2.0)
    u = int(np.argmax(need))
    try:
        check_allocation(need[u], "the law of its sampled rank")
    except ValueError as err:
        row = int(np.flatnonzero(user == u)[0])
        raise ValueError(f"{_line(path, row)}: user {labels[u]}: n_nonrelevant "
                         f"{table.n_nonrelevant[u]} and n_negatives {table.n_negatives[u]}: "
                         f"{err}") from None


def check_pools(long: LongPositions, sampling: str, recommended: bool = False) -> None:
    """ValueError naming the line and the user whose list the law ``sampling`` cannot have
    drawn: more distinct negatives than its pool (hypergeometric, M_u > N_u) or, for the
    recommended answer, whose law of n_u = N_u + 1 candidates needs n_u > M_u, a list of
    M_u >= n_u negatives (binomial)."""
    sampling = check_sampling(sampling)
    table = long.table
    N, M = table.n_nonrelevant, table.n_negatives
    bad = M > N                                    # both rules come to M_u <= N_u
    if not (sampling == "hypergeometric" or recommended) or not bad.any():
        return
    u = int(np.argmax(bad))
    row = int(table.order[table.user == u].min())
    need = ("the hypergeometric law draws them distinct from its pool" if
            sampling == "hypergeometric" else
            "the recommended answer needs n_u = n_nonrelevant + 1 > n_negatives")
    raise ValueError(f"{_line(long, row)}: user {long.users[u]}: n_negatives {M[u]} above "
                     f"n_nonrelevant {N[u]}: {need}")


def read_positions(path, *, with_users: bool = False):
    """The position format (module docstring) as a PositiveTable (and, ``with_users``, the
    user ids of its users 0..U-1): :func:`read_long` without the evaluator."""
    long = read_long(path)
    return (long.table, long.users) if with_users else long.table


def read_draws(path) -> tuple[PositiveTable, np.ndarray]:
    """The draw format: (PositiveTable of the positives, 1 + x^ per row of the table)."""
    cols = _read(path, DRAW_COLUMNS, "draw")
    position, N, above, prob = (cols[c] for c in DRAW_COLUMNS[1:])
    user, labels = _user_index(cols["user"])
    keys, rows = np.unique(np.stack([user, position]), axis=1, return_inverse=True)
    rows = rows.reshape(-1)
    draws = np.bincount(rows)
    first = np.zeros(keys.shape[1], dtype=np.int64)
    first[rows[::-1]] = np.arange(rows.size)[::-1]
    try:
        table = PositiveTable.from_long(keys[0], keys[1], N[first], draws, labels=labels)
        estimate = weighted_rank_estimate(above.astype(bool), prob, rows)
    except RowError as err:
        raise ValueError(f"{_line(path, int(first[err.row]))}: {err}") from None
    except ValueError as err:
        raise ValueError(f"{_name(path)}: {err}") from None
    if np.any(N != N[first][rows]):
        raise ValueError(f"{_name(path)}: n_nonrelevant differs between rows of one positive")
    evaluator = _one_evaluator(path, cols.get(EVALUATOR_COLUMN))
    if evaluator is not None and get_evaluator(evaluator).draws != "popularity":
        raise ValueError(f"{_line(path, 0)}: evaluator {evaluator} draws its negatives "
                         f"uniformly; the draw format (above, prob) holds popularity-sampled "
                         f"draws")
    return table, estimate[table.order]


def summarise_long(kind, path, metrics, corrections, sampling: str = "binomial",
                   bootstrap: int = 1000, level: float = 0.95, seed: int = 0,
                   thin_to: int | None = None, *, table: PositiveTable | None = None
                   ) -> pd.DataFrame:
    """Per metric x correction of a file or DataFrame ``path`` in the format ``kind``
    ('positions' or 'draws', see :func:`long_format`): mean over users, its standard error
    and a percentile bootstrap interval over users (the corrections' rows of the
    ``correct`` command). ``table``: the positions already read from ``path``."""
    bootstrap = check_bootstrap_draws("bootstrap", bootstrap, level)
    metrics = parse_metrics(metrics, distinct=True)
    thin_to = DEFAULT_THIN_TO if thin_to is None else check_integer("thin_to", thin_to, 1)
    corrections = list(corrections)
    if kind == "draws":
        table, estimate = read_draws(path)
        allowed = {"sampled", WEIGHTED}
        wrong = [x for x in corrections if x not in allowed]
        if wrong:
            raise ValueError(f"{_name(path)}: popularity-sampled draws allow the corrections "
                             f"sampled and {WEIGHTED}, not {', '.join(wrong)}")
        columns = {}
        for metric in metrics:
            for correction in corrections:
                columns[(metric.name, correction)] = (
                    correct_positives(table, [metric], ["sampled"], sampling)[
                        (metric.name, "sampled")] if correction == "sampled" else
                    _weighted(metric, table, estimate))
    elif kind == "positions":
        table = read_positions(path) if table is None else table
        labels = [correction_label(x) for x in corrections]
        columns = correct_positives(table, metrics, labels, sampling,
                                   thin_to=thin_to)
        columns = {(metric.name, label): columns[(metric.name, label)]
                   for metric in metrics for label in labels}
    else:
        raise ValueError(f"{_name(path)}: not a long-format CSV (header needs "
                         f"{', '.join(POSITION_COLUMNS)} or {', '.join(DRAW_COLUMNS)})")
    values = np.stack(list(columns.values()), axis=1)
    boot = bootstrap_means(values, bootstrap, np.random.default_rng(seed))
    rows = []
    for j, (metric, label) in enumerate(columns):
        v = values[:, j]
        se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else float("nan")
        lo, hi = percentile_interval(boot[:, j], level)
        rows.append((metric, label, v.mean(), se, lo, hi, v.size))
    return pd.DataFrame(rows, columns=["metric", "correction", "value", "std_error", "ci_low",
                                       "ci_high", "users"])


def _weighted(metric, table: PositiveTable, estimate) -> np.ndarray:
    """weighted_corrected_metric on a table (estimates aligned with its sorted rows)."""
    positions = np.split(table.position, np.cumsum(table.k)[:-1])
    return weighted_corrected_metric(metric, positions, table.n_nonrelevant, estimate)
