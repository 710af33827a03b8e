# Shared helpers for the rules (no science here).

#: software of every rule under --use-conda (path relative to the rule files)
ENV = "../envs/sampled-metrics.yaml"


def toy_targets():
    """Tables 1-2 and Figures 1-4 of the running example (KDD'20 Sec. 3-5)."""
    if not config["toy"]["enabled"]:
        return []
    tables = expand("results/toy/{t}.{ext}", t=["table1", "table2"], ext=["csv", "md", "tex"])
    figs = expand("figures/figure{i}.{ext}", i=[1, 2, 3, 4], ext=["pdf", "png"])
    return tables + figs


def study_datasets():
    """Datasets of the MovieLens study (KDD'20 Sec. 6), in config order."""
    datasets = config.get("study", {}).get("datasets", [])
    unknown = [d for d in datasets if d not in config.get("datasets", {})]
    if unknown:
        raise ValueError(
            f"study.datasets names {unknown} but config 'datasets' defines only "
            f"{sorted(config.get('datasets', {}))}"
        )
    return datasets


def main_dataset():
    datasets = study_datasets()
    return datasets[0] if datasets else "none"


def dataset_spec(name):
    return config["datasets"][name]


def recommender_spec(name):
    recs = config.get("recommenders", {})
    if name not in recs:
        raise ValueError(f"unknown recommender {name!r}; config defines {sorted(recs)}")
    return recs[name]


def rank_files(wildcards):
    """Rank files of the study's recommenders at the study's m."""
    m = config["study"]["m"]
    return {
        rec: f"results/{wildcards.dataset}/ranks/m{m}/{rec}.npz"
        for rec in config["study"]["recommenders"]
    }


def study_targets():
    """Tables 3-4 and Figures 5-6 for every dataset of the study."""
    datasets = study_datasets()
    if not datasets:
        return []
    out = []
    for d in datasets:
        out += expand("results/{d}/{t}.{ext}", d=d, t=["table3", "table4"], ext=["csv", "md", "tex"])
        out += expand("figures/{d}/figure{i}.{ext}", d=d, i=[5, 6], ext=["pdf", "png"])
        out += [f"results/{d}/split_info.json", f"results/{d}/rank_facts.csv"]
    out += expand("figures/figure{i}.{ext}", i=[5, 6], ext=["pdf", "png"])
    return out


def jin_targets():
    """Jin et al. Tables 2 and 4, Figures 2 and 3 for every dataset of the study."""
    if not config.get("jin", {}).get("enabled", False):
        return []
    out = []
    for d in study_datasets():
        out += expand("results/{d}/jin_table{i}.{ext}", d=d, i=[2, 4], ext=["csv", "md", "tex"])
        out += expand("figures/{d}/jin_figure{i}.{ext}", d=d, i=[2, 3], ext=["pdf", "png"])
    if study_datasets():
        out += expand("figures/jin_figure{i}.{ext}", i=[2, 3], ext=["pdf", "png"])
    return out
