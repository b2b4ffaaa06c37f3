"""The stand-in's words and questions: a lexicon of concepts, synonyms, common, filler and name words with their
vectors, intents, key phrases, and the titles and bodies drawn from them (see :mod:`reproq.synthetic`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reproq.synthetic.config import DOMAINS, SyntheticConfig


@dataclass(frozen=True)
class Lexicon:
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


def lexicon(c: SyntheticConfig) -> Lexicon:
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
    return Lexicon(forms, common, filler, words, vectors, names)


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
    lex = lexicon(config)
    kinds = {w: "filler" for w in lex.filler[config.domain]}
    kinds |= {w: "common" for w in lex.common}
    kinds |= {w: "concept" for forms in lex.forms[config.domain] for w in forms}
    kinds |= {w: "name" for w in lex.names}
    return kinds


def zipf(n: int, offset: float = 5.0) -> np.ndarray:
    """Zipf-like probabilities over ``n`` ranks, flattened at the top by ``offset``."""
    weights = 1.0 / (np.arange(n) + offset)
    return weights / weights.sum()


def _key_phrases(c: SyntheticConfig, lex: Lexicon, intents: np.ndarray, rng: np.random.Generator) -> list[list[str]]:
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


def concept_popularity(c: SyntheticConfig) -> np.ndarray:
    """How often each concept is an intent's, in ``c.domain``: Zipf-like; Android's mixes in the share
    ``android_topic_shift`` of a Zipf over a reshuffled ranking (a stream of its own), so that the two domains ask
    about different things in a measured way (:func:`domain_shift`)."""
    p = zipf(c.n_concepts, 20)
    if c.domain == "android" and c.android_topic_shift:
        reshuffled = p[np.random.default_rng([c.seed, 0, 2]).permutation(c.n_concepts)]
        p = (1 - c.android_topic_shift) * p + c.android_topic_shift * reshuffled
    return p


def domain_shift(askubuntu: SyntheticConfig, android: SyntheticConfig) -> dict[str, float]:
    """The planted difference between the two domains' stand-ins: the share of concepts Android names with its own
    words, the share of filler words that differ (all), and the total-variation distance between the domains'
    concept popularity (0: same topics, 1: disjoint).

    >>> shift = domain_shift(SyntheticConfig(), SyntheticConfig(domain="android", android_topic_shift=0.5))
    >>> shift["concepts with Android's own words"], 0.1 < shift["topic distance (total variation)"] < 0.5
    (0.5, True)
    """
    p, q = concept_popularity(askubuntu), concept_popularity(android)
    return {"concepts with Android's own words": android.android_own_forms, "filler words Android's own": 1.0,
            "topic distance (total variation)": float(0.5 * np.abs(p - q).sum())}


def questions(c: SyntheticConfig, lex: Lexicon, rng: np.random.Generator, *, intent_of: np.ndarray | None = None,
              n_intents: int | None = None):
    """Titles, bodies and intents of ``n_questions`` questions in domain ``c.domain`` (or of one question per entry
    of ``intent_of``, among ``n_intents`` intents), and each intent's key phrase (None without key phrases)."""
    forms, filler = lex.forms[c.domain], lex.filler[c.domain]
    concept_p, common_p, filler_p = concept_popularity(c), zipf(c.n_common), zipf(len(filler))
    n_intents = n_intents or c.n_intents
    intents = np.stack([rng.choice(c.n_concepts, c.concepts_per_intent, replace=False, p=concept_p)
                        for _ in range(n_intents)])
    if intent_of is None:
        intent_of = rng.choice(n_intents, c.n_questions, p=zipf(n_intents, 10))
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

        distractors = intents[rng.choice(n_intents, int(rng.integers(1, 3)))].ravel()
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
