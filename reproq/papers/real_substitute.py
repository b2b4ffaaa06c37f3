"""Beyond the papers' data: the four AskUbuntu papers' networks and claims on a real question-retrieval set, SemEval-2016
Task 3 subtask B (notebook ``14_semeval_question_retrieval``, the real-data counterpart of notebooks 02, 03, 10 and 11).

AskUbuntu's corpus is not reachable; subtask B has its shape (a query with a subject and a body, ten candidate
questions a search engine retrieved, a label per pair, a labelled training set: :mod:`reproq.data.semeval_b`). A
result here tests a paper's *claim* on a real substitute; it never reproduces the paper's AskUbuntu *number*, and no
record here joins a number of a paper (their table is :data:`TABLE`, no paper's).

The protocol, fixed before any run and the same for every network:

- **data** (:func:`reproq.corpora.load_semeval_b`): train = part 1 (derived) + part 2, 267 queries (those with 1 to 10
  positives train: 235); dev (50) keeps each run's epoch and each method's configuration; test (70) is read at that
  epoch. Negatives: each query's labelled irrelevant candidates, then 20 random questions of other training queries.
  Word vectors: GloVe 6B 50-d (AskUbuntu's 200-d in-domain vectors are not reachable; no QatarLiving vectors are).
- **networks**: each paper's, exactly as its own notebook builds them at the profile (the same configurations, sizes,
  bodies' cut, epochs and learning-rate grids: :func:`methods`), but with :attr:`Substitute.seeds` (five) for every
  trained method; Lei et al.'s pre-training (§4.2) on the training threads' questions and comments, never a dev or
  test text (:func:`reproq.data.semeval_b.pretraining_corpus`).
- **metrics**: the official scorer's MAP, MRR, P@1, P@5 over every query (one without a positive counts 0; the
  related questions in the engine's order break ties), and Lei et al.'s MAP over the queries with a positive
  (``MAP (Lei)``); intervals over the queries and the seeds (a paired bootstrap of both).
- **comparisons** (:data:`CLAIMS`): each paper's claim as its text makes it, declared here before the runs, paired by
  query and seed, Holm-corrected within a paper (:func:`claim_table`). No other pair is compared.

Beside them: the search engine's own order (the scorer's "IR" baseline), BM25, Lei et al.'s TF-IDF chosen on dev, the
word-overlap counts, dos Santos et al.'s six Lucene similarities, the zero-shot anchor (all-MiniLM-L6-v2), and every
2016 team's primary run re-scored by the study's metrics (:mod:`reproq.baselines.semeval_runs`).

Longer than most modules here: it is notebook 14's one home, as each paper module is its paper's: the protocol,
four papers' networks, the claims declared before the runs and their readings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from reproq import profiles
from reproq.baselines import semeval_runs
from reproq.baselines.lexical import FIELDS, lexical_retrieval_scores, question_tokens
from reproq.baselines.lucene import SIMILARITIES
from reproq.baselines.overlap import OverlapFeatures
from reproq.data.askubuntu import QuestionRetrievalData
from reproq.data.qa import Candidate, QAQuestion
from reproq.papers.dossantos2015 import dos_santos_configs
from reproq.papers.lei2016 import lei_grid
from reproq.papers.paper import Claim, Finding
from reproq.papers.rankine2016 import rankine_grid
from reproq.papers.smolyakov2017 import smolyakov_config
from reproq.question_retrieval import full_collection_training as bow_cnn
from reproq.question_retrieval.evaluate import LEI_MAP, labelled_scores, retrieval_scores, select_on_dev, tfidf_grid
from reproq.question_retrieval.inputs import RetrievalInputs
from reproq.question_retrieval.run import run_grid
from reproq.results import Provenance, Record, run_records
from reproq.results.paired import bootstrap_interval, claim, claim_numbers, holm

SECTION = "semeval_b"
NOTEBOOK = "14_semeval_question_retrieval"
TABLE = "SemEval-2016 3B"  # the records' table: no paper's, so no record here joins a paper's number
DATASET = "semeval2016b"
METRICS = ("MAP", "MRR", "P@1", "P@5", LEI_MAP)
SHARED = "reproq"  # the paper key of the rows no paper has: floors, anchor, the teams' runs


@dataclass(frozen=True, kw_only=True)
class Substitute:
    """The substitute's own settings at a profile; the networks' are their papers' sections at the same profile."""

    seeds: tuple[int, ...]
    variants: bool  # Lei et al.'s Table 4 and 5 variants (max pooling; mean pooling and title only for the RCNN)


PROFILES = {
    "smoke": Substitute(seeds=(1,), variants=False),
    # five seeds for every trained method (issue 51), the papers' own cpu recipes otherwise: about 40 minutes
    "cpu": Substitute(seeds=(1, 2, 3, 4, 5), variants=True),
    "paper": Substitute(seeds=(1, 2, 3, 4, 5), variants=True),
}


@dataclass(frozen=True)
class Method:
    """One trained row: whose method, its name and setting as that paper's notebook records them, what tells it apart
    from the paper's main row (``variant``), and its configurations (dev chooses among several)."""

    paper: str
    method: str
    setting: str
    configs: tuple
    variant: str = ""


def methods(profile: profiles.Profile) -> list[Method]:
    """Every trained method at ``profile``, configured as notebooks 02, 03, 08 (pre-training), 10 and 11 configure it
    there (:mod:`reproq.papers.lei2016`, :mod:`~reproq.papers.smolyakov2017`, :mod:`~reproq.papers.rankine2016`,
    :mod:`~reproq.papers.dossantos2015`)."""
    qr, rankine, dos_santos = (profile.section(s) for s in ("question_retrieval", "rankine", "dos_santos"))
    lei = [("CNN", "cnn", "mean"), ("LSTM", "lstm", "mean"), ("GRU", "gru", "mean"), ("RCNN", "rcnn", "last")]
    out = [Method("lei2016", name, f"pooling={pooling}", tuple(lei_grid(qr, encoder, pooling=pooling)))
           for name, encoder, pooling in lei]  # Table 2's pooling (notebook 02)
    out.append(Method("lei2016", "RCNN+pretrain", "pooling=last",
                      tuple(lei_grid(qr, "rcnn", pooling="last", pretrain=True))))  # Table 2's "+ pre-train" row
    if profile.section(SECTION).variants:
        out += [Method("lei2016", "CNN", "pooling=max", tuple(lei_grid(qr, "cnn", pooling="max")), "Table 4"),
                Method("lei2016", "RCNN", "pooling=mean", tuple(lei_grid(qr, "rcnn", pooling="mean")), "Table 5"),
                Method("lei2016", "RCNN", "pooling=last; title only",
                       tuple(lei_grid(qr, "rcnn", pooling="last", fields="title")), "Table 5")]
    out += [Method("smolyakov2017", name, "-", (smolyakov_config(qr, encoder),))
            for name, encoder in (("CNN", "cnn"), ("LSTM", "lstm"))]
    grid = rankine_grid(rankine)
    out += [Method("rankine2016", name, "-", tuple(grid[name])) for name in ("CBOW", "Weighted CBOW",
                                                                           "GRU (d=280, last state)")]
    out += [Method("dossantos2015", name, fields, (config,)) for fields in FIELDS
            for name, config in dos_santos_configs(dos_santos, fields).items()]
    return out


# what each paper's table is that a trained row here belongs to: (paper, its setting or variant) -> the table
ITEMS = {("lei2016", ""): "Table 2", ("lei2016", "Table 4"): "Table 4", ("lei2016", "Table 5"): "Table 5",
         ("smolyakov2017", ""): "Table 6", ("rankine2016", ""): "Table 1", ("dossantos2015", "title"): "Table 3",
         ("dossantos2015", "title+body"): "Table 4"}


def item_of(paper: str, setting: str, variant: str) -> str:
    """The table of ``paper`` whose method a trained row here is (:data:`ITEMS`)."""
    return ITEMS[paper, setting if paper == "dossantos2015" else variant]


def coverage(records: Sequence[Record]) -> dict[str, str]:
    """Per paper with trained rows here, what the report's papers table says of it: the paper's tables whose networks
    were trained on the substitute, how many networks, and how many of its claims were tested (:data:`CLAIMS`)."""
    here = [r for r in records if r.table == TABLE and r.split == "test" and not r.synthetic]
    claims = claim_table(here) if here else pd.DataFrame(columns=["paper", "seeds"])
    out = {}
    for paper in CLAIMS:
        rows = {(r.method, r.setting, r.variant) for r in here if r.paper == paper and r.seeds}  # the networks
        if rows:
            items = sorted({int(item_of(paper, s, v).split()[1]) for _, s, v in rows})
            tested = int((claims[claims.paper == paper]["seeds"] > 0).sum())
            out[paper] = (f"Table{'s' if len(items) > 1 else ''} {', '.join(map(str, items))}: {len(rows)} networks, "
                          f"{tested} claim{'s' * (tested != 1)} tested (`{NOTEBOOK}`)")
    return out


def _keys(m: Method) -> dict:
    return dict(paper=m.paper, table=TABLE, dataset=DATASET, method=m.method, setting=m.setting, variant=m.variant)


def trained_records(data: RetrievalInputs, trained: Sequence[Method], seeds: Sequence[int], provenance: Provenance,
                    **run_options) -> list[Record]:
    """Every method of ``trained`` with every seed: the configuration with the best mean dev MRR, each run at its
    best dev epoch (:func:`reproq.question_retrieval.run.run_grid`; dos Santos et al.'s networks through
    :mod:`reproq.question_retrieval.full_collection_training` on each query's candidates), dev and test records."""
    records = []
    reranked = bow_cnn.reranking(data)
    for m in trained:
        if m.paper == "dossantos2015":
            collection = bow_cnn.Collection.build(data, reranked.split, m.setting)
            runs = bow_cnn.run_grid(collection, m.configs, seeds, reranked=reranked, **run_options).best_runs
        else:
            runs = run_grid(data, m.configs, seeds, **run_options).best_runs
        records += run_records(runs, provenance, metrics=list(METRICS), **_keys(m))
    return records


def _as_answer_questions(data: QuestionRetrievalData, queries) -> list[QAQuestion]:
    """Queries as the anchor reads them: subject and body, each candidate's too."""
    def text(q: str) -> tuple[str, ...]:
        return question_tokens(data.corpus[q])

    return [QAQuestion(q.id, text(q.id), tuple(Candidate(c, text(c), int(c in q.similar_ids))
                                                for c in q.candidate_ids)) for q in queries]


def floor_scores(data: QuestionRetrievalData, splits: dict, *, anchor_model=None) -> dict[tuple[str, str, str], dict]:
    """``(paper, method, setting) -> {split: one score array per query}`` of everything beside the networks that scores
    candidates on the splits: the engine's order, BM25 and the word-overlap counts on subject + body, dos Santos et
    al.'s six Lucene similarities on titles and on subjects + bodies, and the anchor."""
    from reproq.baselines.bm25 import BM25

    out: dict[tuple[str, str, str], dict] = {
        (SHARED, "floor: search engine order", "-"): {s: [np.zeros(len(q.candidate_ids)) for q in qs]
                                                      for s, qs in splits.items()},
        (SHARED, "floor: BM25", "-"): lexical_retrieval_scores(BM25(), data.corpus, splits)}
    overlap = OverlapFeatures(normalize=False).fit(question_tokens(q) for q in data.corpus.values())
    for column, name in ((0, "word overlap count"), (1, "IDF-weighted overlap count")):
        out[SHARED, f"floor: {name}", "-"] = {
            s: [np.array([overlap.transform(question_tokens(data.corpus[q.id]), question_tokens(data.corpus[c]))[column]
                          for c in q.candidate_ids]) for q in qs] for s, qs in splits.items()}
    for fields in FIELDS:
        for name, similarity in SIMILARITIES.items():
            out["dossantos2015", name, fields] = lexical_retrieval_scores(similarity(), data.corpus, splits,
                                                                          fields=fields)
    if anchor_model is not None:
        from reproq.baselines import anchor

        out[SHARED, anchor.METHOD, "-"] = {s: anchor.answer_scores(anchor_model, _as_answer_questions(data, qs))
                                           for s, qs in splits.items()}
    return out


def floor_records(data: QuestionRetrievalData, provenance: Provenance, *, anchor_model=None) -> list[Record]:
    """The records of :func:`floor_scores` on dev and test, and Lei et al.'s TF-IDF (n-gram order and stop words
    chosen on dev MRR, subject + body: :func:`~reproq.question_retrieval.evaluate.tfidf_grid`)."""
    splits = {"dev": data.dev, "test": data.test}
    records = []
    for (paper, method, setting), scores in floor_scores(data, splits, anchor_model=anchor_model).items():
        shown = provenance
        if method.startswith("anchor: "):
            from reproq.baselines import anchor

            shown = replace(provenance, data={**provenance.data, **anchor.provenance()}, word_vectors=None)
        for split, values in scores.items():
            records += shown.records(retrieval_scores(splits[split], values, no_positive=data.no_positive),
                                     metrics=list(METRICS), paper=paper, table=TABLE, dataset=DATASET, split=split,
                                     method=method, setting=setting)
    chosen = select_on_dev(tfidf_grid(data, fields=("title+body",)), by="MRR")
    for row in chosen.to_dict("records"):
        records += provenance.records(row, metrics=list(METRICS), paper=SHARED, table=TABLE, dataset=DATASET,
                                      split=row["split"], method="floor: TF-IDF",
                                      variant=f"n-gram order {row['ngram_max']}, stop words "
                                              f"{'removed' if row['stop_words'] else 'kept'} (chosen on dev MRR)")
    return records


def team_records(provenance: Provenance) -> list[Record]:
    """Every 2016 team's primary test run of subtask B, re-scored by the study's metrics
    (:func:`reproq.baselines.semeval_runs.run_scores`), its official MAP in the config."""
    records = []
    team_provenance = replace(provenance, data=semeval_runs.files("B"), word_vectors=None)
    for team in semeval_runs.teams("B"):
        values = labelled_scores(*semeval_runs.run_scores("B", team), no_positive="zero")
        records += team_provenance.records(values, metrics=list(METRICS), paper=SHARED, table=TABLE, dataset=DATASET,
                                           split="test", method=f"2016 team: {team}",
                                           config={"official MAP": semeval_runs.official("B", team)["MAP"]})
    return records


# The papers' claims on the substitute, declared before any run (module docstring): (paper, a, b, metric, where)
CLAIMS = {
    "lei2016": [Claim(f"RCNN > {b} on SemEval-2016 3B test", "RCNN", b, "MAP", dict(variant=""), beside=("MRR", "P@1"),
                      quote="\"our RCNN model also outperforms the other neural encoder models and the baselines "
                            "across all metrics\" (§7, Overall Performance)") for b in ("CNN", "LSTM", "GRU")]
    + [Claim("RCNN+pretrain > RCNN on SemEval-2016 3B test", "RCNN+pretrain", "RCNN", "MAP", dict(variant=""),
             beside=("MRR", "P@1"), quote="Table 2: RCNN + pre-train 62.3 MAP, RCNN 60.7 (§7, Pre-training)")],
    "dossantos2015": [Claim(f"BOW-CNN > {b} on SemEval-2016 3B test, {fields}", "BOW-CNN", b, "P@1",
                            dict(setting=fields), beside=("MAP",),
                            quote="\"For both datasets, BOW-CNN outperforms the six IR algorithms for both title and "
                                  "all settings\" (§4, Comparison with Baselines)")
                      for fields in FIELDS for b in SIMILARITIES],
    "smolyakov2017": [Claim("LSTM > CNN in-domain on SemEval-2016 3B test", "LSTM", "CNN", "MRR", {},
                            beside=("MAP", "P@1"), quote="Table 6 orders them so: BiLSTM 0.71 test MRR, CNN 0.70")],
    "rankine2016": [Claim("CBOW > Weighted CBOW on SemEval-2016 3B test", "CBOW", "Weighted CBOW", "MRR", {},
                          beside=("P@1",),
                          quote="\"Unfortunately the weighted CBOW model performs worse than the CBOW\" (§6.4)")],
}
SUBSTITUTE = "tested on a real substitute: SemEval-2016 3B"  # the report's status of these claims, never "reproduced"


def claim_table(records: Sequence[Record], split: str = "test") -> pd.DataFrame:
    """Each paper's :data:`CLAIMS` on ``split``, paired by query and seed (:func:`reproq.results.paired.claim`), Holm
    over the paper's family: Δ = a − b, its 95 % interval, and the verdict (*confirmed* or *contradicted* where Holm
    rejects "no difference" and Δ is above or below 0, else *not shown*), the paper's other metrics beside."""
    rows = []
    for paper, family in CLAIMS.items():
        mine = [r for r in records if r.paper == paper and r.table == TABLE and not r.synthetic]
        tested = []
        for c in family:
            try:
                tested.append(claim(mine, c.a, c.b, metric=c.metric, split=split, **c.where))
            except ValueError:
                tested.append(None)
        shown = holm([t["p"] if t else 1.0 for t in tested])
        for c, t, rejected in zip(family, tested, shown):
            if t is None:
                rows.append(dict(paper=paper, claim=c.text, quote=c.quote, metric=c.metric, delta=np.nan, low=np.nan,
                                 high=np.nan, seeds=0, over="", p=np.nan, verdict="not run here", beside=""))
                continue
            said = ("confirmed" if t["delta"] > 0 else "contradicted") if rejected else "not shown"
            beside = []
            for metric in c.beside:
                try:
                    beside.append(f"{metric}{claim_numbers(claim(mine, c.a, c.b, metric=metric, split=split, **c.where))}")
                except ValueError:  # no records of that metric: nothing beside
                    continue
            rows.append(dict(paper=paper, claim=c.text, quote=c.quote, metric=c.metric, delta=t["delta"],
                             low=t["low"], high=t["high"], seeds=t["seeds"], over=t["interval over"], p=t["p"],
                             verdict=f"{said} (Holm over {len(family)})", beside="; ".join(beside)))
    return pd.DataFrame(rows)


ENGINE = "floor: search engine order"
# Declared after the first cpu run had been seen, so labelled post hoc: every trained network against the engine's
# order, none picked, Holm over all of them (DESIGN.md: a post-hoc comparison is never confirmed without a correction)
AFTER_THE_RUN = "declared after the first run was seen: every network, none picked"


def against_the_engine(records: Sequence[Record], split: str = "test", metric: str = "MAP") -> pd.DataFrame:
    """Every trained network against the search engine's own order (:data:`ENGINE`) on ``split``: Δ = network −
    engine paired by query (the engine has no seed and pairs with every one), its 95 % interval over queries and seeds,
    and the verdict after Holm over all the networks (:data:`AFTER_THE_RUN`)."""
    mine = [r for r in records if r.table == TABLE and r.split == split and not r.synthetic]
    engine = [r for r in mine if r.method == ENGINE and r.paper == SHARED]
    networks = list(dict.fromkeys((r.paper, r.method, r.setting, r.variant) for r in mine if r.seeds))
    rows = []
    for paper, method, setting, variant in networks:
        these = [r for r in mine if (r.paper, r.method, r.setting, r.variant) == (paper, method, setting, variant)]
        tested = claim([*these, *engine], method, ENGINE, metric=metric)
        rows.append(dict(paper=paper, method=method, setting=setting, variant=variant, delta=tested["delta"],
                         low=tested["low"], high=tested["high"], over=tested["interval over"], p=tested["p"]))
    shown = holm([r["p"] for r in rows])
    for r, rejected in zip(rows, shown):
        said = ("above" if r["delta"] > 0 else "below") if rejected else "not shown"
        r["verdict"] = f"{said} (Holm over {len(rows)}; {AFTER_THE_RUN})"
    return pd.DataFrame(rows)


def table(records: Sequence[Record], split: str = "test") -> pd.DataFrame:
    """One row per method on ``split``: each metric's mean over the seeds with its 95 % interval over the queries and
    the seeds (:func:`~reproq.results.paired.bootstrap_interval` of the seeds × queries table, centred on nothing)."""
    rows = []
    frame = pd.DataFrame([{**{k: getattr(r, k) for k in ("paper", "method", "setting", "variant", "metric")},
                           "value": r.value, "per_question": r.per_question, "seeds": len(r.seeds)}
                          for r in records if r.table == TABLE and r.split == split])
    if frame.empty:  # notebook 14 not run (a report of other notebooks' records)
        return pd.DataFrame(rows)
    for (paper, method, setting, variant), group in frame.groupby(["paper", "method", "setting", "variant"],
                                                                   sort=False):
        row = {"paper": paper, "method": method, "setting": setting, "variant": variant,
               "seeds": int(group[group.metric == "MAP"].seeds.sum())}
        for metric in METRICS:
            these = group[group.metric == metric]
            row[metric] = float(these.value.mean())
            low, high = bootstrap_interval(np.array([list(q) for q in these.per_question]))
            row[f"{metric} 95% low"], row[f"{metric} 95% high"] = low, high
        rows.append(row)
    return pd.DataFrame(rows)


def label(row: dict) -> str:
    """A row's method as the tables name it: method, setting (where there is one) and variant."""
    setting = "" if row["setting"] in ("-", "") else f", {row['setting']}"
    return f"{row['method']}{setting}" + (f" ({row['variant']})" if row["variant"] else "")


def _shown(row: dict, metric: str = "MAP") -> str:
    return f"{row[metric]:.3f} [{row[f'{metric} 95% low']:.3f}, {row[f'{metric} 95% high']:.3f}]"


def reading(records: Sequence[Record], folder=None) -> str:
    """Notebook 14's words: per paper, its networks' test MAP with the 95 % interval over queries and seeds, beside
    the search engine's order, the best floor, the anchor and the best 2016 team of the same test set; then each
    declared claim with its paired interval and Holm's verdict (:func:`claim_table`). It compares nothing else."""
    shown = table(records)
    if shown.empty:
        return "No SemEval-2016 3B records in this folder."
    seeds = sorted({s for r in records if r.table == TABLE for s in r.seeds})
    shared = shown[shown["paper"] == SHARED].set_index("method")
    floors = shared[[m.startswith("floor: ") and m != ENGINE for m in shared.index]]
    teams = shared[[m.startswith("2016 team: ") for m in shared.index]]
    lines = [f"SemEval-2016 3B test (70 queries; MAP as the official scorer counts it, with its 95 % interval over the "
             f"queries and the seeds {', '.join(map(str, seeds))}):", ""]
    names = {"lei2016": "Lei et al.", "smolyakov2017": "Smolyakov & Srikant", "rankine2016": "Rankine",
             "dossantos2015": "dos Santos et al."}
    for paper, name in names.items():
        rows = shown[(shown["paper"] == paper) & (shown["seeds"] > 0)]
        if len(rows):
            said = "; ".join(f"{label(r)} {_shown(r)}" for r in rows.to_dict("records"))
            lines.append(f"- **{name}**: {said}.")
    if ENGINE in shared.index:
        lines.append(f"- **No training**: the search engine's own order {_shown(shared.loc[ENGINE])}")
        if len(floors):
            best = floors["MAP"].idxmax()
            lines[-1] += f"; the best lexical floor, {best.removeprefix('floor: ')}, {floors.loc[best, 'MAP']:.3f}"
        lines[-1] += "."
    anchors = shared[[m.startswith("anchor: ") for m in shared.index]]
    if len(anchors):
        lines.append(f"- **The external anchor** (all-MiniLM-L6-v2, zero-shot, never trained here): "
                     f"{anchors['MAP'].iloc[0]:.3f}.")
    if len(teams):
        lines.append(f"- **The 2016 teams** (primary runs, re-scored): from {teams['MAP'].min():.3f} to "
                     f"{teams['MAP'].max():.3f} ({teams['MAP'].idxmax().removeprefix('2016 team: ')}).")
    engine = against_the_engine(records)
    if len(engine):
        lines += ["", "Every network against the search engine's own order, Δ = network − engine (test MAP, 95 % "
                      f"interval over queries and seeds; {AFTER_THE_RUN}, Holm over all {len(engine)}):", ""]
        for paper, rows in engine.groupby("paper", sort=False):
            lines.append(f"- **{names[paper]}**: " + "; ".join(
                f"{label(r)} {r['delta']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}] {r['verdict'].split(' (')[0]}"
                for r in rows.to_dict("records")) + ".")
    claims = claim_table(records)
    if len(claims):
        lines += ["", "The papers' claims on this real substitute (Δ = a − b on test, paired by query and seed, 95 % "
                      "interval over both, Holm within each paper; a finding about SemEval-2016 3B, not a reproduction "
                      "of the paper's AskUbuntu numbers):", ""]
        for r in claims.to_dict("records"):
            numbers = "" if r["delta"] != r["delta"] else \
                f": Δ = {r['delta']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}] ({r['over']})"
            lines.append(f"- {r['claim']}, {r['metric']} — **{r['verdict']}**{numbers}"
                         + (f"; beside: {r['beside']}" if r["beside"] else ""))
    return "\n".join(lines)


READINGS = {"table": reading}  # notebook 14's committed words (reproq.report.readings)
FINDINGS = (Finding(NOTEBOOK, "The four AskUbuntu papers on a real question-retrieval set, SemEval-2016 3B (notebook 14; "
                              "results of training, each paper's networks as its own notebook builds them, five seeds; "
                              "each claim tested on a real substitute, never a reproduction of the AskUbuntu numbers)",
                    "table"),)
