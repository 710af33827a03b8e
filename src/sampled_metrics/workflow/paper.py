"""Numbers printed in the papers, used as the reference column beside ours (never as output).

KDD'20 = Krichene & Rendle, "On Sampled Metrics for Item Recommendation" (KDD 2020).
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

#: The corrections KDD'20 reports, in its order: Table 3's columns after the exact value, the
#: curves of Figure 4; the defaults of the study, the running example and ``correct``.
KDD_CORRECTIONS = ("sampled", "rank_estimate", "cls", "bv_1", "bv_0.1", "bv_0.01", "bv_0.001")

_T3_METHODS = ("exact", *KDD_CORRECTIONS)
_T3_TEXT = """
recall@10 X 7.60 66.19±0.25 17.46±0.32 8.52±0.16 4.71±0.07 6.49±0.25 7.18±0.59 7.32±1.17
recall@10 Y 8.84 56.51±0.22 17.26±0.28 8.42±0.14 4.60±0.07 6.95±0.21 8.18±0.51 8.54±1.07
recall@10 Z 9.42 54.20±0.22 18.67±0.32 9.10±0.15 4.97±0.07 7.44±0.24 8.63±0.59 9.08±1.20
ndcg@10 X 3.76 39.21±0.20 17.46±0.32 3.99±0.07 2.16±0.04 3.00±0.12 3.34±0.32 3.41±0.71
ndcg@10 Y 4.59 34.82±0.16 17.26±0.28 3.94±0.06 2.12±0.03 3.24±0.10 3.85±0.28 4.03±0.66
ndcg@10 Z 4.79 35.34±0.16 18.67±0.32 4.27±0.07 2.29±0.04 3.46±0.12 4.05±0.32 4.31±0.74
ap X 3.75 32.55±0.21 18.12±0.31 3.58±0.06 2.44±0.03 3.13±0.09 3.37±0.21 3.42±0.49
ap Y 4.32 30.01±0.20 17.81±0.28 3.54±0.06 2.32±0.03 3.19±0.07 3.62±0.18 3.73±0.45
ap Z 4.44 30.71±0.21 19.20±0.31 3.82±0.06 2.45±0.03 3.38±0.08 3.79±0.21 3.97±0.51
auc X 89.13 89.12±0.04 89.24±0.04 89.12±0.04 88.36±0.04 89.04±0.04 89.11±0.04 89.12±0.04
auc Y 85.33 85.33±0.04 85.48±0.04 85.32±0.04 84.63±0.04 85.26±0.04 85.32±0.04 85.32±0.04
auc Z 74.73 75.04±0.23 75.24±0.20 75.04±0.21 74.51±0.23 75.02±0.20 75.02±0.24 75.02±0.23
"""


def _parse_table3(text: str) -> dict:
    out = {}
    for line in text.strip().splitlines():
        metric, rec, *cells = line.split()
        for method, cell in zip(_T3_METHODS, cells):
            mean, _, std = cell.partition("±")
            out[(rec, metric, method)] = (float(mean) / 100, float(std or 0) / 100)
    return out


#: KDD'20 Table 3 (MovieLens-1M, m = 100, 100 repeats): {(recommender, metric, method):
#: (mean, std)} as fractions.
KDD_TABLE3 = _parse_table3(_T3_TEXT)

_T4_TEXT = """
X_vs_Y recall@10 0 31 31 11 93 91 78
X_vs_Y ndcg@10 0 31 31 15 93 88 76
X_vs_Y ap 0 24 31 0 68 79 66
X_vs_Y auc 100 100 100 100 100 100 100
X_vs_Z recall@10 0 100 100 100 100 95 86
X_vs_Z ndcg@10 0 100 100 100 100 95 82
X_vs_Z ap 0 100 100 61 99 92 81
X_vs_Z auc 100 100 100 100 100 100 100
Y_vs_Z recall@10 0 100 100 100 95 72 68
Y_vs_Z ndcg@10 100 100 100 100 94 70 67
Y_vs_Z ap 100 100 100 100 98 75 68
Y_vs_Z auc 100 100 100 100 100 100 100
"""

#: KDD'20 Table 4: {(pair, metric, method): correct out of 100}; pair like 'X vs Y'.
KDD_TABLE4 = {(pair.replace("_", " "), metric, method): int(v)
              for pair, metric, *vals in (line.split() for line in _T4_TEXT.strip().splitlines())
              for method, v in zip(_T3_METHODS[1:], vals)}
