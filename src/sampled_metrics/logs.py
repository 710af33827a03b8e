"""Logging set-up shared by the command line and the workflow scripts, and the progress
report of long computations (:func:`progress`)."""
from __future__ import annotations

import contextlib
import logging
import shutil
import sys
import time

__all__ = ["script_logging", "cli_logging", "get_logger", "progress", "Progress", "PROGRESS_LOGGER"]

#: Logger of the progress lines written when stderr is not a terminal.
PROGRESS_LOGGER = "sampled_metrics.progress"
#: Seconds before the first progress log line and between two of them (not a terminal).
LOG_AFTER, LOG_EVERY = 2.0, 10.0
#: Seconds between two redraws of the progress line (terminal).
DRAW_EVERY = 0.1
#: Characters of the progress bar.
BAR_WIDTH = 20


def get_logger(name: str = "sampled_metrics") -> logging.Logger:
    return logging.getLogger(name)


@contextlib.contextmanager
def script_logging(smk):
    """Inside a Snakemake ``script:``: log to the rule's ``log:`` file (and stderr), record the
    wall time, and turn a user error (``ValueError``) into one clear line plus exit code 1."""
    handlers = [logging.StreamHandler(sys.stderr)]
    if smk.log:
        handlers.append(logging.FileHandler(str(smk.log[0]), mode="w"))
    logging.basicConfig(level=logging.INFO, handlers=handlers, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = get_logger()
    start = time.perf_counter()
    log.info("rule %s: start", smk.rule)
    try:
        yield log
    except ValueError as err:
        log.error("rule %s: %s", smk.rule, err)
        sys.exit(1)
    log.info("rule %s: done in %.2f s", smk.rule, time.perf_counter() - start)


def cli_logging() -> None:
    """For the command line: warnings of the library and progress lines (:func:`progress`)
    on stderr, one line each; the library's INFO lines (one per fit) stay silent. Leaves a
    logging set-up that is already in place (an embedding program's) alone."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s: %(message)s")
    get_logger(PROGRESS_LOGGER).setLevel(logging.INFO)


class Progress:
    """Progress of ``total`` steps (None: unknown), reported on ``stream``.

    On a terminal a single line ``label done/total [#####.....] seconds detail`` is redrawn
    in place (when the detail changes, else at most every ``DRAW_EVERY`` s) and erased at
    the end. Otherwise, so that logs and pipes stay short: a log line on the
    ``PROGRESS_LOGGER`` logger once ``LOG_AFTER`` s have passed, then at most every
    ``LOG_EVERY`` s, and a last one with the total time if any was written (quick runs
    write nothing). Use it through :func:`progress`.
    """

    def __init__(self, label: str, total: int | None = None, stream=None):
        self.label, self.total, self.done, self.detail = label, total, 0, ""
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self.last = -float("inf") if self.tty else self.start    # a terminal: draw at once
        self.logged = False
        self._width = 0

    def advance(self, steps: int = 1, detail: str = "") -> None:
        """Count ``steps`` more steps done (0: only say what is being done now, ``detail``)."""
        self.done += steps
        news = bool(detail) and detail != self.detail
        self.detail = detail or self.detail
        now = time.perf_counter()
        if self.tty and (news or now - self.last >= DRAW_EVERY):
            self._draw(self.text())
            self.last = now
        elif not self.tty and now - (self.last if self.logged else self.start) >= (
                LOG_EVERY if self.logged else LOG_AFTER):
            get_logger(PROGRESS_LOGGER).info("%s", self.text())
            self.logged, self.last = True, now

    def text(self) -> str:
        """``label done/total [bar] elapsed detail`` (no bar when the total is unknown)."""
        parts = [self.label]
        if self.total:
            filled = int(BAR_WIDTH * min(self.done, self.total) / self.total)
            parts.append(f"{self.done}/{self.total} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}]")
        parts.append(f"{time.perf_counter() - self.start:.1f} s")
        if self.detail:
            parts.append(self.detail)
        return " ".join(parts)

    def close(self) -> None:
        """Erase the terminal line, or log the total time if a progress line was logged."""
        if self.tty and self._width:
            self._draw("")
        elif self.logged:
            get_logger(PROGRESS_LOGGER).info("%s: done in %.1f s", self.label,
                                             time.perf_counter() - self.start)

    def _draw(self, text: str) -> None:
        text = text[:shutil.get_terminal_size().columns - 1]      # one line, never wrapped
        self.stream.write("\r" + text.ljust(self._width) + ("\r" if not text else ""))
        self.stream.flush()
        self._width = len(text)


@contextlib.contextmanager
def progress(label: str, total: int | None = None, stream=None):
    """Report the progress of a long computation on stderr (see :class:`Progress`).

    Parameters
    ----------
    label : str
        What is computed, e.g. ``'sampled-metrics estimate'``.
    total : int, optional
        Number of steps, if known.
    stream : file, optional
        Where the terminal line goes (default ``sys.stderr``).

    Yields
    ------
    Progress
        Call its ``advance(steps=1, detail='')`` after each step.
    """
    bar = Progress(label, total, stream)
    try:
        yield bar
    finally:
        bar.close()
