"""The four word-overlap features of Severyn & Moschitti 2015, which Tay et al. 2018 concatenate before the
dense layers on TrecQA ("Four word overlap features are also concatenated ... following (Severyn and
Moschitti 2015)"), and their raw-count variant.

For a question q and a candidate answer a with word *sets* Q and A (lower-cased), the default
(``normalize=True``, :data:`FEATURE_NAMES`)::

    overlap(q, a)     = |Q ∩ A| / (|Q| + |A|)
    idf_overlap(q, a) = Σ_{w ∈ Q ∩ A} idf(w) / (|Q| + |A|)        idf(w) = ln(N / (1 + n_w))

and the raw counts (``normalize=False``, :data:`RAW_FEATURE_NAMES`), the same sums without the division::

    overlap_count(q, a)     = |Q ∩ A|
    idf_overlap_count(q, a) = Σ_{w ∈ Q ∩ A} idf(w)

N is the number of distinct texts (questions and answers) the IDF is fitted on and n_w how many of them
contain w. Each pair is computed on all words and again with stop words removed (Q, A, and the denominator
then without stop words), in the order [all words, IDF-weighted, without stop words, IDF-weighted without
stop words]. An empty Q ∪ A gives 0.

Sources, read rather than remembered: S&M 2015 §"Additional features" name "word overlap measures between
each question-answer pair ... [and] IDF-weighted word overlap", on all words and on non-stop words;
castorini/castor ``sm_cnn/external_features.py`` (``compute_overlap``, ``compute_idf_weighted_overlap``,
``get_qadata_only_idf``, NLTK's stop words) is the implementation followed here, with IDF fitted on the
distinct texts of every split (TRAIN/TRAIN-ALL, DEV, TEST: label-free text statistics). The authors' own
aseveryn/deep-qa ``parse.py`` differs in two ways we do not copy: its stop list is ``None``, so features 3–4
repeat 1–2, and its "idf" is ``df / ln(N / df)``, a document-frequency weight rather than an IDF.

Which variant each source uses: castor's ``compute_overlap`` and ``compute_idf_weighted_overlap`` divide by
``len(q_terms) + len(a_terms)`` (normalised); so does deep-qa ``parse.py``'s ``compute_overlap_features``
(normalised, with its df weight). S&M 2015's quoted text names the measures but gives no formula, so which
variant the paper means is unknown from it; their code normalises. The raw counts are the "word count" and
"weighted word count" of Yu et al. 2014, which S&M cite for these features; that paper is not read here, so
its stop list and whether its IDF is the one above are unknown.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from reproq.data.qa import QAQuestion

# NLTK's English stop-word list (``nltk.corpus.stopwords.words("english")``, 179 words), which castor uses.
NLTK_STOP_WORDS = frozenset("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his
himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom this
that that'll these those am is are was were be been being have has had having do does did doing a an the and but
if or because as until while of at by for with about against between into through during before after above
below to from up down in out on off over under again further then once here there when where why how all any
both each few more most other some such no nor not only own same so than too very s t can will just don don't
should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn
hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn
wasn't weren weren't won won't wouldn wouldn't
""".split())
FEATURE_NAMES = ("overlap", "idf_overlap", "overlap_nostop", "idf_overlap_nostop")  # normalize=True
RAW_FEATURE_NAMES = ("overlap_count", "idf_overlap_count", "overlap_count_nostop", "idf_overlap_count_nostop")


def _words(tokens: Iterable[str]) -> set[str]:
    return {t.lower() for t in tokens}


class OverlapFeatures:
    """``fit(texts)`` learns the IDF; ``transform(question, answer)`` gives the four features, divided by
    |Q| + |A| (``normalize=True``, S&M / castor) or raw counts (``normalize=False``, Yu et al.).

    >>> texts = [["the", "cat"], ["a", "cat", "sat"], ["dogs"], ["birds"]]
    >>> feats = OverlapFeatures().fit(texts)
    >>> feats.transform(["The", "cat"], ["a", "cat", "sat"]).round(4).tolist()  # idf(cat) = ln(4/3)
    [0.2, 0.0575, 0.3333, 0.0959]
    >>> OverlapFeatures(normalize=False).fit(texts).transform(["The", "cat"], ["a", "cat", "sat"]).round(4).tolist()
    [1.0, 0.2877, 1.0, 0.2877]
    """

    def __init__(self, stop_words: frozenset[str] = NLTK_STOP_WORDS, normalize: bool = True):
        self.stop_words = stop_words
        self.normalize = normalize  # True: divide by |Q| + |A| (S&M 2015, castor); False: raw counts (Yu et al.)
        self.idf_: dict[str, float] = {}
        self.n_texts_ = 0

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The names of :meth:`transform`'s four columns: :data:`FEATURE_NAMES` or :data:`RAW_FEATURE_NAMES`."""
        return FEATURE_NAMES if self.normalize else RAW_FEATURE_NAMES

    def fit(self, texts: Iterable[Sequence[str]]) -> OverlapFeatures:
        """IDF over the *distinct* texts (as castor's ``set(all_questions + all_answers)``)."""
        distinct = {tuple(t.lower() for t in text) for text in texts}
        counts = Counter(w for text in distinct for w in set(text))
        self.n_texts_ = len(distinct)
        self.idf_ = {w: math.log(self.n_texts_ / (1 + n)) for w, n in counts.items()}
        return self

    def _pair(self, q: set[str], a: set[str]) -> tuple[float, float]:
        size = len(q) + len(a) if self.normalize else 1
        if size == 0:
            return 0.0, 0.0
        common = q & a
        # a word the IDF never saw counts as if in no text: ln(N / 1)
        weight = sum(self.idf_.get(w, math.log(max(self.n_texts_, 1))) for w in common)
        return len(common) / size, weight / size

    def transform(self, question: Sequence[str], answer: Sequence[str]) -> np.ndarray:
        """The four features of one pair (float64, order of :attr:`feature_names`)."""
        if not self.n_texts_:
            raise ValueError("OverlapFeatures is not fitted: call fit(texts) first")
        q, a = _words(question), _words(answer)
        content = (q - self.stop_words, a - self.stop_words)
        return np.array(self._pair(q, a) + self._pair(*content), dtype=np.float64)

    def transform_questions(self, questions: Sequence[QAQuestion]) -> list[np.ndarray]:
        """Per question, a (n_candidates, 4) array aligned with its candidates."""
        return [np.array([self.transform(q.tokens, c.tokens) for c in q.candidates], dtype=np.float64)
                .reshape(len(q.candidates), len(FEATURE_NAMES)) for q in questions]


def question_texts(*splits: Sequence[QAQuestion]) -> list[tuple[str, ...]]:
    """Every question and candidate text of ``splits``, to fit the IDF on."""
    return [text for split in splits for q in split for text in (q.tokens, *(c.tokens for c in q.candidates))]
