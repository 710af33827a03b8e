"""File-producing steps, one function per artefact; the workflow's rule scripts only unpack
their inputs, parameters and outputs and call one of these.

=============  ==========================================================================
module         artefacts
=============  ==========================================================================
``ranks``      the rank file of one (dataset, recommender): fit once, score once, every
               (m, repeat) any table asks for
``toy``        the running example of KDD'20: Tables 1-2, Figures 1-4 (no data)
``kdd_study``  KDD'20 Sec. 6: per-repeat corrections (shared with Jin), Tables 3-4,
               Figures 5-6
``jin``        Jin et al.: per-repeat P(R) estimates, their Tables 2 and 4, Figures 2-3
``compare_study``   validation of ``compare`` against exact ranks (confident-and-wrong counts)
``adaptive_study``  adaptive sampling and MN beside KDD'20 / Jin at equal sampled items
``interval_study``  coverage and width of the intervals over a grid of known-truth cells
``interval_models`` the recommended interval on rank files whose exact ranks are known
``sequential_ranks`` the rank file of a sequential recommender (Markov chain), for the above
``evaluator_cost``  each evaluator's evaluation simulated, corrected under its law and the generic one
=============  ==========================================================================
"""
