"""A deterministic synthetic stand-in for the AskUbuntu and Android files, in their exact formats.

The real AskUbuntu corpus, training file and vectors, and the Android corpus, cannot always be had; the
notebooks then run on this stand-in, read by the same readers (:mod:`reproq.data.askubuntu`). Its
numbers reproduce no paper; it exists so that every step runs and so that ranking is learnable but not
trivial. The latent structure:

- a *concept* has several surface words (synonyms); its words' vectors are its random centre plus
  noise, so synonyms lie close together; filler and common words get random vectors;
- an *intent* is a small set of concepts; similar questions (duplicates) share an intent, and each
  question picks its own surface word per concept, so word overlap is only partly informative;
- a body mixes its intent's concepts with concepts of other intents and with filler words; a title is
  short and drawn from the body's intent concepts, so titles summarise bodies;
- Android uses its own surface words for a share of the concepts and its own filler, so a model
  trained on AskUbuntu transfers partly. The lexicon (words and vectors) depends on the seed and the
  lexicon fields, not on the domain, and the vector file covers both domains' words, like a
  general-purpose embedding.

*Key phrases* (``key_phrase_len > 0``; off by default, and with them off the files are those of generator version 3)
plant the structure Lei et al. argue from (§1, §7 Figure 4: "the gate picks out application names and quoted error
messages"): every intent gets an ordered phrase of ``key_phrase_len`` *name* words (say, a program's name or an error
message); the body buries it, contiguous, once or twice among its detail, and the title summarises the body: the
phrase, in order, among the title's concept and common words. With ``twin_intents`` intents come in pairs with the
same concepts and the same name words, the second's phrase in another order (rotated by one word): a bag of words
cannot tell twins apart, only word order can. :data:`KEY_PHRASES` turns both on; :func:`key_phrases` tells which
phrase each question carries (the oracle the tests compare a bag-of-words cosine with).

With the defaults the dev set looks like the real one (measured over seeds 0-3): 4.5-6.3 positives
among 20 candidates (real 5.9), 7-16% of queries with none (real 5.5%), MAP 0.36-0.43 for a random
ranking (real 0.41) and 0.44-0.52 for BM25 (real 0.52), while the cosine of mean title word vectors
reaches 0.78-0.81: the vectors carry what word overlap misses. Files are byte-identical for equal
configs (gzip with mtime 0 and no file name in the header).

Longer than the house's ~300 lines: the latent structure and the two writers (AskUbuntu, Android) share
the generator's private pieces and are easier to check read together.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from reproq import paths
from reproq.baselines.bm25 import BM25, BM25Config

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
class _Lexicon:
    forms: dict[str, list[list[str]]]  # domain -> concept -> its surface words
    common: list[str]
    filler: dict[str, list[str]]  # domain -> filler words
    words: list[str]  # every word, in vector-file order
    vectors: np.ndarray  # [V, vector_dim]
    names: list[str]  # the name words of key phrases (none without them)


def _make_words(rng: np.random.Generator, n: int, syllables_per_word: tuple[int, int] = (2, 3)) -> list[str]:
    """``n`` distinct pronounceable nonsense words ("kanebo"): they look like words, name nothing."""
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words: dict[str, None] = {}
    while len(words) < n:
        k = int(rng.integers(syllables_per_word[0], syllables_per_word[1] + 1))
        words[("".join(syllables[i] for i in rng.integers(len(syllables), size=k)))] = None
    return list(words)


def _lexicon(c: SyntheticConfig) -> _Lexicon:
    rng = np.random.default_rng([c.seed, 0])  # stream 0: the lexicon, shared by both domains
    n_own = round(c.android_own_forms * c.n_concepts)
    n_forms = c.n_concepts * c.forms_per_concept
    pool = iter(_make_words(rng, n_forms + n_own * c.forms_per_concept + c.n_common + 2 * c.n_filler))
    shared = [[next(pool) for _ in range(c.forms_per_concept)] for _ in range(c.n_concepts)]
    own = {int(i): [next(pool) for _ in range(c.forms_per_concept)]
           for i in np.sort(rng.choice(c.n_concepts, n_own, replace=False))}
    common = [next(pool) for _ in range(c.n_common)]
    filler = {d: [next(pool) for _ in range(c.n_filler)] for d in DOMAINS}
    forms = {"askubuntu": shared, "android": [own.get(i, f) for i, f in enumerate(shared)]}

    # Concept words carry meaning in the first coordinates (unit-norm scale). Common and filler words, which make
    # up most of a body, live in the other coordinates, nuisance_scale times larger: averaged naively they swamp
    # the meaning; an encoder that learns to look past those coordinates recovers it.
    signal = c.meaning_dims
    rest = c.vector_dim - signal
    centres = rng.normal(0, 1 / np.sqrt(signal), (c.n_concepts, signal))
    words, rows = [], []
    for concept, surface in [*enumerate(shared), *own.items()]:
        words += surface
        rows.append(centres[concept] + rng.normal(0, c.vector_noise / np.sqrt(signal), (len(surface), signal)))
    n_meaningful = len(words)
    words += common + filler["askubuntu"] + filler["android"]
    meaning = np.vstack([*rows, np.zeros((len(words) - n_meaningful, signal))])
    nuisance = rng.normal(0, 1 / np.sqrt(max(rest, 1)), (len(words), rest))
    nuisance[:n_meaningful] *= 0.25  # concept words: a little of it
    nuisance[n_meaningful:] *= c.nuisance_scale
    vectors = np.hstack([meaning, nuisance]).astype(np.float32)
    names: list[str] = []
    if c.key_phrase_len:  # a stream of their own, and 4-syllable words: the words above stay as they were
        name_rng = np.random.default_rng([c.seed, 0, 1])
        names = _make_words(name_rng, c.n_name_words, (4, 4))
        # a name word means something (meaning coordinates like a concept word's), with a little nuisance
        name_vectors = np.hstack([name_rng.normal(0, 1 / np.sqrt(signal), (len(names), signal)),
                                  0.25 * name_rng.normal(0, 1 / np.sqrt(max(rest, 1)), (len(names), rest))])
        words, vectors = words + names, np.vstack([vectors, name_vectors.astype(np.float32)])
    return _Lexicon(forms, common, filler, words, vectors, names)


def word_kinds(config: SyntheticConfig) -> dict[str, str]:
    """What each word of ``config``'s domain is in the generator: ``"concept"`` (a surface word of a concept: the
    words that carry a question's meaning, its intent's or a distractor intent's), ``"name"`` (a word of a key
    phrase, when there are key phrases), ``"common"`` (function words) or ``"filler"`` (detail that says nothing
    about any intent). The check a real corpus cannot offer: does a model attend to the words that carry meaning?

    >>> from collections import Counter
    >>> kinds = word_kinds(SyntheticConfig(n_concepts=2, forms_per_concept=2, n_common=1, n_filler=3))
    >>> sorted(Counter(kinds.values()).items())
    [('common', 1), ('concept', 4), ('filler', 3)]
    """
    lex = _lexicon(config)
    kinds = {w: "filler" for w in lex.filler[config.domain]}
    kinds |= {w: "common" for w in lex.common}
    kinds |= {w: "concept" for forms in lex.forms[config.domain] for w in forms}
    kinds |= {w: "name" for w in lex.names}
    return kinds


def _zipf(n: int, offset: float = 5.0) -> np.ndarray:
    """Zipf-like probabilities over ``n`` ranks, flattened at the top by ``offset``."""
    weights = 1.0 / (np.arange(n) + offset)
    return weights / weights.sum()


def _key_phrases(c: SyntheticConfig, lex: _Lexicon, intents: np.ndarray, rng: np.random.Generator) -> list[list[str]]:
    """Each intent's ordered key phrase of distinct name words. With ``twin_intents`` the odd intents become twins
    of the even ones before them (``intents`` is changed in place): the same concepts, the same name words, the
    phrase rotated by one word."""
    phrases = [[lex.names[i] for i in rng.choice(len(lex.names), c.key_phrase_len, replace=False)]
               for _ in range(len(intents))]
    if c.twin_intents:
        for odd in range(1, len(intents), 2):
            intents[odd] = intents[odd - 1]
            phrases[odd] = phrases[odd - 1][1:] + phrases[odd - 1][:1]
    return phrases


def _questions(c: SyntheticConfig, lex: _Lexicon, rng: np.random.Generator):
    """Titles, bodies and intents of ``n_questions`` questions in domain ``c.domain``, and each intent's key
    phrase (None without key phrases)."""
    forms, filler = lex.forms[c.domain], lex.filler[c.domain]
    concept_p, common_p, filler_p = _zipf(c.n_concepts, 20), _zipf(c.n_common), _zipf(len(filler))
    intents = np.stack([rng.choice(c.n_concepts, c.concepts_per_intent, replace=False, p=concept_p)
                        for _ in range(c.n_intents)])
    intent_of = rng.choice(c.n_intents, c.n_questions, p=_zipf(c.n_intents, 10))
    phrases = _key_phrases(c, lex, intents, rng) if c.key_phrase_len else None
    shares = [c.body_intent_share, c.body_distractor_share, c.body_common_share]
    shares.append(max(0.0, 1 - sum(shares)))  # the rest: filler
    titles, bodies = [], []
    for intent in intent_of:
        preferred = {int(k): int(rng.integers(c.forms_per_concept)) for k in intents[intent]}

        def mention(concepts: np.ndarray) -> list[str]:
            loyal = rng.random(len(concepts)) < c.form_loyalty
            other = rng.integers(c.forms_per_concept, size=len(concepts))
            return [forms[k][preferred[k] if keep and k in preferred else j]
                    for k, keep, j in zip(concepts.tolist(), loyal, other.tolist())]

        distractors = intents[rng.choice(c.n_intents, int(rng.integers(1, 3)))].ravel()
        n_title, n_body = (int(rng.integers(lo, hi + 1)) for lo, hi in (c.title_len, c.body_len))
        kind = rng.choice(4, n_body, p=shares)  # 0 intent, 1 distractor, 2 common, 3 filler
        body = np.empty(n_body, dtype=object)
        body[kind == 0] = mention(rng.choice(intents[intent], int((kind == 0).sum())))
        body[kind == 1] = mention(rng.choice(distractors, int((kind == 1).sum())))
        body[kind == 2] = [lex.common[i] for i in rng.choice(c.n_common, int((kind == 2).sum()), p=common_p)]
        body[kind == 3] = [filler[i] for i in rng.choice(len(filler), int((kind == 3).sum()), p=filler_p)]
        is_concept = rng.random(n_title) < c.title_concept_share
        title = np.empty(n_title, dtype=object)
        title[is_concept] = [forms[k][preferred[k]] for k in rng.choice(intents[intent], int(is_concept.sum()))]
        title[~is_concept] = [lex.common[i] for i in rng.choice(c.n_common, int((~is_concept).sum()), p=common_p)]
        title, body = title.tolist(), body.tolist()
        if phrases is not None:  # buried in the body, once or more; the title, a summary, carries it too
            for _ in range(int(rng.integers(c.body_phrase_mentions[0], c.body_phrase_mentions[1] + 1))):
                at = int(rng.integers(len(body) + 1))
                body[at:at] = phrases[intent]
            at = int(rng.integers(len(title) + 1))
            title[at:at] = phrases[intent]
        titles.append(title)
        bodies.append(body)
    return titles, bodies, intent_of, phrases


def _write_text(path: Path, lines: list[str]) -> None:
    """Write lines; gzip when ``.gz``: no mtime and no name in the header (byte-identical runs), level 1
    (random vectors hardly compress; level 9 would take seconds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(line + "\n" for line in lines).encode()
    if path.suffix == ".gz":
        with open(path, "wb") as raw, gzip.GzipFile("", "wb", 1, raw, mtime=0) as gz:
            gz.write(data)
    else:
        path.write_bytes(data)


def _corpus(c: SyntheticConfig, lex: _Lexicon):
    """Ids, tokens, intents, per-intent members, corpus lines and possible queries of one domain."""
    rng = np.random.default_rng([c.seed, 1 + DOMAINS.index(c.domain)])  # one stream per domain
    titles, bodies, intent_of, phrases = _questions(c, lex, rng)
    # sorted random post ids, like the real dump: an id says nothing about its intent
    ids = [str(i) for i in np.sort(rng.choice(np.arange(1, 60 * c.n_questions), c.n_questions, replace=False))]
    members: dict[int, list[int]] = {}
    for q, intent in enumerate(intent_of.tolist()):
        members.setdefault(intent, []).append(q)
    lines = [f"{i}\t{' '.join(t)}\t{' '.join(b)}" for i, t, b in zip(ids, titles, bodies)]
    # the possible queries: every question with at least one duplicate, in random order
    queries = rng.permutation([q for q, i in enumerate(intent_of.tolist()) if len(members[i]) > 1]).tolist()
    return rng, ids, titles, bodies, intent_of, members, lines, queries, phrases


def key_phrases(config: SyntheticConfig) -> dict[str, tuple[str, ...]]:
    """The key phrase each question of ``config``'s stand-in carries, by question id (empty without key phrases):
    what an oracle that knows the planted structure would match on."""
    if not config.key_phrase_len:
        return {}
    _, ids, _, _, intent_of, _, _, _, phrases = _corpus(config, _lexicon(config))
    return {i: tuple(phrases[k]) for i, k in zip(ids, intent_of.tolist())}


def write_askubuntu(root: Path, config: SyntheticConfig) -> None:
    """Write the AskUbuntu files under ``root/askubuntu/`` in taolei87/askubuntu's formats."""
    if config.domain != "askubuntu":
        raise ValueError(f"write_askubuntu needs a config with domain='askubuntu', got {config.domain!r}")
    c, lex, out = config, _lexicon(config), Path(root) / "askubuntu"
    rng, ids, titles, bodies, intent_of, members, lines, queries, _ = _corpus(c, lex)
    _write_text(out / "text_tokenized.txt.gz", lines)
    dev, test = queries[:c.n_dev_queries], queries[c.n_dev_queries:c.n_dev_queries + c.n_test_queries]
    # held out from training only: like the real heldout.txt, some are dev/test candidates
    held = rng.permutation(sorted(set(range(len(ids))) - set(dev + test)))[:c.n_heldout].tolist()
    _write_text(out / "heldout.txt", [ids[q] for q in held])

    bm25 = BM25(BM25Config(k1=1.2, b=0.75)).fit([t + b for t, b in zip(titles, bodies)])
    for name, split in (("dev.txt", dev), ("test.txt", test)):
        rows = []
        for q in split:
            scores = bm25.scores(titles[q] + bodies[q])
            scores[q] = -np.inf  # a question is not its own candidate
            top = np.argsort(-scores, kind="stable")[:c.n_candidates]
            similar = [ids[d] for d in top if intent_of[d] == intent_of[q]]
            rows.append("\t".join([ids[q], " ".join(similar), " ".join(ids[d] for d in top),
                                   " ".join(str(np.float32(scores[d])) for d in top)]))
        _write_text(out / name, rows)

    barred = np.zeros(len(ids), dtype=bool)  # train lines never mention dev/test queries or held-out ids
    barred[dev + test + held] = True
    rows = []
    for q in queries[c.n_dev_queries + c.n_test_queries:]:
        partners = [d for d in members[int(intent_of[q])] if d != q and not barred[d]]
        if barred[q] or not partners:
            continue
        similar = rng.permutation(partners)[:int(rng.integers(1, c.max_train_similar + 1))].tolist()
        allowed = ~barred
        allowed[[q, *similar]] = False
        randoms = rng.choice(np.flatnonzero(allowed), c.n_random, replace=False)
        rows.append(f"{ids[q]}\t{' '.join(ids[d] for d in similar)}\t{' '.join(ids[d] for d in randoms)}")
        if len(rows) == c.n_train_queries:
            break
    _write_text(out / "train_random.txt", rows)
    _write_text(out / "vector" / "vectors_pruned.200.txt.gz",
                [w + " " + " ".join(f"{v:.5f}" for v in row) for w, row in zip(lex.words, lex.vectors.tolist())])


def write_android(root: Path, config: SyntheticConfig) -> None:
    """Write the Android files under ``root/android/`` in jiangfeng1124/Android's formats.

    Like the real files, each query has one positive (sometimes two) and ``n_random`` random negatives
    per positive, drawn from other intents.
    """
    if config.domain != "android":
        raise ValueError(f"write_android needs a config with domain='android', got {config.domain!r}")
    c, lex, out = config, _lexicon(config), Path(root) / "android"
    rng, ids, _, _, intent_of, members, lines, queries, _ = _corpus(c, lex)
    _write_text(out / "corpus.tsv.gz", lines)
    for split, chosen in (("dev", queries[:c.n_dev_queries]),
                          ("test", queries[c.n_dev_queries:c.n_dev_queries + c.n_test_queries])):
        pos, neg = [], []
        for q in chosen:
            partners = [d for d in members[int(intent_of[q])] if d != q]
            n_pos = min(len(partners), 2 if rng.random() < 0.05 else 1)  # real: 1,105 of 1,145 have one
            others = np.flatnonzero(intent_of != intent_of[q])
            for d in rng.permutation(partners)[:n_pos].tolist():
                pos.append(f"{ids[q]} {ids[d]}")
                neg += [f"{ids[q]} {ids[n]}" for n in rng.choice(others, c.n_random, replace=False)]
        _write_text(out / f"{split}.pos.txt", pos)
        _write_text(out / f"{split}.neg.txt", neg)


def materialize(config: SyntheticConfig) -> Path:
    """The folder ``synthetic_dir()/<config_id>/`` holding the stand-in for ``config``, generated once.

    Generation writes into a scratch folder, writes the :data:`COMPLETE` marker last and renames the
    folder into place, so a reader never sees a half-written stand-in.
    """
    target = paths.synthetic_dir() / config_id(config)
    if (target / COMPLETE).is_file():
        return target
    scratch = target.with_name(f"{target.name}.part-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        (write_askubuntu if config.domain == "askubuntu" else write_android)(scratch, config)
        (scratch / COMPLETE).write_text(json.dumps({"generator": GENERATOR_VERSION, **asdict(config)}, indent=1))
        if not (target / COMPLETE).is_file():  # else another process finished first
            shutil.rmtree(target, ignore_errors=True)  # an unfinished leftover
            os.replace(scratch, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target
