"""Numbers printed in the papers, used as the reference column beside ours (never as output).

KDD'20 = Krichene & Rendle, "On Sampled Metrics for Item Recommendation" (../papers 002).
Values are fractions (the paper prints Tables 3 in percent).
"""
from __future__ import annotations

#: KDD'20 Table 1: exact metrics of the running example.
KDD_TABLE1 = {
    "A": {"auc": 0.990, "ap": 0.010, "ndcg": 0.150, "recall@10": 0.000},
    "B": {"auc": 0.555, "ap": 0.010, "ndcg": 0.122, "recall@10": 0.000},
    "C": {"auc": 0.843, "ap": 0.101, "ndcg": 0.208, "recall@10": 0.200},
}

#: KDD'20 Table 2: sampled metrics (m = 99, 1000 repetitions), (mean, std).
KDD_TABLE2 = {
    "A": {"auc": (0.990, 0.004), "ap": (0.630, 0.129), "ndcg": (0.724, 0.097),
          "recall@10": (1.000, 0.000)},
    "B": {"auc": (0.555, 0.014), "ap": (0.336, 0.073), "ndcg": (0.444, 0.054),
          "recall@10": (0.400, 0.000)},
    "C": {"auc": (0.843, 0.014), "ap": (0.325, 0.050), "ndcg": (0.460, 0.039),
          "recall@10": (0.567, 0.092)},
}
