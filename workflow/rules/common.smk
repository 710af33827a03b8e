# Shared helpers for the rules (no science here).


def toy_targets():
    """Tables 1-2 and Figures 1-4 of the running example (KDD'20 Sec. 3-5)."""
    if not config["toy"]["enabled"]:
        return []
    tables = expand("results/toy/{t}.{ext}", t=["table1", "table2"], ext=["csv", "md", "tex"])
    figs = expand("figures/figure{i}.{ext}", i=[1, 2, 3, 4], ext=["pdf", "png"])
    return tables + figs
