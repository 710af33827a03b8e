# The sampled protocols in use (several positives per user, negatives per positive,
# popularity sampling) against exact, on a dataset with our recommenders.


rule protocol_runs:
    input:
        rules.split.output.split,
    output:
        "results/{dataset}/protocols/runs_{split}.csv",
    params:
        recommenders=lambda wc: {r: PLAN.recommender_spec(r) for r in PLAN.protocols["recommenders"]},
        protocols=lookup(dpath="protocols", within=config),
        seed=lookup(dpath="seed", within=config),
    threads: 1
    conda:
        ENV
    log:
        "logs/{dataset}/protocol_runs_{split}.log",
    benchmark:
        "logs/benchmarks/{dataset}/protocol_runs_{split}.tsv"
    script:
        "../scripts/protocol_runs.py"


rule protocols_table:
    input:
        get_protocol_runs,
    output:
        table=report("results/{dataset}/protocols.csv", caption="../report/protocols.rst", category="Protocols", subcategory="{dataset}"),
        table_md="results/{dataset}/protocols.md",
        ordering="results/{dataset}/protocols_ordering.csv",
        figure=multiext("figures/{dataset}/protocols", ".pdf", ".png"),
    params:
        min_gap=lookup(dpath="protocols/min_gap", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/protocols_table.log",
    script:
        "../scripts/protocols_table.py"


rule protocols:
    input:
        protocols_targets(force=True),
