"""Every encoder of the study on the real answer-ranking data, under one protocol: the table no paper has (notebook
``12_encoders_side_by_side``).

The protocol is fixed in advance and the same for every encoder; nothing in it is chosen per encoder or on TEST:

- Tay et al.'s pointwise ranker around each encoder (:class:`~reproq.models.answer_ranker.PointwiseRanker`): fixed
  word vectors, a trainable m-d projection, the encoder, temporal mean pooling, the four raw overlap counts joining
  after the dropout, the dense layer and the 2-class softmax; the encoders of all five papers (:data:`ENCODERS`);
- :data:`PROTOCOL`'s inputs: skip-gram word2vec trained on each dataset's own texts and the raw counts after the
  dropout — the overlap features DEV chose on all three datasets (notebooks 04 and 06) and the vectors it chose on
  QatarLiving; on TrecQA and WikiQA DEV preferred GloVe 6B 50-d by a small margin, which one fixed protocol does not
  take, so their numbers here can sit below notebooks 04's and 06's;
- the profile's sizes, epochs and batches per dataset, DEV MAP choosing the epoch; TrecQA trained on TRAIN.

Evaluations (:data:`EVALUATIONS`): TrecQA raw TEST, WikiQA test, QatarLiving dev (no test split: dev also chose the
epoch, so those rows are optimistic). Beside the encoders: the floors of the same split and the external anchor
(all-MiniLM-L6-v2 zero-shot). BOW-CNN is not a row: it is a similarity (a learned per-word weight on two count vectors
and a cosine, beside the cosine of two convolutions), not a sequence encoder whose states the pointwise head can
pool; its convolutional half is the CNN row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from reproq.answer_selection import floors
from reproq.answer_selection.inputs import AnswerInputs, prepare
from reproq.answer_selection.run import run_grid
from reproq.baselines.overlap import question_texts
from reproq.data.qa_datasets import load_splits
from reproq.papers.tay2018 import Choice, anchor_against, anchor_reading, tay_configs
from reproq.profiles import AnswerSelection
from reproq.results import Provenance, Record, run_records
from reproq.results.records import bootstrap_interval, claim

NOTEBOOK = "12_encoders_side_by_side"
TABLE = "Encoders side by side"
ENCODERS = ("CNN", "LSTM", "GRU", "RCNN", "QRNN", "CTRN", "CBOW")  # Lei et al.'s four, Tay et al.'s two, Rankine's
PROTOCOL = Choice("word2vec", "raw counts, after the dropout")
# dataset -> the records' dataset name, the evaluated split, the training split
EVALUATIONS = {"trecqa": ("trecqa", "test", "train"), "semeval2016": ("qatarliving", "dev", "train"),
               "wikiqa": ("wikiqa", "test", "train")}
METRICS = ("MAP", "MRR")


def inputs(dataset: str, p: AnswerSelection) -> AnswerInputs:
    """``dataset``'s training and evaluation sets with :data:`PROTOCOL`'s vectors and overlap features."""
    return prepare(dataset, vectors=PROTOCOL.vectors, features=PROTOCOL.features, w2v_epochs=p.w2v_epochs,
                   limit=p.limit)


def _keys(dataset: str) -> dict:
    """The fields of ``dataset``'s records here: paper, table, dataset and the evaluated split."""
    name, split, _ = EVALUATIONS[dataset]
    return dict(paper="reproq", table=TABLE, dataset=name, split=split)


def trained_records(data: AnswerInputs, p: AnswerSelection, methods: Sequence[str], seeds: Sequence[int],
                    provenance: Provenance, **run_options) -> list[Record]:
    """Each of ``methods`` trained with every seed on ``data`` under the protocol, as records of its evaluation
    (per question too)."""
    train_split, keys = EVALUATIONS[data.dataset][2], _keys(data.dataset)
    records = []
    for method in methods:
        config = tay_configs(p, data, method, train_split, ranker=PROTOCOL.ranker)[0]
        runs = run_grid(data, [config], seeds, **run_options).best_runs
        records += run_records(runs, provenance, method=method, splits=[keys["split"]], metrics=list(METRICS),
                               **{k: v for k, v in keys.items() if k != "split"})
    return records


def floor_records(dataset: str, p: AnswerSelection, provenance: Provenance, seed: int, *,
                  anchor_model=None) -> list[Record]:
    """The floors of ``dataset``'s evaluation, fitted on its training split with IDF over all its texts as for the
    networks, and, with ``anchor_model``, the external anchor (:func:`reproq.answer_selection.floors.beside_records`)."""
    full = {split: questions[:p.limit] for split, questions in load_splits(dataset)[0].items()}
    _, split, train_split = EVALUATIONS[dataset]
    return floors.beside_records(full[train_split], full[split], question_texts(*full.values()), provenance, seed=seed,
                                 metrics=METRICS, anchor_model=anchor_model, **_keys(dataset))


def kind(method: str) -> str:
    """``"floor"``, ``"anchor"`` or ``"trained"``: what a row of the table is."""
    return "floor" if method.startswith("floor: ") else "anchor" if method.startswith("anchor: ") else "trained"


def table(records: Sequence[Record], metric: str = "MAP") -> pd.DataFrame:
    """One row per evaluation and method: the mean ``metric`` over seeds with its 95 % interval over the evaluated
    questions and the seeds (:func:`reproq.results.records.bootstrap_interval` of the seeds × questions table), and,
    for a trained encoder, its difference from the best floor of the same evaluation, paired by question and seed,
    with its interval and verdict (:func:`reproq.results.records.claim`)."""
    rows = []
    for (dataset, split), group in _by_evaluation(records, metric):
        means = {m: np.mean([r.value for r in rs]) for m, rs in group.items()}
        floors_here = {m: v for m, v in means.items() if kind(m) == "floor"}
        best_floor = max(floors_here, key=floors_here.get) if floors_here else None
        for method, rs in group.items():
            values = np.array([r.per_question for r in rs]) if all(r.per_question for r in rs) else None
            low, high = bootstrap_interval(values) if values is not None else (np.nan, np.nan)
            row = {"dataset": dataset, "split": split, "method": method.removeprefix("floor: "), "kind": kind(method),
                   metric: means[method], "95% low": low, "95% high": high,
                   "seeds": len({r.seeds for r in rs if r.seeds})}
            if kind(method) == "trained" and best_floor:
                tested = claim(records, method, best_floor, metric=metric, dataset=dataset, split=split,
                               table=TABLE)
                row |= {"best floor": best_floor.removeprefix("floor: "), "- best floor": tested["delta"],
                        "Δ 95% low": tested["low"], "Δ 95% high": tested["high"],
                        "beats the best floor": tested["verdict"]}
            rows.append(row)
    return pd.DataFrame(rows)


def _by_evaluation(records: Sequence[Record], metric: str):
    """(dataset, split) -> {method: its records of ``metric``} in the order first seen."""
    groups: dict[tuple, dict[str, list[Record]]] = {}
    for r in records:
        if r.table == TABLE and r.metric == metric:
            groups.setdefault((r.dataset, r.split), {}).setdefault(r.method, []).append(r)
    return groups.items()


def reading(records: Sequence[Record], folder=None) -> str:
    """Notebook 12's committed words: per evaluation, the encoders by MAP with their intervals, the best floor and the
    anchor, and the comparisons declared before the run — each encoder against the best floor and against the external
    anchor (:func:`reproq.papers.tay2018.anchor_against`), paired by question and seed. No pair of encoders is
    compared: a pair picked after the run (best against worst) would need a correction for all 21."""
    shown = table(records)
    if shown.empty:
        return "No records of the side-by-side table in this folder."
    lines = []
    for (dataset, split), rows in shown.groupby(["dataset", "split"], sort=False):
        trained = rows[rows["kind"] == "trained"].sort_values("MAP", ascending=False)
        floor = rows[rows["kind"] == "floor"].sort_values("MAP", ascending=False).head(1)
        anchors = rows[rows["kind"] == "anchor"]
        ranked = ", ".join(f"{r['method']} {r['MAP']:.3f} [{r['95% low']:.3f}, {r['95% high']:.3f}]"
                           for r in trained.to_dict("records"))
        beat = [r["method"] for r in trained.to_dict("records") if r["beats the best floor"] == "confirmed"]
        seeds = sorted(set(trained["seeds"]))
        line = (f"- **{NAMES.get(dataset, dataset)} {split}** (MAP, {'/'.join(map(str, seeds))} seed(s), 95 % "
                f"intervals over questions and seeds): {ranked}.")
        if len(floor):
            f = floor.iloc[0]
            line += f" Best floor: {f['method']} {f['MAP']:.3f}."
        for a in anchors.to_dict("records"):
            line += f" The external anchor ({a['method'].removeprefix('anchor: ')}, never trained here): {a['MAP']:.3f}."
        line += (f" Above the best floor (paired by question and seed): {', '.join(beat)}." if beat
                 else " No encoder is shown above the best floor.")
        lines.append(line)
    cases = {f"{NAMES.get(d, d)} {s}": dict(table=TABLE, dataset=d, split=s) for d, s in
             shown[["dataset", "split"]].drop_duplicates().itertuples(index=False)}
    anchors = anchor_reading(anchor_against(records, cases))
    return "\n".join(lines) + (f"\n\n{anchors}" if anchors else "")


NAMES = {"trecqa": "TrecQA raw", "qatarliving": "QatarLiving", "wikiqa": "WikiQA"}
READINGS = {"table": reading}
