# Jin et al. (AAAI'21): metric@K from estimated rank distributions (Tables 2 and 4,
# Figures 2 and 3), on the same kind of rank files as KDD'20 Table 3.


rule jin_estimates:
    input:
        "results/{dataset}/ranks/m{m}/{recommender}.npz",
    output:
        csv="results/{dataset}/jin/m{m}/{recommender}.csv",
        pmf="results/{dataset}/jin/m{m}/{recommender}_pmf.npz",
    params:
        metrics=config.get("jin", {}).get("metrics"),
        distributions=config.get("jin", {}).get("distributions"),
        options=config.get("jin", {}).get("options", {}),
        sampling=config["study"]["sampling"],
    wildcard_constraints:
        m=r"\d+",
    threads: 2
    conda:
        ENV
    log:
        "logs/{dataset}/jin_m{m}_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/jin_m{m}_{recommender}.tsv"
    script:
        "../scripts/jin_estimates.py"


rule jin_corrections:
    input:
        unpack(
            lambda wc: {
                rec: f"results/{wc.dataset}/ranks/m{config['jin']['m']}/{rec}.npz"
                for rec in config["jin"]["recommenders"]
            }
        ),
    output:
        "results/{dataset}/jin/corrections.csv",
    params:
        metrics=config.get("jin", {}).get("metrics"),
        corrections=config.get("jin", {}).get("corrections"),
        sampling=config["study"]["sampling"],
        n_mode=config["study"]["n_mode"],
    threads: 2
    conda:
        ENV
    log:
        "logs/{dataset}/jin_corrections.log",
    benchmark:
        "logs/benchmarks/{dataset}/jin_corrections.tsv"
    script:
        "../scripts/jin_corrections.py"


rule jin_tables:
    input:
        lambda wc: [
            f"results/{wc.dataset}/jin/m{config['jin']['m']}/{rec}.csv"
            for rec in config["jin"]["recommenders"]
        ]
        + [f"results/{wc.dataset}/jin/corrections.csv"],
    output:
        table2=report("results/{dataset}/jin_table2.csv", caption="../report/jin_table2.rst", category="Jin et al.", subcategory="{dataset}"),
        table2_md="results/{dataset}/jin_table2.md",
        table2_tex="results/{dataset}/jin_table2.tex",
        table4=report("results/{dataset}/jin_table4.csv", caption="../report/jin_table4.rst", category="Jin et al.", subcategory="{dataset}"),
        table4_md="results/{dataset}/jin_table4.md",
        table4_tex="results/{dataset}/jin_table4.tex",
    params:
        metrics=config.get("jin", {}).get("table2_metrics"),
    conda:
        ENV
    log:
        "logs/{dataset}/jin_tables.log",
    script:
        "../scripts/jin_tables.py"


rule jin_figure2:
    input:
        unpack(
            lambda wc: {
                rec: f"results/{wc.dataset}/jin/m{config['jin']['m']}/{rec}_pmf.npz"
                for rec in config["jin"]["recommenders"]
            }
        ),
    output:
        pdf="figures/{dataset}/jin_figure2.pdf",
        png=report("figures/{dataset}/jin_figure2.png", caption="../report/jin_figure2.rst", category="Jin et al.", subcategory="{dataset}"),
        data="results/{dataset}/jin_figure2.csv",
    params:
        fig=lambda wc: config["jin"]["figure2"],
        title=lambda wc: f"Jin et al. Figure 2 ({wc.dataset}, m = {config['jin']['m']})",
    conda:
        ENV
    log:
        "logs/{dataset}/jin_figure2.log",
    script:
        "../scripts/jin_figure.py"


rule jin_figure3:
    input:
        unpack(
            lambda wc: {
                f"n = {m + 1}": f"results/{wc.dataset}/jin/m{m}/{config['jin']['figure3']['recommender']}_pmf.npz"
                for m in config["jin"]["figure3"]["m_values"]
            }
        ),
    output:
        pdf="figures/{dataset}/jin_figure3.pdf",
        png=report("figures/{dataset}/jin_figure3.png", caption="../report/jin_figure3.rst", category="Jin et al.", subcategory="{dataset}"),
        data="results/{dataset}/jin_figure3.csv",
    params:
        fig=lambda wc: config["jin"]["figure3"],
        title=lambda wc: (
            f"Jin et al. Figure 3 ({wc.dataset}, recommender "
            f"{config['jin']['figure3']['recommender']})"
        ),
    conda:
        ENV
    log:
        "logs/{dataset}/jin_figure3.log",
    script:
        "../scripts/jin_figure.py"
