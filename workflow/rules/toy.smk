# The running example of KDD'20 (Sec. 3.2, 4.2-4.5, 5.4): needs no data.


rule toy_table1:
    output:
        csv="results/toy/table1.csv",
        md="results/toy/table1.md",
        tex="results/toy/table1.tex",
    params:
        n=config["toy"]["n"],
    log:
        "logs/toy/table1.log",
    script:
        "../scripts/toy_table1.py"


rule toy_table2:
    output:
        csv="results/toy/table2.csv",
        md="results/toy/table2.md",
        tex="results/toy/table2.tex",
    params:
        cfg=config["toy"]["table2"],
        seed=config["seed"],
    log:
        "logs/toy/table2.log",
    script:
        "../scripts/toy_table2.py"


rule toy_figure:
    output:
        pdf="figures/figure{i}.pdf",
        png="figures/figure{i}.png",
        data="results/toy/figure{i}.csv",
    wildcard_constraints:
        i="[1-4]",
    params:
        cfg=lambda wc: config["toy"].get(f"figure{wc.i}", {}),
        n=config["toy"]["n"],
    log:
        "logs/toy/figure{i}.log",
    script:
        "../scripts/toy_figure.py"
