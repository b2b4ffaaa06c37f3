"""The stand-in's files, in the upstream formats of taolei87/askubuntu and jiangfeng1124/Android, and the cache
that generates each config once (see :mod:`reproq.synthetic`)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import warnings
from dataclasses import asdict
from pathlib import Path

import numpy as np

from reproq import atomic, paths
from reproq.baselines.bm25 import BM25, BM25Config
from reproq.synthetic.config import (COMPLETE, DOMAINS, GENERATOR_VERSION, PairStructure, SyntheticConfig,
                                          config_id)
from reproq.synthetic.text import Lexicon, lexicon, questions, zipf


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


def _corpus(c: SyntheticConfig, lex: Lexicon):
    """Ids, tokens, intents, per-intent members, corpus lines and possible queries of one domain."""
    rng = np.random.default_rng([c.seed, 1 + DOMAINS.index(c.domain)])  # one stream per domain
    titles, bodies, intent_of, phrases = questions(c, lex, rng)
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
    _, ids, _, _, intent_of, _, _, _, phrases = _corpus(config, lexicon(config))
    return {i: tuple(phrases[k]) for i, k in zip(ids, intent_of.tolist())}


def write_askubuntu(root: Path, config: SyntheticConfig) -> None:
    """Write the AskUbuntu files under ``root/askubuntu/`` in taolei87/askubuntu's formats."""
    if config.domain != "askubuntu":
        raise ValueError(f"write_askubuntu needs a config with domain='askubuntu', got {config.domain!r}")
    c, lex, out = config, lexicon(config), Path(root) / "askubuntu"
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


def write_android(root: Path, config: SyntheticConfig, structure: PairStructure | None = None) -> None:
    """Write the Android files under ``root/android/`` in jiangfeng1124/Android's formats.

    Like the real files, each query has one positive (sometimes two) and ``n_random`` random negatives
    per positive, drawn from other intents. With ``structure`` (real pair files', :class:`PairStructure`) only the
    corpus is written, for exactly the ids the real files name: a query and its positives share an intent (one of
    its own for each group that positives join), every other question draws one from the others, so the real
    pairs are labelled by the text as they are by the files; the real pair files are read beside it.
    """
    if config.domain != "android":
        raise ValueError(f"write_android needs a config with domain='android', got {config.domain!r}")
    if structure is not None:
        return _write_android_corpus(root, config, structure)
    c, lex, out = config, lexicon(config), Path(root) / "android"
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


def _write_android_corpus(root: Path, c: SyntheticConfig, structure: PairStructure) -> None:
    if c.pairs_sha1 != structure.sha1:
        raise ValueError(f"the config names pair files {c.pairs_sha1!r}, the structure given is {structure.sha1!r}")
    index = {i: k for k, i in enumerate(structure.ids)}
    group = list(range(len(index)))  # union-find over (query, positive) links

    def root_of(k: int) -> int:
        while group[k] != k:
            group[k] = group[group[k]]
            k = group[k]
        return k

    for query, positives in structure.positives:
        for p in positives:
            group[root_of(index[p])] = root_of(index[query])
    linked = sorted({root_of(index[i]) for q, ps in structure.positives for i in (q, *ps)})
    own = {g: n for n, g in enumerate(linked)}  # each group of linked questions: an intent of its own
    rng = np.random.default_rng([c.seed, 1 + DOMAINS.index(c.domain)])
    background = len(own) + rng.choice(c.n_intents, len(index), p=zipf(c.n_intents, 10))
    intent_of = np.array([own.get(root_of(k), background[k]) for k in range(len(index))])
    titles, bodies, _, _ = questions(c, lexicon(c), rng, intent_of=intent_of, n_intents=len(own) + c.n_intents)
    _write_text(Path(root) / "android" / "corpus.tsv.gz",
                [f"{i}\t{' '.join(t)}\t{' '.join(b)}" for i, t, b in zip(structure.ids, titles, bodies)])


def _digests(folder: Path) -> dict[str, str]:
    """Each file's SHA-256 under ``folder`` (but the marker), by its path there."""
    return {p.relative_to(folder).as_posix(): atomic.sha256(p)
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != COMPLETE}


def _intact(folder: Path) -> bool:
    """Whether ``folder`` holds a finished stand-in whose files are those its :data:`COMPLETE` marker lists."""
    try:
        recorded = json.loads((folder / COMPLETE).read_text()).get("files")
    except (OSError, ValueError):
        return False
    return recorded == _digests(folder)


def materialize(config: SyntheticConfig, structure: PairStructure | None = None) -> Path:
    """The folder ``synthetic_dir()/<config_id>/`` holding the stand-in for ``config``, generated once (an Android
    corpus for real pair files' ``structure``: ``config.pairs_sha1`` names it, so it is part of the key).

    Generation writes into a scratch folder, writes the :data:`COMPLETE` marker last (with every file's SHA-256) and
    renames the folder into place, so a reader never sees a half-written stand-in; a folder whose files no longer
    match its marker (cut short, edited) is generated again, with one warning line.
    """
    target = paths.synthetic_dir() / config_id(config)
    if _intact(target):
        return target
    if (target / COMPLETE).is_file():
        warnings.warn(f"{target}: the synthetic stand-in's files differ from what was generated there (or its marker "
                      "lists none); generating it again", RuntimeWarning, stacklevel=2)
    scratch = target.with_name(f"{target.name}.part-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        if config.domain == "askubuntu":
            write_askubuntu(scratch, config)
        else:
            write_android(scratch, config, structure)
        (scratch / COMPLETE).write_text(json.dumps({"generator": GENERATOR_VERSION, **asdict(config),
                                                    "files": _digests(scratch)}, indent=1))
        if not _intact(target):  # else another process finished first
            shutil.rmtree(target, ignore_errors=True)  # an unfinished leftover
            os.replace(scratch, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target
