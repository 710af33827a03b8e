"""What the workflow's jobs load before their work. Every job is a fresh Python process that
imports its step module (``workflow/scripts/*.py``), about 45 times in a MovieLens-1M run, so
a heavy package a step does not use costs every one of its jobs: the steps that only compute
load no plotting library, and none loads SciPy's statistics (the recommended interval's two
quantiles come from ``scipy.special``, as ``scipy.stats`` computes them).

``workflow/benchmarks/bench_startup.py --steps`` times these imports.
"""
import subprocess
import sys

import pytest

#: step module -> packages it must not load
HEAVY = ("matplotlib", "scipy.stats", "torch", "implicit", "snakemake")
STEPS = {
    "sampled_metrics.datasets": HEAVY + ("numba", "sampled_metrics.compare.paired"),
    "sampled_metrics.workflow.steps.gather": HEAVY,
    "sampled_metrics.workflow.steps.kdd_study": HEAVY + ("sampled_metrics.intervals",
                                                         "sampled_metrics.compare.paired"),
    "sampled_metrics.workflow.steps.jin": HEAVY + ("sampled_metrics.intervals",
                                                   "sampled_metrics.compare.paired"),
    "sampled_metrics.workflow.steps.toy": HEAVY,
    "sampled_metrics.workflow.steps.ranks": HEAVY,
    "sampled_metrics.workflow.steps.plots": ("scipy.stats", "torch", "sampled_metrics.intervals"),
    "sampled_metrics.workflow.steps.results_table": ("scipy.stats", "torch"),
}


@pytest.mark.parametrize("step", sorted(STEPS))
def test_a_step_loads_only_what_it_uses(step):
    code = (f"import sys, {step}\n"
            f"print(' '.join(m for m in {STEPS[step]!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.split()
    assert not loaded, f"{step} loads {', '.join(loaded)}"


def test_the_probe_sees_what_a_step_loads():
    """The probe of the test above, on a step that does load the plotting library."""
    code = ("import sys, sampled_metrics.workflow.steps.plots\n"
            "print('matplotlib' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "True"
