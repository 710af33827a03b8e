"""One command-line vocabulary: an option has the same name, help and default in every command
that takes it; the method choices in the help are the registries'; the tables fit 100
columns; one reader resolves n, m and the law against a rank file for every command."""
import numpy as np
import pytest
from conftest import run_cli, toy_rank_file

from sampled_metrics.cli import build_parser
from sampled_metrics.registry import COMPARE_METHODS, CORRECT_METHODS, CORRECTIONS, ESTIMATORS

COMMANDS = build_parser()._subparsers._group_actions[0].choices


def _options(command: str) -> dict:
    """option string -> its argparse action, for one command."""
    return {s: a for a in COMMANDS[command]._actions for s in a.option_strings}


def test_every_option_is_lower_case_and_has_one_default():
    seen = {}
    for command in COMMANDS:
        for name, action in _options(command).items():
            assert name == name.lower(), (command, name)
            if name in ("--method", "--bootstrap"):
                continue            # the command's registry; a mean's draws or a refit's
            if name == "--shape" and command == "bound":
                continue            # bound lists the shapes whose bounds it compares
            seen.setdefault(name, set()).add((action.default, action.type, action.choices
                                              if name != "--sampling" else None))
    differing = {k: v for k, v in seen.items() if len(v) > 1}
    assert not differing, differing


def test_the_metric_default_is_one():
    defaults = {c: _options(c)["--metric"].default for c in COMMANDS if "--metric" in
                _options(c)}
    assert set(defaults) == {"correct", "estimate", "plan", "compare", "table", "bound"}
    assert set(defaults.values()) == {"recall@10,ndcg@10,ap"}


@pytest.mark.parametrize("command, registry", [("correct", CORRECT_METHODS),
                                               ("plan", CORRECTIONS),
                                               ("estimate", ESTIMATORS),
                                               ("compare", COMPARE_METHODS),
                                               ("table", CORRECTIONS)])
def test_method_help_lists_its_registry(command, registry):
    text = " ".join(_options(command)["--method"].help.split())
    for label in registry.labels():
        assert label in text, (command, label)


def test_old_spellings_are_gone():
    for command, old in (("correct", "--correction"), ("plan", "--correction"),
                         ("estimate", "--estimator"), ("estimate", "--C"),
                         ("compare", "--a"), ("bound", "--target"), ("correct", "--max-m")):
        assert old not in _options(command), (command, old)


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["--version"])
    assert stop.value.code == 0
    from importlib.metadata import version
    assert capsys.readouterr().out.strip() == f"sampled-metrics {version('sampled-metrics')}"


@pytest.fixture
def rank_file(tmp_path):
    rng = np.random.default_rng(3)
    path = tmp_path / "X.npz"
    toy_rank_file(rng.integers(1, 400, 300), 400, 30, rng, repeats=2,
                  sampling="hypergeometric", recommender="X").write(path)
    return path


def test_every_default_table_fits_100_columns(capsys, rank_file, tmp_path):
    other = tmp_path / "Y.npz"
    rng = np.random.default_rng(4)
    toy_rank_file(rng.integers(1, 400, 300), 400, 30, rng, repeats=2,
                  sampling="hypergeometric", recommender="Y").write(other)
    runs = [["correct", "--ranks", str(rank_file)],
            ["estimate", "--ranks", str(rank_file), "--bootstrap", "40"],
            ["plan", "--n", "400", "--target-bias", "0.05"],
            ["compare", str(rank_file), str(other), "--bootstrap", "200"],
            ["table", str(rank_file), str(other), "--bootstrap", "400"],
            ["bound", "--n", "3706", "--m", "100", "--observed", "hr@10=0.730"],
            ["evaluators"], ["methods"]]
    for argv in runs:
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, (argv, err)
        widths = [len(line) for line in out.splitlines()]
        assert widths and max(widths) <= 100, (argv, max(widths))


def test_a_contradicting_sampling_law_is_refused_by_every_command(capsys, rank_file):
    for argv in (["correct", "--ranks", str(rank_file)],
                 ["estimate", "--ranks", str(rank_file)],
                 ["compare", str(rank_file), str(rank_file)],
                 ["table", str(rank_file), str(rank_file), "--names", "a,b"]):
        code, _, err = run_cli(capsys, *argv, "--sampling", "binomial")
        assert code == 2 and "ranks were drawn hypergeometric, but --sampling is binomial" \
            in err and err.count("\n") == 1, (argv, err)


def test_every_option_is_the_keyword_of_the_library_function_it_goes_to():
    """Each option's dest is a parameter (or, comma-separated, the plural parameter) of a
    function its command calls, read from the signatures; the exceptions are few, each with
    its reason, none stale (an exception whose option has become a keyword is refused)."""
    import inspect

    from sampled_metrics.cli.vocabulary import CALLS, EXCEPTIONS, _function, vocabulary
    rows = vocabulary()
    assert {row.command for row in rows} == set(COMMANDS) == set(CALLS)
    unmatched = [row for row in rows if row.keyword is None and not row.reason]
    assert not unmatched, unmatched
    used = set()
    for command, sub in COMMANDS.items():
        params = {p for path in CALLS[command]
                  for p in inspect.signature(_function(path)).parameters}
        for action in sub._actions:
            key = next((k for k in ((command, action.dest), ("*", action.dest))
                        if k in EXCEPTIONS), None)
            if key is None:
                continue
            used.add(key)
            assert action.dest not in params, (command, action.dest)
            keyword = EXCEPTIONS[key][0]
            assert keyword is None or keyword in params, (command, action.dest, keyword)
    assert used == set(EXCEPTIONS), set(EXCEPTIONS) - used
    assert len(EXCEPTIONS) <= 25


def test_renamed_keywords_are_gone():
    """The library's old names of the command line's ideas, renamed without an alias."""
    import inspect

    import sampled_metrics as sm
    from sampled_metrics.compare.paired import compare_positives
    from sampled_metrics.intervals.table import correct_positions
    for function, old, new in ((correct_positions, "max_m", "thin_to"),
                               (compare_positives, "max_m", "thin_to"),
                               (sm.results_table, "max_m", "thin_to"),
                               (sm.results_table, "method", "verdict_method"),
                               (sm.compare_ranks, "paired", "pairing"),
                               (sm.required_sample_size, "target", "target_bias"),
                               (sm.bound_full_metric, "target", "metric")):
        params = inspect.signature(function).parameters
        assert old not in params and new in params, (function.__name__, old)
