# Data: archive (download with MD5, local copy, or synthetic) -> leave-last-out split.
# Both rules take the dataset's identity as params (its spec without url and path: the MD5
# says what the archive is), so one archive downloaded or copied from a local file reruns
# nothing; their scripts read the whole spec from the config. The split checks that every
# evaluated user has more candidates than the largest m ranked (FanOut.split_options) and,
# with study.drop_users_with_few_candidates, leaves out those who have not: that m is then
# part of its identity (split_identity).


rule dataset_archive:
    output:
        "data/raw/{dataset}.zip",
    params:
        identity=lambda wc: archive_identity(PLAN.dataset_spec(wc.dataset)),
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
        identity=split_identity,
    conda:
        ENV
    log:
        "logs/{dataset}/split.log",
    benchmark:
        "logs/benchmarks/{dataset}/split.tsv"
    script:
        "../scripts/split.py"
