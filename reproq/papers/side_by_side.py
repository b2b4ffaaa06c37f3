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

Evaluations (:data:`EVALUATIONS`): TrecQA raw TEST, WikiQA test, QatarLiving test (SemEval-2016 3A's 327 threads),
and SemEval-2016 3B test as a fourth real set (a query's ten related questions as its candidates: question
retrieval in the answer-ranking head); dev keeps each run's epoch.

The comparisons are declared before the run, three families per evaluation, each paired by question and seed and
Holm-corrected within its family (:func:`reproq.results.paired.holm`): every encoder against the best floor,
every encoder against one reference encoder the notebook names (its ``REFERENCE``), and the external anchor against
every encoder. No other pair is compared: a pair picked after the run (the best against the worst of 21) is not a
test. A row whose seeds mostly kept their last epoch says so (*budget-truncated*): its number measures how far the
encoder got in the budget, not where it would end. A verdict whose interval has an edge within the cross-machine
spread of the notebook's records (``reproq machines``) says *machine-sensitive* instead of standing alone.

Beside the encoders: the floors of the same split and the external anchor
(all-MiniLM-L6-v2 zero-shot). BOW-CNN is not a row: it is a similarity (a learned per-word weight on two count vectors
and a cosine, beside the cosine of two convolutions), not a sequence encoder whose states the pointwise head can
pool; its convolutional half is the CNN row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from reproq.answer_selection import floors
from reproq.answer_selection.inputs import AnswerInputs, prepare
from reproq.answer_selection.run import run_grid
from reproq.baselines.overlap import question_texts
from reproq.data.qa_datasets import load_splits
from reproq.papers.paper import Finding
from reproq.results.spread import cross_machine_spread, marked
from reproq.papers.tay2018 import (
    AnswerSelection,
    Choice,
    anchor_against,
    anchor_reading,
    tay_configs,
)
from reproq.results import Provenance, Record, run_records
from reproq.results.paired import bootstrap_interval, claim, holm

NOTEBOOK = "12_encoders_side_by_side"
TABLE = "Encoders side by side"
ENCODERS = ("CNN", "LSTM", "GRU", "RCNN", "QRNN", "CTRN", "CBOW")  # Lei et al.'s four, Tay et al.'s two, Rankine's
PROTOCOL = Choice("word2vec", "raw counts, after the dropout")
# dataset -> the records' dataset name, the evaluated split, the training split
EVALUATIONS = {"trecqa": ("trecqa", "test", "train"), "semeval2016": ("qatarliving", "test", "train"),
               "semeval2016b": ("semeval2016b", "test", "train"),
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


def table(records: Sequence[Record], metric: str = "MAP", reference: str | None = None,
          spread: float = float("nan")) -> pd.DataFrame:
    """One row per evaluation and method: the mean ``metric`` over seeds with its 95 % interval over the evaluated
    questions and the seeds (:func:`reproq.results.paired.bootstrap_interval` of the seeds × questions table), how
    many seeds kept their last epoch, and, for a trained encoder, the declared comparisons (module docstring): its
    difference from the best floor of the same evaluation and from ``reference``, paired by question and seed, with
    the interval and the Holm-corrected verdict of each family (*machine-sensitive* within ``spread``:
    :func:`_family`)."""
    rows = []
    for (dataset, split), group in _by_evaluation(records, metric):
        means = {m: np.mean([r.value for r in rs]) for m, rs in group.items()}
        floors_here = {m: v for m, v in means.items() if kind(m) == "floor"}
        best_floor = max(floors_here, key=floors_here.get) if floors_here else None
        where = dict(metric=metric, dataset=dataset, split=split, table=TABLE)
        trained = [m for m in group if kind(m) == "trained"]
        over_floor = _family({m: claim(records, m, best_floor, **where) for m in trained} if best_floor else {},
                             spread)
        over_reference = _family({m: claim(records, m, reference, **where) for m in trained
                                  if reference in group and m != reference}, spread)
        for method, rs in group.items():
            values = np.array([r.per_question for r in rs]) if all(r.per_question for r in rs) else None
            low, high = bootstrap_interval(values) if values is not None else (np.nan, np.nan)
            row = {"dataset": dataset, "split": split, "method": method.removeprefix("floor: "), "kind": kind(method),
                   metric: means[method], "95% low": low, "95% high": high,
                   "seeds": len({r.seeds for r in rs if r.seeds})}
            if method in over_floor:
                tested = over_floor[method]
                row |= {"best floor": best_floor.removeprefix("floor: "), "- best floor": tested["delta"],
                        "Δ 95% low": tested["low"], "Δ 95% high": tested["high"],
                        "beats the best floor": tested["verdict"]}
            if method in over_reference:
                tested = over_reference[method]
                row |= {"reference": reference, "- reference": tested["delta"], "ref 95% low": tested["low"],
                        "ref 95% high": tested["high"], "vs the reference": tested["verdict"]}
            known = [r for r in rs if {"best_epoch", "epochs"} <= set(r.config)]  # the epoch each seed kept
            if kind(method) == "trained" and known:
                last = sum(r.config["best_epoch"] == r.config["epochs"] for r in known)
                row |= {"kept the last epoch": f"{last} of {len(known)}", "budget-truncated": 2 * last > len(known)}
            rows.append(row)
    return pd.DataFrame(rows)


def _family(tested: dict[str, dict], spread: float = float("nan")) -> dict[str, dict]:
    """Each test of a family declared together with its verdict Holm-corrected over the family
    (:func:`reproq.results.paired.holm` of their p values): *confirmed* or *contradicted* where the correction keeps
    it, *not shown* otherwise; "(Holm, m tests)" says so. A verdict whose interval has an edge within ``spread`` of 0
    (how far the same seeds moved a mean on another machine: :func:`reproq.results.spread.cross_machine_spread`) is
    *machine-sensitive*: another CPU could turn it."""
    shown = holm([t["p"] for t in tested.values()])
    out = {}
    for (m, t), keep in zip(tested.items(), shown):
        said = (("confirmed" if t["delta"] > 0 else "contradicted") if keep else "not shown") + \
            f" (Holm, {len(tested)} test{'s' * (len(tested) != 1)})"
        out[m] = {**t, "verdict": marked(said, t.get("low", np.nan), t.get("high", np.nan), (0.0,), spread)}
    return out


def _by_evaluation(records: Sequence[Record], metric: str):
    """(dataset, split) -> {method: its records of ``metric``} in the order first seen."""
    groups: dict[tuple, dict[str, list[Record]]] = {}
    for r in records:
        if r.table == TABLE and r.metric == metric:
            groups.setdefault((r.dataset, r.split), {}).setdefault(r.method, []).append(r)
    return groups.items()


REFERENCE = "LSTM"  # the reference encoder notebook 12 declares (its REFERENCE): the recurrent encoder of Lei and Tay


def reading(records: Sequence[Record], folder=None, reference: str = REFERENCE) -> str:
    """Notebook 12's committed words: per evaluation, the encoders by MAP with their intervals, the best floor and the
    anchor, and the comparisons declared before the run (module docstring), each family Holm-corrected: every encoder
    against the best floor and against ``reference``, and the external anchor against every encoder
    (:func:`reproq.papers.tay2018.anchor_against`); the rows that are budget-truncated. With ``folder`` (the
    notebook's results folder), a verdict within the cross-machine spread of its records says so
    (:func:`reproq.results.spread.cross_machine_spread`)."""
    spread = cross_machine_spread(Path(folder).parent, Path(folder).name) if folder else float("nan")
    shown = table(records, reference=reference, spread=spread)
    if shown.empty:
        return "No records of the side-by-side table in this folder."
    lines = []
    for (dataset, split), rows in shown.groupby(["dataset", "split"], sort=False):
        trained = rows[rows["kind"] == "trained"].sort_values("MAP", ascending=False)
        floor = rows[rows["kind"] == "floor"].sort_values("MAP", ascending=False).head(1)
        anchors = rows[rows["kind"] == "anchor"]
        ranked = ", ".join(f"{r['method']} {r['MAP']:.3f} [{r['95% low']:.3f}, {r['95% high']:.3f}]"
                           for r in trained.to_dict("records"))
        beat = [r["method"] for r in trained.to_dict("records") if r["beats the best floor"].startswith("confirmed")]
        sensitive = [r["method"] for r in trained.to_dict("records") if "machine-sensitive" in r["beats the best floor"]]
        seeds = sorted(set(trained["seeds"]))
        line = (f"- **{NAMES.get(dataset, dataset)} {split}** (MAP, {'/'.join(map(str, seeds))} seed(s), 95 % "
                f"intervals over questions and seeds): {ranked}.")
        if len(floor):
            f = floor.iloc[0]
            line += f" Best floor: {f['method']} {f['MAP']:.3f}."
        for a in anchors.to_dict("records"):
            line += f" The external anchor ({a['method'].removeprefix('anchor: ')}, never trained here): {a['MAP']:.3f}."
        tests = len(trained)
        line += (f" Above the best floor (paired by question and seed, Holm over {tests}): {', '.join(beat)}." if beat
                 else " No encoder is shown above the best floor.")
        if sensitive:
            line += f" Machine-sensitive against the floor (an interval's edge within the cross-machine spread): " \
                    f"{', '.join(sensitive)}."
        if "vs the reference" in trained:
            against = [r for r in trained.to_dict("records") if isinstance(r["vs the reference"], str)]
            line += (f" Against the reference, {reference} (Holm over {len(against)}): " + "; ".join(
                f"{r['method']} − {reference} {r['- reference']:+.3f} [{r['ref 95% low']:+.3f}, "
                f"{r['ref 95% high']:+.3f}], {re.sub(r' [(]Holm, [^)]*[)]', '', r['vs the reference'])}"
                for r in against) + ".")
        truncated = [f"{r['method']} ({r['kept the last epoch']})" for r in trained.to_dict("records")
                     if r.get("budget-truncated") is True]
        if truncated:
            line += (" Budget-truncated (most seeds kept the last epoch, so the number is how far the budget got): "
                     + ", ".join(truncated) + ".")
        lines.append(line)
    cases = {f"{NAMES.get(d, d)} {s}": dict(table=TABLE, dataset=d, split=s) for d, s in
             shown[["dataset", "split"]].drop_duplicates().itertuples(index=False)}
    anchors = anchor_against(records, cases)
    for case, rows in anchors.groupby("case", sort=False) if len(anchors) else ():  # one family per evaluation
        corrected = _family({i: {"p": r["p"], "delta": r["anchor - model (MAP)"], "low": r["95% low"],
                                 "high": r["95% high"]} for i, r in rows.iterrows()}, spread)
        anchors.loc[rows.index, "anchor above"] = [corrected[i]["verdict"] for i in rows.index]
    said = anchor_reading(anchors)
    return "\n".join(lines) + (f"\n\n{said}" if said else "")


NAMES = {"trecqa": "TrecQA raw", "qatarliving": "QatarLiving", "wikiqa": "WikiQA", "semeval2016b": "SemEval-2016 3B"}
READINGS = {"table": reading}
FINDINGS = (Finding("12_encoders_side_by_side", "Every encoder of the study side by side on the answer-ranking data "
                    "(notebook 12, beyond the papers: each encoder in Tay et al.'s pointwise head, the `cpu` budget; "
                    "three families of comparisons declared before the run, paired by question and seed, "
                    "Holm-corrected)", "table"),)
