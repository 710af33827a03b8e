# Data: archive (download with MD5, local copy, or synthetic) -> leave-last-out split.


rule dataset_archive:
    output:
        "data/raw/{dataset}.zip",
    params:
        spec=lambda wc: dataset_spec(wc.dataset),
    conda:
        ENV
    log:
        "logs/{dataset}/archive.log",
    script:
        "../scripts/dataset_archive.py"


rule split:
    input:
        "data/raw/{dataset}.zip",
    output:
        split="data/{dataset}/split.npz",
        info="results/{dataset}/split_info.json",
    params:
        spec=lambda wc: dataset_spec(wc.dataset),
    conda:
        ENV
    log:
        "logs/{dataset}/split.log",
    benchmark:
        "logs/benchmarks/{dataset}/split.tsv"
    script:
        "../scripts/split.py"
