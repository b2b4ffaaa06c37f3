"""The labs' autograded checks: each compares a student's function with the library's and, when they differ, names
the mistake it recognises — the answer a known wrong implementation would give is computed beside the right one.

A check passes silently or raises ``AssertionError`` with a message meant for the student: what was expected, and
(when the answer matches a known mistake) which mistake it looks like and how to mend it. A check runs the student's
function with reproq's own implementation of what it asks for refused (:func:`asks`): a submission that hands the
work to the library fails the check, and its cell scores nothing.

Longer than most modules here: one check per exercise of every lab, each beside the known mistakes it recognises;
a check is read with its mistakes, so they stay together.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import sys

import numpy as np
import torch

from reproq import metrics
from reproq.data.batching import pad_batch
from reproq.models.ctrn import CTRN, aligned_steps
from reproq.models.qrnn import QRNNConfig, forget_mult_reference
from reproq.models.rcnn import RCNN, RCNNConfig, rcnn_reference
from reproq.train.objectives import max_margin_loss


def asks(*modules: str):
    """A check of the student's function (its first argument) that asks for what ``modules`` of reproq already
    implement: while the student's function runs, every function and class those modules define, and every method of
    those classes, raises ``AssertionError`` wherever reproq or the notebook holds it (:func:`_refused`); the check's
    own reference numbers are computed outside that run, with the library intact."""
    def decorate(check):
        @functools.wraps(check)
        def run(student, *args, **kwargs):
            @functools.wraps(student)
            def refused_library(*a, **k):
                with _refused(modules, getattr(student, "__name__", "your function")):
                    return student(*a, **k)

            return check(refused_library, *args, **kwargs)

        return run

    return decorate


@contextlib.contextmanager
def _refused(modules, asked: str):
    own = {}
    for name in modules:
        for value in vars(importlib.import_module(name)).values():
            if (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == name:
                own[id(value)] = value
    holders = [m for n, m in list(sys.modules.items()) if n.startswith("reproq") or n == "__main__"]
    patched = [(m, attr, value) for m in holders for attr, value in list(vars(m).items())
               if own.get(id(value)) is value]
    patched += [(cls, attr, value) for cls in own.values() if inspect.isclass(cls)
                for attr, value in list(vars(cls).items()) if inspect.isfunction(value)]

    def refusal(value):
        def refuse(*args, **kwargs):
            raise AssertionError(f"{asked} calls reproq's own {value.__module__}.{value.__qualname__}: the lab asks "
                                 "you to write it yourself")
        return refuse

    for holder, attr, value in patched:
        setattr(holder, attr, refusal(value))
    try:
        yield
    finally:
        for holder, attr, value in patched:
            setattr(holder, attr, value)


def _close(a, b, tol: float = 1e-5) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, atol=tol, rtol=tol))


def _numpy(value):
    return value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)


def expect(got, expected, what: str, mistakes: dict[str, object] = (), tol: float = 1e-5) -> None:
    """Pass if ``got`` equals ``expected``; else name the first of ``mistakes`` (message -> the answer that mistake
    gives) that ``got`` matches, or say what was expected."""
    got, expected = _numpy(got), _numpy(expected)
    if _close(got, expected, tol):
        return
    for message, answer in dict(mistakes).items():
        if _close(got, _numpy(answer), tol):
            raise AssertionError(f"{what}: {message}")
    raise AssertionError(f"{what}: expected {np.round(expected, 4).tolist()}, got {np.round(got, 4).tolist()}")


# --- Lab 1: MAP, MRR and P@k under Lei et al.'s protocol ---------------------------------------------------------

def _queries(rng: np.random.Generator | None, n: int = 30) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n`` queries drawn afresh at each grading (``rng`` None): 2 to 20 candidates, each query with a positive,
    scores in halves from -2 to 2 so that ties are common. Fresh inputs: no table of answers can pass a check."""
    rng = rng or np.random.default_rng()
    queries = []
    for _ in range(n):
        size = int(rng.integers(2, 21))
        labels = rng.integers(0, 2, size)
        labels[rng.integers(0, size)] = 1
        queries.append((labels, rng.integers(-4, 5, size) / 2))
    return queries


@asks("reproq.metrics")
def check_rank(rank, rng: np.random.Generator | None = None) -> None:
    """``rank(labels, scores)`` -> the labels in rank order: score descending, ties in candidate order."""
    labels, scores = np.array([0, 1, 0, 1, 0]), np.array([0.5, 0.9, 0.5, 0.5, 0.1])
    expect(rank(labels, scores), [1, 0, 0, 1, 0], "rank([0, 1, 0, 1, 0], [0.5, 0.9, 0.5, 0.5, 0.1])", {
        "the lowest score comes first: sort by score descending": [0, 0, 0, 1, 1],
        "among equal scores the positives come first, which leaks the labels into the ranking: keep the candidates' "
        "own order for ties (a stable sort, np.argsort(-scores, kind='stable'))": [1, 1, 0, 0, 0],
        "ties come in reverse candidate order: keep the candidates' own order for ties (a stable sort, "
        "np.argsort(-scores, kind='stable'))": [1, 0, 1, 0, 0]})
    for labels, scores in _queries(rng):
        expect(rank(labels, scores), metrics._ranked(labels, scores), f"rank({labels.tolist()}, {scores.tolist()})")


@asks("reproq.metrics")
def check_average_precision(average_precision, rng: np.random.Generator | None = None) -> None:
    """``average_precision(ranked_labels)`` for one query with at least one positive."""
    expect(average_precision([1, 0, 1, 0]), (1 + 2 / 3) / 2, "average_precision([1, 0, 1, 0])", {
        "divided by the number of candidates: AP averages the precision at each positive over the positives":
            (1 + 2 / 3) / 4,
        "that is the precision at the last positive alone: average the precision at every positive": 2 / 3})
    for labels, scores in _queries(rng):
        ranked = metrics._ranked(labels, scores)
        expect(average_precision(ranked), metrics.average_precision_score(labels, scores),
               f"average_precision({ranked.tolist()})")


@asks("reproq.metrics")
def check_reciprocal_rank(reciprocal_rank, rng: np.random.Generator | None = None) -> None:
    expect(reciprocal_rank([0, 0, 1, 1]), 1 / 3, "reciprocal_rank([0, 0, 1, 1])", {
        "ranks are counted from 0 here: the first candidate has rank 1": 1 / 2,
        "that is the last positive: MRR uses the first": 1 / 4})
    for labels, scores in _queries(rng):
        ranked = metrics._ranked(labels, scores)
        expect(reciprocal_rank(ranked), metrics.reciprocal_rank_score(labels, scores),
               f"reciprocal_rank({ranked.tolist()})")


@asks("reproq.metrics")
def check_precision_at_k(precision_at_k, rng: np.random.Generator | None = None) -> None:
    expect(precision_at_k([1, 0, 1, 0, 0, 1], 5), 2 / 5, "precision_at_k([1, 0, 1, 0, 0, 1], k=5)", {
        "divided by the number of positives: P@k is the positive share of the top k": 2 / 3,
        "divided by the number of candidates instead of k": 2 / 6,
        "the top k + 1 were counted (an off-by-one in the slice)": 3 / 6})
    for (labels, scores), k in zip(_queries(rng), [1, 5, 3, 10, 25] * 6):
        ranked = metrics._ranked(labels, scores)
        expect(precision_at_k(ranked, k), metrics.precision_at_k_score(labels, scores, k=k),
               f"precision_at_k({ranked.tolist()}, k={k})")


@asks("reproq.metrics")
def check_evaluate(evaluate, rng: np.random.Generator | None = None) -> None:
    """``evaluate(queries)`` -> {"MAP", "MRR", "P@1", "P@5"} over (labels, scores) pairs, Lei et al.'s protocol."""
    queries = [([0, 1, 0, 0, 1, 0], [3, 2, 1, 0, 5, 4]), ([1, 0, 0, 0, 0, 0], [1, 2, 3, 4, 5, 6]),
               ([0, 0, 0, 0, 0, 0], [6, 5, 4, 3, 2, 1])]
    got = evaluate(queries)
    right = metrics.question_retrieval_scores([q[0] for q in queries], [q[1] for q in queries], ks=(1, 5))
    for name in ("MAP", "MRR", "P@1", "P@5"):
        expect(got[name], right[name], f"evaluate(...)[{name!r}]", {
            "the query without a positive counts here (as 0): Lei et al.'s protocol leaves such queries out "
            "(AskUbuntu dev: 189 of 200 queries remain)": right[name] * 2 / 3})
    queries = _queries(rng, 20) + [(np.zeros(5, dtype=int), np.arange(5.0))]  # the last one without a positive
    got, right = evaluate(queries), metrics.question_retrieval_scores(*zip(*queries), ks=(1, 5))
    for name in ("MAP", "MRR", "P@1", "P@5"):
        expect(got[name], right[name], f"evaluate(...)[{name!r}] over 21 fresh queries")


def check_bm25_row(scores: dict, paper: dict) -> None:
    """The shipped BM25 scores of AskUbuntu test, evaluated: Lei et al. Table 2's BM25 row (percent, as printed)."""
    for name, printed in paper.items():
        expect(round(100 * scores[name], 1), printed, f"BM25 {name} on AskUbuntu test (Lei et al. print {printed})",
               tol=0.051)


# --- Lab 2: the max-margin loss on the hardest negative ----------------------------------------------------------

@asks("reproq.train.objectives")
def check_max_margin_loss(loss, rng: np.random.Generator | None = None) -> None:
    """``loss(positive [N], negatives [N, K], mask [N, K], margin)`` -> a scalar tensor (Lei et al. §3): a worked
    example whose known mistakes are named, then batches drawn afresh at each grading (no table of answers passes)."""
    positive = torch.tensor([0.9, 0.2, 5.0])
    negatives = torch.tensor([[0.5, 0.1, 9.0], [0.6, 0.3, 9.0], [0.1, 0.2, 0.3]])
    mask = torch.tensor([[True, True, False], [True, True, False], [True, True, True]])
    margin = 0.5

    def hinge(hardest, reduce=torch.mean):
        return reduce(torch.clamp(hardest - positive + margin, min=0))

    real = negatives.masked_fill(~mask, float("-inf"))
    mean_negative = (negatives * mask).sum(1) / mask.sum(1)
    expect(loss(positive, negatives, mask, margin), max_margin_loss(positive, negatives, mask, margin=margin),
           "loss(positive, negatives, mask, margin=0.5)", {
               "the margin's sign is flipped: the hinge is max(0, s(q, p⁻) − s(q, p⁺) + δ), so a positive scored well "
               "above every negative costs 0": torch.clamp(positive - real.max(1).values + margin, min=0).mean(),
               "this averages over the negatives: Lei et al. take the hardest one (the max over p ∈ Q(q))":
                   hinge(mean_negative),
               "padding negatives (mask False) are counted: leave them out of the max (e.g. fill them with -inf)":
                   hinge(negatives.max(1).values),
               "the hinge is not clamped at 0: a pair already separated by the margin must cost 0, not reward":
                   (real.max(1).values - positive + margin).mean(),
               "summed over the pairs: average them (the loss of a batch must not grow with its size)":
                   hinge(real.max(1).values, torch.sum)})
    rng = rng or np.random.default_rng()
    for _ in range(10):
        n, k = int(rng.integers(1, 9)), int(rng.integers(1, 21))
        positive, negatives = (torch.from_numpy(rng.normal(size=shape).astype(np.float32)) for shape in ((n,), (n, k)))
        mask = torch.from_numpy(rng.random((n, k)) > 0.3)
        mask[:, 0] = True  # every query has a real negative
        margin = float(rng.choice([0.2, 0.5, 1.0]))
        expect(loss(positive, negatives, mask, margin), max_margin_loss(positive, negatives, mask, margin=margin),
               f"loss on a random batch of {n} queries with {k} negatives each, margin {margin}")


# --- Lab 3: the RCNN recurrence ----------------------------------------------------------------------------------

def rcnn_example(seed: int = 0) -> tuple[RCNN, torch.Tensor, torch.Tensor]:
    """A small RCNN (E = 6, d = 5, n = 2), a batch x [3, 7, 6] and its full mask, fixed by ``seed``."""
    torch.manual_seed(seed)
    model = RCNN(RCNNConfig(input_dim=6, hidden_dim=5, order=2, init_scale=0.5))
    return model, torch.randn(3, 7, 6), torch.ones(3, 7, dtype=torch.bool)


def run_steps(step, model: RCNN, x: torch.Tensor) -> torch.Tensor:
    """h [B, T, d] from a student's ``step(x_t, c1, c2, h, params) -> (c1, c2, h)``, zero initial states."""
    d = model.output_dim
    W1, W2 = model.W_filter.detach().view(2, d, -1)
    params = dict(W_gate=model.W_gate.detach(), U_gate=model.U_gate.detach(), b_gate=model.b_gate.detach(),
                  W1=W1, W2=W2, bias=model.bias.detach())
    c1 = c2 = h = x.new_zeros(x.shape[0], d)
    out = []
    for t in range(x.shape[1]):
        c1, c2, h = step(x[:, t], c1, c2, h, params)
        out.append(h)
    return torch.stack(out, dim=1)


def _rcnn_mistake(model: RCNN, x: torch.Tensor, mistake: str) -> torch.Tensor:
    """What a known wrong step gives (the equations of rcnn_reference with one thing changed)."""
    d = model.output_dim
    W1, W2 = model.W_filter.detach().view(2, d, -1)
    c1 = c2 = h = x.new_zeros(x.shape[0], d)
    out = []
    for t in range(x.shape[1]):
        x_t = x[:, t]
        lam = torch.sigmoid(x_t @ model.W_gate.T + (0 if mistake == "no U" else h @ model.U_gate) + model.b_gate)
        keep, take = (1 - lam, lam) if mistake == "swapped" else (lam, 1 - lam)
        new_c1 = keep * c1 + take * (x_t @ W1.T)
        new_c2 = keep * c2 + take * ((new_c1 if mistake == "new c1" else c1) + x_t @ W2.T)
        c1, c2 = new_c1, new_c2
        h = torch.tanh(c2 + (0 if mistake == "no bias" else model.bias))
        out.append(h)
    return torch.stack(out, dim=1).detach()


@asks("reproq.models.rcnn")
def check_rcnn_step(step, seed: int = 0) -> None:
    """The student's step, run over a batch, against the library's fast path (``RCNN.forward``)."""
    model, x, mask = rcnn_example(seed)
    with torch.no_grad():
        got, fast = run_steps(step, model, x), model(x, mask)
    assert torch.allclose(fast, rcnn_reference(model, x, mask), atol=1e-5)  # the yardstick agrees with its twin
    expect(got, fast, "h_t over 7 steps against RCNN's fast path", {
        "λ_t and 1 − λ_t are swapped: λ_t keeps the old state (λ_t ⊙ c_{t-1}), 1 − λ_t lets the new input in":
            _rcnn_mistake(model, x, "swapped"),
        "c^(2)_t reads c^(1)_t of this step: the equation reads c^(1)_{t-1}, the previous step's (keep a copy)":
            _rcnn_mistake(model, x, "new c1"),
        "the gate ignores h_{t-1}: λ_t = σ(W^λ x_t + U^λ h_{t-1} + b^λ)": _rcnn_mistake(model, x, "no U"),
        "the output bias b is missing: h_t = tanh(c^(n)_t + b)": _rcnn_mistake(model, x, "no bias")}, tol=1e-4)


@asks("reproq.models.rcnn")
def check_rcnn_parameters(rcnn_parameters) -> None:
    """``rcnn_parameters(E, d, n)``: |θ| of the RCNN's equations; Lei et al. Table 3 prints 401K (E=200, d=400, n=2)."""
    for E, d, n in [(200, 400, 2), (6, 5, 3), (10, 4, 1)]:
        counted = sum(p.numel() for p in RCNN(RCNNConfig(input_dim=E, hidden_dim=d, order=n)).parameters())
        expect(rcnn_parameters(E, d, n), counted, f"rcnn_parameters(E={E}, d={d}, n={n})", {
            "the filter matrices W_1 .. W_n are missing (n·E·d)": counted - n * E * d,
            "U^λ is missing (d·d)": counted - d * d,
            "the biases are missing (b^λ and b: 2d)": counted - 2 * d}, tol=0)


# --- Lab 4: the CTRN's crossing of gates ------------------------------------------------------------------------

def ctrn_example(seed: int = 0):
    """A small CTRN (m = 4, d = 3), one question of 3 words and one answer of 7 (so t* jumps), as tensors."""
    torch.manual_seed(seed)
    model = CTRN(QRNNConfig(input_dim=4, hidden_dim=3, width=2))
    x_q, x_a = torch.randn(1, 3, 4), torch.randn(1, 7, 4)
    return model, x_q, torch.ones(1, 3, dtype=torch.bool), x_a, torch.ones(1, 7, dtype=torch.bool)


def question_side(ltc_side, model: CTRN, x_q, x_a) -> torch.Tensor:
    """The student's ``ltc_side(z, f, o, f_partner, o_partner, t_star) -> output [ℓ, d]`` for the question side."""
    (z, f, o), (_, f_a, o_a) = (tuple(g[0] for g in model.qrnn.gates(x)) for x in (x_q, x_a))
    t_star = aligned_steps(x_q.shape[1], torch.tensor([x_q.shape[1]]), torch.tensor([x_a.shape[1]]))[0]
    return ltc_side(z, f, o, f_a, o_a, t_star.tolist())


@asks("reproq.models.ctrn", "reproq.models.qrnn")
def check_ltc_side(ltc_side, seed: int = 0) -> None:
    """The student's question side of Lightweight Temporal Crossing against the library's CTRN (CTRN-Q)."""
    model, x_q, mask_q, x_a, mask_a = ctrn_example(seed)
    with torch.no_grad():
        got, (right, _) = question_side(ltc_side, model, x_q, x_a), model(x_q, mask_q, x_a, mask_a)
        (z, f, o), (z_a, f_a, o_a) = (tuple(g[0] for g in model.qrnn.gates(x)) for x in (x_q, x_a))
        t_star = aligned_steps(3, torch.tensor([3]), torch.tensor([7]))[0]
        h = o * forget_mult_reference(f[None], z[None])[0]

        def dagger(z_used, f_used, o_used):
            return o_used * forget_mult_reference(f_used[None], z_used[None])[0]

        crossed = dagger(z, f_a[t_star], o_a[t_star])
        swapped = (o * forget_mult_reference((1 - f)[None], z[None])[0]) * dagger(z, 1 - f_a[t_star], o_a[t_star])
    expect(got, right[0], "the question side's output_t (CTRN-Q)", {
        "the gates are not crossed: the dagger cell must use the partner's F and O (read at t*) on the side's own Z":
            h * h,
        "the dagger cell reads the partner's Z: the text applies the partner's gates to the side's own Z_q": h * dagger(
            z_a[t_star], f_a[t_star], o_a[t_star]),
        "the partner's gates are read at t instead of t*: align them (t* = t·⌈max/min⌉, clipped to the partner)":
            h * dagger(z, f_a[:3], o_a[:3]),
        "the two cells are added: LTC combines them by the Hadamard product h_t ⊙ h†_t": h + crossed,
        "f and 1 − f are swapped in the recurrence: c_t = f_t ⊙ c_{t-1} + (1 − f_t) ⊙ z_t": swapped})


# --- Lab 5: Rankine's CBOW baseline ------------------------------------------------------------------------------

@asks("reproq.models.cbow", "reproq.models.pooling")
def check_cbow(cbow) -> None:
    """``cbow(vectors [B, T, E], mask [B, T]) -> [B, E]``: the mean of each question's real words."""
    vectors = torch.arange(24.0).view(2, 3, 4)
    mask = torch.tensor([[True, True, False], [True, True, True]])
    right = (vectors * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
    expect(cbow(vectors, mask), right, "cbow(vectors, mask)", {
        "padding positions are counted in the mean: average the real words only (divide by mask.sum)":
            vectors.mean(1),
        "that is the sum: CBOW averages (divide by the number of words)": (vectors * mask[..., None]).sum(1),
        "padding is left out of the sum but counted in the divisor": (vectors * mask[..., None]).sum(1) / 3})


def check_cosine_scores(cosine_scores) -> None:
    """``cosine_scores(query [E], candidates [K, E]) -> [K]``."""
    query, candidates = torch.tensor([3.0, 4.0]), torch.tensor([[6.0, 8.0], [1.0, 0.0], [0.0, -2.0]])
    expect(cosine_scores(query, candidates), [1.0, 0.6, -0.8], "cosine_scores([3, 4], ...)", {
        "these are dot products: a cosine divides by both vectors' lengths (long questions would win)":
            candidates @ query,
        "only the candidates are normalised: divide by the query's length too": candidates @ query / candidates.norm(dim=1),
        "a distance, not a similarity: higher must mean more similar": (candidates - query).norm(dim=1)})


def title_scores(prepared, queries, cbow, cosine_scores) -> list[np.ndarray]:
    """Each query's candidates scored by ``cosine_scores`` of ``cbow`` title vectors (the lab's pipeline, run with
    the student's functions and with the reference ones alike)."""
    vectors, scores = torch.from_numpy(prepared.vectors), []
    for q in queries:
        ids, mask = pad_batch([prepared.corpus.titles[i] for i in (q.id, *q.candidate_ids)])
        encoded = cbow(vectors[ids], mask)  # [1 + K, E]
        scores.append(_numpy(cosine_scores(encoded[0], encoded[1:])).astype(float))
    return scores


def _reference_cbow(vectors, mask):
    return (vectors * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)


def _reference_cosine(query, candidates):
    return torch.nn.functional.cosine_similarity(candidates, query[None], dim=-1)


def check_cbow_dev(scores: dict, prepared) -> None:
    """The student's dev metrics of CBOW on titles equal the reference pipeline's."""
    right = metrics.question_retrieval_scores([q.labels for q in prepared.dev],
                                              title_scores(prepared, prepared.dev, _reference_cbow, _reference_cosine))
    for name in ("MAP", "MRR", "P@1"):
        expect(scores[name], right[name], f"CBOW dev {name}", tol=1e-4)
