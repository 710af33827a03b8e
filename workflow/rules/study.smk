# KDD'20 Sec. 6: Tables 3-4 and Figures 5-6 from the rank files.


rule tables:
    input:
        unpack(rank_files),
    output:
        table3="results/{dataset}/table3.csv",
        table3_md="results/{dataset}/table3.md",
        table3_tex="results/{dataset}/table3.tex",
        per_repeat="results/{dataset}/per_repeat.csv",
        table4="results/{dataset}/table4.csv",
        table4_md="results/{dataset}/table4.md",
        table4_tex="results/{dataset}/table4.tex",
    params:
        study=config["study"],
    threads: 2
    log:
        "logs/{dataset}/tables.log",
    benchmark:
        "logs/benchmarks/{dataset}/tables.tsv"
    script:
        "../scripts/tables.py"


rule figure5:
    input:
        unpack(rank_files),
    output:
        pdf="figures/{dataset}/figure5.pdf",
        png="figures/{dataset}/figure5.png",
        data="results/{dataset}/figure5.csv",
        facts="results/{dataset}/rank_facts.csv",
    params:
        edges=config["study"]["figure5"]["edges"],
    log:
        "logs/{dataset}/figure5.log",
    script:
        "../scripts/figure5.py"


rule figure6:
    input:
        unpack(rank_files),
    output:
        pdf="figures/{dataset}/figure6.pdf",
        png="figures/{dataset}/figure6.png",
        data="results/{dataset}/figure6.csv",
    params:
        cfg=config["study"]["figure6"],
        sampling=config["study"]["sampling"],
    log:
        "logs/{dataset}/figure6.log",
    benchmark:
        "logs/benchmarks/{dataset}/figure6.tsv"
    script:
        "../scripts/figure6.py"


rule paper_figure:
    # The papers' MovieLens figures: figures/figure5.pdf is a copy of
    # figures/ml-1m/figure5.pdf (the first dataset of study.datasets); same for 6 and Jin's.
    input:
        "figures/{main}/{name}.{ext}".format(main=main_dataset(), name="{name}", ext="{ext}"),
    output:
        "figures/{name}.{ext}",
    wildcard_constraints:
        name="figure5|figure6|jin_figure2|jin_figure3",
        ext="pdf|png",
    log:
        "logs/{name}_{ext}.log",
    shell:
        "cp {input} {output} 2> {log}"
