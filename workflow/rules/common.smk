# Input functions, wildcard constraints and the fan-out plan of the workflow (no science here).
import json
import re

from sampled_metrics.recommenders import (NEURAL_KINDS, dense_items_matrix, model_seed,
                                         with_model_seed)
from sampled_metrics.steps.ranks import DEFAULT_USERS_PER_SHARD, shard_count

#: software of every rule under --use-conda (path relative to the rule files)
ENV = "../envs/sampled-metrics.yaml"

STUDY = config.get("study", {})
JIN = config.get("jin", {}) if config.get("jin", {}).get("enabled", False) else {}
PROTOCOLS = config.get("protocols", {})


def study_datasets():
    """Datasets of the MovieLens study (KDD'20 Sec. 6), in config order."""
    datasets = STUDY.get("datasets", [])
    unknown = [d for d in datasets if d not in config.get("datasets", {})]
    if unknown:
        raise ValueError(
            f"study.datasets names {unknown} but config 'datasets' defines only "
            f"{sorted(config.get('datasets', {}))}"
        )
    return datasets


def sample_sizes(recommender, dataset=None):
    """{m: repeats} of every sampled evaluation a table or figure needs of this recommender
    (on ``dataset``; any dataset if None): KDD'20 Table 3 (study.m) on the study's datasets,
    Jin et al. Tables 2 and 4 (jin.m) on Jin's datasets and views, Jin Figure 3 (its m values)
    on Jin's datasets but not views.
    """
    sizes = set()
    if recommender in STUDY.get("recommenders", []) and (
        dataset is None or dataset in STUDY.get("datasets", [])
    ):
        sizes.add(STUDY["m"])
    if JIN and (dataset is None or dataset in jin_datasets()):
        if recommender in JIN["recommenders"]:
            sizes.add(JIN["m"])
        if recommender == JIN["figure3"]["recommender"] and not is_view(dataset):
            sizes.update(JIN["figure3"]["m_values"])
    return {m: STUDY["repeats"] for m in sorted(sizes)}


def correction_plan(m):
    """Recommenders, metrics and corrections of the per-repeat corrections at m: the union of
    what Table 3 (at study.m) and Jin's tables (at jin.m) read."""
    recs, metrics, corrections = [], [], []
    for branch in (STUDY, JIN):
        if branch and branch["m"] == m:
            recs += branch["recommenders"]
            metrics += branch["metrics"]
            corrections += branch["corrections"]
    return {key: list(dict.fromkeys(v)) for key, v in
            (("recommenders", recs), ("metrics", metrics), ("corrections", corrections))}


def all_recommenders():
    recs = list(STUDY.get("recommenders", [])) + list(JIN.get("recommenders", []))
    recs += list(PROTOCOLS.get("recommenders", []))
    if JIN:
        recs.append(JIN["figure3"]["recommender"])
    return list(dict.fromkeys(recs))


def all_sample_sizes():
    return sorted({m for rec in all_recommenders() for m in sample_sizes(rec)})


def recommender_spec(name):
    recs = config.get("recommenders", {})
    if name not in recs:
        raise ValueError(f"unknown recommender {name!r}; config defines {sorted(recs)}")
    return recs[name]


for _rec in all_recommenders():
    recommender_spec(_rec)


def views_of(dataset):
    """Views of a dataset (``dataset_protocols`` entries with ``of: dataset``): the same split
    and fits, ranked under another protocol by the dataset's ranks jobs."""
    return [v for v, p in config.get("dataset_protocols", {}).items() if p.get("of") == dataset]


def is_view(dataset):
    """Whether a name is a view (a dataset_protocols entry with ``of``)."""
    return "of" in config.get("dataset_protocols", {}).get(dataset, {})


def dataset_names():
    """Every name a results/ folder can have: the datasets and their views."""
    return list(config.get("datasets", {})) + [
        v for v in config.get("dataset_protocols", {}) if is_view(v)
    ]


def fitted_datasets():
    """Datasets with their own split and fits (views rank their dataset's)."""
    return [d for d in config.get("datasets", {}) if not is_view(d)]


def base_of(dataset):
    """The dataset whose split and fits a dataset or view ranks."""
    return config.get("dataset_protocols", {}).get(dataset, {}).get("of", dataset)


def fit_priority(recommender):
    """Fits that take minutes (the neural recommenders, a dense items x items model) start
    first."""
    spec = recommender_spec(recommender)
    return 11 if spec.get("model") in NEURAL_KINDS or dense_items_matrix(spec) else 10


def dense_fit(recommender):
    """Resource ``dense_fit`` of a fit job: 1 if the model is a dense items x items matrix
    (profiles/default allows one such fit at a time: each briefly holds 12 x items^2 bytes)."""
    return int(dense_items_matrix(recommender_spec(recommender)))


USERS_PER_SHARD = lookup(dpath="ranks/users_per_shard", within=config,
                         default=DEFAULT_USERS_PER_SHARD)


def get_rank_shards(wildcards):
    """Input function of the gather: the shard files of (dataset, recommender) or, with a
    seed wildcard, of its fit with that model seed, as many as the split's evaluated users
    need (known once the split exists: a checkpoint)."""
    info = checkpoints.split.get(dataset=base_of(wildcards.dataset)).output.info
    with open(info) as handle:
        users = json.load(handle)["evaluated_users"]
    seed = f"seed{wildcards.seed}/" if "seed" in wildcards.keys() else ""
    return [
        f"data/{wildcards.dataset}/shards/{wildcards.recommender}/{seed}{k}.npz"
        for k in range(shard_count(users, USERS_PER_SHARD))
    ]


# Model seeds (study.model_seeds): each recommender with a seed is fitted once per seed;
# one whose fit draws nothing (item-kNN, EASE) once. A seed equal to the catalogue's own is
# the default fit (same file).
MODEL_SEEDS = [s for s in STUDY.get("model_seeds") or [] if s is not None]


def own_seed(recommender):
    """The catalogue's seed of a recommender; None if its fit draws nothing."""
    return model_seed(recommender_spec(recommender))


def seeded_recommenders():
    """Study recommenders fitted once per model seed."""
    return [r for r in STUDY.get("recommenders", []) if own_seed(r) is not None]


def extra_seeds(recommender):
    """The model seeds of a recommender that need a fit of their own (not the default's)."""
    if own_seed(recommender) is None:
        return []
    return [s for s in MODEL_SEEDS if s != own_seed(recommender)]


def fit_spec(wildcards):
    """Params of a fit: the catalogue entry, with the model seed of a seed wildcard."""
    spec = recommender_spec(wildcards.recommender)
    return with_model_seed(spec, int(wildcards.seed)) if "seed" in wildcards.keys() else spec


def get_model(wildcards):
    """Input function of a shard: the model it ranks (a view ranks its dataset's)."""
    model = wildcards.recommender
    if "seed" in wildcards.keys():
        model = f"{wildcards.recommender}/seed{wildcards.seed}"
    return f"data/{base_of(wildcards.dataset)}/models/{model}.pkl"


def shard_sample_sizes(wildcards):
    """Sample sizes of a shard: every (m, repeats) of the recommender; a seed's fit only
    Table 3's."""
    if "seed" in wildcards.keys():
        return {STUDY["m"]: STUDY["repeats"]}
    return sample_sizes(wildcards.recommender, wildcards.dataset)


def seed_rank_file(dataset, recommender, seed):
    """The rank file of (dataset, recommender) fitted with model seed ``seed`` (None: the
    recommender's fit without a seed)."""
    if seed is None or seed == own_seed(recommender):
        return f"results/{dataset}/ranks/{recommender}.npz"
    return f"results/{dataset}/ranks/{recommender}/seed{seed}.npz"


def seed_plan():
    """(recommender, seed) of every fit the seeds table reads, seed None for a recommender
    fitted once; in the order of study.recommenders and study.model_seeds."""
    return [(r, s) for r in STUDY.get("recommenders", [])
            for s in (MODEL_SEEDS if own_seed(r) is not None else [None])]


def get_seed_rank_files(wildcards):
    """Input function: the rank files of :func:`seed_plan`, in its order."""
    return [seed_rank_file(wildcards.dataset, r, s) for r, s in seed_plan()]


def alternatives(values):
    return "|".join(re.escape(str(v)) for v in values) or "(?!)"


wildcard_constraints:
    dataset=alternatives(dataset_names()),
    split="last|holdout",
    recommender=alternatives(all_recommenders()),
    m=alternatives(all_sample_sizes()),
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
    return get_rank_files(correction_plan(int(wildcards.m))["recommenders"])(wildcards)


def get_estimates(kind, m, recommenders):
    """Input function: per-recommender estimate files (``csv`` or ``pmf``) at m."""
    suffix = ".csv" if kind == "csv" else "_pmf.npz"

    def files(wildcards):
        return {
            rec: f"results/{wildcards.dataset}/m{m}/estimates/{rec}{suffix}"
            for rec in recommenders
        }

    return files


def dataset_protocol(dataset):
    """Candidates and law of the negatives of a dataset's rank files: the study's
    (items outside the training set, study.sampling) unless config ``dataset_protocols`` names the
    dataset (e.g. Jin et al.'s: all items, negatives with replacement)."""
    default = {"candidates": "unseen", "sampling": STUDY.get("sampling", "hypergeometric")}
    given = config.get("dataset_protocols", {}).get(dataset, {})
    return {**default, **{k: v for k, v in given.items() if k != "of"}}


def jin_figures():
    """Numbers of Jin et al.'s figures the config asks for (Figure 1 if jin.figure1)."""
    return [1, 2, 3] if "figure1" in JIN else [2, 3]


def jin_datasets():
    """Datasets of Jin et al.'s tables and figures: jin.datasets, else the study's."""
    datasets = JIN.get("datasets") or [
        v for d in study_datasets() for v in [d] + views_of(d)
    ]
    unknown = [d for d in datasets if d not in dataset_names()]
    if unknown:
        raise ValueError(
            f"jin.datasets names {unknown} but config 'datasets' defines only "
            f"{sorted(config.get('datasets', {}))}"
        )
    return datasets


def main_dataset():
    datasets = study_datasets()
    return datasets[0] if datasets else "none"


def toy_targets():
    """Tables 1-2 and Figures 1-4 of the running example (KDD'20 Sec. 3-5)."""
    if not config["toy"]["enabled"]:
        return []
    tables = expand("results/toy/{t}.{ext}", t=["table1", "table2"], ext=["csv", "md", "tex"])
    figs = expand("figures/figure{i}.{ext}", i=[1, 2, 3, 4], ext=["pdf", "png"])
    return tables + figs


def study_targets():
    """Tables 3-4 and Figures 5-6 for every dataset of the study."""
    datasets = study_datasets()
    out = []
    for d in datasets:
        out += expand("results/{d}/{t}.{ext}", d=d, t=["table3", "table4"], ext=["csv", "md", "tex"])
        out += expand("figures/{d}/figure{i}.{ext}", d=d, i=[5, 6], ext=["pdf", "png"])
        out += [f"results/{d}/split_info.json", f"results/{d}/rank_facts.csv"]
        if MODEL_SEEDS:
            out += expand("results/{d}/table3_seeds.{ext}", d=d, ext=["csv", "md", "tex"])
    if datasets:
        out += expand("figures/figure{i}.{ext}", i=[5, 6], ext=["pdf", "png"])
    return out


def jin_targets():
    """Jin et al. Tables 2 and 4, Figures 1-3 for every dataset of jin.datasets (default: the
    study's datasets and their views; a view gets no Figure 3, which needs a second m)."""
    if not JIN:
        return []
    out = []
    for d in jin_datasets():
        out += expand("results/{d}/jin_table{i}.{ext}", d=d, i=[2, 4], ext=["csv", "md", "tex"])
        figures = [i for i in jin_figures() if i != 3 or not is_view(d)]  # Fig. 3: m = 499 too
        out += expand("figures/{d}/jin_figure{i}.{ext}", d=d, i=figures, ext=["pdf", "png"])
    if study_datasets():
        out += expand("figures/jin_figure{i}.{ext}", i=jin_figures(), ext=["pdf", "png"])
    return out


def get_protocol_runs(wildcards):
    """Input function: the runs CSV of every split of the protocols study."""
    return [f"results/{wildcards.dataset}/protocols/runs_{s}.csv" for s in PROTOCOLS["splits"]]


def protocols_targets(force=False):
    """The protocols study's table, ordering CSV and figure (in rule all when enabled)."""
    if not PROTOCOLS or not (force or PROTOCOLS.get("enabled")):
        return []
    unknown = [d for d in PROTOCOLS["datasets"] if d not in config.get("datasets", {})]
    if unknown:
        raise ValueError(f"protocols.datasets names {unknown} but config 'datasets' defines "
                         f"only {sorted(config.get('datasets', {}))}")
    out = []
    for d in PROTOCOLS["datasets"]:
        out += [f"results/{d}/protocols.csv", f"results/{d}/protocols.md",
                f"results/{d}/protocols_ordering.csv"]
        out += expand("figures/{d}/protocols.{ext}", d=d, ext=["pdf", "png"])
    return out
