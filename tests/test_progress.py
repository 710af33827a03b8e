import io
import logging

import sampled_metrics.logs as logs
from sampled_metrics.logs import PROGRESS_LOGGER, progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_terminal_line_is_redrawn_and_erased():
    out = Terminal()
    with progress("job", total=4, stream=out) as bar:
        bar.advance(0, "first")
        bar.advance(2, "second")
    text = out.getvalue()
    frames = text.split("\r")[1:]
    assert frames[0].startswith("job 0/4 [" + "." * logs.BAR_WIDTH + "]") and "first" in frames[0]
    half = "#" * (logs.BAR_WIDTH // 2) + "." * (logs.BAR_WIDTH // 2)
    assert frames[1].startswith(f"job 2/4 [{half}]") and "second" in frames[1]
    assert frames[-2].strip() == "" and len(frames[-2]) == len(frames[1].rstrip())
    assert "\n" not in text


def test_not_a_terminal_logs_a_few_lines_only_when_slow(monkeypatch, caplog):
    out = io.StringIO()
    caplog.set_level(logging.INFO, logger=PROGRESS_LOGGER)
    with progress("quick", total=2, stream=out) as bar:
        bar.advance()
        bar.advance()
    assert out.getvalue() == "" and not caplog.records
    monkeypatch.setattr(logs, "LOG_AFTER", 0.0)
    monkeypatch.setattr(logs, "LOG_EVERY", 3600.0)
    with progress("slow", total=3, stream=out) as bar:
        for step in range(3):
            bar.advance(detail=f"step {step}")
    messages = [r.getMessage() for r in caplog.records]
    assert out.getvalue() == "" and len(messages) == 2
    assert messages[0].startswith("slow 1/3 [") and messages[0].endswith("step 0")
    assert messages[1].startswith("slow: done in ")


def test_fits_and_ranking_report_their_progress(monkeypatch, caplog):
    """Long steps say how far they are: an iALS fit per sweep, the ranking per block of
    users (here on a log, as in a workflow job; quick runs would stay silent)."""
    import numpy as np
    import scipy.sparse as sp

    from sampled_metrics.datasets import Split
    from sampled_metrics.evaluation import evaluate
    from sampled_metrics.recommenders import make_recommender
    monkeypatch.setattr(logs, "LOG_AFTER", 0.0)
    monkeypatch.setattr(logs, "LOG_EVERY", 0.0)
    caplog.set_level(logging.INFO, logger=PROGRESS_LOGGER)
    rng = np.random.default_rng(0)
    train = sp.csr_matrix((rng.random((60, 40)) < 0.2).astype(np.float64))
    model = make_recommender("ials", factors=4, iterations=3, seed=0).fit(train)
    sweeps = [r.getMessage() for r in caplog.records if r.getMessage().startswith("fit iALS")]
    assert any(m.startswith("fit iALS 3/3") for m in sweeps), sweeps
    users = np.arange(60)
    test = np.array([int(np.flatnonzero(train[u].toarray()[0] == 0)[0]) for u in users])
    split = Split(train=train, test_items=test, users=users)
    caplog.clear()
    evaluate(model, split, {5: 2}, seed=0)
    assert any(r.getMessage().startswith("rank users 60/60") for r in caplog.records), \
        [r.getMessage() for r in caplog.records]
