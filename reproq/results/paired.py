"""Paired differences between two methods, seed by seed and question by question, and what a claim about them can say.

Every comparison the study states (the papers' claims, its own sentences) rests on :func:`paired_difference`: Δ = a −
b over the seeds both have, with a 95 % interval that resamples the evaluated questions as well as the seeds
(:func:`bootstrap_interval`, one product; :func:`bootstrap_interval_slow` its twin) where the records keep each
question's value, a paired t interval over the seeds otherwise. :func:`difference_of_differences` asks how much such a
Δ moves between two evaluations; :func:`claim` turns a Δ into *confirmed*, *contradicted* or *not shown*; a family of
comparisons declared together is corrected by :func:`holm` over the bootstrap's own p values (:func:`bootstrap_p`).

Longer than most modules here: the paired difference, its bootstrap with its slow twin, what a claim may say of it
and Holm's correction are one statistical decision, read in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from reproq.results.records import Record

BOOTSTRAP_RESAMPLES = 10_000  # resamples behind an interval over questions and seeds


@dataclass(frozen=True)
class Difference:
    """``a - b`` seed by seed: the mean, its spread over the seeds, and a 95 % interval (``low``, ``high``).

    Where every record behind it keeps its questions' values (``Record.per_question``), the interval is a paired
    bootstrap over the evaluated questions *and* the seeds (:func:`bootstrap_interval`): it says how sure we are
    about questions like these, not only about this test set, and it exists with one seed too. Otherwise it is a
    paired t interval over the seeds (Student's t with n - 1 degrees of freedom; nan with one seed), which treats the
    test questions as fixed."""

    mean: float  # mean over the shared seeds of value(a) - value(b)
    std: float  # their standard deviation (nan with one seed)
    n: int  # how many seeds both methods share (a method without a seed, a floor, pairs with every seed)
    low: float = float("nan")
    high: float = float("nan")
    questions: int = 0  # how many questions the bootstrap resampled (0: the interval is over the seeds only)
    p: float = float("nan")  # two-sided p of "no difference", from the same bootstrap or t (for a correction: holm)

    @property
    def interval(self) -> tuple[float, float]:
        return self.low, self.high

    @property
    def over(self) -> str:
        """What the interval resamples (or that there is none: over the seeds alone, fewer than
        :data:`DISTINCT_SEEDS` distinct values give no interval)."""
        if self.questions:
            return f"{self.questions} questions × {self.n} seed(s), bootstrap"
        return f"{self.n} seed(s), t" if self.low == self.low else f"{self.n} seed(s), no interval"

    def verdict(self, a: str = "a", b: str = "b") -> str:
        """``"a > b"``, ``"a < b"`` where the interval excludes 0, else ``"no difference shown"`` (``a`` and ``b``
        name the two sides)."""
        low, high = self.interval
        return f"{a} > {b}" if low > 0 else f"{a} < {b}" if high < 0 else "no difference shown"


DISTINCT_SEEDS = 3  # an interval over the seeds alone needs this many distinct values (two identical seeds: none)


def t_interval(gaps: np.ndarray) -> tuple[float, float]:
    """The 95 % paired t interval of the mean of ``gaps`` (one per seed); nan with fewer than
    :data:`DISTINCT_SEEDS` distinct values (two seeds that agree would give an interval of width 0).

    >>> t_interval(np.array([0.008, 0.008])), [round(x, 3) for x in t_interval(np.array([0.01, 0.02, 0.03]))]
    ((nan, nan), [-0.005, 0.045])
    """
    from scipy import stats

    if len(np.unique(gaps)) < DISTINCT_SEEDS:
        return float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(gaps) - 1)) * float(gaps.std(ddof=1)) / len(gaps) ** 0.5
    return float(gaps.mean()) - half, float(gaps.mean()) + half


def _resamples(shape: tuple[int, int], resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The draws of a two-way bootstrap of a seeds × questions table: ``resamples`` rows of seed indices and of
    question indices, each drawn with replacement."""
    rng = np.random.default_rng(seed)
    seeds, questions = shape
    return rng.integers(0, seeds, size=(resamples, seeds)), rng.integers(0, questions, size=(resamples, questions))


def bootstrap_interval(gaps: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """The 95 % percentile interval of the mean of ``gaps`` (seeds × questions: a − b per seed and question) when
    seeds and questions are both resampled with replacement, the same questions for every seed (paired).

    Each resample's mean is a weighted sum of the table (a seed or question drawn twice weighs twice), so the whole
    bootstrap is one product; :func:`bootstrap_interval_slow` draws the same indices and averages each resampled
    table, and a test checks that they agree.

    >>> low, high = bootstrap_interval(np.array([[0.1, 0.3, 0.2, 0.0], [0.2, 0.2, 0.1, 0.1]]))
    >>> 0.0 <= low < 0.15 < high <= 0.3
    True
    """
    low, high = np.percentile(bootstrap_means(gaps, resamples=resamples, seed=seed), [2.5, 97.5])
    return float(low), float(high)


def bootstrap_means(gaps: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> np.ndarray:
    """The mean of each resample of :func:`bootstrap_interval` (one product: module docstring there)."""
    seeds, questions = _resamples(gaps.shape, resamples, seed)
    seed_weights = _counts(seeds, gaps.shape[0]) / gaps.shape[0]
    question_weights = _counts(questions, gaps.shape[1]) / gaps.shape[1]
    return np.einsum("rs,sq,rq->r", seed_weights, gaps, question_weights)


def bootstrap_p(means: np.ndarray) -> float:
    """The two-sided bootstrap p of "no difference" from the resampled means: twice the smaller share of them on
    either side of 0 (at most 1; at least one resample's worth, never 0).

    >>> bootstrap_p(np.array([0.1, 0.2, -0.1, 0.3])), bootstrap_p(np.linspace(0.01, 1.0, 100))
    (0.5, 0.02)
    """
    share = min(float(np.mean(means <= 0)), float(np.mean(means >= 0)))
    return min(1.0, 2 * max(share, 1 / len(means)))


def holm(p_values, alpha: float = 0.05) -> list[bool]:
    """Holm's step-down correction: which of a family of tests, declared together, are shown at family-wise level
    ``alpha`` (sort the p values, reject the i-th smallest while p ≤ alpha / (m − i), stop at the first that is not).

    >>> holm([0.01, 0.04, 0.03]), holm([0.001, 0.2, 0.012])
    ([True, False, False], [True, False, True])
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    shown = [False] * len(p_values)
    for rank, i in enumerate(order):
        if not p_values[i] <= alpha / (len(p_values) - rank):
            break
        shown[i] = True
    return shown


def _counts(indices: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` items is drawn in each row of ``indices``."""
    rows = len(indices)
    return np.bincount((indices + n * np.arange(rows)[:, None]).ravel(), minlength=rows * n).reshape(rows, n)


def bootstrap_interval_slow(gaps: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES,
                            seed: int = 0) -> tuple[float, float]:
    """:func:`bootstrap_interval` resample by resample: the slow, obviously correct twin."""
    seeds, questions = _resamples(gaps.shape, resamples, seed)
    means = [gaps[np.ix_(s, q)].mean() for s, q in zip(seeds, questions)]
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def paired_difference(records: Iterable[Record], a: str, b: str, *, metric: str,
                      resamples: int = BOOTSTRAP_RESAMPLES, **where) -> Difference:
    """Method ``a`` minus method ``b`` on ``metric``, seed by seed, over the records that match ``where`` (any
    record field, e.g. ``table="Table 6", split="test"``): the numbers a claim "a beats b" rests on. A method whose
    one record has no seed (a floor: an expectation, trained on nothing) is paired with every seed of the other.
    The interval is over questions and seeds where the records keep their questions' values (:class:`Difference`).

    >>> rs = [Record("p", "T", "d", "test", m, "-", "MAP", v, seeds=(s,)) for m, s, v in
    ...       [("A", 1, .7), ("B", 1, .6), ("A", 2, .8), ("B", 2, .6), ("A", 3, .5), ("B", 3, .6)]]
    >>> d = paired_difference(rs, "A", "B", metric="MAP")
    >>> round(d.mean, 3), d.n, [round(x, 2) for x in d.interval], d.verdict(), d.over
    (0.067, 3, [-0.31, 0.45], 'no difference shown', '3 seed(s), t')
    >>> paired_difference(rs[:4], "A", "B", metric="MAP").over  # two seeds: no interval over the seeds alone
    '2 seed(s), no interval'
    """
    gaps, table = _gaps(records, a, b, metric, where)
    return _difference(np.array(list(gaps.values())), table, resamples)


def _difference(gaps: np.ndarray, table: np.ndarray | None, resamples: int) -> Difference:
    """The :class:`Difference` of per-seed ``gaps``: over questions and seeds where ``table`` (seeds × questions)
    holds them, over the seeds (t) otherwise."""
    std = float(gaps.std(ddof=1)) if len(gaps) > 1 else float("nan")
    if table is not None:
        means = bootstrap_means(table, resamples=resamples)
        low, high = np.percentile(means, [2.5, 97.5])
        return Difference(float(gaps.mean()), std, len(gaps), float(low), float(high), questions=table.shape[1],
                          p=bootstrap_p(means))
    return Difference(float(gaps.mean()), std, len(gaps), *t_interval(gaps), p=t_p(gaps))


def t_p(gaps: np.ndarray) -> float:
    """The two-sided p of the paired t test of ``gaps`` (one per seed) against 0; nan where :func:`t_interval` gives
    no interval."""
    from scipy import stats

    if len(np.unique(gaps)) < DISTINCT_SEEDS:
        return float("nan")
    return float(stats.ttest_1samp(gaps, 0.0).pvalue)


def against(records: Sequence[Record], value: float) -> Difference:
    """Ours − a fixed ``value`` (the paper's number) over ``records``, one per seed of one method and evaluation: the
    mean over the seeds and its 95 % t interval over them (nan with fewer than :data:`DISTINCT_SEEDS` distinct
    values) — the interval the report's equivalence test reads (:func:`reproq.report.verdicts.equivalence`). Over the
    seeds only, not the questions: the paper's number is of the same test questions, so they are fixed here and only
    the training is random (a claim between two methods resamples the questions too: :func:`paired_difference`).

    >>> rs = [Record("p", "T", "d", "test", "A", "-", "MAP", v, seeds=(s,)) for s, v in [(1, .70), (2, .72), (3, .71)]]
    >>> d = against(rs, 0.70)
    >>> round(d.mean, 3), [round(x, 3) for x in d.interval], d.over, against(rs[:2], 0.70).over
    (0.01, [-0.015, 0.035], '3 seed(s), t', '2 seed(s), no interval')
    """
    gaps = np.array([r.value - value for r in records])
    return _difference(gaps, None, BOOTSTRAP_RESAMPLES)


def _gaps(records: Iterable[Record], a: str, b: str, metric: str, where: dict) -> tuple[dict, np.ndarray | None]:
    """``a − b`` per shared seed (seeds -> gap), and per seed and question (seeds × questions, in the same seed order)
    where every record keeps its questions' values (else None): :func:`paired_difference`'s pairing."""
    by_seed: dict[str, dict[tuple, Record]] = {a: {}, b: {}}
    for r in records:
        if r.method in by_seed and r.metric == metric and all(getattr(r, k) == v for k, v in where.items()):
            by_seed[r.method][r.seeds] = r
    for one, other in ((a, b), (b, a)):
        if set(by_seed[one]) == {()} and by_seed[other] and () not in by_seed[other]:
            by_seed[one] = dict.fromkeys(by_seed[other], by_seed[one][()])
    shared = sorted(set(by_seed[a]) & set(by_seed[b]))
    if not shared:
        raise ValueError(f"no seed has records of both {a!r} and {b!r} for {metric} where {where}")
    pairs = [(by_seed[a][s], by_seed[b][s]) for s in shared]
    lengths = {len(r.per_question) for pair in pairs for r in pair}
    if len(lengths - {0}) > 1:
        raise ValueError(f"{a!r} and {b!r} were evaluated on different questions ({sorted(lengths - {0})} of them) "
                         f"for {metric} where {where}: a paired difference needs the same questions")
    table = np.array([np.subtract(x.per_question, y.per_question) for x, y in pairs]) \
        if len(lengths) == 1 and 0 not in lengths else None
    return {s: x.value - y.value for s, (x, y) in zip(shared, pairs)}, table


def difference_of_differences(records: Iterable[Record], a: str, b: str, *, metric: str, where: dict, then: dict,
                              resamples: int = BOOTSTRAP_RESAMPLES) -> Difference:
    """How much ``a − b`` moves from one evaluation (``then``: record fields) to another (``where``): (a − b where)
    − (a − b then), paired by seed (the seeds both have) and by question where every record keeps its questions'
    values — the number a sentence such as "the longer budget turns the sign of a − b" rests on. Its interval is
    :class:`Difference`'s, of the per-seed, per-question differences.

    >>> rs = [Record("p", "T", "d", "test", m, setting, "MAP", v, seeds=(s,)) for m, setting, s, v in
    ...       [("A", "x", 1, .70), ("B", "x", 1, .60), ("A", "y", 1, .60), ("B", "y", 1, .60),
    ...        ("A", "x", 2, .72), ("B", "x", 2, .60), ("A", "y", 2, .61), ("B", "y", 2, .60)]]
    >>> d = difference_of_differences(rs, "A", "B", metric="MAP", where={"setting": "x"}, then={"setting": "y"})
    >>> round(d.mean, 3), d.n, d.over
    (0.105, 2, '2 seed(s), no interval')
    """
    records = list(records)
    now, now_table = _gaps(records, a, b, metric, where)
    before, before_table = _gaps(records, a, b, metric, then)
    shared = [s for s in now if s in before]
    if not shared:
        raise ValueError(f"no seed has {a!r} and {b!r} both where {where} and where {then}")
    gaps = np.array([now[s] - before[s] for s in shared])
    table = None
    if now_table is not None and before_table is not None and now_table.shape[1] == before_table.shape[1]:
        rows_now, rows_before = list(now), list(before)
        table = np.array([now_table[rows_now.index(s)] - before_table[rows_before.index(s)] for s in shared])
    return _difference(gaps, table, resamples)


CLAIM_VERDICTS = ("confirmed", "contradicted", "not shown")


def claim(records: Iterable[Record], a: str, b: str, *, metric: str, **where) -> dict:
    """A claim "``a`` beats ``b`` on ``metric``" tested seed by seed (:func:`paired_difference`): Δ = a − b over the
    seeds both have, its 95 % interval and what it resamples (questions and seeds, or seeds only), their number, and
    the verdict: *confirmed* where the interval is above 0, *contradicted* where below, *not shown* otherwise (with
    one seed and no questions' values there is no interval, and it says so).

    >>> rs = [Record("p", "T", "d", "test", m, "-", "MAP", v, seeds=(s,)) for m, s, v in
    ...       [("A", 1, .70), ("B", 1, .60), ("A", 2, .71), ("B", 2, .60), ("A", 3, .73), ("B", 3, .61)]]
    >>> c = claim(rs, "A", "B", metric="MAP")
    >>> round(c["delta"], 3), c["seeds"], c["verdict"]
    (0.11, 3, 'confirmed')
    """
    return said(paired_difference(records, a, b, metric=metric, **where))


def said(d: Difference) -> dict:
    """What :func:`claim` says of a difference ``d`` (a :class:`Difference` of a − b, or of ours − a printed number:
    :func:`against`)."""
    low, high = d.interval
    verdict = "confirmed" if low > 0 else "contradicted" if high < 0 else "not shown"
    caveat = f" ({d.n} seed(s), no interval)" if low != low else " (one seed: over questions only)" if d.n == 1 \
        else ""
    return {"delta": d.mean, "low": low, "high": high, "seeds": d.n, "interval over": d.over,
            "verdict": verdict + caveat, "p": d.p}


SIZE_VERDICTS = ("consistent", "contradicted", "not resolved")


def size_verdict(low: float, high: float, size: tuple[float, float]) -> str:
    """A claim of size ("1 % – 5 % better": ``size`` = (0.01, 0.05)) against the 95 % interval [``low``, ``high``] of
    a − b: *consistent* where the stated range lies inside the interval or the interval inside the range,
    *contradicted* where they do not meet (the data exclude every size the paper states), *not resolved* where they
    overlap in part; "no interval" without one.

    >>> size_verdict(-0.007, 0.025, (0.01, 0.05)), size_verdict(-0.042, 0.017, (0.025, 0.035))
    ('not resolved', 'contradicted')
    >>> size_verdict(0.02, 0.04, (0.01, 0.05)), size_verdict(0.0, 0.1, (0.01, 0.05))
    ('consistent', 'consistent')
    """
    if not (low == low and high == high):
        return "no interval"
    lo, hi = size
    if high < lo or low > hi:
        return "contradicted"
    return "consistent" if (low <= lo and hi <= high) or (lo <= low and high <= hi) else "not resolved"


def shown(delta: float, low: float, high: float, over: str = "", *, scale: float = 1.0, decimals: int = 3) -> str:
    """A paired difference as every reading, page and the README print it (the one formatter): Δ with its sign, its
    95 % interval in brackets where there is one, and what the interval resamples (or why there is none);
    ``scale=100`` for points of a fraction.

    >>> shown(0.009, -0.007, 0.025, "243 questions × 5 seed(s), bootstrap")
    '+0.009 [-0.007, +0.025] (243 questions × 5 seed(s), bootstrap)'
    >>> shown(0.0123, float("nan"), float("nan"), "2 seed(s), no interval", scale=100, decimals=2)
    '+1.23 (2 seed(s), no interval)'
    """
    number = lambda value: f"{value * scale:+.{decimals}f}"  # noqa: E731
    interval = f" [{number(low)}, {number(high)}]" if low == low else ""
    return f"{number(delta)}{interval}" + (f" ({over})" if over else "")


def claim_numbers(tested: dict) -> str:
    """A :func:`claim` (or a row of :func:`reproq.report.verdicts.claim_rows`) as the readings, the README and the
    papers' pages print it: ``": Δ = ±x [low, high] (what the interval resamples)"``, ``": Δ = ±x"`` where there is
    no interval (its verdict says so), or nothing where the claim was not testable."""
    if tested["delta"] != tested["delta"]:
        return ""
    over = tested["interval over"] if tested["low"] == tested["low"] else ""
    return f": Δ = {shown(tested['delta'], tested['low'], tested['high'], over)}"
