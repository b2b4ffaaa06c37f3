"""The stand-in's knobs: sizes, the latent structure's shares, key phrases; and the cache key of a config."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

GENERATOR_VERSION = 4  # bump whenever the output changes: cached stand-ins are keyed by it (4: key phrases, off
# by default: version 3's files unchanged)
COMPLETE = "COMPLETE"  # marker written last into a finished stand-in folder
DOMAINS = ("askubuntu", "android")
KEY_PHRASES = dict(key_phrase_len=3, twin_intents=True)  # SyntheticConfig overrides: the stand-in with key phrases


@dataclass(frozen=True)
class SyntheticConfig:
    """Sizes and knobs of the stand-in; the defaults make a smoke-sized corpus generated in about a second.

    Fields under "lexicon" must be equal in the AskUbuntu and Android configs for the two to share
    concepts and vectors (the defaults are).
    """

    domain: str = "askubuntu"  # which dataset the files imitate: "askubuntu" | "android"
    seed: int = 0  # everything below is drawn from it
    # lexicon (shared by both domains)
    n_concepts: int = 400  # latent concepts (things a question can be about)
    forms_per_concept: int = 3  # surface words (synonyms) per concept and domain
    android_own_forms: float = 0.5  # share of concepts for which Android uses its own surface words
    android_topic_shift: float = 0.0  # Android's concept popularity: this share from a reshuffled ranking (0: AskUbuntu's)
    n_common: int = 40  # function words both domains use ("how", "do", "i" …)
    n_filler: int = 600  # filler words per domain: detail that says nothing about the intent
    vector_dim: int = 200  # AskUbuntu ships 200-d vectors (vectors_pruned.200.txt.gz)
    vector_noise: float = 1.0  # a surface word = concept centre + noise of this relative size
    signal_share: float = 0.25  # share of the dims that carry meaning (concept centres live there); the rest none
    nuisance_scale: float = 6.0  # common and filler words' vectors in the meaning-free dims, relative to the size
    # of a concept word's meaning: a trained encoder can learn to look past them, an untrained one cannot
    # corpus
    n_questions: int = 3000  # real: 167,765 (AskUbuntu), 42,970 (Android)
    n_intents: int = 600  # duplicate groups; Zipf-like sizes, some singletons (mean 5)
    concepts_per_intent: int = 3  # concepts that define an intent
    title_len: tuple[int, int] = (4, 10)  # inclusive range; real mean 6 (AskUbuntu), 9 (Android)
    body_len: tuple[int, int] = (30, 150)  # inclusive; longer than the 100 tokens readers keep
    title_concept_share: float = 0.6  # share of title tokens that are intent concept words (rest common)
    body_intent_share: float = 0.15  # share of body tokens from the question's own intent
    body_distractor_share: float = 0.2  # … from the concepts of 1-2 other intents
    body_common_share: float = 0.25  # … common words; the rest is domain filler
    form_loyalty: float = 0.8  # chance a concept mention uses the question's preferred surface word
    key_phrase_len: int = 0  # name words in each intent's ordered key phrase (0: no key phrases; module docstring)
    n_name_words: int = 300  # the name words key phrases are drawn from
    body_phrase_mentions: tuple[int, int] = (1, 2)  # inclusive: how often a body carries its intent's phrase
    twin_intents: bool = False  # intents in pairs: same concepts and name words, phrase in another order
    # splits
    n_train_queries: int = 600  # real: 12,724 (AskUbuntu only)
    max_train_similar: int = 3  # user-marked duplicates per training query: 1 to this many
    n_dev_queries: int = 100  # real: 200 (AskUbuntu), 1,145 (Android)
    n_test_queries: int = 100  # real: 200 (AskUbuntu), 1,148 (Android)
    n_candidates: int = 20  # BM25 candidates per AskUbuntu dev/test query (real: 20)
    n_random: int = 100  # random negatives per training query, and per Android positive pair (real: 100)
    n_heldout: int = 100  # AskUbuntu questions held out from training (real: 1,989)
    pairs_sha1: str = ""  # Android: the real pair files whose structure the corpus copies (PairStructure.sha1; "": none)

    @property
    def meaning_dims(self) -> int:
        """The leading vector coordinates that carry meaning (concept centres); the rest carry none."""
        return max(1, round(self.signal_share * self.vector_dim))

    def __post_init__(self) -> None:
        if self.domain not in DOMAINS:
            raise ValueError(f"domain must be one of {DOMAINS}, got {self.domain!r}")
        for name in ("title_len", "body_len"):
            low, high = getattr(self, name)
            if not 1 <= low <= high:
                raise ValueError(f"{name} must be (low, high) with 1 <= low <= high, got {(low, high)}")
        shares = (self.body_intent_share, self.body_distractor_share, self.body_common_share)
        if not 0 < self.signal_share <= 1:
            raise ValueError(f"signal_share must be in (0, 1], got {self.signal_share}")
        if min(shares) < 0 or sum(shares) > 1:
            raise ValueError(f"body shares must be >= 0 and sum to at most 1, got {shares}")
        if not 0 <= self.android_topic_shift <= 1:
            raise ValueError(f"android_topic_shift must be in [0, 1], got {self.android_topic_shift}")
        if self.key_phrase_len < 0 or (self.key_phrase_len and self.key_phrase_len > self.n_name_words):
            raise ValueError(f"key_phrase_len must be in 0..n_name_words={self.n_name_words}, got {self.key_phrase_len}")
        if self.twin_intents and self.key_phrase_len < 2:
            raise ValueError("twin_intents needs key phrases of at least 2 words (twins differ in word order)")
        n_used = self.n_train_queries + self.n_dev_queries + self.n_test_queries + self.n_heldout
        if n_used + self.n_random + self.n_candidates > self.n_questions:
            raise ValueError(f"n_questions={self.n_questions} is too small: the splits take {n_used} questions "
                             f"and {self.n_random + self.n_candidates} more are needed to draw from")


def config_id(config: SyntheticConfig) -> str:
    """A short hash of the config and the generator version: the stand-in's cache key."""
    blob = json.dumps({"generator": GENERATOR_VERSION, **asdict(config)}, sort_keys=True)
    return hashlib.sha1(blob.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class PairStructure:
    """The evaluation structure of real Android pair files that a stand-in copies: every question id they name, and
    each query's positives (its negatives are the other ids it names). Built from the queries the pair-file reader
    gives (objects with ``id``, ``similar_ids`` and ``candidate_ids``)."""

    ids: tuple[str, ...]
    positives: tuple[tuple[str, tuple[str, ...]], ...]  # (query id, its positive ids), sorted

    @classmethod
    def of(cls, queries) -> PairStructure:
        ids = sorted({i for q in queries for i in (q.id, *q.candidate_ids)})
        return cls(tuple(ids), tuple(sorted((q.id, tuple(sorted(q.similar_ids))) for q in queries)))

    @property
    def sha1(self) -> str:
        return hashlib.sha1(json.dumps([self.ids, self.positives]).encode()).hexdigest()
