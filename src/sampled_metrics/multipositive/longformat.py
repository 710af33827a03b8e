"""The long-format CSV of a sampled evaluation with several positives per user, read by
``sampled-metrics correct --ranks FILE.csv`` (format detected from the header).

Positions (one row per test positive; uniform negatives, KDD'20 per user or RecBole
``uni<m>`` per positive)::

    user,position,n_nonrelevant,n_negatives
    17,3,3512,200          # user 17's list: its 2 positives + 200 sampled negatives;
    17,41,3512,200         # positives at positions 3 and 41 (1-based, any row order)

User ids are labels (numbers or tokens such as RecBole's, read as text); other columns are
ignored.

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

from pathlib import Path

import numpy as np
import pandas as pd

from ..checks import check_bootstrap_draws
from ..corrections.vectors import correction_label
from ..metrics import parse_metrics
from ..resampling import bootstrap_means, percentile_interval
from ..textfile import Column, read_columns
from .positives import DEFAULT_MAX_M, PositiveTable, correct_positives
from .weighted import weighted_corrected_metric, weighted_rank_estimate

__all__ = ["POSITION_COLUMNS", "DRAW_COLUMNS", "long_format", "read_positions", "read_draws",
           "summarise_long"]

POSITION_COLUMNS = ("user", "position", "n_nonrelevant", "n_negatives")
DRAW_COLUMNS = ("user", "position", "n_nonrelevant", "above", "prob")
WEIGHTED = "weighted_rank_estimate"


def long_format(path) -> str | None:
    """'positions' or 'draws' if ``path`` is a CSV whose header has those columns, else
    None (one sampled rank per line, or a CSV read by --column)."""
    path = Path(path)
    if path.suffix.lower() != ".csv" or not path.is_file():
        return None
    with open(path, encoding="utf-8", errors="replace") as fh:
        header = {c.strip() for c in fh.readline().split(",")}
    if set(DRAW_COLUMNS) <= header:
        return "draws"
    if set(POSITION_COLUMNS) <= header:
        return "positions"
    return None


#: how each column is read (ranges the table checks itself, with the user, are left open)
_COLUMNS = {"user": Column("user id", label=True), "position": Column("position"),
            "n_nonrelevant": Column("n_nonrelevant"), "n_negatives": Column("n_negatives"),
            "above": Column("above", 0, 1), "prob": Column("prob", 0, 1, integer=False,
                                                          open_lo=True)}


def _name(path) -> str:
    """How messages name the input: the file, or 'the positions frame' for a DataFrame."""
    return "the positions frame" if isinstance(path, pd.DataFrame) else str(path)


def _read(path, columns, what: str) -> dict:
    """The columns of a long-format CSV, read by the project's chunked text reader (errors
    name the line), or of a DataFrame made in Python (e.g. by an integration)."""
    if not isinstance(path, pd.DataFrame):
        return read_columns(path, {c: _COLUMNS[c] for c in columns}, what)
    missing = [c for c in columns if c not in path.columns]
    if missing or path.empty:
        raise ValueError(f"{_name(path)}: " + (f"lacks column(s) {', '.join(missing)}"
                                               if missing else f"no {what}s found"))
    return {c: path[c].astype(str).str.strip().to_numpy() if _COLUMNS[c].label else
            path[c].to_numpy(dtype=np.int64 if _COLUMNS[c].integer else np.float64)
            for c in columns}


def _user_index(users) -> tuple[np.ndarray, np.ndarray]:
    """0-based index of each row's user and the user ids in index order; ids may be any
    labels (numbers or tokens)."""
    codes, labels = pd.factorize(users, sort=True)
    return codes.astype(np.int64), np.asarray(labels)


def read_positions(path, *, with_users: bool = False):
    """The position format (module docstring) as a PositiveTable (and, ``with_users``, the
    user ids of its users 0..U-1); ValueError naming the file (and line) for bad input."""
    cols = _read(path, POSITION_COLUMNS, "positive")
    user, labels = _user_index(cols["user"])
    try:
        table = PositiveTable.from_long(user, *(cols[c] for c in POSITION_COLUMNS[1:]))
    except ValueError as err:
        raise ValueError(f"{_name(path)}: {err}") from None
    return (table, labels) if with_users else table


def read_draws(path) -> tuple[PositiveTable, np.ndarray]:
    """The draw format: (PositiveTable of the positives, 1 + x^ per row of the table)."""
    cols = _read(path, DRAW_COLUMNS, "draw")
    position, N, above, prob = (cols[c] for c in DRAW_COLUMNS[1:])
    user, _ = _user_index(cols["user"])
    keys, rows = np.unique(np.stack([user, position]), axis=1, return_inverse=True)
    rows = rows.reshape(-1)
    draws = np.bincount(rows)
    first = np.zeros(keys.shape[1], dtype=np.int64)
    first[rows[::-1]] = np.arange(rows.size)[::-1]
    try:
        table = PositiveTable.from_long(keys[0], keys[1], N[first], draws)
        estimate = weighted_rank_estimate(above.astype(bool), prob, rows)
    except ValueError as err:
        raise ValueError(f"{_name(path)}: {err}") from None
    if np.any(N != N[first][rows]):
        raise ValueError(f"{_name(path)}: n_nonrelevant differs between rows of one positive")
    return table, estimate[table.order]


def summarise_long(kind, path, metrics, corrections, sampling: str = "binomial",
                   bootstrap: int = 1000, level: float = 0.95, seed: int = 0,
                   max_m: int | None = None, *, table: PositiveTable | None = None
                   ) -> pd.DataFrame:
    """Per metric x correction of a file or DataFrame ``path`` in the format ``kind``
    ('positions' or 'draws', see :func:`long_format`): mean over users, its standard error
    and a percentile bootstrap interval over users (the corrections' rows of the
    ``correct`` command). ``table``: the positions already read from ``path``."""
    bootstrap = check_bootstrap_draws("bootstrap", bootstrap, level)
    metrics = parse_metrics(metrics)
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
                                   max_m=max_m or DEFAULT_MAX_M)
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
