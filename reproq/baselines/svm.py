"""SVM re-ranker over text-similarity features: the "SVM" baseline of Lei et al. 2016 Table 2.

Lei et al. §6: "we trained a re-ranker using SVM-Light (Joachims, 2002) with a linear kernel incorporating
several similarity measures from the DKPro similarity package (Bär et al., 2013)"; "we used the default
SVM-Light parameters whereas the dev data is only used to increase the training set size when testing on the
test set". Which DKPro measures they used is not reported, and DKPro's exact set is not reproduced here.

**Features** (:data:`FEATURE_NAMES`): twelve lexical measures in the spirit of DKPro Similarity between a query
q and a candidate c, on the title and again on title + body (:func:`reproq.baselines.lexical.question_tokens`),
tokens lower-cased; with Q, C the *sets* of n-grams, and |·| a length in tokens (characters for the substring)::

    word n-gram Jaccard      |Q ∩ C| / |Q ∪ C|        n = 1, 2, 3
    word n-gram containment  |Q ∩ C| / |Q|            n = 1, 2, 3 (how much of q the candidate holds; Broder 1997)
    char n-gram Jaccard      |Q ∩ C| / |Q ∪ C|        n = 3, 4, over the tokens joined by single spaces
    TF-IDF cosine            :class:`~reproq.baselines.tfidf.TfidfRanker` (unigrams) fitted on the whole corpus
    word LCS                 LCS(q, c) / max(|q|, |c|), longest common subsequence of the tokens
    char longest substring   LCSubstr(q, c) / max(|q|, |c|) over the first ``max_chars`` characters of each text
    length ratio             min(|q|, |c|) / max(|q|, |c|)

An empty set or text gives 0. scikit-learn's ``CountVectorizer(binary=True)`` gives the n-gram sets, rapidfuzz's
``LCSseq`` the word LCS (bit-parallel, Hyyrö 2004) on whole texts, difflib's ``SequenceMatcher`` the substring,
O(|q|·|c|) per pair at worst, hence the cut (:data:`MAX_CHARS`); their slow twins are in the tests.

**Ranking SVM** (Joachims 2002; SVM-light ``-z p``). Features are standardised on the training candidates.
Within each training query every (positive, negative) pair gives one difference d = x⁺ − x⁻ (every other one
enters negated, as (−d, −1), so the classifier sees two classes; with no intercept that is the same
constraint), and a linear SVM without intercept solves::

    min_w ½‖w‖² + C Σ_k ξ_k    s.t.  t_k w·d_k ≥ 1 − ξ_k,  ξ_k ≥ 0

(scikit-learn ``LinearSVC(loss="hinge", fit_intercept=False)``). A candidate's score is w·x.

**C**: SVM-light's default. Its ``svm_learn`` help text says "-c float -> C: trade-off between training error
and margin (default [avg. x*x]^-1)"; its code (SVM-light V5.00 ``svm_learn.c``: ``svm_learn_classification``
sets ``svm_c = 1.0/(r_delta_avg*r_delta_avg)`` with ``estimate_r_delta_average`` the mean of ‖x_i‖) computes
1 / (mean_i ‖x_i‖)², which is not 1 / mean_i(x_i·x_i) unless every ‖x_i‖ is equal. We follow the code
(:func:`svmlight_default_c`). In ranking mode ``svm_learn_ranking`` passes the pair differences to
``svm_learn_classification``, so the mean runs over the d_k, once per pair, as here.

**Protocol** (:func:`training_protocol`): dev is scored by a model trained on the training queries, test by one
trained on the training and dev queries; each training query keeps its user-marked similar questions and
``negatives`` questions drawn (seeded) from its random ones (Lei et al. §6: "We randomly sample 20 questions as
negative examples"); a dev query used for training keeps its annotated positives and negatives drawn from its
other candidates. A query of the split being scored is never a training query (dropped if it is one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from reproq.baselines.lexical import FIELDS, question_tokens
from reproq.baselines.tfidf import TfidfRanker
from reproq.data.askubuntu import EvalQuery, Question, QuestionRetrievalData, TrainQuery
from reproq.data.vocab import lowercase

MAX_CHARS = 100  # the character substring looks at this many characters of each text: O(MAX_CHARS²) per pair
WORD_NS, CHAR_NS = (1, 2, 3), (3, 4)
MEASURES = (*(f"word{n}_jaccard" for n in WORD_NS), *(f"word{n}_containment" for n in WORD_NS),
            *(f"char{n}_jaccard" for n in CHAR_NS), "tfidf_cosine", "word_lcs", "char_substring", "length_ratio")
FEATURE_NAMES = tuple(f"{field}:{measure}" for field in FIELDS for measure in MEASURES)


@dataclass(frozen=True)
class SvmConfig:
    negatives: int = 20  # Lei et al. §6: 20 random negatives per training query
    c: float | None = None  # None: SVM-light's default (svmlight_default_c)
    max_chars: int = MAX_CHARS  # characters of each text the longest common substring looks at


@dataclass(frozen=True)
class Group:
    """One training query: its similar questions and its sampled non-similar ones (ids into the corpus)."""

    query_id: str
    positive_ids: tuple[str, ...]
    negative_ids: tuple[str, ...]


def binary_ngrams(docs: Sequence, n: int, **kind) -> sparse.csr_matrix:
    """0/1 CSR matrix, a row per document, a column per n-gram (exactly n) of the corpus: |Q ∩ C| of two rows'
    n-gram sets is their row product. ``kind``: ``CountVectorizer``'s analyzer settings.

    >>> x = binary_ngrams(["abab", "ba"], 2, analyzer="char")  # {ab, ba}, {ba}
    >>> (x @ x.T).toarray().tolist()
    [[2, 1], [1, 1]]
    """
    if not any(len(doc) >= n for doc in docs):  # no n-gram anywhere: scikit-learn refuses an empty vocabulary
        return sparse.csr_matrix((len(docs), 0), dtype=np.int64)
    return CountVectorizer(binary=True, lowercase=False, ngram_range=(n, n), **kind).fit_transform(docs).tocsr()


def _ratio(num, den) -> np.ndarray:
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    return np.divide(num, den, out=np.zeros(len(num)), where=den > 0)


class SimilarityFeatures:
    """:data:`FEATURE_NAMES` of (query, candidate) pairs of one corpus. ``fit`` reads the corpus (per field: token
    ids, n-gram sets, cut texts, a TF-IDF); ``transform`` computes the features of pairs given by id."""

    def __init__(self, max_chars: int = MAX_CHARS):
        self.max_chars = max_chars

    def fit(self, corpus: Mapping[str, Question]) -> "SimilarityFeatures":
        self.row_ = {qid: i for i, qid in enumerate(corpus)}
        tokens = {f: [lowercase(question_tokens(q, f)) for q in corpus.values()] for f in FIELDS}
        vocab: dict[str, int] = {}  # rapidfuzz compares items by hash(): ids compare exactly
        self.words_ = {f: [[vocab.setdefault(t, len(vocab)) for t in ts] for ts in tokens[f]] for f in FIELDS}
        # sklearn's char analyzer squeezes whitespace runs to one space: these texts (str.split tokens) have none
        texts = {f: [" ".join(ts) for ts in tokens[f]] for f in FIELDS}
        self.cut_ = {f: [t[: self.max_chars] for t in texts[f]] for f in FIELDS}
        self.grams_ = {f: {**{f"word{n}": binary_ngrams(tokens[f], n, tokenizer=tuple, token_pattern=None)
                              for n in WORD_NS},  # tokenizer=tuple: the tokens as they are
                           **{f"char{n}": binary_ngrams(texts[f], n, analyzer="char") for n in CHAR_NS}}
                       for f in FIELDS}
        self.tfidf_ = {f: TfidfRanker().fit(tokens[f]) for f in FIELDS}
        return self

    def transform(self, query_ids: Sequence[str], candidate_ids: Sequence[str]) -> np.ndarray:
        """(P, len(FEATURE_NAMES)) float64, one row per (query_ids[p], candidate_ids[p])."""
        q = np.array([self.row_[i] for i in query_ids], np.int64)
        c = np.array([self.row_[i] for i in candidate_ids], np.int64)
        columns = []
        for f in FIELDS:
            found = {}
            for name, x in self.grams_[f].items():
                sizes, both = np.diff(x.indptr), np.asarray(x[q].multiply(x[c]).sum(axis=1)).ravel()
                found[f"{name}_jaccard"] = _ratio(both, sizes[q] + sizes[c] - both)
                if name.startswith("word"):  # containment is a measure of words only
                    found[f"{name}_containment"] = _ratio(both, sizes[q])
            vectors = self.tfidf_[f].doc_vectors_  # unit rows: the cosine is a row product
            found["tfidf_cosine"] = np.asarray(vectors[q].multiply(vectors[c]).sum(axis=1)).ravel()
            words, cut = self.words_[f], self.cut_[f]
            length = np.array([len(w) for w in words])
            longer = np.maximum(length[q], length[c])  # in tokens
            lcs = cpdist([words[i] for i in q], [words[i] for i in c], scorer=LCSseq.similarity, workers=1)
            found["word_lcs"] = _ratio(lcs, longer)
            found["length_ratio"] = _ratio(np.minimum(length[q], length[c]), longer)
            substring = [SequenceMatcher(None, cut[i], cut[j], autojunk=False).find_longest_match().size
                         for i, j in zip(q, c)]  # autojunk=False: exact, no popular-character heuristic
            found["char_substring"] = _ratio(substring, [max(len(cut[i]), len(cut[j])) for i, j in zip(q, c)])
            columns += [found[m] for m in MEASURES]
        return np.column_stack(columns)


def pairwise_transform(x: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(d, t)``: d_k = x⁺ − x⁻ for every (positive, negative) pair of the same group, groups in sorted order,
    within a group positives by row then negatives by row; t_k = +1, and every other pair negated (−d_k, −1).

    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    >>> d, t = pairwise_transform(x, np.array([1, 0, 0]), np.array([0, 0, 0]))
    >>> d.tolist(), t.tolist()
    ([[1.0, -1.0], [-1.0, 2.0]], [1, -1])
    """
    labels, groups = np.asarray(labels), np.asarray(groups)
    order = np.argsort(groups, kind="stable")
    diffs = []
    for rows in np.split(order, np.flatnonzero(np.diff(groups[order])) + 1):
        pos, neg = rows[labels[rows] == 1], rows[labels[rows] == 0]
        diffs.append((x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, x.shape[1]))
    d = np.concatenate(diffs)
    if len(d) == 0:
        raise ValueError("no group has both a positive and a negative: nothing to rank")
    t = np.where(np.arange(len(d)) % 2 == 0, 1, -1)
    return d * t[:, None], t


def svmlight_default_c(x: np.ndarray) -> float:
    """SVM-light's default C for training vectors ``x`` (rows): 1 / (mean_i ‖x_i‖)², as its
    ``estimate_r_delta_average`` computes it (see the module docstring for its help text's wording).

    >>> svmlight_default_c(np.array([[3.0, 4.0], [0.0, 1.0]]))  # mean length 3
    0.1111111111111111
    """
    mean_length = float(np.mean(np.linalg.norm(x, axis=1)))
    if mean_length == 0:
        raise ValueError("every training vector is zero: SVM-light's default C is undefined")
    return 1.0 / mean_length**2


class RankingSVM:
    """Linear ranking SVM on standardised features; ``fit(x, labels, groups)``, ``decision_function(x)`` = w·x."""

    def __init__(self, c: float | None = None, *, seed: int = 0, max_iter: int = 10_000):
        self.c, self.seed, self.max_iter = c, seed, max_iter

    def fit(self, x: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> "RankingSVM":
        self.scaler_ = StandardScaler().fit(x)  # on the training candidates; a constant feature keeps scale 1
        d, t = pairwise_transform(self.scaler_.transform(x), labels, groups)
        self.c_ = svmlight_default_c(d) if self.c is None else self.c
        svc = LinearSVC(C=self.c_, loss="hinge", fit_intercept=False, dual=True, max_iter=self.max_iter,
                        random_state=self.seed).fit(d, t)
        self.coef_ = svc.coef_.ravel()
        return self

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        return self.scaler_.transform(x) @ self.coef_


def training_groups(queries: Sequence[TrainQuery | EvalQuery], corpus: Mapping[str, Question], *,
                    negatives: int, rng: np.random.Generator, exclude: frozenset[str] = frozenset()) -> list[Group]:
    """One :class:`Group` per query that has a positive and a negative in the corpus and is not in ``exclude``:
    its similar ids, and ``negatives`` drawn without replacement from its random ids (training queries) or
    from its non-similar candidates (dev queries)."""
    groups = []
    for query in queries:
        similar = set(query.similar_ids)
        pool = query.random_ids if isinstance(query, TrainQuery) else query.candidate_ids
        pool = [i for i in pool if i in corpus and i not in similar and i != query.id]
        positives = tuple(i for i in query.similar_ids if i in corpus)
        if query.id in exclude or not positives or not pool:
            continue
        drawn = np.sort(rng.choice(len(pool), size=min(negatives, len(pool)), replace=False))
        groups.append(Group(query.id, positives, tuple(pool[k] for k in drawn)))
    return groups


def training_protocol(data: QuestionRetrievalData, config: SvmConfig = SvmConfig(), *,
                      seed: int = 0) -> dict[str, list[Group]]:
    """The training groups of the model that scores each split: ``"dev"`` the training queries, ``"test"`` the
    training and dev queries; neither ever holds a test query, nor the dev model a dev query."""
    if data.train is None:
        raise ValueError(f"{data.domain} has no training queries: the SVM needs AskUbuntu's")
    rng = np.random.default_rng(seed)
    scored = {split: frozenset(q.id for q in getattr(data, split)) for split in ("dev", "test")}
    train = training_groups(data.train, data.corpus, negatives=config.negatives, rng=rng,
                            exclude=scored["dev"] | scored["test"])
    dev = training_groups(data.dev, data.corpus, negatives=config.negatives, rng=rng, exclude=scored["test"])
    return {"dev": train, "test": train + dev}


def _pairs(groups: Sequence[Group]) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """(query ids, candidate ids, 0/1 labels, group index) of every candidate of ``groups``."""
    rows = [(g.query_id, cid, label, k) for k, g in enumerate(groups)
            for ids, label in ((g.positive_ids, 1), (g.negative_ids, 0)) for cid in ids]
    qids, cids, labels, index = zip(*rows) if rows else ((), (), (), ())
    return list(qids), list(cids), np.array(labels, np.int64), np.array(index, np.int64)


def svm_scores(data: QuestionRetrievalData, config: SvmConfig = SvmConfig(), *,
               seed: int = 0) -> dict[str, list[np.ndarray]]:
    """Per split ("dev", "test"), one score array per query aligned with ``query.candidate_ids``, each split
    from the model :func:`training_protocol` gives it; ``seed`` draws the negatives and seeds liblinear."""
    protocol = training_protocol(data, config, seed=seed)
    features = SimilarityFeatures(config.max_chars).fit(data.corpus)
    qids, cids, labels, index = _pairs(protocol["test"])  # the dev model's groups are the first ones
    x_train = features.transform(qids, cids)
    scores = {}
    for split, queries in (("dev", data.dev), ("test", data.test)):
        rows = index < len(protocol[split])
        model = RankingSVM(config.c, seed=seed).fit(x_train[rows], labels[rows], index[rows])
        x = features.transform([q.id for q in queries for _ in q.candidate_ids],
                               [c for q in queries for c in q.candidate_ids])
        scores[split] = np.split(model.decision_function(x), np.cumsum([len(q.candidate_ids) for q in queries])[:-1])
    return scores
