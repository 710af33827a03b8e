# The running example of KDD'20 (Sec. 3.2, 4.2-4.5, 5.4): needs no data.


rule toy_table1:
    output:
        csv="results/toy/table1.csv",
        md="results/toy/table1.md",
        tex="results/toy/table1.tex",
        html=report("results/toy/table1.html", caption="../report/table1.rst", category="KDD'20 running example"),
    params:
        n=lookup(dpath="toy/n", within=config),
    conda:
        ENV
    log:
        "logs/toy/table1.log",
    benchmark:
        "logs/benchmarks/toy/table1.tsv"
    script:
        "../scripts/toy_table1.py"


rule toy_table2:
    output:
        csv="results/toy/table2.csv",
        md="results/toy/table2.md",
        tex="results/toy/table2.tex",
        html=report("results/toy/table2.html", caption="../report/table2.rst", category="KDD'20 running example"),
    params:
        cfg=lookup(dpath="toy/table2", within=config),
        seed=lookup(dpath="seed", within=config),
    conda:
        ENV
    log:
        "logs/toy/table2.log",
    benchmark:
        "logs/benchmarks/toy/table2.tsv"
    script:
        "../scripts/toy_table2.py"


rule toy_figure:
    output:
        pdf="figures/figure{i}.pdf",
        png=report("figures/figure{i}.png", caption="../report/toy_figure.rst", category="KDD'20 running example"),
        data="results/toy/figure{i}.csv",
    wildcard_constraints:
        i="[1-4]",
    params:
        cfg=lookup(dpath="toy/figure{i}", within=config, default={}),
        n=lookup(dpath="toy/n", within=config),
    conda:
        ENV
    log:
        "logs/toy/figure{i}.log",
    benchmark:
        "logs/benchmarks/toy/figure{i}.tsv"
    script:
        "../scripts/toy_figure.py"
