"""The workflow's configuration: the plan of what a run makes (``fanout``: which datasets,
views, recommenders, m and model seeds), the check of a config at ``snakemake -n``
(``check``: duplicate keys, the closed schema, names and references) and the config keys
renamed in this release, read under their old names with a notice (``renamed``); read by
the Snakefile and ``workflow/rules/common.smk``."""
