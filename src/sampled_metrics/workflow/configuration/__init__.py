"""The workflow's configuration: the plan of what a run makes (``fanout``: which datasets,
views, recommenders, m and model seeds) and the check of a config at ``snakemake -n``
(``check``: duplicate keys, the closed schema, names and references); read by the
Snakefile and ``workflow/rules/common.smk``."""
