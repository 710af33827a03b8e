"""A hostile sweep of every reader of a user's or a framework's files: the long format
(positions and draws, with its evaluator column) through ``correct``, ``compare`` and
``correct_positions`` (a CSV and a DataFrame); plain rank files and CSV columns through
``correct``, ``estimate`` and ``compare``; ``from_scores``; ReChorus' files; NCF's files; the
DaisyRec capture (a stand-in model); the RecBole capture's frames (a stand-in trainer); and
the SASRec fixture's recipe.

Each bad input is refused in one line (exit code 2 on the command line, a ValueError from the
library) that names the file, the line as ``file:N`` and the user as written where they
apply, never a traceback. Each valid but unusual input (a byte-order mark, CRLF ends, rows in
another order, quoted fields, ...) gives what the plain input gives. The cases are built from
the formats' docs (docs/formats.md, the readers' docstrings) and from copies of the fixtures
the frameworks wrote, mutated the way files go wrong.
"""
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sampled_metrics import from_scores
from sampled_metrics.cli import main
from sampled_metrics.integrations.daisyrec import capture as daisyrec_capture
from sampled_metrics.integrations.ncf import candidates
from sampled_metrics.integrations.recbole import Evaluation
from sampled_metrics.integrations.recbole import capture as recbole_capture
from sampled_metrics.integrations.rechorus import long_format as rechorus_long
from sampled_metrics.intervals import correct_positions
from sampled_metrics.multipositive.longformat import read_long
from test_long_format import _StandIn        # DaisyRec's interface: rank and topk

FIXTURES = Path(__file__).parent / "fixtures"
HEADER = "user,position,n_nonrelevant,n_negatives"
DRAWS = "user,position,n_nonrelevant,above,prob"
BOM = b"\xef\xbb\xbf"
#: 40 users u100..u139 with one positive each; u104's row is line 6 of the file
ROWS = [f"u{100 + u},{1 + u % 30},3000,99" for u in range(40)]
#: quick corrections for the results compared: the sampled metric and CLS
QUICK = ["--metric", "recall@10,ndcg@10", "--method", "sampled,cls", "--bootstrap", "40",
         "--format", "csv"]


def cli(capsys, *argv):
    """``sampled-metrics ARGV`` in this process: (exit code, stdout, stderr)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:          # argparse's own usage errors
        code = stop.code
    out = capsys.readouterr()
    return code, out.out, out.err


def refused_cli(capsys, argv, fragments):
    """Exit code 2 and one line on stderr holding every fragment, no traceback, no table."""
    code, out, err = cli(capsys, *argv)
    assert code == 2, (code, out, err)
    assert out == "" and "Traceback" not in err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def refused(call, fragments):
    """A ValueError in one line holding every fragment."""
    with pytest.raises(ValueError) as caught:
        call()
    text = str(caught.value)
    assert "\n" not in text and "Traceback" not in text, text
    for fragment in fragments:
        assert fragment in text, (fragment, text)


def write(path: Path, lines, *, bom=False, crlf=False, end=True) -> Path:
    """``lines`` (str) as a file, with a byte-order mark and CRLF ends if asked."""
    sep = "\r\n" if crlf else "\n"
    path.write_bytes((BOM if bom else b"") + (sep.join(lines) + (sep if end else "")).encode())
    return path


def replaced(at: int, line: str, rows=ROWS, header=HEADER):
    """The file's lines with line ``at`` (1-based, the header is line 1) replaced."""
    lines = [header, *rows]
    lines[at - 1] = line
    return lines


def fill(fragments, **names):
    return [f.format(**names) for f in fragments]


# ------------------------------------------------------------------ long format: positions
POSITION_CASES = [
    # (id, the file's lines, extra options, fragments; {f} is the file as given)
    ("position nan", replaced(6, "u104,nan,3000,99"), [],
     ["{f}:6: 'nan' is not an integer position"]),
    ("position inf", replaced(6, "u104,inf,3000,99"), [], ["{f}:6: 'inf' is not an integer"]),
    ("position -1", replaced(6, "u104,-1,3000,99"), [], ["{f}:6: position -1 outside >= 1"]),
    ("position 0", replaced(6, "u104,0,3000,99"), [], ["{f}:6: position 0 outside >= 1"]),
    ("position 10**15", replaced(6, f"u104,{10 ** 15},3000,99"), [],
     ["{f}:6: user u104: position 1000000000000000 beyond its list of k_u + M_u = 100"]),
    ("position 2**63", replaced(6, f"u104,{2 ** 63},3000,99"), [],
     ["{f}:6: position 9223372036854775808 is too large to read exactly"]),
    ("position 2.5", replaced(6, "u104,2.5,3000,99"), [], ["{f}:6: '2.5' is not an integer"]),
    ("position word", replaced(6, "u104,third,3000,99"), [],
     ["{f}:6: 'third' in column 'position' is not an integer position"]),
    ("position true", replaced(6, "u104,true,3000,99"), [],
     ["{f}:6: 'true' in column 'position'"]),
    ("position hex", replaced(6, "u104,0x3,3000,99"), [], ["{f}:6: '0x3' in column"]),
    ("position 1_0", replaced(6, "u104,1_0,3000,99"), [], ["{f}:6: '1_0' in column"]),
    ("position empty", replaced(6, "u104,,3000,99"), [],
     ["{f}:6: '' is not an integer position"]),
    ("position beyond", replaced(6, "u104,101,3000,99"), [],
     ["{f}:6: user u104: position 101 beyond its list of k_u + M_u = 100 items"]),
    ("n_nonrelevant nan", replaced(6, "u104,5,nan,99"), [],
     ["{f}:6: 'nan' is not an integer n_nonrelevant"]),
    ("n_nonrelevant 0", replaced(6, "u104,5,0,99"), [], ["{f}:6: n_nonrelevant 0 outside"]),
    ("n_nonrelevant word", replaced(6, "u104,5,many,99"), [],
     ["{f}:6: 'many' in column 'n_nonrelevant'"]),
    ("n_nonrelevant 2**63", replaced(6, f"u104,5,{2 ** 63},99"), [],
     ["{f}:6: n_nonrelevant 9223372036854775808 is too large"]),
    ("n_negatives -1", replaced(6, "u104,5,3000,-1"), [], ["{f}:6: n_negatives -1 outside"]),
    ("n_negatives 2.5", replaced(6, "u104,5,3000,2.5"), [], ["{f}:6: '2.5' is not an integer"]),
    ("n_negatives 2**63", replaced(6, f"u104,5,3000,{2 ** 63}"), [],
     ["{f}:6: n_negatives 9223372036854775808 is too large"]),
    ("n_negatives 10**15", replaced(6, f"u104,5,3000,{10 ** 15}"), [],
     ["{f}:6: user u104: n_nonrelevant 3000 and n_negatives 1000000000000000: the law of "
      "its sampled rank would need"]),
    ("an extra field", replaced(6, "u104,5,3000,99,7"), [],
     ["{f}:6: expected 4 fields (as the header), got 5"]),
    ("a missing field", replaced(6, "u104,5,3000"), [],
     ["{f}:6: '' is not an integer n_negatives"]),
    ("no user", replaced(6, ",5,3000,99"), [], ["{f}:6: no user id"]),
    ("user NA", replaced(6, "NA,5,3000,99"), [], ["{f}:6: no user id"]),
    ("a row twice", [HEADER, *ROWS, ROWS[4]], [],
     ["{f}:42: user u104: position 5 given twice"]),
    ("a user's pools differ", [HEADER, *ROWS, "u104,9,2999,99"], [],
     ["{f}:42: user u104: n_nonrelevant and n_negatives must be the same on all its rows"]),
    ("a row twice after a blank line", [HEADER, *ROWS, "", ROWS[4]], [],
     ["{f}:43: user u104: position 5 given twice"]),
    ("header only", [HEADER], [], ["{f}: no positives found"]),
    ("header and blank lines", [HEADER, "", "  ", ""], [], ["{f}: no positives found"]),
    ("position twice in the header", [HEADER + ",position", *(r + ",1" for r in ROWS)], [],
     ["{f}: column 'position' appears 2 times in the header"]),
    ("user twice in the header", [HEADER + ",user", *(r + ",x" for r in ROWS)], [],
     ["{f}: column 'user' appears 2 times in the header"]),
    ("header lacks n_negatives", ["user,position,n_nonrelevant", "u1,3,900"], [],
     ["{f}: a long-format header (user, position, ...) lacks the column n_negatives"]),
    ("header lacks two", ["user,position", "u1,3"], [],
     ["{f}: a long-format header (user, position, ...) lacks the columns n_nonrelevant, "
      "n_negatives"]),
    ("tab-separated", [x.replace(",", "\t") for x in (HEADER, *ROWS)], [],
     ["{f}:1: the header 'user\\tposition", "written in lower case and separated by commas"]),
    ("semicolons", [x.replace(",", ";") for x in (HEADER, *ROWS)], [],
     ["{f}:1: the header 'user;position;n_nonrelevant;n_negatives' names the long format's"]),
    ("upper-case header", [HEADER.upper(), *ROWS], [],
     ["{f}:1: the header 'USER,POSITION,N_NONRELEVANT,N_NEGATIVES'"]),
    ("evaluator unknown", [HEADER + ",evaluator", *(r + ",sasrecc" for r in ROWS)], [],
     ["{f}:2: unknown evaluator 'sasrecc'"]),
    ("evaluator unknown on one row",
     [HEADER + ",evaluator", *(r + (",recbole" if i == 4 else ",sasrec")
                               for i, r in enumerate(ROWS))], [],
     ["{f}:6: unknown evaluator 'recbole'"]),
    ("evaluator blank on one row",
     [HEADER + ",evaluator", *(r + ("," if i == 4 else ",sasrec") for i, r in enumerate(ROWS))],
     [], ["{f}:6: no evaluator"]),
    ("two evaluators",
     [HEADER + ",evaluator", *(r + (",ncf" if i == 4 else ",sasrec") for i, r in enumerate(ROWS))],
     [], ["{f}:6: evaluator 'ncf', but {f}:2 names 'sasrec': one file holds one evaluator's"]),
    ("two evaluators after a spelling variant",
     [HEADER + ",evaluator", *(r + {1: ",SASRec", 4: ",ncf"}.get(i, ",sasrec")
                               for i, r in enumerate(ROWS))], [],
     ["{f}:6: evaluator 'ncf', but {f}:2 names 'sasrec'"]),
    ("evaluator no correction applies to",
     [HEADER + ",evaluator", *(r + ",recbole-pop" for r in ROWS)], [],
     ["the evaluator column of {f}: 'recbole-pop': popularity-sampled positions need"]),
    ("--evaluator contradicts the column",
     [HEADER + ",evaluator", *(r + ",sasrec" for r in ROWS)], ["--evaluator", "ncf"],
     ["{f}: its evaluator column names sasrec, but --evaluator is ncf"]),
    ("--sampling contradicts the column",
     [HEADER + ",evaluator", *(r + ",sasrec" for r in ROWS)], ["--sampling", "hypergeometric"],
     ["--sampling 'hypergeometric' contradicts the evaluator column of {f}: 'sasrec'"]),
    ("--sampling contradicts --evaluator", [HEADER, *ROWS],
     ["--evaluator", "rechorus", "--sampling", "binomial"],
     ["--sampling 'binomial' contradicts --evaluator 'rechorus'"]),
    ("--evaluator unknown", [HEADER, *ROWS], ["--evaluator", "SASRecc"],
     ["unknown evaluator 'SASRecc'"]),
    ("--n given", [HEADER, *ROWS], ["--n", "3706"],
     ["--n does not apply to a long-format CSV ({f} gives n_nonrelevant"]),
    ("--m given", [HEADER, *ROWS], ["--m", "100"], ["--m does not apply to a long-format CSV"]),
    ("--repeat given", [HEADER, *ROWS], ["--repeat", "0"], ["--repeat does not apply"]),
    ("--thin-to 0", [HEADER, *ROWS], ["--thin-to", "0"], ["--thin-to must be >= 1, got 0"]),
    ("--thin-to -3", [HEADER, *ROWS], ["--thin-to", "-3"], ["--thin-to must be >= 1, got -3"]),
    ("a metric twice", [HEADER, *ROWS], ["--metric", "recall@10,recall@10"],
     ["metric 'recall@10' is given twice"]),
    ("a metric twice by alias", [HEADER, *ROWS], ["--metric", "hr@10,hit@10"],
     ["metric 'hit@10' is given twice"]),
    ("a correction twice", [HEADER, *ROWS], ["--method", "cls,cls"],
     ["correction 'cls' is given twice"]),
    ("an unknown correction", [HEADER, *ROWS], ["--method", "magic"],
     ["unknown correction 'magic'"]),
    ("more negatives than the pool, hypergeometric", replaced(6, "u104,5,50,99"),
     ["--sampling", "hypergeometric"],
     ["{f}:6: user u104: n_negatives 99 above n_nonrelevant 50: the hypergeometric law"]),
    ("more negatives than the pool, recommended", replaced(6, "u104,5,50,99"),
     ["--method", "recommended"],
     ["{f}:6: user u104: n_negatives 99 above n_nonrelevant 50: the recommended answer needs"]),
    ("more negatives than the pool, a later row of the user",
     [HEADER, *ROWS[:4], "u104,5,50,99", *ROWS[5:], "u104,9,50,99"],
     ["--sampling", "hypergeometric"], ["{f}:6: user u104: n_negatives 99 above"]),
]


@pytest.mark.parametrize("lines, extra, fragments", [c[1:] for c in POSITION_CASES],
                         ids=[c[0] for c in POSITION_CASES])
def test_correct_refuses_a_bad_positions_file(tmp_path, capsys, lines, extra, fragments):
    path = write(tmp_path / "long.csv", lines, crlf=True)
    refused_cli(capsys, ["correct", "--ranks", path, *extra], fill(fragments, f=path))


#: the same mistakes through the library, on the CSV
LIBRARY_ON_CSV = ["position nan", "position 2**63", "position beyond", "no user",
                  "a row twice", "a user's pools differ", "header only",
                  "evaluator unknown on one row", "two evaluators after a spelling variant",
                  "evaluator no correction applies to", "upper-case header",
                  "more negatives than the pool, recommended"]


@pytest.mark.parametrize("name", LIBRARY_ON_CSV)
def test_correct_positions_refuses_a_bad_csv(tmp_path, name):
    _, lines, _, fragments = next(c for c in POSITION_CASES if c[0] == name)
    path = write(tmp_path / "long.csv", lines)
    refused(lambda: correct_positions(path, "recall@10", ["recommended", "sampled"],
                                      bootstrap=0), fill(fragments, f=path))


@pytest.mark.parametrize("make, fragment", [
    (lambda p: p.write_bytes(b""), "{f}: file is empty"),
    (lambda p: p.write_bytes(b"\n \n"), "{f}: file is empty"),
    (lambda p: None, "{f}: no such file"),
    (lambda p: p.mkdir(), "{f}: is a directory"),
    (lambda p: p.write_bytes(HEADER.encode() + b"\n\x00\x01\x02\n"), "{f}: binary data"),
    (lambda p: p.write_bytes((HEADER + "\nu\xe9,3,3000,99\n").encode("latin-1")),
     "{f}: not UTF-8 text"),
    (lambda p: p.write_bytes((HEADER + "\n" + "\n".join(ROWS)).encode("utf-16")),
     "{f}: binary data"),
], ids=["empty", "blank", "missing", "directory", "binary", "latin-1", "utf-16"])
def test_correct_names_an_unreadable_file_before_asking_for_n(tmp_path, capsys, make,
                                                              fragment):
    """No --n or --m given: the file's fault is named, not the missing options."""
    path = tmp_path / "long.csv"
    make(path)
    refused_cli(capsys, ["correct", "--ranks", path], [fragment.format(f=path)])


ACCEPTED = [  # (id, how the plain file's lines are written otherwise)
    ("bom", lambda p, lines: write(p, lines, bom=True)),
    ("crlf", lambda p, lines: write(p, lines, crlf=True)),
    ("bom and crlf", lambda p, lines: write(p, lines, bom=True, crlf=True)),
    ("no last line end", lambda p, lines: write(p, lines, end=False)),
    ("rows reversed", lambda p, lines: write(p, [lines[0], *lines[:0:-1]])),
    ("rows shuffled", lambda p, lines: write(
        p, [lines[0], *np.random.default_rng(3).permutation(lines[1:]).tolist()])),
    ("quoted fields", lambda p, lines: write(
        p, [lines[0], *('"' + x.replace(",", '","') + '"' for x in lines[1:])])),
    ("quoted header", lambda p, lines: write(p, ['"' + lines[0].replace(",", '","') + '"',
                                                 *lines[1:]])),
    ("spaces after commas", lambda p, lines: write(p, [x.replace(",", ", ") for x in lines])),
    ("trailing blank lines", lambda p, lines: write(p, [*lines, "", "", ""])),
    ("blank lines between rows", lambda p, lines: write(p, [lines[0], "", *lines[1:20], "",
                                                            *lines[20:]])),
    ("columns in another order", lambda p, lines: write(
        p, [",".join(np.array(x.split(","))[[3, 2, 0, 1]]) for x in lines])),
    ("an extra column", lambda p, lines: write(p, [lines[0] + ",comment",
                                                   *(x + ",ok" for x in lines[1:])])),
    ("integral decimals", lambda p, lines: write(
        p, [lines[0], *(x.rsplit(",", 1)[0] + ",99.0" for x in lines[1:])])),
]


@pytest.mark.parametrize("rewrite", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_an_unusual_positions_file_reads_as_the_plain_one(tmp_path, capsys, rewrite):
    lines = [HEADER, *ROWS]
    plain = cli(capsys, "correct", "--ranks", write(tmp_path / "plain.csv", lines), *QUICK)
    other = cli(capsys, "correct", "--ranks", rewrite(tmp_path / "other.csv", lines), *QUICK)
    assert plain[0] == 0 and other[0] == 0, other[2]
    assert other[1] == plain[1]


def test_the_recommended_row_is_the_same_for_an_unusual_file(tmp_path, capsys):
    lines = [HEADER, *ROWS]
    argv = ["--metric", "recall@10", "--method", "recommended", "--format", "csv"]
    plain = cli(capsys, "correct", "--ranks", write(tmp_path / "plain.csv", lines), *argv)
    other = cli(capsys, "correct", "--ranks", write(tmp_path / "other.csv",
                                                    [lines[0], *lines[:0:-1]], bom=True,
                                                    crlf=True), *argv)
    assert plain[0] == 0 and other[1] == plain[1]


def test_user_ids_are_labels_as_written(tmp_path):
    """'007' and '7' are two users (the docs: ids are labels, read as text), and a user's
    rows may lie anywhere in the file."""
    path = write(tmp_path / "long.csv", [HEADER, "7,3,3000,99", "u1,2,3000,99",
                                         "007,1,3000,99", "7,9,3000,99"])
    long = read_long(path)
    assert sorted(long.users.tolist()) == ["007", "7", "u1"]
    assert long.table.k.tolist() == [1, 2, 1]            # users in label order: 007, 7, u1


# ------------------------------------------------------------------ long format: draws
DRAW_ROWS = [f"u{u},{1 + u % 5},3000,{j % 2},0.001" for u in range(30) for j in range(10)]

DRAW_CASES = [
    ("prob 0", replaced(3, "u0,1,3000,1,0", DRAW_ROWS, DRAWS), [],
     ["{f}:3: prob 0 outside (0, 1]"]),
    ("prob nan", replaced(3, "u0,1,3000,1,nan", DRAW_ROWS, DRAWS), [],
     ["{f}:3: 'nan' is not a finite number prob"]),
    ("prob 1.5", replaced(3, "u0,1,3000,1,1.5", DRAW_ROWS, DRAWS), [],
     ["{f}:3: prob 1.5 outside (0, 1]"]),
    ("above 2", replaced(3, "u0,1,3000,2,0.001", DRAW_ROWS, DRAWS), [],
     ["{f}:3: above 2 outside 0..1"]),
    ("above -1", replaced(3, "u0,1,3000,-1,0.001", DRAW_ROWS, DRAWS), [],
     ["{f}:3: above -1 outside 0..1"]),
    ("position word", replaced(3, "u0,one,3000,1,0.001", DRAW_ROWS, DRAWS), [],
     ["{f}:3: 'one' in column 'position'"]),
    ("header only", [DRAWS], [], ["{f}: no draws found"]),
    ("header lacks prob", ["user,position,n_nonrelevant,above", "u1,3,900,1"], [],
     ["{f}: a long-format header (user, position, ...) lacks the column prob"]),
    ("recommended asked for", [DRAWS, *DRAW_ROWS], ["--method", "recommended"],
     ["{f}: the recommended answer needs uniform negatives"]),
    ("cls asked for", [DRAWS, *DRAW_ROWS], ["--method", "cls"],
     ["{f}: popularity-sampled draws allow the corrections sampled and "
      "weighted_rank_estimate, not cls"]),
    ("--sampling given", [DRAWS, *DRAW_ROWS], ["--sampling", "hypergeometric"],
     ["--sampling does not apply to popularity-sampled draws ({f}: each row's prob"]),
    ("--evaluator of uniform draws", [DRAWS, *DRAW_ROWS], ["--evaluator", "sasrec"],
     ["--evaluator sasrec draws its negatives uniformly, but {f} holds popularity-sampled"]),
    ("evaluator column of uniform draws",
     [DRAWS + ",evaluator", *(r + ",sasrec" for r in DRAW_ROWS)], [],
     ["{f}:2: evaluator sasrec draws its negatives uniformly"]),
    ("--thin-to 0", [DRAWS, *DRAW_ROWS], ["--thin-to", "0"], ["--thin-to must be >= 1"]),
]


@pytest.mark.parametrize("lines, extra, fragments", [c[1:] for c in DRAW_CASES],
                         ids=[c[0] for c in DRAW_CASES])
def test_correct_refuses_a_bad_draws_file(tmp_path, capsys, lines, extra, fragments):
    path = write(tmp_path / "draws.csv", lines, bom=True)
    refused_cli(capsys, ["correct", "--ranks", path, *extra], fill(fragments, f=path))


def test_a_draws_file_of_a_popularity_sampler_reads_as_without_its_column(tmp_path, capsys):
    plain = write(tmp_path / "plain.csv", [DRAWS, *DRAW_ROWS])
    named = write(tmp_path / "named.csv", [DRAWS + ",evaluator",
                                           *(r + ",recbole-pop" for r in DRAW_ROWS)], crlf=True)
    argv = ["--metric", "recall@10", "--bootstrap", "40", "--format", "csv"]
    a, b = (cli(capsys, "correct", "--ranks", p, *argv) for p in (plain, named))
    assert a[0] == 0 and b[1] == a[1], b[2]


# ------------------------------------------------------------------ long format: frames
def _frame(change=None):
    """The rows of ROWS as a frame, cells ``{(row, column): value}`` changed."""
    frame = pd.DataFrame({"user": [f"u{100 + u}" for u in range(40)],
                          "position": 1 + np.arange(40) % 30, "n_nonrelevant": 3000,
                          "n_negatives": 99}).astype(object)
    for (row, column), value in (change or {}).items():
        frame.loc[row, column] = value
    return frame


def _set(row, column, value):
    return lambda: _frame({(row, column): value})


FRAME_CASES = [
    ("position nan", _set(3, "position", np.nan), [],
     ["the positions frame row 3 (user u103): 'nan' in column 'position' is not an integer"]),
    ("position word", _set(3, "position", "x"), [],
     ["the positions frame row 3 (user u103): 'x' in column 'position'"]),
    ("position 2.5", _set(3, "position", 2.5), [], ["row 3 (user u103): '2.5' in column"]),
    ("position -1", _set(3, "position", -1), [],
     ["row 3 (user u103): '-1' in column 'position' is not an integer position >= 1"]),
    ("position 2**63", _set(3, "position", 2 ** 63), [],
     ["row 3 (user u103): '9223372036854775808' in column 'position' is too large"]),
    ("position beyond", _set(3, "position", 500), [],
     ["the positions frame row 3: user u103: position 500 beyond its list"]),
    ("n_nonrelevant None", _set(3, "n_nonrelevant", None), [],
     ["row 3 (user u103): 'None' in column 'n_nonrelevant'"]),
    ("n_negatives inf", _set(3, "n_negatives", np.inf), [],
     ["row 3 (user u103): 'inf' in column 'n_negatives'"]),
    ("user None", _set(3, "user", None), [],
     ["the positions frame row 3: 'None' in column 'user' is not a label"]),
    ("user blank", _set(3, "user", "  "), [], ["the positions frame row 3: '  ' in column"]),
    ("a row twice", lambda: pd.concat([_frame(), _frame().iloc[[4]]], ignore_index=True), [],
     ["the positions frame row 40: user u104: position 5 given twice"]),
    ("index labels", lambda: _frame({(3, "position"): "x"}).set_axis(
        [f"r{i}" for i in range(40)]), [], ["the positions frame row 'r3' (user u103)"]),
    ("a column missing", lambda: _frame().drop(columns="n_negatives"), [],
     ["the positions frame: lacks column(s) n_negatives"]),
    ("no rows", lambda: _frame().iloc[:0], [], ["the positions frame: no positives found"]),
    ("evaluator unknown", lambda: _frame().assign(evaluator="sasrecc"), [],
     ["the positions frame row 0: unknown evaluator 'sasrecc'"]),
    ("evaluator contradicted", lambda: _frame().assign(evaluator="sasrec"),
     [("evaluator", "ncf")], ["the positions frame: its evaluator column names sasrec, but "
                              "evaluator is ncf"]),
    ("sampling contradicted", lambda: _frame(), [("evaluator", "rechorus"),
                                                 ("sampling", "binomial")],
     ["sampling 'binomial' contradicts evaluator 'rechorus'"]),
    ("more negatives than the pool", _set(3, "n_nonrelevant", 50),
     [("sampling", "hypergeometric")],
     ["the positions frame row 3: user u103: n_negatives 99 above n_nonrelevant 50"]),
    ("thin_to 0", lambda: _frame(), [("thin_to", 0)], ["thin_to must be >= 1, got 0"]),
    ("a correction twice", lambda: _frame(), [("corrections", ["cls", "CLS"])],
     ["correction 'CLS' is given twice"]),
    ("a metric twice", lambda: _frame(), [("metrics", "hit@10,hr@10")],
     ["metric 'hit@10' is given twice"]),
]


@pytest.mark.parametrize("make, options, fragments", [c[1:] for c in FRAME_CASES],
                         ids=[c[0] for c in FRAME_CASES])
def test_correct_positions_refuses_a_bad_frame(make, options, fragments):
    options = dict(options)
    metrics = options.pop("metrics", "recall@10")
    corrections = options.pop("corrections", ["recommended", "sampled"])
    refused(lambda: correct_positions(make(), metrics, corrections, bootstrap=0, **options),
            fragments)


def test_a_frame_in_another_row_order_gives_the_same_table():
    frame = _frame()
    shuffled = frame.sample(frac=1, random_state=0)
    a, b = (correct_positions(x, ["recall@10", "ndcg@10"], ["recommended", "sampled", "cls"],
                              bootstrap=40) for x in (frame, shuffled))
    pd.testing.assert_frame_equal(a, b)


# ------------------------------------------------------------------ long format: compare
COMPARE_CASES = [
    # (id, B's lines or a maker of B, extra options, fragments; {a}, {b} the files)
    ("B lacks a user", [HEADER, *ROWS[:-1]], [],
     ["{b}: the inputs hold different users (1 only in {a}, 0 only in {b}); e.g. user "
      "'u139'"]),
    ("B has another user", [HEADER, *ROWS[:-1], "u999,3,3000,99"], [],
     ["e.g. user 'u999' is in {b} but not in {a}"]),
    ("users 007 and 7", [HEADER, *ROWS[:-1], "0139,3,3000,99"], [], ["user '0139'"]),
    ("B's pool differs", [HEADER, *ROWS[:-1], "u139,10,2999,99"], [],
     ["{b}: user 'u139' has n_nonrelevant = 2999, but 3000 in {a}"]),
    ("B's negatives differ", [HEADER, *ROWS[:-1], "u139,10,3000,98"], [],
     ["{b}: user 'u139' has n_negatives = 98, but 99 in {a}"]),
    ("B has another positive", [HEADER, *ROWS, "u100,31,3000,99"], [],
     ["{b}: user 'u100' has positives = 2, but 1 in {a}"]),
    ("B a bad line", replaced(6, "u104,x,3000,99"), [], ["{b}:6: 'x' in column 'position'"]),
    ("B lacks a column", ["user,position,n_nonrelevant", "u1,3,900"], [],
     ["{b}: a long-format header (user, position, ...) lacks the column n_negatives"]),
    ("B plain ranks", ["3", "4", "5"], [], ["{b}: compare takes the long position format"]),
    ("B draws", [DRAWS, *DRAW_ROWS], [], ["{b}: compare takes the long position format",
                                          "popularity-sampled draws are not supported"]),
    ("B empty", [], [], ["{b}: file is empty"]),
    ("B missing", None, [], ["{b}: no such file"]),
    ("B a directory", "dir", [], ["{b}: is a directory"]),
    ("evaluators differ", [HEADER + ",evaluator", *(r + ",ncf" for r in ROWS)], [],
     ["names evaluator", "names ncf: A and B must be one evaluation's"]),
    ("--n given", [HEADER, *ROWS], ["--n", "3706"],
     ["--n do(es) not apply to long-format CSVs"]),
    ("--column given", [HEADER, *ROWS], ["--column", "position"],
     ["--column do(es) not apply to long-format CSVs"]),
    ("more negatives than the pool, in A and B",
     ("both", [HEADER, *ROWS[:4], "u104,5,50,99", *ROWS[5:]]), ["--sampling", "hypergeometric"],
     ["{a}:6: user u104: n_negatives 99 above n_nonrelevant 50"]),
    ("--evaluator contradicts the columns",
     [HEADER + ",evaluator", *(r + ",sasrec" for r in ROWS)], ["--evaluator", "ncf"],
     ["its evaluator column names sasrec, but --evaluator is ncf"]),
]


@pytest.mark.parametrize("b_lines, extra, fragments", [c[1:] for c in COMPARE_CASES],
                         ids=[c[0] for c in COMPARE_CASES])
def test_compare_refuses_a_bad_pair_of_long_files(tmp_path, capsys, b_lines, extra,
                                                  fragments):
    a = write(tmp_path / "a.csv", [HEADER + ",evaluator", *(r + ",sasrec" for r in ROWS)])
    if isinstance(b_lines, tuple):                          # A and B the same lines
        b_lines = b_lines[1]
        a = write(tmp_path / "a.csv", b_lines)
    b = tmp_path / "b.csv"
    if b_lines == "dir":
        b.mkdir()
    elif b_lines is not None:
        write(b, b_lines, end=bool(b_lines))
    refused_cli(capsys, ["compare", a, b, "--bootstrap", "40", *extra],
                fill(fragments, a=a, b=b))


def test_compare_reads_an_unusual_file_as_the_plain_one(tmp_path, capsys):
    a = write(tmp_path / "a.csv", [HEADER, *ROWS])
    rng = np.random.default_rng(1)
    other = [f"u{100 + u},{1 + (u * 7) % 30},3000,99" for u in range(40)]
    b = write(tmp_path / "b.csv", [HEADER, *other])
    b2 = write(tmp_path / "b2.csv", [HEADER, *rng.permutation(other).tolist()], bom=True,
               crlf=True)
    argv = ["--metric", "recall@10", "--method", "sampled,cls", "--bootstrap", "40",
            "--name-a", "A", "--name-b", "B", "--format", "csv"]
    plain = cli(capsys, "compare", a, b, *argv)
    unusual = cli(capsys, "compare", a, b2, *argv)
    assert plain[0] == 0 and unusual[1] == plain[1], unusual[2]


# ------------------------------------------------------------------ plain rank files
RANKS = [str(1 + i % 11) for i in range(60)]
COMMANDS = {"correct": ["correct", "--ranks", "{a}", "--method", "sampled", "--bootstrap",
                        "0"],
            "estimate": ["estimate", "--ranks", "{a}", "--method", "mle", "--bootstrap", "0"],
            "compare": ["compare", "{a}", "{a}", "--method", "sampled", "--bootstrap", "40"]}
TOKENS = [  # (a bad token at line 5, the fragment after 'file:5: ')
    ("nan", "'nan' is not an integer sampled rank"),
    ("inf", "'inf' is not an integer sampled rank"),
    ("-1", "sampled rank -1 outside 1..m+1=11"),
    ("0", "sampled rank 0 outside 1..m+1=11"),
    ("12", "sampled rank 12 outside 1..m+1=11"),
    (str(10 ** 15), "sampled rank 1000000000000000 outside 1..m+1=11"),
    (str(2 ** 63), "sampled rank 9223372036854775808 outside 1..m+1=11"),
    ("2.5", "'2.5' is not an integer sampled rank"),
    ("seven", "'seven' is not an integer sampled rank (CSV input? pass --column NAME)"),
    ("3,4", "'3,4' is not an integer sampled rank"),
    ("3 4", "'3 4' is not an integer sampled rank"),
    ("True", "'True' is not an integer sampled rank"),
]


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("token, fragment", TOKENS, ids=[t for t, _ in TOKENS])
def test_a_bad_rank_is_named_by_file_and_line(tmp_path, capsys, command, token, fragment):
    lines = list(RANKS)
    lines[4] = token
    path = write(tmp_path / "ranks.txt", lines, crlf=True)
    argv = [x.format(a=path) for x in COMMANDS[command]]
    refused_cli(capsys, [*argv, "--n", "100", "--m", "10"], [f"{path}:5: {fragment}"])


UNREADABLE = [
    ("empty", lambda p: p.write_bytes(b""), "{f}: file is empty"),
    ("blank", lambda p: p.write_bytes(b" \n\n"), "{f}: file is empty"),
    ("missing", lambda p: None, "{f}: no such file"),
    ("directory", lambda p: p.mkdir(), "{f}: is a directory"),
    ("binary", lambda p: p.write_bytes(bytes(range(256))), "{f}: binary data"),
    ("utf-16", lambda p: p.write_bytes("3\n4\n".encode("utf-16")), "{f}: binary data"),
]


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("make, fragment", [c[1:] for c in UNREADABLE],
                         ids=[c[0] for c in UNREADABLE])
def test_an_unreadable_rank_file_is_named_before_n_is_asked_for(tmp_path, capsys, command,
                                                                 make, fragment):
    path = tmp_path / "ranks.txt"
    make(path)
    argv = [x.format(a=path) for x in COMMANDS[command]]
    refused_cli(capsys, argv, [fragment.format(f=path)])


@pytest.mark.parametrize("command", ["estimate", "correct"])
def test_estimate_names_a_long_format_file(tmp_path, capsys, command):
    """estimate reads one sampled rank per user: a long-format CSV is named as one, not read
    as a rank per line; correct reads it."""
    path = write(tmp_path / "long.csv", [HEADER, *ROWS])
    code, out, err = cli(capsys, command, "--ranks", path, "--bootstrap", "0", "--metric",
                         "recall@10", *(["--method", "mle"] if command == "estimate" else
                                        ["--method", "sampled"]))
    if command == "correct":
        assert code == 0, err
        return
    assert code == 2 and err.count("\n") == 1
    assert f"{path}: a long-format CSV (several positives per user); estimate reads one" in err


CSV_ROWS = [f"u{i},{r}" for i, r in enumerate(RANKS)]
COLUMN_CASES = [
    ("nan", replaced(6, "u4,nan", CSV_ROWS, "user,rank"), "{f}:6: 'nan' is not an integer"),
    ("empty field", replaced(6, "u4,", CSV_ROWS, "user,rank"),
     "{f}:6: '' is not an integer sampled rank"),
    ("an extra field", replaced(6, "u4,3,9", CSV_ROWS, "user,rank"),
     "{f}:6: expected 2 fields (as the header), got 3"),
    ("a missing field", replaced(6, "u4", CSV_ROWS, "user,rank"),
     "{f}:6: '' is not an integer sampled rank"),
    ("2.5", replaced(6, "u4,2.5", CSV_ROWS, "user,rank"), "{f}:6: '2.5' is not an integer"),
    ("a word", replaced(6, "u4,seven", CSV_ROWS, "user,rank"),
     "{f}:6: 'seven' in column 'rank' is not an integer sampled rank"),
    ("out of range", replaced(6, "u4,99", CSV_ROWS, "user,rank"),
     "{f}:6: sampled rank 99 outside 1..m+1=11"),
    ("2**63", replaced(6, f"u4,{2 ** 63}", CSV_ROWS, "user,rank"),
     "{f}:6: sampled rank 9223372036854775808 outside"),
    ("a quoted line end", replaced(6, 'u4,"3\n4"', CSV_ROWS, "user,rank"),
     "{f}:6: '3\\n4' in column 'rank'"),
    ("no such column", ["user,score", *CSV_ROWS], "{f}: no column 'rank'; columns are "
                                                  "user, score"),
    ("the column twice", ["user,rank,rank", *(r + ",1" for r in CSV_ROWS)],
     "{f}: column 'rank' appears 2 times in the header"),
    ("header only", ["user,rank"], "{f}: no sampled ranks found"),
    ("semicolons", ["user;rank", *(r.replace(",", ";") for r in CSV_ROWS)],
     "{f}: no column 'rank'; columns are user;rank"),
]


#: a row's fault through every command; the header's (the same reader) through correct
COLUMN_RUNS = [(command, *case) for case in COLUMN_CASES for command in COMMANDS
               if command == "correct" or case[1][0] == "user,rank"]


@pytest.mark.parametrize("command, lines, fragment", [c[:1] + c[2:] for c in COLUMN_RUNS],
                         ids=[f"{c[0]}-{c[1]}" for c in COLUMN_RUNS])
def test_a_bad_csv_column_is_named_by_file_and_line(tmp_path, capsys, command, lines,
                                                    fragment):
    path = write(tmp_path / "ranks.csv", lines)
    argv = [x.format(a=path) for x in COMMANDS[command]]
    refused_cli(capsys, [*argv, "--n", "100", "--m", "10", "--column", "rank"],
                [fragment.format(f=path)])


RANK_VARIANTS = [  # (id, the plain ranks written otherwise; their values unchanged)
    ("bom", lambda r: "\ufeff" + "\n".join(r) + "\n"),
    ("crlf", lambda r: "\r\n".join(r) + "\r\n"),
    ("cr alone", lambda r: "\r".join(r) + "\r"),
    ("no last line end", lambda r: "\n".join(r)),
    ("blank lines", lambda r: "\n\n".join(r) + "\n\n\n"),
    ("comments", lambda r: "# sampled ranks, m = 10\n" + "\n".join(x + "  # ok" for x in r)),
    ("spaces and tabs", lambda r: "\n".join(f" \t{x} " for x in r) + "\n"),
    ("integral decimals", lambda r: "\n".join(x + ".0" for x in r) + "\n"),
    ("plus signs", lambda r: "\n".join("+" + x for x in r) + "\n"),
    ("leading zeros", lambda r: "\n".join(x.zfill(3) for x in r) + "\n"),
    ("quoted", lambda r: "\n".join(f'"{x}"' for x in r) + "\n"),
    ("csv column, bom and crlf", lambda r: "\ufeffuser,rank\r\n" + "".join(
        f"u{i},{x}\r\n" for i, x in enumerate(r))),
    ("csv column, quoted", lambda r: '"user","rank"\n' + "".join(
        f'"u,{i}","{x}"\n' for i, x in enumerate(r))),
]


@pytest.mark.parametrize("command", ["correct", "estimate"])
@pytest.mark.parametrize("text", [c[1] for c in RANK_VARIANTS], ids=[c[0] for c in RANK_VARIANTS])
def test_an_unusual_rank_file_reads_as_the_plain_one(tmp_path, capsys, command, text):
    plain = write(tmp_path / "plain.txt", RANKS)
    other = tmp_path / "other.txt"
    other.write_bytes(text(RANKS).encode())
    column = ["--column", "rank"] if text(["1"]).lstrip("\ufeff").startswith(
        ("user", '"user')) else []
    argv = [*COMMANDS[command][3:], "--n", "100", "--m", "10", "--metric", "recall@10,ndcg@10",
            "--format", "csv"]
    a = cli(capsys, command, "--ranks", plain, *argv)
    b = cli(capsys, command, "--ranks", other, *argv, *column)
    assert a[0] == 0 and b[0] == 0, b[2]
    assert b[1] == a[1]


# ------------------------------------------------------------------ from_scores
SCORES = np.array([[0.9, 0.1, 0.5, 0.3], [0.2, 0.7, 0.1, 0.05]])
ITEMS = np.array([[7, 3, 5, 4], [8, 1, 2, 6]])


def _scores(**kw):
    args = {"scores": SCORES, "n_nonrelevant": 3000, "evaluator": "sasrec", "items": ITEMS,
            **kw}
    return from_scores(args.pop("scores"), args.pop("n_nonrelevant"), **args)


SCORE_CASES = [
    ("scores text", dict(scores=[["a", "b"]]), "scores must be numbers in an array"),
    ("scores ragged", dict(scores=[[0.1, 0.2], [0.3]]), "scores must be numbers in an array"),
    ("scores nan", dict(scores=np.where(SCORES == 0.5, np.nan, SCORES)),
     "scores must be finite (found NaN or infinity)"),
    ("scores inf", dict(scores=np.where(SCORES == 0.5, np.inf, SCORES)),
     "scores must be finite"),
    ("scores 1-d", dict(scores=SCORES[0]), "scores must be (rows, 1 + m)"),
    ("scores no row", dict(scores=SCORES[:0]), "got shape (0, 4)"),
    ("scores one column", dict(scores=SCORES[:, :1]), "got shape (2, 1)"),
    ("pool 0", dict(n_nonrelevant=0), "n_nonrelevant must be >= 1, got 0..0"),
    ("pool -1", dict(n_nonrelevant=-1), "n_nonrelevant must be >= 1, got -1..-1"),
    ("pool 2.5", dict(n_nonrelevant=2.5), "n_nonrelevant must be integers, got 2.5"),
    ("pool nan", dict(n_nonrelevant=np.nan), "n_nonrelevant must be finite"),
    ("pool 2**63", dict(n_nonrelevant=2 ** 63),
     "n_nonrelevant must be >= 1 and fit a 64-bit integer, got 9.22337e+18"),
    ("pool 1e20", dict(n_nonrelevant=1e20), "n_nonrelevant must be >= 1 and fit a 64-bit"),
    ("pool text", dict(n_nonrelevant="3000"), "n_nonrelevant must be numbers"),
    ("pool boolean", dict(n_nonrelevant=True), "n_nonrelevant must be numbers, got booleans"),
    ("pool per row, 3 for 2", dict(n_nonrelevant=[3000] * 3),
     "n_nonrelevant must be one number or one per row (2 rows), got shape (3,)"),
    ("evaluator unknown", dict(evaluator="sasrecc"), "unknown evaluator 'sasrecc'"),
    ("evaluator refused", dict(evaluator="recbole-pop"), "popularity-sampled positions"),
    ("positive -1", dict(positive=-1), "positive column -1 outside 0..3"),
    ("positive 4", dict(positive=4), "positive column 4 outside 0..3"),
    ("positive 1.5", dict(positive=1.5), "positive must be an integer, got 1.5"),
    ("items of another shape", dict(items=ITEMS[:, :3]),
     "items must have the shape of scores (2, 4), got (2, 3)"),
    ("items nan", dict(items=np.where(ITEMS == 3, np.nan, ITEMS)),
     "items must be item ids, found 'nan' (the first: row 0)"),
    ("items needed", dict(items=None), "evaluator 'sasrec' can draw the positive itself"),
    ("a user twice", dict(users=["u1", "u1"]),
     "users must label each row once (rows are the evaluator's unit): row 1 repeats user u1"),
    ("a user None", dict(users=[None, "u2"]), "users: row 0 has no label ('None')"),
    ("a user nan", dict(users=["u1", np.nan]), "users: row 1 has no label ('nan')"),
    ("a user blank", dict(users=["u1", " "]), "users: row 1 has no label (' ')"),
    ("users too few", dict(users=["u1"]), "users must give one label per row (2 rows), got 1"),
    ("self-draw never drawn", dict(evaluator="rechorus", items=[[7, 7, 5, 4], [8, 1, 2, 6]],
                                   users=["u1", "u2"]),
     "1 rows hold their positive among the negatives, which evaluator 'rechorus' never draws "
     "(the first: row 0, user u1)"),
    ("a negative repeated", dict(evaluator="rechorus", items=[[7, 3, 5, 4], [8, 1, 1, 6]],
                                 users=["u1", "u2"]),
     "1 rows repeat a negative, which evaluator 'rechorus' draws without replacement (the "
     "first: row 1, user u2)"),
    ("more negatives than the pool", dict(evaluator="rechorus", n_nonrelevant=[3000, 2],
                                          users=["u1", "u2"]),
     "1 rows have more distinct negatives than n_nonrelevant (the first: row 1, user u2)"),
    ("seed -1", dict(seed=-1), "seed must be >= 0, got -1"),
]


@pytest.mark.parametrize("change, fragment", [c[1:] for c in SCORE_CASES],
                         ids=[c[0] for c in SCORE_CASES])
def test_from_scores_refuses_in_one_line(change, fragment):
    refused(lambda: _scores(**change), [fragment])


# ------------------------------------------------------------------ ReChorus
RECHORUS = FIXTURES / "rechorus"


def _rechorus_copy(tmp_path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(RECHORUS / "Synthetic", folder)
    shutil.copyfile(RECHORUS / "rec-BPRMF-test.csv", folder / "rec.csv")
    return folder


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def _put(path: Path, lines) -> None:
    path.write_bytes(b"\n".join(lines))


def _field(path: Path, line: int, column: str, value) -> None:
    """Line ``line`` (1-based) of a tab-separated file with ``column`` set to ``value``."""
    lines = _lines(path)
    fields = lines[line - 1].split(b"\t")
    fields[lines[0].split(b"\t").index(column.encode())] = value.encode() if isinstance(
        value, str) else value
    lines[line - 1] = b"\t".join(fields)
    _put(path, lines)


def _cell(path: Path, line: int, column: str) -> str:
    lines = _lines(path)
    return lines[line - 1].split(b"\t")[lines[0].split(b"\t").index(column.encode())].decode()


def _drop_column(path: Path, column: str) -> None:
    pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False).drop(
        columns=column).to_csv(path, sep="\t", index=False)


RECHORUS_CASES = [
    # (id, file, edit, fragment after the file's path)
    ("rec empty", "rec.csv", lambda p: p.write_bytes(b""),
     ": empty file (expected a tab-separated header line user_id, rec_items"),
    ("rec header only", "rec.csv", lambda p: _put(p, _lines(p)[:1] + [b""]),
     ": no lines below the header"),
    ("rec a line twice", "rec.csv", lambda p: _put(p, _lines(p)[:-1] + [_lines(p)[3], b""]),
     ":283: user 2's row again (line 4 has these rec_items)"),
    ("rec text scores", "rec.csv",
     lambda p: _field(p, 7, "rec_predictions", "[" + ", ".join(["high"] * 100) + "]"),
     ":7: column rec_predictions: 'high' is not a score"),
    ("rec nan score", "rec.csv",
     lambda p: _field(p, 7, "rec_predictions", "[nan" + ", 0.1" * 99 + "]"),
     ":7: column rec_predictions: a score is nan"),
    ("rec inf score", "rec.csv",
     lambda p: _field(p, 7, "rec_predictions", "[inf" + ", 0.1" * 99 + "]"),
     ":7: column rec_predictions: a score is inf"),
    ("rec item i17", "rec.csv", lambda p: _field(p, 8, "rec_items", "[i17" + ", 1" * 99 + "]"),
     ":8: column rec_items: 'i17' is not an item id (an integer)"),
    ("rec item 2.0", "rec.csv",
     lambda p: _field(p, 6, "rec_items", _cell(p, 6, "rec_items").replace(",", ".0,", 1)),
     ":6: column rec_items: "),
    ("rec item 2**63", "rec.csv", lambda p: _field(
        p, 6, "rec_items", "[" + str(2 ** 63) + ", 1" * 99 + "]"),
     ":6: column rec_items: '9223372036854775808' is not an item id"),
    ("rec user u7", "rec.csv", lambda p: _field(p, 9, "user_id", "u7"),
     ":9: user u7 (column user_id) has no row in test.csv"),
    ("rec user with leading zeros", "rec.csv",
     lambda p: _field(p, 9, "user_id", "00" + _cell(p, 9, "user_id")),
     ":9: user 00"),
    ("rec user empty", "rec.csv", lambda p: _field(p, 9, "user_id", ""),
     ":9: column user_id: empty"),
    ("rec comma-separated", "rec.csv",
     lambda p: p.write_bytes(p.read_bytes().replace(b"\t", b",")),
     ":1: no column user_id, rec_items, rec_predictions"),
    ("rec a column renamed", "rec.csv",
     lambda p: p.write_bytes(p.read_bytes().replace(b"rec_items", b"items", 1)),
     ":1: no column rec_items (the header has user_id, items, rec_predictions)"),
    ("rec a column twice", "rec.csv", lambda p: _put(
        p, [_lines(p)[0] + b"\tuser_id", *(x + b"\t1" for x in _lines(p)[1:-1]), b""]),
     ":1: column user_id appears 2 times in the header"),
    ("rec an extra field", "rec.csv",
     lambda p: _put(p, [*_lines(p)[:4], _lines(p)[4] + b"\textra", *_lines(p)[5:]]),
     ":5: 4 tab-separated fields, but the header has 3"),
    ("rec a short line", "rec.csv",
     lambda p: _put(p, [*_lines(p)[:4], _lines(p)[4].split(b"\t")[0], *_lines(p)[5:]]),
     ":5: column rec_items: expected a list [a, b, ...], got ''"),
    ("rec a blank line", "rec.csv", lambda p: _put(p, [*_lines(p)[:4], b"", *_lines(p)[4:]]),
     ":5: a blank line"),
    ("rec binary", "rec.csv", lambda p: p.write_bytes(b"\x00\x01\x02\xff"),
     ": binary data (byte 0 is NUL)"),
    ("rec latin-1", "rec.csv", lambda p: p.write_bytes(p.read_bytes() + b"7\t[\xe9]\t[1]\n"),
     ": not UTF-8 text"),
    ("rec a directory", "rec.csv", lambda p: (p.unlink(), p.mkdir()), ": is a directory"),
    ("rec missing", "rec.csv", lambda p: p.unlink(), ": no such file"),
    ("rec an empty list", "rec.csv", lambda p: _field(p, 6, "rec_items", "[]"),
     ":6: column rec_items: 0 entries, but test.csv's rows have 100 candidates"),
    ("rec a tuple", "rec.csv",
     lambda p: _field(p, 6, "rec_items", "(" + _cell(p, 6, "rec_items")[1:-1] + ")"),
     ":6: column rec_items: expected a list [a, b, ...], got '(2"),
    ("rec a trailing comma", "rec.csv",
     lambda p: _field(p, 6, "rec_items", _cell(p, 6, "rec_items")[:-1] + ",]"),
     ":6: column rec_items: '' is not an item id"),
    ("rec items and scores swapped", "rec.csv", lambda p: pd.read_csv(
        p, sep="\t", dtype=str).rename(columns={"rec_items": "rec_predictions",
                                                "rec_predictions": "rec_items"}).to_csv(
        p, sep="\t", index=False), ":2: column rec_items: '0."),
    ("test empty", "test.csv", lambda p: p.write_bytes(b""), ": empty file"),
    ("test header only", "test.csv", lambda p: _put(p, _lines(p)[:1] + [b""]),
     ": no test rows below the header"),
    ("test item i17", "test.csv", lambda p: _field(p, 5, "item_id", "i17"),
     ":5: column item_id: 'i17' is not an item id (an integer)"),
    ("test item nan", "test.csv", lambda p: _field(p, 5, "item_id", "nan"),
     ":5: column item_id: 'nan' is not an item id"),
    ("test item 2.5", "test.csv", lambda p: _field(p, 5, "item_id", "2.5"),
     ":5: column item_id: '2.5' is not an item id"),
    ("test item 2**63", "test.csv", lambda p: _field(p, 5, "item_id", str(2 ** 63)),
     ":5: column item_id: '9223372036854775808' is not an item id"),
    ("test user empty", "test.csv", lambda p: _field(p, 5, "user_id", " "),
     ":5: column user_id: empty"),
    ("test negatives nan", "test.csv",
     lambda p: _field(p, 5, "neg_items", "[nan" + ", 1" * 98 + "]"),
     ":5: column neg_items: 'nan' is not an item id"),
    ("test negatives a word", "test.csv",
     lambda p: _field(p, 5, "neg_items", "[x" + ", 1" * 98 + "]"),
     ":5: column neg_items: 'x' is not an item id"),
    ("test negatives fewer", "test.csv", lambda p: _field(p, 6, "neg_items", "[1, 2, 3]"),
     ":6: column neg_items: 3 negatives, but line 2 has 99"),
    ("test negatives hold the positive", "test.csv", lambda p: _field(
        p, 5, "neg_items", "[" + _cell(p, 5, "item_id") + ", " +
        _cell(p, 5, "neg_items").split(", ", 1)[1]),
     ":5: user 66's neg_items hold the row's own item_id"),
    ("test no neg_items", "test.csv", lambda p: _drop_column(p, "neg_items"),
     ":1: no column neg_items (ReChorus then ranks all items"),
    ("test no item_id", "test.csv", lambda p: _drop_column(p, "item_id"),
     ":1: no column item_id (the header has user_id, time"),
    ("test a column twice", "test.csv", lambda p: _put(
        p, [_lines(p)[0] + b"\titem_id", *(x + b"\t1" for x in _lines(p)[1:-1]), b""]),
     ":1: column item_id appears 2 times in the header"),
    ("test binary", "test.csv", lambda p: p.write_bytes(b"\x00\x01"), ": binary data"),
    ("test a directory", "test.csv", lambda p: (p.unlink(), p.mkdir()), ": is a directory"),
    ("test a line missing", "test.csv", lambda p: _put(p, _lines(p)[:5] + _lines(p)[6:]),
     None),                         # the rec file's line of that row is named (below)
    ("train empty", "train.csv", lambda p: p.write_bytes(b""), ": empty file"),
    ("train item i17", "train.csv", lambda p: _field(p, 5, "item_id", "i17"),
     ":5: column item_id: 'i17' is not an item id"),
    ("train user empty", "train.csv", lambda p: _field(p, 5, "user_id", ""),
     ":5: column user_id: empty"),
    ("train a ragged line", "train.csv",
     lambda p: p.write_bytes(p.read_bytes() + b"1\t2\t3\t4\t5\t6\t7\t8\n"),
     ":2175: 8 tab-separated fields, but the header has 7"),
    ("dev a directory", "dev.csv", lambda p: (p.unlink(), p.mkdir()), ": is a directory"),
]


@pytest.mark.parametrize("name, edit, fragment", [c[1:] for c in RECHORUS_CASES],
                         ids=[c[0] for c in RECHORUS_CASES])
def test_rechorus_refuses_a_bad_file(tmp_path, name, edit, fragment):
    folder = _rechorus_copy(tmp_path)
    edit(folder / name)
    if fragment is None:                     # the rec line of the missing test row
        refused(lambda: rechorus_long(folder, folder / "rec.csv"),
                [f"{folder / 'rec.csv'}:", "(column user_id) has no row in test.csv"])
        return
    refused(lambda: rechorus_long(folder, folder / "rec.csv"), [f"{folder / name}{fragment}"])


def test_rechorus_names_a_folder_without_its_files(tmp_path):
    folder = _rechorus_copy(tmp_path)
    refused(lambda: rechorus_long(folder / "rec.csv", folder / "rec.csv"),
            [f"{folder / 'rec.csv'}: no train.csv"])
    (folder / "test.csv").unlink()
    refused(lambda: rechorus_long(folder, folder / "rec.csv"), [f"{folder}: no test.csv"])


RECHORUS_ACCEPTED = [  # (id, file, edit): the same table as the fixture's files give
    ("rec lines reversed", "rec.csv", lambda p: _put(p, [_lines(p)[0], *_lines(p)[-2:0:-1],
                                                         b""])),
    ("rec bom", "rec.csv", lambda p: p.write_bytes(BOM + p.read_bytes())),
    ("rec crlf", "rec.csv", lambda p: p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))),
    ("rec bom and crlf", "rec.csv", lambda p: p.write_bytes(
        BOM + p.read_bytes().replace(b"\n", b"\r\n"))),
    ("rec trailing blank lines", "rec.csv", lambda p: p.write_bytes(p.read_bytes() + b"\n\n")),
    ("rec columns in another order", "rec.csv", lambda p: pd.read_csv(
        p, sep="\t", dtype=str)[["rec_predictions", "user_id", "rec_items"]].to_csv(
        p, sep="\t", index=False)),
    ("rec a list quoted", "rec.csv",
     lambda p: _field(p, 6, "rec_items", '"' + _cell(p, 6, "rec_items") + '"')),
    ("rec spaces in a list", "rec.csv",
     lambda p: _field(p, 6, "rec_items", _cell(p, 6, "rec_items").replace(", ", " ,  "))),
    ("test bom and crlf", "test.csv", lambda p: p.write_bytes(
        BOM + p.read_bytes().replace(b"\n", b"\r\n"))),
    ("train bom", "train.csv", lambda p: p.write_bytes(BOM + p.read_bytes())),
    ("test spaces around a user", "test.csv",
     lambda p: _field(p, 5, "user_id", " " + _cell(p, 5, "user_id") + " ")),
    ("test a trailing blank line", "test.csv", lambda p: p.write_bytes(p.read_bytes() + b"\n")),
]


@pytest.fixture(scope="module")
def rechorus_table():
    return rechorus_long(RECHORUS / "Synthetic", RECHORUS / "rec-BPRMF-test.csv")


@pytest.mark.parametrize("name, edit", [c[1:] for c in RECHORUS_ACCEPTED],
                         ids=[c[0] for c in RECHORUS_ACCEPTED])
def test_rechorus_reads_an_unusual_file_as_written(tmp_path, rechorus_table, name, edit):
    folder = _rechorus_copy(tmp_path)
    edit(folder / name)
    pd.testing.assert_frame_equal(rechorus_long(folder, folder / "rec.csv"), rechorus_table)


def test_rechorus_test_rows_in_another_order_give_the_same_rows(tmp_path, rechorus_table):
    """The table follows test.csv: its rows reversed, the same rows reversed."""
    folder = _rechorus_copy(tmp_path)
    path = folder / "test.csv"
    _put(path, [_lines(path)[0], *_lines(path)[-2:0:-1], b""])
    table = rechorus_long(folder, folder / "rec.csv")
    columns = [c for c in table if c != "user"]
    pd.testing.assert_frame_equal(table[columns].iloc[::-1].reset_index(drop=True),
                                  rechorus_table[columns])


# ------------------------------------------------------------------ NCF
NCF = FIXTURES / "ncf"


def _ncf_copy(tmp_path) -> Path:
    folder = tmp_path / "ncf"
    folder.mkdir()
    for suffix in ("train.rating", "test.rating", "test.negative"):
        shutil.copyfile(NCF / f"toy.{suffix}", folder / f"toy.{suffix}")
    return folder


def _tab(path: Path, line: int, j: int, value: bytes) -> None:
    lines = _lines(path)
    fields = lines[line - 1].split(b"\t")
    fields[j] = value
    lines[line - 1] = b"\t".join(fields)
    _put(path, lines)


NCF_CASES = [  # (id, file suffix, edit, fragment after the file's path)
    ("negatives reordered", "test.negative", lambda p: _put(p, _lines(p)[-2::-1] + [b""]),
     ": line 1: (399,430) but "),
    ("a negatives line missing", "test.negative",
     lambda p: _put(p, _lines(p)[:5] + _lines(p)[6:]), ": 399 lines, but "),
    ("a negatives line more", "test.negative",
     lambda p: _put(p, _lines(p)[:-1] + [_lines(p)[3], b""]), ": 401 lines, but "),
    ("a second test item", "test.rating",
     lambda p: _put(p, _lines(p)[:-1] + [b"399\t5\t5\t1", b""]),
     ": line 401: user 399 has a second test item"),
    ("negatives empty", "test.negative", lambda p: p.write_bytes(b""), ": no data lines"),
    ("test empty", "test.rating", lambda p: p.write_bytes(b""),
     ": line 1: expected 4 tab-separated fields"),
    ("negative a word", "test.negative", lambda p: _tab(p, 5, 3, b"x"),
     ": line 5: negative3 is not an integer: 'x'"),
    ("negative nan", "test.negative", lambda p: _tab(p, 5, 3, b"nan"),
     ": line 5: negative3 is not an integer: 'nan'"),
    ("negative -1", "test.negative", lambda p: _tab(p, 5, 3, b"-1"),
     ": line 5: negative item id -1; NCF ids are 0-based"),
    ("negative 2.5", "test.negative", lambda p: _tab(p, 5, 3, b"2.5"),
     ": line 5: negative3 is not an integer: '2.5'"),
    ("negative 2**63", "test.negative", lambda p: _tab(p, 5, 3, str(2 ** 63).encode()),
     ": line 5: negative3 '9223372036854775808' is too large for a 64-bit integer"),
    ("negative quoted", "test.negative", lambda p: _tab(p, 5, 3, b'"5"'),
     ": line 5: negative3 is not an integer: '\"5\"'"),
    ("negatives fewer", "test.negative",
     lambda p: _put(p, [*_lines(p)[:4], b"\t".join(_lines(p)[4].split(b"\t")[:50]),
                        *_lines(p)[5:]]),
     ": line 5: expected (user,item) and 99 tab-separated negatives as on line 1"),
    ("a negatives head of another user", "test.negative", lambda p: _tab(p, 5, 0, b"(4,1)"),
     ": line 5: (4,1) but "),
    ("a negatives head with a word", "test.negative", lambda p: _tab(p, 5, 0, b"(u4,1)"),
     ": line 5: expected '(user,item)' then tab-separated negative item ids, got '(u4,1)"),
    ("negatives separated by spaces", "test.negative", lambda p: p.write_bytes(
        p.read_bytes().replace(b"\t", b" ")), ": line 1: expected '(user,item)'"),
    ("test user u4", "test.rating", lambda p: _tab(p, 5, 0, b"u4"),
     ": line 5: user is not an integer: 'u4'"),
    ("test item -1", "test.rating", lambda p: _tab(p, 5, 1, b"-1"),
     ": line 5: negative item id -1; NCF ids are 0-based"),
    ("test item 2**63", "test.rating", lambda p: _tab(p, 5, 1, str(2 ** 63).encode()),
     ": line 5: item '9223372036854775808' is too large for a 64-bit integer"),
    ("test rating nan", "test.rating", lambda p: _tab(p, 5, 2, b"nan"),
     ": line 5: rating is not a number: 'nan'"),
    ("test five fields", "test.rating", lambda p: _put(p, [x + b"\t1" if x else x
                                                           for x in _lines(p)]),
     ": line 1: expected 4 tab-separated fields"),
    ("test commas", "test.rating", lambda p: p.write_bytes(p.read_bytes().replace(b"\t", b",")),
     ": line 1: expected 4 tab-separated fields"),
    ("train binary", "train.rating", lambda p: p.write_bytes(b"\x00\x01\x02\n"),
     ": line 1: expected 4 tab-separated fields"),
    ("test a directory", "test.rating", lambda p: (p.unlink(), p.mkdir()),
     ": not a regular file (a directory?)"),
    ("negatives a directory", "test.negative", lambda p: (p.unlink(), p.mkdir()),
     ": not a regular file (a directory?)"),
]


@pytest.mark.parametrize("suffix, edit, fragment", [c[1:] for c in NCF_CASES],
                         ids=[c[0] for c in NCF_CASES])
def test_ncf_refuses_a_bad_file(tmp_path, suffix, edit, fragment):
    folder = _ncf_copy(tmp_path)
    edit(folder / f"toy.{suffix}")
    refused(lambda: candidates(folder, "toy"), [f"{folder / f'toy.{suffix}'}{fragment}"])


def test_ncf_names_what_it_lacks(tmp_path):
    folder = _ncf_copy(tmp_path)
    refused(lambda: candidates(folder, "tiny"), [f"{folder}: no 'tiny.train.rating'"])
    refused(lambda: candidates(tmp_path / "nowhere", "toy"), ["nowhere: archive not found"])
    (folder / "toy.test.negative").unlink()
    refused(lambda: candidates(folder, "toy"),
            [f"{folder}: no toy.test.negative: NCF's evaluation has no fixed negatives"])


NCF_ACCEPTED = [
    ("negatives bom", "test.negative", lambda p: p.write_bytes(BOM + p.read_bytes())),
    ("negatives crlf", "test.negative", lambda p: p.write_bytes(
        p.read_bytes().replace(b"\n", b"\r\n"))),
    ("negatives trailing tabs", "test.negative", lambda p: p.write_bytes(
        p.read_bytes().replace(b"\n", b"\t\n"))),
    ("test bom and crlf", "test.rating", lambda p: p.write_bytes(
        BOM + p.read_bytes().replace(b"\n", b"\r\n"))),
    ("train bom and crlf", "train.rating", lambda p: p.write_bytes(
        BOM + p.read_bytes().replace(b"\n", b"\r\n"))),
    ("test without timestamps", "test.rating", lambda p: _put(
        p, [b"\t".join(x.split(b"\t")[:3]) for x in _lines(p)])),
    ("test users with leading zeros", "test.rating", lambda p: _tab(p, 5, 0, b"004")),
    ("both test files reversed", None, None),
]


@pytest.mark.parametrize("suffix, edit", [c[1:] for c in NCF_ACCEPTED],
                         ids=[c[0] for c in NCF_ACCEPTED])
def test_ncf_reads_an_unusual_file_as_written(tmp_path, suffix, edit):
    folder = _ncf_copy(tmp_path)
    if suffix is None:                        # the two test files in one other order
        for name in ("toy.test.rating", "toy.test.negative"):
            _put(folder / name, _lines(folder / name)[-2::-1] + [b""])
    else:
        edit(folder / f"toy.{suffix}")
    got, plain = candidates(folder, "toy"), candidates(NCF, "toy")
    for field in ("users", "items", "n_nonrelevant", "self_lines"):
        np.testing.assert_array_equal(getattr(got, field), getattr(plain, field))


# ------------------------------------------------------------------ DaisyRec capture
SCORE = np.random.default_rng(0).random(50)
LOADER = [(np.array([1, 2]), np.array([[3, 5, 6, 7, 8], [9, 5, 6, 7, 8]]))]
TEST_UR, TRAIN_UR = {1: {3}, 2: {9}}, {1: {4}, 2: {10}}


def _daisyrec(test_ur=TEST_UR, train_ur=TRAIN_UR, item_num=50, loader=LOADER,
              then=lambda record: record.correct(["recall@10"], bootstrap=0)):
    model = _StandIn(SCORE)
    record = daisyrec_capture(model, test_ur, train_ur, item_num)
    model.rank(loader)
    return then(record)


DAISYREC_CASES = [
    ("a user not in test_ur", dict(test_ur={1: {3}}),
     "DaisyRec user 2 is in the test loader but not in test_ur"),
    ("a test item not ranked", dict(test_ur={1: {44}, 2: {9}}),
     "DaisyRec user 1: test item 44 is not among its ranked candidates"),
    ("no negatives", dict(test_ur={1: {3, 5, 6, 7, 8}, 2: {9}}),
     "DaisyRec user 1 has 5 test items and 5 candidates: no negatives"),
    ("item_num below the user's items", dict(train_ur={1: set(range(10, 40))}, item_num=30),
     "DaisyRec user 1: its 31 training and test items leave none of item_num = 30"),
    ("item_num 0", dict(item_num=0), "item_num must be >= 1, got 0"),
    ("item_num 2.5", dict(item_num=2.5), "item_num must be an integer, got 2.5"),
    ("item_num nan", dict(item_num=float("nan")), "item_num must be an integer, got nan"),
    ("item_num None", dict(item_num=None), "item_num must be an integer, got None"),
    ("a candidate beyond item_num", dict(item_num=8),
     "DaisyRec user 1: candidate 8 outside 0..item_num - 1 = 7"),
    ("test_ur None", dict(test_ur=None),
     "test_ur must map each user to its items (DaisyRec's dict), got NoneType"),
    ("train_ur a list", dict(train_ur=[]), "train_ur must map each user to its items"),
    ("a test item nan", dict(test_ur={1: {float("nan")}, 2: {9}}),
     "DaisyRec user 1: test item nan is not an item id (an integer >= 0)"),
    ("a training item a word", dict(train_ur={1: {"i4"}}),
     "DaisyRec user 1: training item 'i4' is not an item id"),
    ("a user id 1.5", dict(loader=[(np.array([1.5, 2.0]), LOADER[0][1])]),
     "DaisyRec user must be an integer, got 1.5"),
    ("rank called twice", dict(loader=LOADER + LOADER),
     "DaisyRec user 1 ranked twice (model.rank ran again after capture"),
    ("an empty loader", dict(loader=[]), "DaisyRec's rank returned shape (0,) for 0 users"),
    ("another evaluator", dict(then=lambda r: r.correct(["recall@10"], evaluator="sasrec")),
     "the positions frame: its evaluator column names daisyrec, but evaluator is sasrec"),
    ("another law", dict(then=lambda r: r.correct(["recall@10"], sampling="hypergeometric")),
     "sampling 'hypergeometric' contradicts evaluator 'daisyrec'"),
    ("a metric twice", dict(then=lambda r: r.correct(["recall@10", "Recall@10"])),
     "metric 'recall@10' is given twice"),
    ("k nan", dict(then=lambda r: r.daisyrec_metrics(float("nan"))),
     "k must be an integer, got nan"),
]


@pytest.mark.parametrize("change, fragment", [c[1:] for c in DAISYREC_CASES],
                         ids=[c[0] for c in DAISYREC_CASES])
def test_the_daisyrec_capture_refuses_in_one_line(change, fragment):
    refused(lambda: _daisyrec(**change), [fragment])


def test_the_daisyrec_capture_refuses_a_model_without_rank():
    refused(lambda: daisyrec_capture(object(), {}, {}, 5),
            ["capture needs a DaisyRec recommender; object has no 'rank'"])


# ------------------------------------------------------------------ RecBole capture frames
class _Trainer:
    """The three methods of a RecBole Trainer the capture wraps."""

    def evaluate(self, *args, **kwargs):
        return None

    def _neg_sample_batch_eval(self, batch):
        return None

    def _full_sort_batch_eval(self, batch):
        return None


POSITIVES = [(f"u{u}", 1 + u % 19, 500, 50, 7, 50, 0) for u in range(40)]


def _recbole(distribution="uniform", positives=POSITIVES, draws=()):
    record = recbole_capture(_Trainer())
    record.evaluations.append(Evaluation(distribution, 1.0, "test", 10, list(positives),
                                         list(draws)))
    return record


RECBOLE_CASES = [
    ("no evaluation", lambda: recbole_capture(_Trainer()).frame(),
     "no sampled evaluation captured yet"),
    ("evaluation 5", lambda: _recbole().frame(5), "evaluation 5 not captured; there are 1"),
    ("evaluation 1.5", lambda: _recbole().frame(1.5), "evaluation must be an integer, got 1.5"),
    ("evaluation a word", lambda: _recbole().correct(["recall@10"], evaluation="last"),
     "evaluation must be an integer, got 'last'"),
    ("evaluation None", lambda: _recbole().metrics(["recall@10"], None),
     "evaluation must be an integer, got None"),
    ("nothing ranked", lambda: _recbole(positives=[]).correct(["recall@10"]),
     "the positions frame: no positives found"),
    ("a positive twice", lambda: _recbole(positives=POSITIVES + POSITIVES[:1]).correct(
        ["recall@10"]), "the positions frame row 40: user u0: position 1 given twice"),
    ("more negatives than the pool", lambda: _recbole(
        positives=POSITIVES[:-1] + [("u39", 3, 20, 50, 7, 50, 0)]).correct(["recall@10"]),
     "the positions frame row 39: user u39: n_negatives 50 above n_nonrelevant 20"),
    ("draws of uniform sampling", lambda: _recbole().draws_frame(),
     "draws are recorded for popularity sampling (pop<N>) only"),
    ("a full ranking corrected", lambda: _recbole("full").correct(["recall@10"]),
     "this evaluation is a full ranking"),
    ("popularity without draws", lambda: _recbole("popularity").correct(["recall@10"]),
     "the positions frame: no draws found"),
    ("a draw's prob 0", lambda: _recbole("popularity", draws=[
        (f"u{u}", 1 + u % 19, 500, 0, 0.002 if u else 0.0) for u in range(40)]).correct(
        ["recall@10"]), "the positions frame row 0 (user u0): '0.0' in column 'prob'"),
]


@pytest.mark.parametrize("call, fragment", [c[1:] for c in RECBOLE_CASES],
                         ids=[c[0] for c in RECBOLE_CASES])
def test_the_recbole_capture_refuses_in_one_line(call, fragment):
    refused(call, [fragment])


# ------------------------------------------------------------------ the SASRec recipe's file
SASREC_LONG = FIXTURES / "sasrec" / "sasrec_long.csv"


def _sasrec_lines():
    return SASREC_LONG.read_text().splitlines()


SASREC_CASES = [
    ("--evaluator ncf", lambda lines: lines, ["--evaluator", "ncf"],
     "{f}: its evaluator column names sasrec, but --evaluator is ncf"),
    ("--sampling hypergeometric", lambda lines: lines, ["--sampling", "hypergeometric"],
     "--sampling 'hypergeometric' contradicts the evaluator column of {f}: 'sasrec'"),
    ("a row of another evaluator", lambda lines: [*lines[:9], lines[9].replace(
        "sasrec", "bert4rec"), *lines[10:]], [],
     "{f}:10: evaluator 'bert4rec', but {f}:2 names 'sasrec'"),
    ("an unknown evaluator", lambda lines: [*lines[:9], lines[9].replace(
        "sasrec", "sas-rec"), *lines[10:]], [], "{f}:10: unknown evaluator 'sas-rec'"),
    ("a position beyond the list", lambda lines: [*lines[:9], "8,102,270,100,sasrec",
                                                  *lines[10:]], [],
     "{f}:10: user 8: position 102 beyond its list of k_u + M_u = 101 items"),
    ("a user twice", lambda lines: [*lines, lines[1]], [],
     "{f}:402: user 0: position 2 given twice"),
]


@pytest.mark.parametrize("edit, extra, fragment", [c[1:] for c in SASREC_CASES],
                         ids=[c[0] for c in SASREC_CASES])
def test_the_sasrec_recipe_file_refuses_a_mistake(tmp_path, capsys, edit, extra, fragment):
    path = write(tmp_path / "sasrec_long.csv", edit(_sasrec_lines()))
    refused_cli(capsys, ["correct", "--ranks", path, *extra], [fragment.format(f=path)])


@pytest.mark.parametrize("variant", ["bom and crlf", "rows reversed", "evaluator given"])
def test_the_sasrec_recipe_file_reads_the_same_written_otherwise(tmp_path, capsys, variant):
    lines = _sasrec_lines()
    extra = []
    if variant == "bom and crlf":
        path = write(tmp_path / "other.csv", lines, bom=True, crlf=True)
    elif variant == "rows reversed":
        path = write(tmp_path / "other.csv", [lines[0], *lines[:0:-1]])
    else:                         # the evaluator as an option instead of a column
        path = write(tmp_path / "other.csv", [x.rsplit(",", 1)[0] for x in lines])
        extra = ["--evaluator", "sasrec"]
    argv = ["--metric", "hit@10,ndcg@10", "--method", "sampled,cls", "--bootstrap", "40",
            "--format", "csv"]
    plain = cli(capsys, "correct", "--ranks", SASREC_LONG, *argv)
    other = cli(capsys, "correct", "--ranks", path, *argv, *extra)
    assert plain[0] == 0 and other[1] == plain[1], other[2]
