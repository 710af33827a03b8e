"""Corrected sampled metrics (KDD'20 Sec. 5).

A correction is a vector M^ in R^{m+1}; an evaluation that observed the sampled rank r~
reports M^(r~) (entry ``r~ - 1``) instead of M(r~). Corrections:

``sampled``        no correction: M^(r~) = M_{m+1}(r~)
``rank_estimate``  M^(r~) = M(floor(1 + (n - 1)(r~ - 1)/m))                        (eq. 20)
``minimal_bias``   argmin_M^ sum_r p(r) (E[M^(r~)|r] - M(r))^2 = (A^T A)^+ A^T b      (eq. 21-23)
``cls``            minimal bias subject to M^(r~) >= M^(r~ + 1)  ("constrained least squares")
``bv``             argmin sum_r p(r) [(E[M^|r] - M(r))^2 + gamma Var[M^|r]]
                   = ((1 - gamma) A^T A + gamma diag(c))^{-1} A^T b                   (eq. 24-25)
``mapping``        Li et al. (KDD'20): the full top-K read at the sampled top f^{-1}(K),
                   f(k) = sum_r P(r~ <= k | r) (:mod:`sampled_metrics.corrections.mapping`)

with A[r, r~] = sqrt(p(r)) p(r~|r), b[r] = sqrt(p(r)) M(r), c[r~] = sum_r p(r) p(r~|r).
(KDD'20 eq. 23 prints A[r, r~] = sqrt(p(r) p(r~)); the normal equations of eq. 21 need
sqrt(p(r)) p(r~|r), as Jin et al. eq. 12 restate it.) gamma = 1 gives the posterior mean
sum_r p(r|r~) M(r) (eq. 26).

Numerics. A^T A is a Gram matrix of Bernstein-like polynomials and is numerically singular
for m beyond a few dozen, so eq. 21 has a continuum of (numerically) minimal-bias
solutions. ``minimal_bias`` returns the one of least sum_r~ c[r~] M^(r~)^2, i.e. the limit
gamma -> 0 of BV (computed with a pseudo-inverse of the c-scaled Gram matrix). ``cls``
solves the constrained problem as a non-negative least-squares problem in the differences
d[r~] = M^(r~) - M^(r~+1) >= 0 (Lawson-Hanson active set), with the same least-c-norm
tie-break among its numerically equal minimisers (a weight 1e-10 on sum_r~ c[r~] M^(r~)^2;
without it rounding noise of the moments moves CLS by up to 1e-5, 0.04 for AUC, see
:func:`solve_cls`); CLS of AUC is the sampled AUC, exactly (it is unbiased and monotone).

Modules (the main names of the first three are importable from this package; the registry
of corrections by name is :data:`sampled_metrics.registry.CORRECTIONS`):

``vectors``   parse a correction, solve its vector for one n, apply it, its bias and variance
``moments``   A^T A, A^T b, c, b^T b of the rank law, accumulated by bands (never A itself)
``lookup``    the vectors for many n at once (a checked Chebyshev grid in log n) and their
              per-user means
``mapping``   Li et al.'s mapping of cut-offs (KDD'20), the ``mapping`` correction
``mn``        Li et al.'s MN correction (AAAI'23): the bias weighted by an estimated P(r)
``planning``  the sample size m an evaluation needs for a target bias (the ``plan`` command)
"""
from .vectors import (UnboundedCorrectionWarning, apply_correction, bias_variance, correction,
                      correction_label, correction_vectors, parse_correction, rank_estimate,
                      rank_estimate_ranks)
from .moments import RankLawMoments, check_prior, rank_law_moments
from .lookup import correction_lookup, mean_corrected

__all__ = ["UnboundedCorrectionWarning", "correction", "correction_vectors", "apply_correction",
           "parse_correction", "correction_label", "bias_variance", "rank_estimate",
           "rank_estimate_ranks",
           "RankLawMoments", "rank_law_moments", "check_prior", "correction_lookup",
           "mean_corrected"]
