"""The Snakemake workflow's own code, not part of the library's API: one function per
artefact of each branch (``steps``), the config's check and fan-out plan
(``configuration``), the tables' renderings (``tables``), the figures (``figures``), the
running example (``toy``), the papers' printed numbers (``paper``) and the lines a run ends
with (``summary``).

It needs the ``workflow`` extra (``pip install "sampled-metrics[workflow]"``): without it,
importing this package names what is missing instead of failing deep in a module.
"""
from importlib.util import find_spec

#: the workflow extra's modules this package imports (PyYAML, jsonschema, Matplotlib)
NEEDS = ("yaml", "jsonschema", "matplotlib")

_missing = [name for name in NEEDS if find_spec(name) is None]
if _missing:
    raise ImportError(f"sampled_metrics.workflow needs the workflow extra ({', '.join(_missing)} "
                      f"missing): pip install 'sampled-metrics[workflow]'")
