#!/usr/bin/env bash
# Run by Snakemake inside the new conda environment, from the workflow's working directory
# (the checkout): install the sampled_metrics library itself, without touching the
# conda-provided dependencies.
set -euo pipefail
python -m pip install --no-deps --no-build-isolation -e .
