"""Logging set-up shared by the command line and the workflow scripts."""
from __future__ import annotations

import contextlib
import logging
import sys
import time

__all__ = ["script_logging", "get_logger"]


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
