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
