# Reproduction of Krichene & Rendle, "On Sampled Metrics for Item Recommendation" (KDD'20).
# Thin on purpose: all logic lives in the `sampled_metrics` library (src/).
#   snakemake --cores all                      # everything (downloads MovieLens-1M)
#   snakemake --cores all --configfile config/offline.yaml   # from a local archive
#   snakemake figures/figure3.pdf              # one artefact
from snakemake.utils import min_version, validate

from sampled_metrics.datasets import check_datasets

min_version("8.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


validate(config, "workflow/schemas/config.schema.yaml")
check_datasets(config.get("datasets", {}))  # each entry against its format (the registry)


include: "workflow/rules/common.smk"
include: "workflow/rules/toy.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/ranks.smk"
include: "workflow/rules/kdd_study.smk"
include: "workflow/rules/jin.smk"
include: "workflow/rules/protocols.smk"


rule all:
    input:
        toy_targets(),
        study_targets(),
        jin_targets(),
        protocols_targets(),
    default_target: True
