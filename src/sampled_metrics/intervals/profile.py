"""Profile-likelihood range of a linear functional of a mixing distribution.

Observations j (sampled ranks, or users) with counts h_j have likelihood (L w)_j under the
mixing weights w in the simplex (the atoms of :mod:`.atoms`); the log-likelihood
l(w) = sum_j h_j log (L w)_j is concave. The profile-likelihood range of c.w at drop kappa is

    [ min c.w, max c.w ]  over  { w in the simplex : l(w) >= l(w^) - kappa },

w^ the maximum-likelihood weights. With several blocks b (strata with a mixing distribution
each), w = (w_b), every w_b in its simplex, l = sum_b l_b and c.w = sum_b c_b.w_b; the
tilted problem below separates over the blocks. With kappa = chi2_{1, level} / 2 it is the
likelihood-ratio confidence interval of c.w (Wilks); it is conservative where c.w is only
partly identified.

Solver. The upper end is min over t > 0 of (max_w [t c.w + l(w)] - l_0) / t (Lagrange
duality, l_0 = l(w^) - kappa). For a tilt t, the tilted maximum likelihood
max_w t c.w + l(w) is found by a log-barrier method in w (:func:`tilted_mle`: Newton steps in
the variables scaled by w, the barrier weight falling tenfold per stage); t is the root of
l(w_t) = l_0, found by Brent's method on log t. The end reported is not the point reached but
an upper bound certified by weak duality (:func:`certified_max`), so an inexact solve can only
widen the interval. The lower end is minus the upper end of -c.

Joint ends. Where the target is T = c.w + e, e ~ N(0, s^2) a deviation of known spread s
(the evaluated users' mean about M(P), :mod:`.recommended`), its range at drop kappa is
jointly over w and e,

    max c.w + e  over  { (w, e) : l(w) - e^2 / (2 s^2) >= l(w^) - kappa }.

The same tilt does it: at tilt t the best e is t s^2, so the upper end is c.w_t + t s^2 at
the root t of l(w_t) - l(w^) + kappa = t^2 s^2 / 2, and weak duality bounds it by
min_t (max_w [t c.w + l(w)] - l_0) / t + t s^2 / 2. It is the profile end and z s added in
quadrature where the profile is quadratic in c.w (z^2 = 2 kappa), and nearly their sum where
the profile ends at the edge of the family. s may depend on w; it is taken at the end's w_t.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import linalg, optimize

__all__ = ["mixture_mle", "tilted_mle", "profile_range", "profile_ranges", "certified_max"]

#: the barrier's bound on the gap to the optimum, in log-likelihood units
MLE_GAP = 1e-6
#: a barrier stage ends when the squared Newton decrement is below this times (K + 1) tau
STAGE_TOL = 1e-6
#: Newton steps per barrier stage at most
STAGE_STEPS = 60
#: a warm start's first barrier weight, as a multiple of the last stage's
WARM_TAU = 10
#: the tilt's root l(w_t) = l_0 is found to this tolerance in log t (Brent), or to a slack
#: within SLACK_TOL kappa (the quadratic steps, at most QUADRATIC_STEPS); the certified end
#: is exact at the root and moves with the slack only to second order
TILT_XTOL = 1e-2
SLACK_TOL = 0.02
QUADRATIC_STEPS = 8


def mixture_mle(L: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, float]:
    """The weights w maximising l(w) = sum_j h_j log (L w)_j on the simplex, and max l.

    Examples
    --------
    >>> L = np.array([[0.9, 0.2], [0.1, 0.8]]); h = np.array([55.0, 45.0])
    >>> w, loglik = mixture_mle(L, h)
    >>> (L @ w).round(4).tolist()          # the fitted law is the histogram when it can be
    [0.55, 0.45]
    """
    w = tilted_mle(L, h, np.zeros(L.shape[1]), 0.0)
    return w, float(h @ np.log(L @ w))


def tilted_mle(L: np.ndarray, h: np.ndarray, c: np.ndarray, t: float,
               start: np.ndarray | None = None, gap: float = MLE_GAP) -> np.ndarray:
    """The weights w maximising t c.w + l(w) on the simplex (module docstring), to a gap
    of ``gap`` (log-likelihood units); ``start``: a point of the simplex to start from (a
    nearby tilt's).

    Maximises (t c.w + l(w)) / N + tau sum_k log w_k for tau = 1/K, 1/(10 K), ... until
    (K + 1) tau N <= gap; each stage by damped Newton steps in z = dw / w, where the
    scaled Hessian -W H W + tau I is well conditioned and the simplex's equality is
    eliminated by its multiplier.
    """
    K, N = L.shape[1], h.sum()
    w = np.full(K, 1.0 / K) if start is None else (1 - 1e-6) * start + 1e-6 / K
    tilt = t * c / N
    root_h = np.sqrt(h / N)[:, None]
    A, tiny = np.empty_like(L), np.empty(L.shape, dtype=bool)   # the step's work arrays:
    # allocated once, as a fresh large array per step costs page faults that serialise
    # the threads solving other ends (profile_ranges)

    def value(w):
        if np.any(w <= 0):
            return -np.inf
        u = L @ w
        if np.any(u <= 0):
            return -np.inf
        return tilt @ w + h @ np.log(u) / N + tau * np.log(w).sum()

    tau = 1.0 / K if start is None else WARM_TAU * gap / ((K + 1) * N)
    while True:
        for _ in range(STAGE_STEPS):
            u = L @ w
            g = tilt + L.T @ (h / u) / N + tau / w
            np.multiply(L, w, out=A)        # entries below 1e-140 flushed: their squares
            np.less(A, 1e-140, out=tiny)    # would be subnormal, which slows BLAS 100-fold
            np.copyto(A, 0.0, where=tiny)
            np.multiply(A, root_h / u[:, None], out=A)
            B = A.T @ A                     # the Hessian of -l/N scaled by w (a rank-k update)
            B[np.diag_indices(K)] += tau
            try:
                cf = linalg.cho_factor(B)
            except linalg.LinAlgError:
                B[np.diag_indices(K)] += 1e-12 * np.abs(np.diag(B)).max()
                cf = linalg.cho_factor(B)
            a, b = linalg.cho_solve(cf, g * w), linalg.cho_solve(cf, w)
            z = a - (w @ a) / (w @ b) * b
            decrement = z @ (B @ z)
            if decrement < STAGE_TOL * tau * (K + 1):
                break
            step = 1.0 if np.all(z >= 0) else min(1.0, 0.99 / np.max(-z))
            f0, slope = value(w), g @ (w * z)
            while value(w + step * w * z) < f0 + 0.25 * step * slope and step > 1e-12:
                step /= 2
            if value(w + step * w * z) == -np.inf:
                break
            w = w + step * w * z
        if (K + 1) * tau * N <= gap:
            return w
        tau /= 10


def profile_range(L, h, c, kappa: float, w_mle=None) -> tuple[float, float, list, list]:
    """min and max of c.w over {w : l(w) >= l(w_mle) - kappa} (module docstring), each
    certified from outside (:func:`certified_max`), and the two weight vectors reached.
    ``L``, ``h``, ``c`` and ``w_mle`` are arrays for one block, or lists with one per block
    (then the weight vectors are lists too).

    Examples
    --------
    >>> L = np.array([[0.9, 0.2], [0.1, 0.8]]); h = np.array([55.0, 45.0])
    >>> lo, hi, _, _ = profile_range(L, h, np.array([1.0, 0.0]), kappa=1.92)
    >>> bool(0.30 < lo < 0.50 < hi < 0.70)
    True
    >>> lo2, hi2, _, _ = profile_range([L, L], [h, h], [np.array([0.5, 0.0])] * 2, kappa=1.92)
    >>> bool(lo < lo2 < hi2 < hi)                       # twice the data, half the width
    True
    """
    return profile_ranges(L, h, [c], kappa, w_mle)[0]


def profile_ranges(L, h, cs, kappa: float, w_mle=None, *, threads: int = 1,
                   spreads=None) -> list[tuple]:
    """:func:`profile_range` of each functional of ``cs`` (each an array, or a list over
    the blocks as ``L``) on the same likelihood: its 2 len(cs) ends are independent
    solves, run on ``threads`` threads (BLAS and NumPy's loops release the GIL), with the
    same bits for any number of them.

    ``spreads``: one entry per functional, None or a function of the blocks' weights (a
    list, one array per block) giving the spread s(w) >= 0 of a deviation e added to the
    functional; with one, the functional's ends are the joint ends of c.w + e (module
    docstring), each certified for the s at the w it reached, and its entry has two more
    items, the plain profile's ends: each joint end's search starts from the plain one's.

    Examples
    --------
    >>> L = np.array([[0.9, 0.2], [0.1, 0.8]]); h = np.array([55.0, 45.0])
    >>> cs = [np.array([1.0, 0.0]), np.array([0.0, 1.0])]
    >>> one, two = profile_ranges(L, h, cs, 1.92), profile_ranges(L, h, cs, 1.92, threads=2)
    >>> [x[:2] for x in one] == [x[:2] for x in two]
    True
    >>> (lo, hi, _, _), = profile_ranges(L, h, cs[:1], 1.92)
    >>> (jlo, jhi, _, _, plo, phi), = profile_ranges(L, h, cs[:1], 1.92,
    ...                                              spreads=[lambda ws: 0.05])
    >>> (plo, phi) == (lo, hi)
    True
    >>> w, _ = mixture_mle(L, h)
    >>> z = np.sqrt(2 * 1.92)       # the profile is nearly quadratic here: the joint ends
    >>> quadrature = (w[0] - np.hypot(w[0] - lo, z * 0.05), w[0] + np.hypot(hi - w[0], z * 0.05))
    >>> np.round([lo, hi, jlo, jhi, *quadrature], 3).tolist()   # are the quadrature's
    [0.36, 0.636, 0.329, 0.668, 0.329, 0.668]
    """
    one = isinstance(L, np.ndarray)
    Ls, hs = ([L], [h]) if one else (list(L), list(h))
    cs = [[c] if one else list(c) for c in cs]
    if w_mle is None:
        w_mles = [mixture_mle(Lb, hb)[0] for Lb, hb in zip(Ls, hs)]
    else:
        w_mles = [w_mle] if one else list(w_mle)
    u_mles = [Lb @ wb for Lb, wb in zip(Ls, w_mles)]

    spreads = [None] * len(cs) if spreads is None else list(spreads)
    if len(spreads) != len(cs):
        raise ValueError(f"spreads must have one entry per functional ({len(cs)}), got "
                         f"{len(spreads)}")

    def end(task):
        c, sign, spread = task
        signed = [sign * cb for cb in c]
        ws, t = _upper_end(Ls, hs, signed, u_mles, kappa, w_mles)
        plain = sign * certified_max(Ls, hs, signed, u_mles, kappa, ws, t)
        if spread is None:
            return ws[0] if one else ws, plain
        ws, t = _upper_end(Ls, hs, signed, u_mles, kappa, w_mles, spread, start=(ws, t))
        joint = sign * certified_max(Ls, hs, signed, u_mles, kappa, ws, t,
                                     spread=float(spread(ws)))
        return ws[0] if one else ws, joint, plain

    tasks = [(c, sign, spread) for c, spread in zip(cs, spreads) for sign in (-1.0, 1.0)]
    if threads > 1 and len(tasks) > 1:
        with ThreadPoolExecutor(min(threads, len(tasks))) as pool:
            ends = list(pool.map(end, tasks))
    else:
        ends = [end(task) for task in tasks]
    return [(lo[1], hi[1], lo[0], hi[0], *(lo[2:] + hi[2:]))
            for lo, hi in zip(ends[::2], ends[1::2])]


def _upper_end(Ls, hs, cs, u_mles, kappa, w_mles, spread=None,
               start=None) -> tuple[list, float]:
    """The tilted MLEs w_t (one per block) whose log-likelihood is l(w_mle) - kappa, and
    their tilt t; with ``spread`` (a function s(w) of the blocks' weights), those whose
    log-likelihood is l(w_mle) - kappa + t^2 s(w_t)^2 / 2 (the joint end); ``start``: the
    plain end's (w_t, t), from which the joint end's search starts."""
    width = max(float(np.ptp(cb)) for cb in cs)
    if width == 0:                          # c.w is constant: the tilt moves nothing
        s = 0.0 if spread is None else float(spread(list(w_mles)))
        return list(w_mles), (np.sqrt(2 * kappa) / s if s > 0 else 1.0)
    state = {"w": list(w_mles) if start is None else list(start[0])}

    def slack(x):
        t = float(np.exp(x))
        ws = [tilted_mle(Lb, hb, cb, t, wb) for Lb, hb, cb, wb in zip(Ls, hs, cs, state["w"])]
        state["w"] = ws
        deviation = 0.0 if spread is None else (t * float(spread(ws))) ** 2 / 2
        return kappa - deviation + sum(float(hb @ np.log((Lb @ wb) / ub))
                                       for Lb, hb, wb, ub in zip(Ls, hs, ws, u_mles))

    # The profile is close to quadratic near the MLE: l drops by about t^2 sigma^2 / 2 at a
    # tilt t, so t kappa-drop = t sqrt(kappa / drop); a few such steps usually land within
    # SLACK_TOL of the level set, else Brent's method on a bracket finishes the search
    x = np.log(kappa / width)               # a tilt worth about kappa across c's range
    limit = x + np.log(1e12)
    if start is not None:   # from the plain end's tilt t_0: on a quadratic profile l drops by
        t0, s0 = start[1], float(spread(list(start[0])))   # kappa t^2 / t_0^2, so the joint
        x = min(np.log(t0 / np.sqrt(1 + (t0 * s0) ** 2 / (2 * kappa))), limit)   # root is here
    for _ in range(QUADRATIC_STEPS):
        f = slack(x)
        if abs(f) <= SLACK_TOL * kappa:
            return state["w"], float(np.exp(x))
        drop = kappa - f
        x = min(x + (0.5 * np.log(kappa / drop) if drop > 0 else np.log(8)), limit)
    lo = x
    f_lo = slack(lo)
    while f_lo <= 0:                        # bracket: slack > 0 at lo, < 0 at hi
        lo -= np.log(8)
        f_lo = slack(lo)
    hi = lo + np.log(8)
    f_hi = slack(hi)
    while f_hi > 0 and hi < limit:
        lo, hi = hi, hi + np.log(8)
        f_hi = slack(hi)
    if f_hi > 0:                            # c's maximum costs less than kappa
        return state["w"], float(np.exp(hi))
    x = optimize.brentq(slack, lo, hi, xtol=TILT_XTOL)
    slack(x)
    return state["w"], float(np.exp(x))


def certified_max(L, h, c, u_mle, kappa, w, t, spread: float = 0.0) -> float:
    """An upper bound on max c.w' over {w' in the simplex : l(w') >= l_0}, l_0 = sum_j h_j
    log u_mle_j - kappa, from a point ``w`` and tilt ``t`` (weak duality; exact at the
    optimum). Arguments as for :func:`profile_range`: arrays, or lists over blocks. With
    ``spread`` s > 0, on the joint max of c.w' + e over {l(w') - e^2 / (2 s^2) >= l_0}:
    the bound below plus t s^2 / 2 (module docstring), minimised over t.

    For t > 0 and any feasible w', c.w' <= (max_{w'} [t c.w' + l(w')] - l_0) / t, and for any
    v > 0, h_j log u_j <= h_j log(h_j / v_j) + v_j u_j - h_j (concavity of log), so
    max_{w'} [t c.w' + l(w')] <= sum_j h_j log(h_j / v_j) - N + max_k (L^T v + t c)_k. With
    v = alpha h / (L w) the bound is, in terms that stay O(1) where l is a large number,

        U(t, alpha) = [sum_j h_j log(u_j / u_mle_j) + kappa - N log alpha - N
                       + max_k (alpha (L^T (h / u))_k + t c_k)] / t,

    summed over the blocks inside the brackets (one alpha per block), minimised over t and
    each alpha from (t, 1).

    Examples
    --------
    >>> L = np.array([[0.9, 0.2], [0.1, 0.8]]); h = np.array([55.0, 45.0])
    >>> w, _ = mixture_mle(L, h)
    >>> c = np.array([1.0, 0.0])
    >>> bool(certified_max(L, h, c, L @ w, 1.92, w, 10.0) >= profile_range(L, h, c, 1.92)[1])
    True
    """
    one = isinstance(L, np.ndarray)
    Ls, hs, cs, us_mle, ws = (([L], [h], [c], [u_mle], [w]) if one else
                              (list(L), list(h), list(c), list(u_mle), list(w)))
    base, terms = kappa, []
    for Lb, hb, cb, ub, wb in zip(Ls, hs, cs, us_mle, ws):
        u = Lb @ wb
        base += float(hb @ np.log(u / ub))
        terms.append((hb.sum(), Lb.T @ (hb / u), cb))

    def block(x_t, N, g, cb):
        """min over alpha of -N log alpha + max_k (alpha g_k + t c_k), alpha = exp(y)."""
        t = np.exp(np.clip(x_t, -700.0, 700.0))

        def f(y):
            return -N * y + np.max(np.exp(y) * g + t * cb)
        best = optimize.minimize_scalar(f, bounds=(-3.0, 3.0), method="bounded",
                                        options={"xatol": 1e-12})
        return min(best.fun, f(0.0))

    def bound(x_t):
        t = np.exp(np.clip(x_t, -700.0, 700.0))
        value = (base + sum(block(x_t, N, g, cb) - N for N, g, cb in terms)) / t
        value = value + spread * spread * t / 2 if spread else value
        return value if np.isfinite(value) else np.inf

    x0 = float(np.log(t))
    best = optimize.minimize_scalar(bound, bounds=(x0 - 3.0, x0 + 3.0), method="bounded",
                                    options={"xatol": 1e-10})
    return float(min(best.fun, bound(x0)))
