# Input functions, wildcard constraints and targets of the workflow (no science here). The
# fan-out (which datasets, recommenders, m and model seeds the config asks for) is
# sampled_metrics.fanout, the one plan configcheck checks too.
import json
import re

from sampled_metrics.fanout import FanOut
from sampled_metrics.recommenders import NEURAL_KINDS, dense_items_matrix, with_model_seed
from sampled_metrics.steps.ranks import shard_count

#: software of every rule under --use-conda (path relative to the rule files)
ENV = "../envs/sampled-metrics.yaml"

#: the fan-out plan of this run's config
PLAN = FanOut(config)
STUDY, JIN, PROTOCOLS = PLAN.study, PLAN.jin, PLAN.protocols


def fit_priority(recommender):
    """Fits that take minutes (the neural recommenders, a dense items x items model) start
    first."""
    spec = PLAN.recommender_spec(recommender)
    return 11 if spec.get("model") in NEURAL_KINDS or dense_items_matrix(spec) else 10


def dense_fit(recommender):
    """Resource ``dense_fit`` of a fit job: 1 if the model is a dense items x items matrix
    (profiles/default allows one such fit at a time: each briefly holds 12 x items^2 bytes)."""
    return int(dense_items_matrix(PLAN.recommender_spec(recommender)))


def get_rank_shards(wildcards):
    """Input function of the gather: the shard files of (dataset, recommender) or, with a
    seed wildcard, of its fit with that model seed, as many as the split's evaluated users
    need (known once the split exists: a checkpoint)."""
    info = checkpoints.split.get(dataset=PLAN.base_of(wildcards.dataset)).output.info
    with open(info) as handle:
        users = json.load(handle)["evaluated_users"]
    seed = f"seed{wildcards.seed}/" if "seed" in wildcards.keys() else ""
    return [
        f"data/{wildcards.dataset}/shards/{wildcards.recommender}/{seed}{k}.npz"
        for k in range(shard_count(users, PLAN.users_per_shard))
    ]


def fit_spec(wildcards):
    """Params of a fit: the catalogue entry, with the model seed of a seed wildcard."""
    spec = PLAN.recommender_spec(wildcards.recommender)
    return with_model_seed(spec, int(wildcards.seed)) if "seed" in wildcards.keys() else spec


def get_model(wildcards):
    """Input function of a shard: the model it ranks (a view ranks its dataset's)."""
    model = wildcards.recommender
    if "seed" in wildcards.keys():
        model = f"{wildcards.recommender}/seed{wildcards.seed}"
    return f"data/{PLAN.base_of(wildcards.dataset)}/models/{model}.pkl"


def shard_sample_sizes(wildcards):
    """Sample sizes of a shard: every (m, repeats) of the recommender; a seed's fit only
    Table 3's."""
    seed = int(wildcards.seed) if "seed" in wildcards.keys() else None
    return PLAN.sample_sizes(wildcards.recommender, wildcards.dataset, seed=seed)


def seed_rank_file(dataset, recommender, seed):
    """The rank file of (dataset, recommender) fitted with model seed ``seed`` (None or the
    recommender's own seed: its default fit)."""
    if seed is None or seed == PLAN.own_seed(recommender):
        return f"results/{dataset}/ranks/{recommender}.npz"
    return f"results/{dataset}/ranks/{recommender}/seed{seed}.npz"


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
        return {
            rec: f"results/{wildcards.dataset}/ranks/{rec}.npz" for rec in recommenders
        }

    return files


def get_corrections_ranks(wildcards):
    return get_rank_files(PLAN.correction_plan(int(wildcards.m))["recommenders"])(wildcards)


def get_estimates(kind, m, recommenders):
    """Input function: per-recommender estimate files (``csv`` or ``pmf``) at m."""
    suffix = ".csv" if kind == "csv" else "_pmf.npz"

    def files(wildcards):
        return {
            rec: f"results/{wildcards.dataset}/m{m}/estimates/{rec}{suffix}"
            for rec in recommenders
        }

    return files


def get_jin_figure_pmfs(wildcards):
    """Input function of Jin et al.'s Figure {i}: {panel label: estimated P(R) file}."""
    return {label: f"results/{wildcards.dataset}/m{m}/estimates/{rec}_pmf.npz"
            for label, (rec, m) in PLAN.jin_figure_panels(int(wildcards.i)).items()}


def jin_figure_title(wildcards):
    """Params of Jin et al.'s Figure {i}: its title."""
    if wildcards.i == "1":
        return f"Jin Fig. 1 ({wildcards.dataset}, m = {JIN['m']})"
    if wildcards.i == "2":
        return f"Jin et al. Figure 2 ({wildcards.dataset}, m = {JIN['m']})"
    return (f"Jin et al. Figure 3 ({wildcards.dataset}, recommender "
            f"{JIN['figure3']['recommender']})")


def toy_targets():
    """Tables 1-2 and Figures 1-4 of the running example (KDD'20 Sec. 3-5)."""
    if not config["toy"]["enabled"]:
        return []
    tables = expand("results/toy/{t}.{ext}", t=["table1", "table2"], ext=["csv", "md", "tex"])
    figs = expand("figures/figure{i}.{ext}", i=[1, 2, 3, 4], ext=["pdf", "png"])
    return tables + figs


def study_targets():
    """Tables 3-4 and Figures 5-6 for every dataset of the study."""
    datasets = PLAN.study_datasets()
    out = []
    for d in datasets:
        out += expand("results/{d}/{t}.{ext}", d=d, t=["table3", "table4"], ext=["csv", "md", "tex"])
        out += expand("figures/{d}/figure{i}.{ext}", d=d, i=[5, 6], ext=["pdf", "png"])
        out += [f"results/{d}/split_info.json", f"results/{d}/rank_facts.csv"]
        if PLAN.model_seeds():
            out += expand("results/{d}/table3_seeds.{ext}", d=d, ext=["csv", "md", "tex"])
    if datasets:
        out += expand("figures/figure{i}.{ext}", i=[5, 6], ext=["pdf", "png"])
    return out


def jin_targets():
    """Jin et al. Tables 2 and 4, Figures 1-3 for every dataset of jin.datasets (default: the
    study's datasets and their views; a view gets no Figure 3, which needs a second m)."""
    out = []
    for d in PLAN.jin_datasets():
        out += expand("results/{d}/jin_table{i}.{ext}", d=d, i=[2, 4], ext=["csv", "md", "tex"])
        out += expand("figures/{d}/jin_figure{i}.{ext}", d=d, i=PLAN.jin_figures(d),
                      ext=["pdf", "png"])
    if PLAN.jin and PLAN.study_datasets():
        out += expand("figures/jin_figure{i}.{ext}", i=PLAN.jin_figures(), ext=["pdf", "png"])
    return out


def get_protocol_runs(wildcards):
    """Input function: the runs CSV of every split of the protocols study."""
    return [f"results/{wildcards.dataset}/protocols/runs_{s}.csv" for s in PROTOCOLS["splits"]]


def protocols_targets(force=False):
    """The protocols study's table, ordering CSV and figure (in rule all when enabled)."""
    if not (force or PROTOCOLS.get("enabled")):
        return []
    out = []
    for d in PLAN.protocols_datasets():
        out += [f"results/{d}/protocols.csv", f"results/{d}/protocols.md",
                f"results/{d}/protocols_ordering.csv"]
        out += expand("figures/{d}/protocols.{ext}", d=d, ext=["pdf", "png"])
    return out
