"""reproq.metrics: slow twins, hand-computed values, agreement with pytrec_eval, real AskUbuntu numbers.

Each fast metric is compared with a slow twin written straight from its definition with plain loops.
"""

from __future__ import annotations

import csv
import functools
import itertools

import numpy as np
import pytest
from sklearn import metrics as sk

from reproq import metrics as m
from reproq.paths import PAPER_NUMBERS_CSV


# --- slow twins ---------------------------------------------------------------------------------------

def stable_ranking(scores):
    """Indices by score descending; Python's sort is stable, so ties keep their order."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def ap_slow(labels_in_rank_order):
    hits, total = 0, 0.0
    for rank, label in enumerate(labels_in_rank_order, start=1):
        if label == 1:
            hits += 1
            total += hits / rank
    return total / hits


def rr_slow(labels_in_rank_order):
    for rank, label in enumerate(labels_in_rank_order, start=1):
        if label == 1:
            return 1 / rank


def question_retrieval_slow(y_trues, y_scores, ks):
    aps, rrs, pks = [], [], {k: [] for k in ks}
    for y, s in zip(y_trues, y_scores):
        if sum(y) == 0:
            continue
        ranked = [y[i] for i in stable_ranking(s)]
        aps.append(ap_slow(ranked))
        rrs.append(rr_slow(ranked))
        for k in ks:
            pks[k].append(sum(ranked[:k]) / k)
    out = {"MAP": sum(aps) / len(aps), "MRR": sum(rrs) / len(rrs)}
    out.update({f"P@{k}": sum(v) / len(v) for k, v in pks.items()})
    return out | {"n_queries": len(y_trues), "n_evaluated": len(aps)}


def trec_docid_slow(y_trues, y_scores, doc_ids):
    """trec_eval's order: comp_sim_docno, score descending then strcmp(docno2, docno1)."""
    def comp_sim_docno(a, b):
        if a[0] != b[0]:
            return -1 if a[0] > b[0] else 1
        return (b[1] > a[1]) - (b[1] < a[1])

    aps, rrs = [], []
    for y, s, ids in zip(y_trues, y_scores, doc_ids):
        if sum(y) == 0:
            continue
        rows = sorted(zip(s, [str(d) for d in ids], y), key=functools.cmp_to_key(comp_sim_docno))
        ranked = [label for _, _, label in rows]
        aps.append(ap_slow(ranked))
        rrs.append(rr_slow(ranked))
    return sum(aps) / len(aps), sum(rrs) / len(rrs)


def accuracy_at_k_slow(y_trues, y_scores, k):
    hits = 0
    for y, s in zip(y_trues, y_scores):
        hits += any(y[i] == 1 for i in stable_ranking(s)[:k])
    return hits / len(y_trues)


def auc_meter_slow(y, s, max_fpr):
    """torchnet AUCMeter.value(max_fpr), step by step."""
    n_pos = sum(y)
    n_neg = len(y) - n_pos
    tpr, fpr, tp, fp = [0.0], [0.0], 0, 0
    for i in stable_ranking(s):
        if y[i] == 1:
            tp += 1
        else:
            fp += 1
        tpr.append(tp / n_pos)
        fpr.append(fp / n_neg)
    n = next(i for i in range(1, len(fpr)) if fpr[i] >= max_fpr)
    area = 0.0
    for i in range(n - 1):  # segments before the one that reaches max_fpr
        area += (fpr[i + 1] - fpr[i]) * (tpr[i] + tpr[i + 1]) / 2
    return area / max_fpr


def random_queries(rng, n_queries, *, tied, p_positive=0.3, max_len=12):
    y_trues, y_scores = [], []
    for _ in range(n_queries):
        n = int(rng.integers(1, max_len + 1))
        y_trues.append((rng.random(n) < p_positive).astype(int).tolist())
        scores = rng.integers(0, 3, n) if tied else rng.normal(size=n)
        y_scores.append([float(x) for x in scores])
    return y_trues, y_scores


# --- question retrieval (Lei et al.) ------------------------------------------------------------------

def test_hand_computed_question_retrieval_values():
    y, s = [0, 1, 0, 1], [0.4, 0.3, 0.2, 0.1]
    assert m.average_precision_score(y, s) == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert m.reciprocal_rank_score(y, s) == pytest.approx(1 / 2)
    assert m.precision_at_k_score(y, s, k=1) == 0.0
    assert m.precision_at_k_score(y, s, k=3) == pytest.approx(1 / 3)
    assert m.precision_at_k_score(y, s, k=5) == pytest.approx(2 / 5)  # divided by k, not by 4 candidates
    assert m.average_precision_score([1, 0, 0, 1], [4, 3, 2, 1]) == pytest.approx((1 + 2 / 4) / 2)


def test_ties_keep_candidate_order():
    assert m.average_precision_score([0, 1], [1.0, 1.0]) == 0.5
    assert m.average_precision_score([1, 0], [1.0, 1.0]) == 1.0
    assert m.reciprocal_rank_score([0, 0, 1, 1], [2.0, 1.0, 1.0, 1.0]) == pytest.approx(1 / 3)


@pytest.mark.parametrize("tied", [True, False])
def test_question_retrieval_matches_slow_twin(tied):
    rng = np.random.default_rng(1)
    y_trues, y_scores = random_queries(rng, 400, tied=tied)
    fast = m.question_retrieval_scores(y_trues, y_scores, ks=(1, 3, 5, 20))
    slow = question_retrieval_slow(y_trues, y_scores, ks=(1, 3, 5, 20))
    assert fast.keys() == slow.keys()
    assert fast == pytest.approx(slow, abs=1e-12)
    assert 0 < fast["n_evaluated"] < fast["n_queries"] == 400  # some queries had no positive
    for y, s in zip(y_trues[:100], y_scores[:100]):
        if sum(y):
            ranked = [y[i] for i in stable_ranking(s)]
            assert m.average_precision_score(y, s) == pytest.approx(ap_slow(ranked), abs=1e-12)
            assert m.reciprocal_rank_score(y, s) == pytest.approx(rr_slow(ranked), abs=1e-12)
        top2 = [y[i] for i in stable_ranking(s)[:2]]
        assert m.precision_at_k_score(y, s, k=2) == pytest.approx(sum(top2) / 2)


def test_queries_without_positive_are_left_out():
    with_empty = m.question_retrieval_scores([[0, 1], [0, 0]], [[1, 2], [1, 2]], ks=(1,))
    alone = m.question_retrieval_scores([[0, 1]], [[1, 2]], ks=(1,))
    assert with_empty == alone | {"n_queries": 2}
    assert with_empty["MAP"] == 1.0 and with_empty["n_evaluated"] == 1


@pytest.mark.parametrize("split, n_evaluated", [("dev", 189), ("test", 186)])
def test_askubuntu_bm25_reproduces_lei_table2(real_data, split, n_evaluated):
    """dev.txt/test.txt ship the 20 BM25 candidates with their BM25 scores: Lei et al.'s BM25 row, exactly."""
    y_trues, y_scores = [], []
    for line in real_data("askubuntu", f"{split}.txt").read_text().splitlines():
        _, positives, candidates, bm25 = line.split("\t")
        y_trues.append([int(c in positives.split()) for c in candidates.split()])
        y_scores.append([float(x) for x in bm25.split()])
    got = m.question_retrieval_scores(y_trues, y_scores, ks=(1, 5))
    with open(PAPER_NUMBERS_CSV, newline="") as fh:
        wanted = ("lei2016", "Table 2", split, "BM25")
        paper = {r["metric"]: float(r["value"]) for r in csv.DictReader(fh)
                 if (r["paper"], r["table"], r["split"], r["method"]) == wanted}
    assert set(paper) == {"MAP", "MRR", "P@1", "P@5"}
    assert (got["n_queries"], got["n_evaluated"]) == (200, n_evaluated)
    for metric, value in paper.items():
        assert round(100 * got[metric], 1) == value, metric


# --- trec_eval (answer selection) ---------------------------------------------------------------------

@pytest.fixture
def pytrec_eval():
    return pytest.importorskip("pytrec_eval")


def pytrec_per_query(pytrec_eval, y_trues, y_scores, doc_ids):
    qrels, run = {}, {}
    for i, (y, s, ids) in enumerate(zip(y_trues, y_scores, doc_ids)):
        qrels[f"q{i}"] = {str(d): int(label) for d, label in zip(ids, y)}
        run[f"q{i}"] = {str(d): float(score) for d, score in zip(ids, s)}
    return pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", "num_rel", "P_1", "P_5"}).evaluate(run)


def random_doc_ids(rng, y_trues):
    # numbers of different lengths, so string order ("10" < "9") differs from numeric order
    return [[str(x) for x in rng.choice(200, size=len(y), replace=False)] for y in y_trues]


@pytest.mark.parametrize("tied", [True, False])
def test_trec_scores_match_pytrec_eval(pytrec_eval, tied):
    rng = np.random.default_rng(2)
    y_trues, y_scores = random_queries(rng, 300, tied=tied, max_len=15)
    doc_ids = random_doc_ids(rng, y_trues)
    per_query = pytrec_per_query(pytrec_eval, y_trues, y_scores, doc_ids)
    judged = [q for q in per_query.values() if q["num_rel"] > 0]
    # default: as trec_eval, a query without a relevant candidate counts at 0 (pytrec_eval's mean over all)
    got = m.trec_scores(y_trues, y_scores, ties="docid", doc_ids=doc_ids, ks=(1, 5))
    assert got["MAP"] == pytest.approx(np.mean([q["map"] for q in per_query.values()]), abs=1e-12)
    for k in (1, 5):  # P@k of the same ranking, divided by k, as trec_eval's P_k
        assert got[f"P@{k}"] == pytest.approx(np.mean([q[f"P_{k}"] for q in per_query.values()]), abs=1e-12)
    assert got["MRR"] == pytest.approx(np.mean([q["recip_rank"] for q in per_query.values()]), abs=1e-12)
    assert (got["n_queries"], got["n_evaluated"], got["n_with_relevant"]) == (300, 300, len(judged))
    assert len(judged) < 300  # the case is exercised
    skipped = m.trec_scores(y_trues, y_scores, ties="docid", doc_ids=doc_ids, no_relevant="skip")
    assert skipped["MAP"] == pytest.approx(np.mean([q["map"] for q in judged]), abs=1e-12)
    assert skipped["MRR"] == pytest.approx(np.mean([q["recip_rank"] for q in judged]), abs=1e-12)
    assert skipped["n_evaluated"] == len(judged)
    assert (skipped["MAP"], skipped["MRR"]) == pytest.approx(trec_docid_slow(y_trues, y_scores, doc_ids),
                                                             abs=1e-12)
    if not tied:  # without ties the tie-breaking rule cannot matter
        assert m.trec_scores(y_trues, y_scores, ties="random", seed=5, ks=(1, 5)) == pytest.approx(got, abs=1e-12)
    # each evaluated query's values, in order: trec_eval's per query, a query without a relevant one skipped or 0
    for no_relevant, kept in (("zero", per_query.values()), ("skip", judged)):
        each = m.trec_scores(y_trues, y_scores, ties="docid", doc_ids=doc_ids, ks=(1,), no_relevant=no_relevant,
                             per_query=True)["per_query"]
        assert each["MAP"] == pytest.approx([q["map"] for q in kept], abs=1e-12)
        assert each["MRR"] == pytest.approx([q["recip_rank"] for q in kept], abs=1e-12)
        assert each["P@1"] == pytest.approx([q["P_1"] for q in kept], abs=1e-12)


def test_trec_eval_breaks_ties_by_descending_docno(pytrec_eval):
    y_trues, scores = [[1, 0, 0], [0, 0, 1], [1, 0]], [[0.0, 0.0, 0.0]] * 2 + [[0.0, 0.0]]
    doc_ids = [["a", "b", "c"], ["a", "b", "c"], ["10", "9"]]  # "9" > "10" as strings
    per_query = pytrec_per_query(pytrec_eval, y_trues, scores, doc_ids)
    assert [q["recip_rank"] for q in per_query.values()] == [1 / 3, 1.0, 0.5]
    got = m.trec_scores(y_trues, scores, ties="docid", doc_ids=doc_ids)
    assert got["MRR"] == pytest.approx((1 / 3 + 1 + 1 / 2) / 3)


def test_pytrec_eval_scores_query_without_relevant_as_zero(pytrec_eval):
    """What the trec_scores docstring says pytrec_eval does with such a query."""
    per_query = pytrec_per_query(pytrec_eval, [[0, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]], [["a", "b"]] * 2)
    assert per_query["q0"] == {"map": 0.0, "recip_rank": 0.0, "num_rel": 0.0, "P_1": 0.0, "P_5": 0.0}
    assert m.trec_scores([[0, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]])["MAP"] == 0.25
    assert m.trec_scores([[0, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]], no_relevant="skip")["MAP"] == 0.5


def expected_ap_at_random(n, n_pos):
    """Exact mean AP over every placement of n_pos positives among n ranks."""
    aps = [ap_slow([int(i in pos) for i in range(n)]) for pos in itertools.combinations(range(n), n_pos)]
    return sum(aps) / len(aps)


def test_constant_scorer_gets_chance_map_with_random_ties():
    """Positives listed first (as in the TrecQA xml) must not help a scorer that cannot tell them apart."""
    n_queries, n, n_pos = 600, 10, 2
    y_trues = [[1] * n_pos + [0] * (n - n_pos)] * n_queries
    constant = [[0.5] * n] * n_queries
    chance = expected_ap_at_random(n, n_pos)  # 0.3543...
    got = m.trec_scores(y_trues, constant, ties="random", seed=0)["MAP"]
    assert got == pytest.approx(chance, abs=0.04)
    assert m.question_retrieval_scores(y_trues, constant)["MAP"] == 1.0  # the leak that random ties prevent
    ids_in_file_order = [[str(i) for i in range(n)]] * n_queries  # trec_eval ranks "9" first: worst case
    assert m.trec_scores(y_trues, constant, ties="docid", doc_ids=ids_in_file_order)["MAP"] == pytest.approx(
        ap_slow([0] * (n - n_pos) + [1] * n_pos))


def test_random_ties_are_seeded():
    rng = np.random.default_rng(3)
    y_trues, y_scores = random_queries(rng, 100, tied=True)
    first = m.trec_scores(y_trues, y_scores, seed=7)
    assert m.trec_scores(y_trues, y_scores, seed=7) == first
    assert m.trec_scores(y_trues, y_scores, seed=8)["MAP"] != first["MAP"]


# --- Accuracy@k (dos Santos et al.) -------------------------------------------------------------------

def test_accuracy_at_k_hand_computed():
    y = [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 1]]
    s = [[0.9, 0.8, 0.7, 0.1], [0.1, 0.2, 0.3, 0.4], [0.5, 0.5, 0.5, 0.5]]
    assert [m.accuracy_at_k_score(y, s, k=k) for k in (1, 2, 3, 4)] == pytest.approx([0, 1 / 3, 2 / 3, 1])


@pytest.mark.parametrize("tied", [True, False])
def test_accuracy_at_k_matches_slow_twin(tied):
    rng = np.random.default_rng(4)
    y = (rng.random((200, 30)) < 0.1).astype(int)
    y[np.arange(200), rng.integers(0, 30, 200)] = 1  # every query has a positive
    s = rng.integers(0, 4, y.shape).astype(float) if tied else rng.normal(size=y.shape)
    for k in (1, 5, 10, 30):
        assert m.accuracy_at_k_score(y, s, k=k) == accuracy_at_k_slow(y.tolist(), s.tolist(), k)
    lengths = [5 + i % 20 for i in range(len(y))]
    keep = [i for i, n in enumerate(lengths) if y[i, :n].any()]
    ragged_y, ragged_s = [y[i, :lengths[i]] for i in keep], [s[i, :lengths[i]] for i in keep]
    assert m.accuracy_at_k_score(ragged_y, ragged_s, k=3) == accuracy_at_k_slow(ragged_y, ragged_s, 3)


# --- ROC AUC family -----------------------------------------------------------------------------------

def test_auc_meter_hand_computed():
    y, s = [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]
    # ROC (fpr, tpr): (0,0) (0,.5) (.5,.5) (.5,1) (1,1); the meter stops at fpr=1, without the last segment
    assert m.auc_meter_score(y, s) == pytest.approx(0.25)
    assert m.roc_auc_score(y, s) == pytest.approx(0.75)
    # max_fpr = 0.5: n = 2 (fpr reaches .5 there), only the vertical segment before it, of area 0
    assert m.auc_meter_score(y, s, max_fpr=0.5) == 0.0
    assert m.auc_meter_score([1, 1, 0, 0, 0], [5, 4, 3, 2, 1], max_fpr=0.5) == pytest.approx(1 / 3 / 0.5)


@pytest.mark.parametrize("tied", [True, False])
def test_auc_meter_matches_slow_twin(tied):
    rng = np.random.default_rng(5)
    for _ in range(150):
        n = int(rng.integers(2, 60))
        y = (rng.random(n) < 0.3).astype(int)
        y[:2] = [0, 1]
        rng.shuffle(y)
        s = rng.integers(0, 5, n).astype(float) if tied else rng.normal(size=n) + y
        for max_fpr in (0.05, 0.1, 1 / max(1, n - y.sum()), 0.5, 1.0):
            assert m.auc_meter_score(y, s, max_fpr=max_fpr) == pytest.approx(
                auc_meter_slow(y.tolist(), s.tolist(), max_fpr), abs=1e-12)


def test_auc_meter_at_one_is_roc_auc_less_its_last_strip():
    """Without ties, the meter (max_fpr=1) misses the strip under the last negative: width 1/N, height tpr."""
    rng = np.random.default_rng(6)
    y = np.r_[np.ones(40), np.zeros(400)].astype(int)
    s = rng.normal(size=y.size) + y
    tpr_at_last_negative = np.mean(s[y == 1] > s[y == 0].min())
    assert m.auc_meter_score(y, s) == pytest.approx(sk.roc_auc_score(y, s) - tpr_at_last_negative / 400)


def test_auc_variants_differ_and_relate():
    rng = np.random.default_rng(7)
    y = np.r_[np.ones(50), np.zeros(500)].astype(int)
    s = rng.normal(size=y.size) + 1.5 * y
    meter = m.auc_score(y, s, max_fpr=0.05)  # default variant
    mcclish = m.auc_score(y, s, max_fpr=0.05, variant="mcclish")
    interpolated = m.auc_score(y, s, max_fpr=0.05, variant="interpolated")
    assert meter == m.auc_meter_score(y, s, max_fpr=0.05)
    assert mcclish == pytest.approx(sk.roc_auc_score(y, s, max_fpr=0.05))
    assert abs(meter - mcclish) > 0.1  # chance is 0.5 for McClish, 0.025 for the other two
    pauc, lo, hi = interpolated * 0.05, 0.05**2 / 2, 0.05
    assert mcclish == pytest.approx(0.5 * (1 + (pauc - lo) / (hi - lo)))
    assert m.interpolated_partial_auc_score(y, s, max_fpr=1.0) == pytest.approx(m.roc_auc_score(y, s))
    assert m.mcclish_partial_auc_score(y, s, max_fpr=1.0) == pytest.approx(m.roc_auc_score(y, s))
    assert set(m.AUC_VARIANTS) == {"meter", "mcclish", "interpolated"}


def test_interpolated_partial_auc_cuts_a_segment():
    # ROC (0,0) (0,.5) (.5,.5) (1,1): up to fpr .75 the last segment is cut at tpr .75
    y, s = [1, 0, 1, 0], [4, 3, 2, 2]
    assert m.interpolated_partial_auc_score(y, s, max_fpr=0.75) == pytest.approx(
        (0.5 * 0.5 + 0.25 * (0.5 + 0.75) / 2) / 0.75)


# --- bad input ----------------------------------------------------------------------------------------

ONE_QUERY = [
    lambda y, s: m.average_precision_score(y, s),
    lambda y, s: m.reciprocal_rank_score(y, s),
    lambda y, s: m.precision_at_k_score(y, s, k=1),
    lambda y, s: m.auc_meter_score(y, s),
    lambda y, s: m.roc_auc_score(y, s),
    lambda y, s: m.mcclish_partial_auc_score(y, s, max_fpr=0.1),
    lambda y, s: m.interpolated_partial_auc_score(y, s, max_fpr=0.1),
    lambda y, s: m.question_retrieval_scores([y], [s]),
    lambda y, s: m.trec_scores([y], [s]),
    lambda y, s: m.accuracy_at_k_score([y], [s], k=1),
]


@pytest.mark.parametrize("metric", ONE_QUERY)
@pytest.mark.parametrize("y, s, message", [
    ([0, 1, 1], [0.1, 0.2], "3 entries but y_score has 2"),
    ([0, 2, 1], [0.1, 0.2, 0.3], r"binary \(0/1\), found \[2\]"),
    ([], [], "empty input"),
    ([0, 1], [0.1, float("nan")], r"finite, found \[nan\]"),
    ([[0, 1]], [[0.1, 0.2]], r"1-D, got shapes \(1, 2\)"),
])
def test_bad_query_raises(metric, y, s, message):
    with pytest.raises(ValueError, match=message):
        metric(y, s)


@pytest.mark.parametrize("call", [
    lambda: m.precision_at_k_score([0, 1], [1, 2], k=0),
    lambda: m.precision_at_k_score([0, 1], [1, 2], k=1.5),
    lambda: m.question_retrieval_scores([[0, 1]], [[1, 2]], ks=(1, -1)),
    lambda: m.accuracy_at_k_score([[0, 1]], [[1, 2]], k=0),
])
def test_bad_k_raises(call):
    with pytest.raises(ValueError, match="k must be an integer >= 1, got k="):
        call()


@pytest.mark.parametrize("variant", sorted(m.AUC_VARIANTS))
@pytest.mark.parametrize("max_fpr", [0, -0.1, 1.5, float("nan")])
def test_max_fpr_outside_unit_interval_raises(variant, max_fpr):
    with pytest.raises(ValueError, match=r"max_fpr must be in \(0, 1\], got max_fpr="):
        m.auc_score([0, 1], [0.1, 0.9], max_fpr=max_fpr, variant=variant)


@pytest.mark.parametrize("call, message", [
    (lambda: m.average_precision_score([0, 0], [1, 2]), "no positive"),
    (lambda: m.reciprocal_rank_score([0, 0], [1, 2]), "no positive"),
    (lambda: m.question_retrieval_scores([[0, 0]], [[1, 2]]), "none of the 1 queries has a positive"),
    (lambda: m.trec_scores([[0, 0]], [[1, 2]]), "none of the 1 queries has a relevant"),
    (lambda: m.accuracy_at_k_score([[0, 1], [0, 0]], [[1, 2], [1, 2]], k=1),
     "query 1: y_true has no positive"),
    (lambda: m.auc_meter_score([1, 1], [1, 2]), "both classes, y_true has only 1s"),
    (lambda: m.roc_auc_score([0, 0], [1, 2]), "both classes, y_true has only 0s"),
    (lambda: m.auc_score([0, 1], [1, 2], variant="pauc"), "variant must be one of .* got variant='pauc'"),
    (lambda: m.question_retrieval_scores([[0, 1]], []), "1 label arrays but 0 score arrays"),
    (lambda: m.trec_scores([], []), "empty input: no queries"),
    (lambda: m.accuracy_at_k_score([], [], k=1), "empty input: no queries"),
    (lambda: m.trec_scores([[0, 1]], [[1, 2]], no_relevant="drop"), "no_relevant must be 'zero' or 'skip'"),
    (lambda: m.trec_scores([[0, 1]], [[1, 2]], ties="file"),
     "ties must be 'random' or 'docid', got ties='file'"),
    (lambda: m.trec_scores([[0, 1]], [[1, 2]], ties="docid"), "doc_ids is needed .* doc_ids missing"),
    (lambda: m.trec_scores([[0, 1]], [[1, 2]], doc_ids=[["a", "b"]]), "got ties='random' with doc_ids given"),
    (lambda: m.trec_scores([[0, 1]], [[1, 2]], ties="docid", doc_ids=[]), "1 label arrays but 0 doc_ids"),
    (lambda: m.trec_scores([[0, 1]], [[1, 2]], ties="docid", doc_ids=[["a"]]),
     "query 0: doc_ids has 1 entries"),
    (lambda: m.trec_scores([[0, 1]], [[1, 2]], ties="docid", doc_ids=[["a", "a"]]),
     "query 0: duplicate doc_ids"),
    (lambda: m.question_retrieval_scores([[0, 1], [1, 5]], [[1, 2], [1, 2]]), r"query 1: .*found \[5\]"),
])
def test_bad_input_raises(call, message):
    with pytest.raises(ValueError, match=message):
        call()
