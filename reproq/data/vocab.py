"""Vocabulary, word vectors on it, word2vec where a paper's vectors cannot be had, and IDF word weights.

Ids are fixed: 0 is padding (its vector is always zero), 1 stands for an unknown word, the words follow.
A model sees words only through these ids and an embedding matrix built by :func:`embedding_matrix`.
"""

from __future__ import annotations

import hashlib
import json
import warnings
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from reproq.atomic import replace_atomically

PAD, UNK = "<pad>", "<unk>"
PAD_ID, UNK_ID = 0, 1


class Vocabulary:
    """Words and their ids: ``<pad>`` is 0, ``<unk>`` is 1, then ``words`` in the given order.

    >>> vocab = Vocabulary.build([["a", "b", "a"], ["c"]], min_count=1)
    >>> vocab.words, vocab.encode(["a", "z", "c"]), vocab.encode(["a", "z"], unknown="drop")
    (('<pad>', '<unk>', 'a', 'b', 'c'), [2, 1, 4], [2])
    """

    def __init__(self, words: Iterable[str]):
        self.words: tuple[str, ...] = (PAD, UNK, *dict.fromkeys(w for w in words if w not in (PAD, UNK)))
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def build(cls, token_lists: Iterable[Iterable[str]], *, min_count: int = 1,
              max_size: int | None = None) -> Vocabulary:
        """Words seen at least ``min_count`` times, most frequent first (ties in order of first sight)."""
        if min_count < 1:
            raise ValueError(f"min_count must be >= 1, got {min_count}")
        counts = Counter(w for tokens in token_lists for w in tokens)
        kept = [w for w, c in counts.most_common() if c >= min_count]  # most_common is stable for ties
        return cls(kept[:max_size])

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def encode(self, tokens: Iterable[str], *, unknown: str = "unk") -> list[int]:
        """Ids of ``tokens``; an unknown word becomes :data:`UNK_ID` (``unknown="unk"``) or is left out
        (``unknown="drop"``, what taolei87/rcnn's ``map_corpus`` does: a word without a vector vanishes)."""
        if unknown == "unk":
            return [self.index.get(t, UNK_ID) for t in tokens]
        if unknown == "drop":
            return [i for i in (self.index.get(t) for t in tokens) if i is not None]
        raise ValueError(f"unknown must be 'unk' or 'drop', got {unknown!r}")


def embedding_matrix(vocab: Vocabulary, words: Sequence[str], vectors: np.ndarray, *, oov: str = "zeros",
                     seed: int = 0) -> np.ndarray:
    """Pre-trained ``vectors`` (one row per entry of ``words``) laid out on ``vocab``: float32 ``[len(vocab), d]``.

    Padding and ``<unk>`` rows are zero. A vocabulary word without a vector gets zeros (``oov="zeros"``,
    Smolyakov & Srikant: "unseen words ... an all-zero vector") or a normal draw with the pre-trained
    vectors' standard deviation (``oov="random"``, generator seeded by ``seed``).

    >>> m = embedding_matrix(Vocabulary(["a", "b"]), ["b"], np.array([[1.0, 2.0]]))
    >>> m.tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]
    """
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or len(words) != len(vectors):
        raise ValueError(f"need one vector per word: {len(words)} words, vectors of shape {vectors.shape}")
    if oov not in ("zeros", "random"):
        raise ValueError(f"oov must be 'zeros' or 'random', got {oov!r}")
    out = np.zeros((len(vocab), vectors.shape[1]), dtype=np.float32)
    found = np.zeros(len(vocab), dtype=bool)
    for word, row in zip(words, vectors):
        i = vocab.index.get(word)
        if i is not None and i > UNK_ID:
            out[i], found[i] = row, True
    if oov == "random":
        missing = np.flatnonzero(~found)
        missing = missing[missing > UNK_ID]
        rng = np.random.default_rng(seed)
        out[missing] = rng.normal(0.0, float(vectors.std()), (len(missing), vectors.shape[1]))
    return out


def text_fingerprint(sentences: Iterable[Sequence[str]]) -> dict:
    """What a text is, for the record: sentence and token counts and a SHA-1 of its tokens."""
    digest, n_sentences, n_tokens = hashlib.sha1(), 0, 0
    for tokens in sentences:
        digest.update((" ".join(tokens) + "\n").encode())
        n_sentences, n_tokens = n_sentences + 1, n_tokens + len(tokens)
    return {"sentences": n_sentences, "tokens": n_tokens, "sha1": digest.hexdigest()}


def train_word2vec(sentences: Sequence[Sequence[str]], *, dim: int, seed: int, epochs: int = 5, window: int = 5,
                   min_count: int = 1, sg: bool = False, negative: int = 5) -> tuple[list[str], np.ndarray]:
    """``(words, float32 vectors [V, dim])`` from gensim's word2vec on ``sentences``, deterministic.

    One worker thread and a fixed seed make two runs byte-identical (gensim 4 seeds its initial vectors
    from ``seed`` alone). Where a paper's vectors cannot be had (TrecQA's 50-d aquaint+wiki, Lei et al.'s
    Stack Exchange + Wikipedia run), record with the result what it was trained on:
    ``{"word2vec": settings, "trained_on": text_fingerprint(sentences)}``.
    """
    from gensim.models import Word2Vec  # imported here: gensim is slow to import and few callers need it

    model = Word2Vec(sentences=[list(s) for s in sentences], vector_size=dim, window=window, min_count=min_count,
                     sg=int(sg), negative=negative, epochs=epochs, seed=seed, workers=1)
    words = list(model.wv.index_to_key)
    return words, np.asarray(model.wv.vectors, dtype=np.float32)


def idf_weights(vocab: Vocabulary, documents: Iterable[str]) -> np.ndarray:
    """A weight per vocabulary id, as taolei87/rcnn's ``create_idf_weights`` (its ``--reweight 1`` default).

    scikit-learn's ``TfidfVectorizer`` defaults (lower-casing, words of 2+ word characters, smoothed idf
    :math:`\\ln\\frac{1+n}{1+df} + 1`) fit on ``documents`` (the original passes every title and every body
    as a document); a vocabulary word the vectorizer does not know (punctuation, one-letter words) gets a
    quarter of the mean idf, as there. Padding and ``<unk>`` get that default too (padding's vector is zero).
    Word vectors are multiplied by these weights before the encoder sees them.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(min_df=1, ngram_range=(1, 1), binary=False)
    vectorizer.fit(documents)
    idf = vectorizer.idf_
    weights = np.full(len(vocab), idf.mean() / 4.0, dtype=np.float32)
    for word, value in zip(vectorizer.get_feature_names_out(), idf):
        i = vocab.index.get(word)
        if i is not None:
            weights[i] = value
    return weights


def lowercase(tokens: Iterable[str]) -> tuple[str, ...]:
    """The answer-selection texts as the rankers see them (TrecQA keeps the files' case; see data.trecqa)."""
    return tuple(t.lower() for t in tokens)


def cached_word2vec(sentences: Sequence[Sequence[str]], *, dim: int, epochs: int, seed: int
                    ) -> tuple[list[str], np.ndarray, dict]:
    """Skip-gram :func:`train_word2vec` (window 5, 5 negatives) cached under ``build/word2vec/`` by a hash of
    the text and the settings; returns ``(words, vectors, record)``, ``record`` saying what they are."""
    from reproq import paths

    settings = {"dim": dim, "epochs": epochs, "seed": seed, "sg": True, "window": 5, "min_count": 1, "negative": 5}
    record = {"word2vec": settings, "trained_on": text_fingerprint(sentences)}
    key = hashlib.sha1(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]
    cache = paths.build_dir() / "word2vec" / f"{key}.npz"
    if cache.is_file():
        try:
            with np.load(cache, allow_pickle=False) as saved:
                return list(saved["words"]), saved["vectors"], record
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            warnings.warn(f"{cache}: unreadable word2vec cache ({type(exc).__name__}); it is trained again")
            cache.unlink(missing_ok=True)
    words, vectors = train_word2vec(sentences, dim=dim, seed=seed, epochs=epochs, sg=True)
    def write(scratch: Path) -> None:
        with open(scratch, "wb") as fh:  # a file object: np.savez would append ".npz" to a bare name
            np.savez(fh, words=np.array(words), vectors=vectors)

    replace_atomically(cache, write)
    return words, vectors, record
