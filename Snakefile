# Reproduction of Krichene & Rendle, "On Sampled Metrics for Item Recommendation" (KDD'20).
# Thin on purpose: all logic lives in the `sampled_metrics` library (src/).
#   snakemake --cores all                      # everything (downloads MovieLens-1M)
#   snakemake --cores all --configfile config/offline.yaml   # from a local archive
#   (config/local.yaml, when present, is read by every run: config/README.md)
#   snakemake figures/figure3.pdf              # one artefact
import os
import sys

from snakemake.utils import min_version, validate

from sampled_metrics.workflow.configuration.check import LOCAL_CONFIG, ConfigError, check_config
from sampled_metrics.workflow.summary import print_run_summary

min_version("9.0")  # callable rule priorities (fit)


configfile: "config/config.yaml"


# Your own settings (git-ignored), read by every run after config.yaml when present, e.g. a
# local archive: `cp config/offline.yaml config/local.yaml`. --configfile files come last.
if os.path.isfile(LOCAL_CONFIG):

    configfile: LOCAL_CONFIG


report: "workflow/report/workflow.rst"


# Config mistakes end here, at `snakemake -n`, in one line naming the key (configuration/check.py):
# duplicate YAML keys, the closed schema (each dataset against its format), names, references.
try:
    check_config(config, "workflow/schemas/config.schema.yaml", workflow.configfiles)
except ConfigError as err:
    sys.exit(f"sampled-metrics: {err}")
validate(config, "workflow/schemas/config.schema.yaml")  # fills the schema's defaults


include: "workflow/rules/common.smk"
include: "workflow/rules/toy.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/ranks.smk"
include: "workflow/rules/kdd_study.smk"
include: "workflow/rules/kdd_seeds.smk"
include: "workflow/rules/results_table.smk"
include: "workflow/rules/jin.smk"
include: "workflow/rules/practice.smk"


# Jobs that run where snakemake runs, never as cluster jobs: the gather of a rank file's
# shards, the copies of the papers' figures, and the rules that only name targets.
localrules:
    all,
    practice,
    ranks,
    ranks_seed,
    paper_figure,


rule all:
    input:
        toy_targets(),
        study_targets(),
        table_targets(),
        jin_targets(),
        practice_targets(),
    default_target: True


# After a successful run: where the tables, figures, report and logs are, and Table 3's
# headline, from the files the run wrote (summary.py; it never fails the run).
onsuccess:
    print_run_summary(config, workflow.configfiles)
