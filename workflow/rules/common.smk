# Input functions, wildcard constraints and targets of the workflow (no science here). The
# fan-out (which datasets, recommenders, m and model seeds the config asks for) is
# sampled_metrics.workflow.configuration.fanout, the one plan the config check walks too. Config access:
# the fan-out and the catalogues' entries through PLAN; a rule's params (config values handed to
# its script) through lookup(dpath=..., within=config).
import json
import re
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.io import is_flagged

from sampled_metrics.datasets import archive_identity
from sampled_metrics.workflow.configuration.fanout import PAPER_DATASET, FanOut
from sampled_metrics.recommenders import dense_items_matrix, needs_torch, with_model_seed
from sampled_metrics.workflow.steps.ranks import shard_count

#: software of every rule under --use-conda (paths relative to the rule files); the jobs that
#: fit or score a neural recommender need PyTorch too
ENV = "../envs/sampled-metrics.yaml"
NEURAL_ENV = "../envs/neural.yaml"

#: the fan-out plan of this run's config
PLAN = FanOut(config)


def fit_priority(recommender):
    """Fits that take minutes (the neural recommenders, a dense items x items model) start
    first."""
    spec = PLAN.recommender_spec(recommender)
    return 11 if needs_torch(spec) or dense_items_matrix(spec) else 10


def estimates_priority(m):
    """Jin et al.'s estimates at m: 5 at m < 100 up to 9 from m = 400 on (an EM iteration
    costs O(m)), so that the longest job of the run does not start last."""
    return 5 + min(4, int(m) // 100)


def model_env(wildcards):
    """The conda environment of a job that fits or scores ``wildcards.recommender``."""
    spec = PLAN.recommender_spec(wildcards.recommender)
    return NEURAL_ENV if needs_torch(spec) else ENV


def dense_fit(recommender):
    """Resource ``dense_fit`` of a fit job: 1 if the model is a dense items x items matrix
    (profiles/default allows one such fit at a time: each briefly holds 12 x items^2 bytes)."""
    return int(dense_items_matrix(PLAN.recommender_spec(recommender)))


def output_path(pattern, **wildcards):
    """The one file of a rule's output ``pattern`` with ``wildcards`` filled in."""
    (path,) = expand(pattern, **wildcards)
    return path


def split_identity(wildcards):
    """Params of the split: the dataset's identity (the archive's) and, when users with too
    few candidates are left out, the m that decides which."""
    identity = archive_identity(PLAN.dataset_spec(wildcards.dataset))
    options = PLAN.split_options(wildcards.dataset)
    if options["drop_few_candidates"]:
        identity["drop_users_with_few_candidates"] = options["m"]
    return identity


def get_rank_shards(wildcards):
    """Input function of the gather: the shard files of (dataset, recommender) or, with a
    seed wildcard, of its fit with that model seed, as many as the split's evaluated users
    need (known once the split exists: a checkpoint)."""
    info = checkpoints.split.get(dataset=PLAN.base_of(wildcards.dataset)).output.info
    with open(info) as handle:
        users = json.load(handle)["evaluated_users"]
    shards = rules.ranks_shard_seed if "seed" in wildcards.keys() else rules.ranks_shard
    return expand(shards.output[0], **wildcards,
                  shard=range(shard_count(users, PLAN.users_per_shard)))


def fit_spec(wildcards):
    """Params of a fit: the catalogue entry, with the model seed of a seed wildcard."""
    spec = PLAN.recommender_spec(wildcards.recommender)
    return with_model_seed(spec, int(wildcards.seed)) if "seed" in wildcards.keys() else spec


def get_split(wildcards):
    """Input function of a shard: the split it ranks (a view ranks its dataset's)."""
    return output_path(rules.split.output.split, dataset=PLAN.base_of(wildcards.dataset))


def get_model(wildcards):
    """Input function of a shard: the model it ranks (a view ranks its dataset's)."""
    fit = rules.fit_seed if "seed" in wildcards.keys() else rules.fit
    return output_path(fit.output[0], **{**wildcards, "dataset": PLAN.base_of(wildcards.dataset)})


def shard_sample_sizes(wildcards):
    """Sample sizes of a shard: every (m, repeats) of the recommender; a seed's fit only
    Table 3's."""
    seed = int(wildcards.seed) if "seed" in wildcards.keys() else None
    return PLAN.sample_sizes(wildcards.recommender, wildcards.dataset, seed=seed)


def seed_rank_file(dataset, recommender, seed):
    """The rank file of (dataset, recommender) fitted with model seed ``seed`` (None or the
    recommender's own seed: its default fit)."""
    if seed is None or seed == PLAN.own_seed(recommender):
        return output_path(rules.ranks.output[0], dataset=dataset, recommender=recommender)
    return output_path(rules.ranks_seed.output[0], dataset=dataset, recommender=recommender,
                       seed=seed)


def get_seed_rank_files(wildcards):
    """Input function: the rank files of the seeds table (FanOut.seed_plan), in its order."""
    return [seed_rank_file(wildcards.dataset, r, s) for r, s in PLAN.seed_plan()]


def alternatives(values):
    return "|".join(re.escape(str(v)) for v in values) or "(?!)"


wildcard_constraints:
    dataset=alternatives(PLAN.dataset_names()),
    split="last|holdout",
    recommender=alternatives(PLAN.all_recommenders()),
    m=alternatives(PLAN.all_sample_sizes()),
    shard=r"\d+",
    seed=r"\d+",


def get_rank_files(recommenders):
    """Input function: {recommender: rank file} of the dataset."""

    def files(wildcards):
        return {rec: output_path(rules.ranks.output[0], dataset=wildcards.dataset,
                                 recommender=rec) for rec in recommenders}

    return files


def get_corrections_ranks(wildcards):
    plan = PLAN.correction_plan(int(wildcards.m), wildcards.dataset)
    return get_rank_files(plan["recommenders"])(wildcards)


def get_estimates(kind, m, recommenders):
    """Input function: per-recommender estimate files (``kind`` ``csv`` or ``pmf``) at m."""

    def files(wildcards):
        return {rec: output_path(rules.estimates.output[kind], dataset=wildcards.dataset, m=m,
                                 recommender=rec) for rec in recommenders}

    return files


def get_jin_figure_pmfs(wildcards):
    """Input function of Jin et al.'s Figure {i}: {panel label: estimated P(R) file}."""
    return {label: output_path(rules.estimates.output.pmf, dataset=wildcards.dataset, m=m,
                               recommender=rec)
            for label, (rec, m) in PLAN.jin_figure_panels(int(wildcards.i)).items()}


def jin_figure_title(wildcards):
    """Params of Jin et al.'s Figure {i}: its title."""
    what = (f"recommender {PLAN.jin['figure3']['recommender']}" if wildcards.i == "3"
            else f"m = {PLAN.jin['m']}")
    return f"Jin et al. Figure {wildcards.i} ({wildcards.dataset}, {what})"


def artefacts(rule_file, **values):
    """The files of the tables and figures of ``workflow/rules/<rule_file>``: the outputs of
    its rules that have a caption (an output marked ``report(...)``), in the order of the
    file, each rule's wildcards filled in from ``values`` ({wildcard: its values}). A rule
    with a caption is thereby a target of ``all``; the intermediate rules have none."""
    out = []
    # (named so: --lint takes the word rule, a space and a colon on one line for a rule)
    for definition in workflow.rules:
        if Path(definition.snakefile).name != rule_file or not any(
                is_flagged(f, "report") for f in definition.output):
            continue
        missing = definition.wildcard_names - values.keys()
        if missing:
            raise WorkflowError(f"{rule_file}, {definition.name}: its targets give no values "
                                f"of the wildcard(s) {', '.join(sorted(missing))}")
        outputs = getattr(rules, definition.name).output  # without the wildcard constraints
        out += expand(list(outputs), **{k: values[k] for k in definition.wildcard_names})
    return out


def toy_targets():
    """Tables 1-2 and Figures 1-4 of the running example (KDD'20 Sec. 3-5)."""
    if not PLAN.toy:
        return []
    return artefacts("toy.smk", i=[1, 2, 3, 4])


def study_targets():
    """Tables 3-4 and Figures 5-6 for every dataset of the study, Table 3 over the model
    seeds where the config has some, and the top-level copies of ml-1m's Figures 5-6."""
    datasets = PLAN.study_datasets()
    out = artefacts("kdd_study.smk", dataset=datasets)
    out += expand(rules.split.output.info, dataset=datasets)
    if PLAN.model_seeds():
        out += artefacts("kdd_seeds.smk", dataset=datasets)
    out += expand(rules.paper_figure.output, ext=["pdf", "png"],
                  name=[n for n in PLAN.paper_figures() if not n.startswith("jin_")])
    return out


def table_targets():
    """The results table and its figure for every dataset of the study, when the config
    names the table's recommenders (study.results_table)."""
    return artefacts("results_table.smk", dataset=PLAN.table_datasets())


def jin_targets():
    """Jin et al. Tables 2 and 4, Figures 1-3 for every dataset of jin.datasets (default: the
    study's datasets and their views; a view gets no Figure 3, which needs a second m), and
    the top-level copies of ml-1m's."""
    out = []
    for d in PLAN.jin_datasets():
        out += artefacts("jin.smk", dataset=[d], i=PLAN.jin_figures(d))
    out += expand(rules.paper_figure.output, ext=["pdf", "png"],
                  name=[n for n in PLAN.paper_figures() if n.startswith("jin_")])
    return out


def get_practice_runs(wildcards):
    """Input function: the runs CSV of every split of the practice study."""
    return expand(rules.practice_runs.output, dataset=wildcards.dataset,
                  split=PLAN.practice["splits"])


def practice_targets(force=False):
    """The practice study's table, ordering CSV and figure (in rule all when enabled)."""
    if not (force or PLAN.practice.get("enabled")):
        return []
    return artefacts("practice.smk", dataset=PLAN.practice_datasets())
