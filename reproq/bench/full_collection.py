"""Full-collection retrieval throughput (dos Santos et al. 2015): queries per second, each query scored against
every question of a collection the size of theirs (167,765 AskUbuntu questions) and reduced to its top 10.

The collection is synthetic (Zipf-distributed words, title + body lengths around AskUbuntu's), built from a fixed
seed; queries are questions of it. Every scorer runs end to end as the notebook runs it: the six Lucene
similarities (:mod:`reproq.baselines.lucene`, one sparse product a block of queries, then
:func:`~reproq.question_retrieval.full_collection.top_k`), BOW-CNN's and CNN alone's scores (notebook 10's
``score_blocks``: collection vectors encoded once, outside the timing, as an index would be; a block is one dense
and one sparse product), and beside
them, in the same run, ``bm25s`` (its own index and ``retrieve``, method "lucene"), the yardstick. Repeats are
interleaved (:func:`reproq.bench.interleaved`) and the ratio to ``bm25s`` is the median of the round-by-round
ratios; memory stays at one block of scores ([block, N] float64).
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from reproq.atomic import write_json
from reproq.baselines.lucene import SIMILARITIES
from reproq.baselines.term_statistics import TermStatistics
from reproq.bench import huge_pages, interleaved, load_warning, paired_ratios, write_rows_csv
from reproq.machine import cpu_capability, cpu_name
from reproq.models.bow_cnn import BOWCNNConfig
from reproq.profiles import get as get_profile
from reproq.question_retrieval import full_collection_training
from reproq.question_retrieval.full_collection import DuplicateSplit, top_k
from reproq.results import code_version

K = 10  # Accuracy@10 needs each query's 10 best


def collection(n_docs: int, mean_len: int, vocabulary: int, seed: int = 0) -> list[list[str]]:
    """``n_docs`` token lists, lengths Poisson around ``mean_len`` (at least 1), words Zipf-distributed."""
    rng = np.random.default_rng(seed)
    lengths = np.maximum(1, rng.poisson(mean_len, n_docs))
    words = np.minimum(rng.zipf(1.2, lengths.sum()), vocabulary) - 1
    names = [f"w{i}" for i in range(vocabulary)]
    ends = np.cumsum(lengths)
    return [[names[w] for w in words[end - n:end]] for n, end in zip(lengths, ends)]


def _neural(docs, stats: TermStatistics, units: int, bow: bool):
    """BOW-CNN (or CNN alone) over the collection, scored as notebook 10 scores it
    (:func:`~reproq.question_retrieval.full_collection_training.score_blocks`): random 200-d word vectors, t from the IDF."""
    ids = tuple(str(i) for i in range(len(docs)))
    vectors = np.random.default_rng(0).normal(0, 0.1, (len(stats.vocabulary) + 1, 200)).astype(np.float32)  # 0: pad
    sequences = {q: [stats.vocabulary[t] + 1 for t in d] for q, d in zip(ids, docs)}
    collection = full_collection_training.Collection(DuplicateSplit(ids, (), (), (), {}), sequences, vectors, {})
    torch.manual_seed(0)
    model = full_collection_training.build_model(collection, full_collection_training.DosSantosConfig(model=BOWCNNConfig(conv_units=units, bow=bow)))
    return full_collection_training.score_blocks(model, collection, device="cpu")


def main(out_path: Path, *, profile: str = "cpu") -> dict:
    """Time every scorer, write the numbers to ``out_path`` (JSON, and CSV beside it), return them."""
    import bm25s  # a test extra, as for the BM25 agreement test: the yardstick, not a dependency of the library

    sizes = get_profile(profile).bench.full_collection
    n_docs, n_queries, block, repeats = (sizes[k] for k in ("documents", "queries", "block", "repeats"))
    started = time.perf_counter()
    docs = collection(n_docs, sizes["mean_length"], sizes["vocabulary"])
    stats = TermStatistics.from_docs(docs)
    rows_q = np.random.default_rng(1).choice(n_docs, n_queries, replace=False)
    queries = [docs[r] for r in rows_q]
    scorers = {}
    for name, similarity in SIMILARITIES.items():
        ranker = similarity().fit(stats)
        scorers[f"Lucene {name}"] = lambda ranker=ranker: top_k(
            lambda rows: ranker.scores_many([docs[r] for r in rows]).toarray(), rows_q, k=K, block=block)
    for name, units, bow in (("BOW-CNN", sizes["conv_units"], True), ("CNN alone", sizes["conv_units"], False)):
        score_block = _neural(docs, stats, units, bow)
        scorers[name] = lambda score_block=score_block: top_k(score_block, rows_q, k=K, block=block)
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene", idf_method="lucene")
    retriever.index(docs, create_empty_token=False, show_progress=False)
    scorers["bm25s (yardstick)"] = lambda: retriever.retrieve(queries, k=K, show_progress=False, n_threads=1)
    setup = time.perf_counter() - started
    load_before = os.getloadavg()
    times = interleaved(scorers, repeats, torch.device("cpu"))
    load_after = os.getloadavg()
    ratios = paired_ratios(times, "bm25s (yardstick)")
    rows = [{"scorer": name, "queries_per_s": n_queries / statistics.median(t),
             "fastest_queries_per_s": n_queries / min(t), "relative_to_bm25s": ratios[name], "repeats": t}
            for name, t in times.items()]
    result = {
        "what": f"full-collection retrieval, top {K} of every question, queries per second (median of repeats)",
        "collection": {"documents": n_docs, "mean_length": sizes["mean_length"], "vocabulary": len(stats.vocabulary),
                       "tokens": int(stats.n_tokens)},
        "queries": n_queries, "block": block, "conv_units": sizes["conv_units"], "setup_seconds": setup,
        "profile": profile, "torch": torch.__version__, "threads": torch.get_num_threads(),
        "huge_pages": huge_pages(), "cpu": cpu_name(),
        "cpu_capability": cpu_capability(), "load_average_before": load_before, "load_average_after": load_after,
        "load_warning": load_warning(load_before, load_after),
        "code_version": code_version(), "rows": rows,
    }
    write_json(out_path, result)
    write_rows_csv(Path(out_path).with_suffix(".csv"), rows, {
        "scorer": "", "queries_per_s": ".1f", "fastest_queries_per_s": ".1f", "relative_to_bm25s": ".3f"})
    return result
