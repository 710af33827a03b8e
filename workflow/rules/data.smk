# Data: archive (download with MD5, local copy, or synthetic) -> leave-last-out split.


rule dataset_archive:
    output:
        "data/raw/{dataset}.zip",
    params:
        spec=lookup(dpath="datasets/{dataset}", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/archive.log",
    benchmark:
        "logs/benchmarks/{dataset}/archive.tsv"
    script:
        "../scripts/dataset_archive.py"


checkpoint split:
    input:
        rules.dataset_archive.output,
    output:
        split="data/{dataset}/split.npz",
        info="results/{dataset}/split_info.json",
    params:
        spec=lookup(dpath="datasets/{dataset}", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/split.log",
    benchmark:
        "logs/benchmarks/{dataset}/split.tsv"
    script:
        "../scripts/split.py"
