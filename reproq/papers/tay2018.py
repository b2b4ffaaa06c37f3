"""Tay, Luu, Hui. *Cross Temporal Recurrent Networks for Ranking Question Answer Pairs*. AAAI 2018 (seed
``001_9157be3a3951a43e.txt``).

Here: the paper's configurations at a profile's scale (:func:`tay_configs`: the profile's one configuration or every
point of §Implementation Details' search grid), Table 2's parameter counts, and what the networks get, chosen on DEV
(:func:`run_ablation`: word vectors × how the overlap features join, which Tay et al. leave open; :func:`run_budgets`:
training budgets); each seed's TEST score beside the paper and the floors is drawn by
:func:`reproq.figures.tay2018.seeds_figure`. Each variant
trains one method with one seed; DEV ranks them and TEST is read once, for the variant DEV chose — never to choose.

Longer than most modules: it is the paper's one home (issue 43's unit), its configurations, ablations, claims tested
and readings (notebooks 04–06) together.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

import numpy as np
import pandas as pd
import torch

from reproq.answer_selection.batches import PairSet
from reproq.answer_selection.inputs import AnswerInputs, TrainConfig, prepare
from reproq.answer_selection.run import run_one
from reproq.models import count_parameters
from reproq.models.answer_ranker import PAIRWISE, RankerConfig, build_ranker, paper_parameter_count
from reproq.models.ctrn import ALIGNMENTS, aligned_steps
from reproq.papers.paper import DATA, GIVEN, QUOTED, SIZE, Claim, Finding, Paper
from reproq.profiles import Overrides
from reproq.results import Provenance, Record, claim, difference_of_differences, paper_numbers, summarize
from reproq.results.spread import cross_machine_spread, marked
from reproq.results.paired import shown
from reproq.train.grid import GridResult, RunResult


# its settings at each profile (reproq.papers.profile gathers them; its notebooks' setup(section=...) reads them)
SECTION = "answer_selection"  # notebook 12 (reproq.papers.side_by_side) reads it too


@dataclass(frozen=True, kw_only=True)
class AnswerSelection:
    """Tay et al.'s rankers (:func:`reproq.papers.tay2018.tay_configs` turns it into runs)."""

    seeds: tuple[int, ...]  # the two models the paper is about, QRNN and CTRN
    baseline_seeds: tuple[int, ...]  # every other model (LSTM, AP-CNN, AP-BiLSTM)
    ranker: Overrides  # RankerConfig's settings changed
    train: dict[str, Overrides]  # TrainConfig's settings changed, per training set ("train", "train-all") or dataset
    w2v_epochs: int = 5
    grid: dict = field(default_factory=dict)  # RankerConfig / TrainConfig field -> values, searched on DEV
    limit: int | None = None  # the first questions of each split only (smoke: every code path, in seconds)


TAY_GRID = {  # Tay et al. §Implementation Details
    "hidden_dim": list(range(128, 1025, 128)), "mlp_layers": [1, 2, 3],
    "lr": [1e-3, 1e-4, 1e-5], "batch_size": [64, 128, 256, 512],
}

PROFILES = {
    "smoke": AnswerSelection(seeds=(1,), baseline_seeds=(1,), ranker=Overrides(RankerConfig, projection_dim=16,
                                                                              hidden_dim=16, mlp_dim=16),
                             train={s: Overrides(TrainConfig, epochs=1, batch_size=32, max_batches=3)
                                    for s in ("train", "train-all", "semeval2016", "semeval2016b", "wikiqa")},
                             w2v_epochs=1, limit=12),
    # half the grid's smallest filter count, no search; 5 seeds for QRNN and CTRN, 3 for the other models (a
    # "QRNN > LSTM" verdict on one seed rests on that seed; with 3, AP-BiLSTM is about a third of notebook 04);
    # TRAIN: the paper's 25 epochs (patience 5); TRAIN-ALL: 3 epochs of 200 batches of 128 (1.5 passes over
    # TRAIN-ALL in all; the paper: 5 passes); QatarLiving and WikiQA: fewer epochs
    "cpu": AnswerSelection(seeds=(1, 2, 3, 4, 5), baseline_seeds=(1, 2, 3),
                           ranker=Overrides(RankerConfig, projection_dim=50, hidden_dim=64, mlp_dim=64),
                           train={"train": Overrides(TrainConfig, epochs=25, batch_size=64),
                                  "train-all": Overrides(TrainConfig, epochs=3, batch_size=128, max_batches=200),
                                  "semeval2016": Overrides(TrainConfig, epochs=8, batch_size=64),
                                  "semeval2016b": Overrides(TrainConfig, epochs=8, batch_size=64),  # as QatarLiving
                                  "wikiqa": Overrides(TrainConfig, epochs=6, batch_size=64)}),
    # Tay et al.: 25 epochs (TRAIN) and 5 (TRAIN-ALL), the search grid
    "paper": AnswerSelection(seeds=(1, 2, 3, 4, 5), baseline_seeds=(1, 2, 3, 4, 5),
                             ranker=Overrides(RankerConfig),
                             train={"train": Overrides(TrainConfig, epochs=25), "train-all": Overrides(TrainConfig, epochs=5),
                                    "semeval2016": Overrides(TrainConfig, epochs=25),
                                    "semeval2016b": Overrides(TrainConfig, epochs=25),
                                    "wikiqa": Overrides(TrainConfig, epochs=25)},
                             w2v_epochs=20, grid=TAY_GRID),
}

TRECQA_TEST = dict(table="Table 6", dataset="trecqa", split="test")
# TRAIN-ALL at the paper's budget (run_paper_budget): the records' setting per overlap-feature kind, each beside the
# paper's TRAIN-ALL column (PAPER.read_as)
BUDGET_SETTINGS = {"raw": "train=TRAIN-ALL, 5 passes", "normalized": "train=TRAIN-ALL, 5 passes, normalised features"}
# TRAIN once more with the paper's kind of overlap features (run_paper_inputs), beside the paper's TRAIN column
PAPER_INPUTS_SETTING = "train=TRAIN, normalised features"
CTRN_OVER_QRNN = "\"the performance of CTRN is about 1% – 5% better than QRNN\" (§Results on TrecQA)"
# the size that sentence states, in points of MAP (its own gaps: +0.058 on TRAIN, +0.010 on TRAIN-ALL)
CTRN_SIZE = dict(size=(0.01, 0.05), size_said="about 1 % – 5 %")

PAPER = Paper(
    key="tay2018", short="Tay et al. 2018",
    citation="Tay, Luu, Hui. *Cross Temporal Recurrent Networks for Ranking Question Answer Pairs*, AAAI 2018",
    topic="QRNN and CTRN for answer ranking (TrecQA, QatarLiving, YahooQA)",
    has="QRNN, CTRN and baselines on TrecQA, QatarLiving, YahooQA (Tables 2–7, runtime Figure 3)",
    seed_file="001_9157be3a3951a43e.txt",
    # section "Runtime Comparison" (Figures 1-2 are architecture)
    figures=(("Figure 3", "runtime of all recurrent models on TrecQA TRAIN-ALL, d = 800"),),
    claims=(Claim("CTRN > QRNN on TrecQA, trained on TRAIN (Table 6)", "CTRN", "QRNN", "MAP",
                  dict(TRECQA_TEST, setting="train=TRAIN"), beside=("MRR",), quote=CTRN_OVER_QRNN, **CTRN_SIZE),
            Claim("CTRN > QRNN on TrecQA, trained on TRAIN-ALL (Table 6)", "CTRN", "QRNN", "MAP",
                  dict(TRECQA_TEST, setting="train=TRAIN-ALL"), beside=("MRR",), quote=CTRN_OVER_QRNN, **CTRN_SIZE),
            Claim("CTRN > QRNN on TrecQA, trained on TRAIN-ALL at the paper's 5 passes, d chosen on DEV (Table 6)",
                  "CTRN", "QRNN", "MAP", dict(TRECQA_TEST, setting=BUDGET_SETTINGS["raw"]), beside=("MRR",),
                  quote=CTRN_OVER_QRNN, paper_where=dict(setting="train=TRAIN-ALL"), **CTRN_SIZE),
            # the sentence names HD-LSTM and NTN-LSTM, whose rows the paper quotes from Tay et al. 2017: our QRNN
            # against their printed numbers (no LSTM of ours stands for them)
            *[Claim(f"QRNN > {quoted} on TrecQA, trained on TRAIN-ALL (Table 6; {quoted} is the paper's printed "
                    "number, quoted from Tay et al. 2017: ours against it over our seeds)", "QRNN", quoted, "MAP",
                    dict(TRECQA_TEST, setting="train=TRAIN-ALL"), beside=("MRR",), b_printed=True,
                    quote="\"The performance of the vanilla QRNN model on the TRAIN-ALL setting is also surprisingly "
                          "competitive, outperforming more complex models such as HD-LSTM and NTN-LSTM\" "
                          "(§Results on TrecQA)") for quoted in ("HD-LSTM", "NTN-LSTM")],
            Claim("CTRN > QRNN on QatarLiving test (Table 5)", "CTRN", "QRNN", "P@1",
                  dict(table="Table 5", dataset="qatarliving", split="test"), beside=("MAP",),
                  quote="\"The performance of the CTRN model also outperforms the baseline QRNN by 3% on P@1\" "
                        "(§Experimental Results on QatarLiving)", size=(0.025, 0.035), size_said="3 % on P@1")),
    unavailable={"yahooqa": "YahooQA's env.pkl.zip has no pinned hash, so it is never downloaded"},
    # Table 2 counts encoder weights and the composition layer; every trainable parameter is ours, for comparison
    beside=("all trainable parameters (biases, 300x300 projection, output layer)",),
    # Table 7 lists Table 6's CTRN runs and its TRAIN-ALL QRNN again
    same_as={("Table 7", "CTRN (TRAIN)"): ("Table 6", "CTRN", "train=TRAIN"),
             ("Table 7", "CTRN (TRAIN-ALL)"): ("Table 6", "CTRN", "train=TRAIN-ALL"),
             ("Table 7", "Bradbury et al. (2016) - QRNN+MLP"): ("Table 6", "QRNN", "train=TRAIN-ALL")},
    not_comparable={"Figure 3": "CPU time on one thread against the paper's GPU"},
    # The baselines the paper copies from other papers: Table 4's rows marked φ ("reported directly from (Tay et al.
    # 2017)"), Table 5's competitors (the footnote: "the reported results of AI-CNN"), Table 6's "Competitors (except QRNN and CTRN) are reported from (Tay et al. 2017)", and Table 7's
    # published works (all but the rows marked †, "reported by this work")
    kinds={("Table 2",): SIZE, ("Table 3",): DATA,
           **{("Table 4", m): QUOTED for m in ("CNN", "CNTN", "LSTM", "NTN-LSTM", "HD-LSTM")},
           **{("Table 5", m): QUOTED for m in ("ARC-I CNN", "ARC-II CNN", "AP", "AI-CNN")},
           # Kelp and ConvKN are SemEval-2016 systems whose primary test runs the organisers shipped: re-scored here
           **{("Table 5", m): GIVEN for m in ("Kelp", "ConvKN")},
           **{("Table 6", m): QUOTED for m in ("CNN + LR", "CNN", "CNTN", "LSTM", "MV-LSTM", "NTN-LSTM", "HD-LSTM")},
           **{("Table 7", m): QUOTED for m in (
               "Wang et al. (2007)", "Heilman and Smith (2010)", "Wang and Manning (2010)", "Yao (2013)",
               "Wang et al. (2015) - BM25", "S & M (2013)", "Yih et al. (2013)", "Yu et al. (2014) - CNN+LR",
               "Wang et al. (2015) - BiLSTM", "S & M. (2015) - CNN", "Yang et al. (2016) - aNMM",
               "Tay et al. (2017) - HD-LSTM", "He and Lin (2016) - MP-CNN")}},
    partial={"part 2 and the 2015 extras": "QatarLiving's train part 1 cannot be had here: part 2 and the organisers' "
                                           "2015 extra training threads can"},
    # the runs at the paper's TRAIN-ALL budget, beside the paper's TRAIN-ALL column (run_paper_budget)
    read_as={BUDGET_SETTINGS["raw"]: ("train=TRAIN-ALL", "the paper's budget: 5 passes, d chosen on DEV; raw overlap "
                                                         "counts after the dropout, GloVe 6B"),
             BUDGET_SETTINGS["normalized"]: ("train=TRAIN-ALL", "the paper's budget and kind of overlap features: 5 "
                                                                "passes, d chosen on DEV; Severyn & Moschitti's "
                                                                "normalised features, GloVe 6B"),
             PAPER_INPUTS_SETTING: ("train=TRAIN", "the paper's kind of overlap features: Severyn & Moschitti's "
                                                   "normalised features after the dropout, GloVe 6B; the profile's "
                                                   "TRAIN configuration")},
    notebooks=("00_datasets", "01_lexical_baselines", "04_trecqa_ctrn", "05_runtime", "06_qatarliving_wikiqa"),
)


SETTING_NAMES = {"train": "TRAIN", "train-all": "TRAIN-ALL"}  # Tay et al. Table 6's column names

PAPER_MODELS = ("QRNN", "CTRN")  # the models Tay et al. are about: profile.answer_selection.seeds (the others: baseline_seeds)

def tay_configs(p: AnswerSelection, data: AnswerInputs, method: str, train_split: str = "train", *,
                ranker: dict | None = None) -> list[TrainConfig]:
    """``method`` trained on ``train_split`` of ``data`` with the profile's sizes and epochs (per TrecQA training
    set, or per dataset elsewhere), one configuration per point of the profile's grid (one without a grid);
    ``ranker`` overrides :class:`RankerConfig` fields after the profile's (an ablation's choice)."""
    ranker = RankerConfig(**{"method": method, "n_features": data.n_features, **p.ranker, **(ranker or {})})
    base = TrainConfig(ranker=ranker, train_split=train_split,
                       **p.train[train_split if data.dataset == "trecqa" else data.dataset])
    ranker_fields = {f.name for f in fields(RankerConfig)}
    configs = []
    for values in itertools.product(*p.grid.values()):
        point = dict(zip(p.grid, values))
        configs.append(replace(base, ranker=replace(ranker, **{k: v for k, v in point.items() if k in ranker_fields}),
                               **{k: v for k, v in point.items() if k not in ranker_fields}))
    return configs


TABLE2_SIZES = dict(projection_dim=300, hidden_dim=512, mlp_dim=128, width=2)  # Tay et al. Table 2: m, d, h, k

TABLE2_METHODS = ("LSTM", "AP-BiLSTM", "QRNN", "CTRN")

def table2_records() -> list[Record]:
    """Tay et al. Table 2: parameters at d = 512, m = 300, h = 128, k = 2, counted on the built models, as
    the paper's formulas count them (encoder weights + composition) and every trainable parameter."""
    records = []
    for method in TABLE2_METHODS:
        vectors = torch.zeros(2, TABLE2_SIZES["projection_dim"])  # word vectors do not count: any will do
        model = build_ranker(vectors, RankerConfig(method=method, **TABLE2_SIZES))
        counts = {"as Table 2 counts (encoder weights + composition)": paper_parameter_count(model),
                  "all trainable parameters (biases, 300x300 projection, output layer)": count_parameters(model)}
        for variant, value in counts.items():
            records += Provenance().records({"params": value}, paper="tay2018", table="Table 2", dataset="-",
                                            split="-", method=method, setting="d=512,m=300,h=128,k=2",
                                            variant=variant)
    return records

FEATURE_VARIANTS = {  # name -> (prepare's features, RankerConfig overrides)
    "none": ("normalized", {"n_features": 0}),
    "normalised, through the dropout": ("normalized", {}),
    "normalised, after the dropout": ("normalized", {"feature_dropout": False}),
    "raw counts, after the dropout": ("raw", {"feature_dropout": False}),
}

@dataclass(frozen=True)
class Choice:
    """One row of the ablation as settings: the word-vector source, the overlap-feature variant ``prepare`` builds,
    and the ranker overrides."""

    vectors: str
    variant: str  # a key of FEATURE_VARIANTS

    @property
    def features(self) -> str:
        return FEATURE_VARIANTS[self.variant][0]

    @property
    def ranker(self) -> dict:
        return dict(FEATURE_VARIANTS[self.variant][1])

    def __str__(self) -> str:
        return f"{self.vectors} vectors, overlap features: {self.variant}"

    def variant_of(self, method: str) -> str:
        """The variant a row trained with these inputs carries: not the paper's inputs (its vectors cannot be had, its
        features are normalised); the pairwise AP models score by cosine and take the vectors alone."""
        if method in PAIRWISE:
            return f"inputs DEV chose: {self.vectors} vectors (pairwise: no overlap features)"
        return f"inputs DEV chose: {self}"


def run_ablation(dataset: str, p: AnswerSelection, method: str, seed: int, *, vectors: Sequence[str],
                 **run_options) -> pd.DataFrame:
    """One row per (vectors, features) variant: DEV MAP and MRR, and the evaluated split's MAP and MRR (TEST, or
    nothing where a dataset has none) for the row DEV chose (``chosen`` is True there; the other rows' cells stay
    empty)."""
    rows, cache = [], {}
    for source in vectors:
        for variant in FEATURE_VARIANTS:
            choice = Choice(source, variant)
            if (source, choice.features) not in cache:
                cache[source, choice.features] = prepare(dataset, vectors=source, features=choice.features,
                                                         w2v_epochs=p.w2v_epochs, limit=p.limit)
            data = cache[source, choice.features]
            result = run_one(data, tay_configs(p, data, method, "train", ranker=choice.ranker)[0], seed, **run_options)
            rows.append({"vectors": source, "overlap features": variant, **_scores(result)})
    return _read_test_where_dev_chose(rows)

def run_budgets(data: AnswerInputs, p: AnswerSelection, methods: Sequence[str], seed: int, budgets: Mapping[str, dict], *,
                train_split: str = "train-all", ranker: dict | None = None, **run_options) -> pd.DataFrame:
    """How far training budget is what is missing: each of ``methods`` trained on ``train_split`` with each budget
    (name -> :class:`~reproq.answer_selection.inputs.TrainConfig` overrides, e.g. ``{"epochs": 5, "max_batches": None}``)
    and one seed. One row per (method, budget): DEV MAP and MRR, the best epoch, and, per method, TEST for the budget
    DEV chose."""
    rows = []
    for method in methods:
        base = tay_configs(p, data, method, train_split, ranker=ranker)[0]
        group = []
        for name, overrides in budgets.items():
            result = run_one(data, replace(base, **overrides), seed, **run_options)
            group.append({"method": method, "budget": name, "best epoch": result.best_epoch,
                          "epochs run": result.epochs_run, **_scores(result)})
        rows.append(_read_test_where_dev_chose(group))
    return pd.concat(rows, ignore_index=True)

PAPER_BUDGET = {"epochs": 5, "max_batches": None}  # Tay et al.: 5 epochs over TRAIN-ALL, every batch of it
BUDGET_FEATURES = {"raw": "raw counts, after the dropout", "normalized": "normalised, after the dropout"}
NORMALISED_MODELS = ("QRNN", "CTRN")  # trained once more with the normalised features: the paper's pair


def _budget_config(p: AnswerSelection, data: AnswerInputs, method: str, hidden_dim: int,
                   ranker: dict | None) -> TrainConfig:
    """``method`` (QRNN, CTRN, or CTRN with another alignment: :func:`alignment_method`) on TRAIN-ALL at the paper's
    budget with ``hidden_dim`` filters, the profile's first configuration otherwise."""
    alignment = {alignment_method(a): a for a in ALIGNMENTS}.get(method)
    overrides = {**(ranker or {}), "hidden_dim": hidden_dim, **({"alignment": alignment} if alignment else {})}
    model = "CTRN" if alignment else method
    return replace(tay_configs(p, data, model, "train-all", ranker=overrides)[0], **PAPER_BUDGET)


def run_paper_budget(dataset: str, p: AnswerSelection, vectors: str, methods: Sequence[str], seeds: Sequence[int],
                     dims: Sequence[int], provenance: Provenance, floors: Sequence[Record],
                     **run_options) -> tuple[pd.DataFrame, list[Record]]:
    """Tay et al.'s TRAIN-ALL setting as printed: 5 full passes (:data:`PAPER_BUDGET`), the number of filters d
    searched on DEV, every seed, with the overlap features of each kind in :data:`BUDGET_FEATURES` (the raw counts
    the study chose on DEV, and Severyn & Moschitti's normalised ones) and ``vectors``.

    With the raw counts, each of ``methods`` (QRNN, CTRN under each alignment: :func:`alignment_method`) is trained
    with the first seed for each d in ``dims``; DEV MAP chooses d per method (the search table: one row per method and
    d, ``chosen`` marked), and the chosen configuration is trained with every seed. With the normalised features
    only :data:`NORMALISED_MODELS` are trained, each at the d the raw counts chose. TEST is never used to choose. The
    records (raw and clean TEST, DEV; MAP and MRR) carry the settings of :data:`BUDGET_SETTINGS`, beside a copy of
    ``floors``' TRAIN-ALL records under each setting, so that :func:`ctrn_over_qrnn` finds the floors of its case."""
    from reproq.answer_selection.run import run_grid
    from reproq.results import run_records

    choices = {kind: Choice(vectors, variant) for kind, variant in BUDGET_FEATURES.items()}
    inputs = {kind: prepare(dataset, vectors=vectors, features=c.features, w2v_epochs=p.w2v_epochs, limit=p.limit)
              for kind, c in choices.items()}
    searched = {(m, d): _budget_config(p, inputs["raw"], m, d, choices["raw"].ranker) for m in methods for d in dims}
    grid = run_grid(inputs["raw"], list(searched.values()), seeds[:1], **run_options)
    search = pd.DataFrame([{"method": m, "d": d, "DEV MAP": grid.runs[c][0].dev["MAP"],
                            "DEV MRR": grid.runs[c][0].dev["MRR"]} for (m, d), c in searched.items()])
    search["chosen"] = search.index.isin(search.groupby("method", sort=False)["DEV MAP"].idxmax())
    chosen_dims = dict(search.loc[search["chosen"], ["method", "d"]].itertuples(index=False))
    records = []
    for kind, data in inputs.items():
        trained = {m: _budget_config(p, data, m, d, choices[kind].ranker) for m, d in chosen_dims.items()
                   if kind == "raw" or m in NORMALISED_MODELS}
        runs = run_grid(data, list(trained.values()), seeds, **run_options).runs
        for method, config in trained.items():
            records += run_records(runs[config], provenance, paper="tay2018", table="Table 6", dataset=dataset,
                                   method=method, setting=BUDGET_SETTINGS[kind], splits=["test", "test_clean", "dev"],
                                   metrics=["MAP", "MRR"])
        records += [replace(r, setting=BUDGET_SETTINGS[kind]) for r in floors if r.setting == "train=TRAIN-ALL"]
    return search, records


def searched(data: AnswerInputs, configs: Sequence[TrainConfig], seeds: Sequence[int], **run_options
             ) -> tuple[GridResult | None, GridResult]:
    """Tay et al.'s tables as trained here: where the profile has a search grid (more than one of ``configs``),
    every configuration with the first seed, DEV MAP choosing (the search, returned first), then the chosen one with
    every seed (the first one's run reused); else the one configuration with every seed. TEST never chooses."""
    from reproq.answer_selection.run import run_grid

    search = run_grid(data, configs, seeds[:1], **run_options) if len(configs) > 1 else None
    return search, run_grid(data, [search.best] if search else configs, seeds, **run_options)


def searched_runs(configs: int, seeds: int) -> int:
    """The runs :func:`searched` trains for ``configs`` configurations and ``seeds`` seeds."""
    return configs + seeds - 1 if configs > 1 else seeds


def run_paper_inputs(dataset: str, p: AnswerSelection, vectors: str, seeds: Sequence[int], provenance: Provenance,
                     floors: Sequence[Record], **run_options) -> list[Record]:
    """Table 6's TRAIN with the paper's kind of overlap features: :data:`NORMALISED_MODELS` trained on TRAIN as the
    tables train them (the profile's configuration; where the profile has a search grid, its best on DEV MAP with the
    first seed), every seed, with ``vectors`` and Severyn & Moschitti's normalised features joining after the dropout
    (as at the paper's TRAIN-ALL budget, :func:`run_paper_budget`). The records (raw and clean TEST, DEV; MAP and MRR)
    carry :data:`PAPER_INPUTS_SETTING`, beside a copy of ``floors``' TRAIN records under it (for
    :func:`ctrn_over_qrnn`). TEST is never used to choose."""
    from reproq.results import run_records

    choice = Choice(vectors, BUDGET_FEATURES["normalized"])
    data = prepare(dataset, vectors=vectors, features=choice.features, w2v_epochs=p.w2v_epochs, limit=p.limit)
    records = []
    for method in NORMALISED_MODELS:
        _, grid = searched(data, tay_configs(p, data, method, "train", ranker=choice.ranker), seeds, **run_options)
        records += run_records(grid.best_runs, provenance, paper="tay2018",
                               table="Table 6", dataset=dataset, method=method, setting=PAPER_INPUTS_SETTING,
                               splits=["test", "test_clean", "dev"], metrics=["MAP", "MRR"])
    return records + [replace(r, setting=PAPER_INPUTS_SETTING) for r in floors if r.setting == "train=TRAIN"]


def _scores(result: RunResult) -> dict:
    return {"DEV MAP": result.dev["MAP"], "DEV MRR": result.dev["MRR"], "_test": result.scores.get("test")}

def _read_test_where_dev_chose(rows: list[dict]) -> pd.DataFrame:
    """``rows`` as a table with ``chosen`` True at the best DEV MAP (the first of equals) and the TEST MAP and MRR
    of that row only (no TEST columns where the dataset has no test split)."""
    tests = [row.pop("_test") for row in rows]
    table = pd.DataFrame(rows)
    best = int(table["DEV MAP"].idxmax())
    table["chosen"] = table.index == best
    if tests[best] is not None:
        for metric in ("MAP", "MRR"):
            table[f"TEST {metric}"] = [t[metric] if i == best else float("nan") for i, t in enumerate(tests)]
    return table

def chosen(table: pd.DataFrame) -> Choice:
    """The row of :func:`run_ablation`'s ``table`` that DEV chose."""
    row = table.loc[table["chosen"]].iloc[0]
    return Choice(row["vectors"], row["overlap features"])


INTERVAL_NOTE = ("95 % interval of a paired bootstrap over the evaluated questions and the seeds (10,000 resamples; "
                 "Student's t over the seeds where a record lacks its questions' values)")


def ctrn_over_qrnn(records: Sequence[Record], cases: Mapping[str, dict], *, metric: str = "MAP",
                   ctrn: str = "CTRN") -> pd.DataFrame:
    """Tay et al.'s central claim, CTRN above QRNN, tested seed by seed in each of ``cases`` (label -> the record
    fields that pick one evaluation, e.g. ``{"TRAIN": dict(table="Table 6", split="test", setting="train=TRAIN")}``):
    Δ = CTRN − QRNN with its 95 % interval (over questions and seeds: :data:`INTERVAL_NOTE`), what it resamples and
    the verdict (:func:`reproq.results.claim`, as the report tests the paper's claims), the paper's Δ on its own
    evaluation set where it prints both (``paper's split``: QatarLiving's is test, ours dev), and beside them the best
    trained model and the best floor of the same evaluation (mean over seeds).
    ``ctrn`` names the CTRN's records (another reading of its alignment: :func:`alignment_method`); the other
    readings' CTRNs are not candidates for the best trained model, nor is the external anchor, shown apart."""
    theirs = paper_numbers("tay2018")
    rows = []
    for label, where in cases.items():
        tested = claim(records, ctrn, "QRNN", metric=metric, **where)
        their_where = {k: PAPER.read_as.get(v, (v,))[0] if k == "setting" else v for k, v in where.items()}
        rows_of = theirs[(theirs.metric == metric) & np.logical_and.reduce(
            [theirs[k] == v for k, v in their_where.items() if k in ("table", "setting")])]
        printed = rows_of.set_index("method")["value"]
        mine = summarize([r for r in records if r.metric == metric and r.variant != TEAM_RUN and
                          all(getattr(r, k) == v for k, v in where.items())]).set_index("method")["mean"]
        trained = mine[[not m.startswith(("floor: ", "anchor: ")) and (m == ctrn or not m.startswith("CTRN"))
                        for m in mine.index]]
        anchors = mine[[m.startswith("anchor: ") for m in mine.index]]
        floors = mine[[m.startswith("floor: ") for m in mine.index]]
        rows.append({"case": label, "CTRN": ctrn, "split": where.get("split", ""),
                     f"CTRN - QRNN ({metric})": tested["delta"], "95% low": tested["low"],
                     "95% high": tested["high"], "seeds": tested["seeds"], "interval over": tested["interval over"],
                     "paper": printed["CTRN"] - printed["QRNN"] if {"CTRN", "QRNN"} <= set(printed.index) else np.nan,
                     "paper's split": rows_of["split"].iat[0] if len(rows_of) else "",
                     "CTRN > QRNN": tested["verdict"], "best trained": trained.idxmax(), "its mean": trained.max(),
                     "best floor": floors.idxmax().removeprefix("floor: ") if len(floors) else "",
                     "floor's": floors.max() if len(floors) else np.nan,
                     "anchor (zero-shot)": anchors.max() if len(anchors) else np.nan})
    return pd.DataFrame(rows)


def over_the_floor(records: Sequence[Record], cases: Mapping[str, dict], *, metric: str = "MAP",
                   models: Sequence[str] = ("QRNN", "CTRN")) -> pd.DataFrame:
    """Whether each of ``models`` beats the best floor of each of ``cases`` (as :func:`ctrn_over_qrnn`): Δ = model −
    floor, paired by question (a floor is an expectation over tie orders, the same for every seed), its 95 % interval
    (:data:`INTERVAL_NOTE`) and verdict. The best floor is the highest of the evaluation itself, so the test is as
    hard as the floors make it; the models are fixed in advance, not picked on the same numbers."""
    rows = []
    for label, where in cases.items():
        mine = summarize([r for r in records if r.metric == metric and r.method.startswith("floor: ") and
                          all(getattr(r, k) == v for k, v in where.items())]).set_index("method")["mean"]
        if mine.empty:
            continue
        floor = mine.idxmax()
        for model in models:
            tested = claim(records, model, floor, metric=metric, **where)
            rows.append({"case": label, "model": model, "best floor": floor.removeprefix("floor: "),
                         f"model - floor ({metric})": tested["delta"], **_tested_columns(tested),
                         "beats the floor": tested["verdict"]})
    return pd.DataFrame(rows)


def _tested_columns(tested: dict) -> dict:
    """The interval, the seeds and what the interval resamples of a :func:`reproq.results.claim`, as table columns."""
    return {"95% low": tested["low"], "95% high": tested["high"], "seeds": tested["seeds"],
            "interval over": tested["interval over"]}


def anchor_against(records: Sequence[Record], cases: Mapping[str, dict], *, metric: str = "MAP") -> pd.DataFrame:
    """The external anchor (its records' method starts "anchor: ", :mod:`reproq.baselines.anchor`: zero-shot, trained
    on none of this) against every network
    trained on each of ``cases``: Δ = anchor − model, paired by question (the anchor is one record with no seed and
    pairs with every seed of the model), its 95 % interval (:data:`INTERVAL_NOTE`) and verdict (*confirmed*: the
    anchor is above it). Every sentence that sets the anchor beside the networks rests on these rows, one per pair:
    the pairs are all there are, none picked."""
    rows = []
    for label, where in cases.items():
        mine = [r for r in records if r.metric == metric and r.variant != TEAM_RUN
                and all(getattr(r, k) == v for k, v in where.items())]
        anchor = next((r.method for r in mine if r.method.startswith("anchor: ")), None)
        if anchor is None:
            continue
        for model in dict.fromkeys(r.method for r in mine if not r.method.startswith(("floor: ", "anchor: "))):
            tested = claim(records, anchor, model, metric=metric, **where)
            rows.append({"case": label, "model": model, f"anchor - model ({metric})": tested["delta"],
                         **_tested_columns(tested), "p": tested["p"], "anchor above": tested["verdict"]})
    return pd.DataFrame(rows)


def anchor_reading(table: pd.DataFrame) -> str:
    """:func:`anchor_against`'s table as a reading: one line per case, a phrase per network."""
    if table.empty:
        return ""
    metric = next(c for c in table.columns if c.startswith("anchor - model")).split("(")[1].rstrip(")")
    lines = ["The external anchor (all-MiniLM-L6-v2 zero-shot, never trained here) against each network trained on "
             f"the same evaluation, Δ = anchor − network ({metric}, 95 % interval over the questions and the "
             "network's seeds):", ""]
    for case, rows in table.groupby("case", sort=False):
        lines.append(f"- **{case}**: " + "; ".join(
            f"{r['model']} {shown(r[f'anchor - model ({metric})'], r['95% low'], r['95% high'])}, **{r['anchor above']}**"
            for r in rows.to_dict("records")) + ".")
    return "\n".join(lines)


def over_the_floor_reading(table: pd.DataFrame) -> str:
    """:func:`over_the_floor`'s table as a reading, one line per case and model."""
    metric = next(c for c in table.columns if c.startswith("model - floor")).split("(")[1].rstrip(")")
    return "\n".join(f"- **{r['case']}**, {r['model']} − {r['best floor']}: {metric} "
                     f"{shown(r[f'model - floor ({metric})'], r['95% low'], r['95% high'], r['interval over'])}: "
                     f"**{r['beats the floor']}**." for r in table.to_dict("records"))


def ctrn_over_qrnn_reading(table: pd.DataFrame) -> str:
    """:func:`ctrn_over_qrnn`'s table as a reading, one line per case."""
    metric = next(c for c in table.columns if c.startswith("CTRN - QRNN")).split("(")[1].rstrip(")")
    lines = []
    for r in table.to_dict("records"):
        gap = shown(r[f"CTRN - QRNN ({metric})"], r["95% low"], r["95% high"], r["interval over"])
        split = r["paper's split"]
        on = f" on {split}" if split and split != r["split"] else ""
        paper = f" (paper {r['paper']:+.3f}{on})" if r["paper"] == r["paper"] else ""
        best_floor = r["floor's"]
        floor = f"; best floor {r['best floor']}, {best_floor:.3f}" if r["best floor"] else ""
        anchor = r["anchor (zero-shot)"]
        if pd.notna(anchor):
            floor += f"; the external anchor (all-MiniLM-L6-v2 zero-shot, never trained here), {anchor:.3f}"
        lines.append(f"- **{r['case']}**: CTRN − QRNN {metric} {gap}"
                     f"{paper}: **{r['CTRN > QRNN']}**. Best trained model {r['best trained']}, {r['its mean']:.3f}"
                     f"{floor}.")
    return "\n".join(lines)


TRECQA_CASES = {name: dict(table="Table 6", split="test", setting=f"train={name}") for name in ("TRAIN", "TRAIN-ALL")}


def alignment_method(alignment: str) -> str:
    """The method name of CTRN's records with ``alignment`` (the printed one is the paper's row, "CTRN")."""
    return "CTRN" if alignment == "literal" else f"CTRN ({alignment} alignment)"


def alignments_reading(records: Sequence[Record], folder) -> str:
    """Notebook 04's committed words on CTRN's alignment: CTRN − QRNN on TEST for each reading of t*."""
    found = [a for a in ALIGNMENTS if any(r.method == alignment_method(a) for r in records)]
    return "\n".join(f"*{a}* alignment:\n\n" + ctrn_over_qrnn_reading(ctrn_over_qrnn(records, TRECQA_CASES,
                                                                                    ctrn=alignment_method(a)))
                     for a in found)


BUDGET_CASES = {setting.removeprefix("train="): dict(TRECQA_TEST, setting=setting) for setting in BUDGET_SETTINGS.values()}
PAPER_INPUTS_CASES = {PAPER_INPUTS_SETTING.removeprefix("train="): dict(TRECQA_TEST, setting=PAPER_INPUTS_SETTING)}
BUDGET_SEARCH = "tay2018_paper_budget_search"  # run_paper_budget's search table in notebook 04's folder


def paper_budget_claims(records: Sequence[Record]) -> pd.DataFrame:
    """CTRN − QRNN (:func:`ctrn_over_qrnn`) at the paper's TRAIN-ALL budget (:func:`run_paper_budget`), one row per
    alignment and kind of overlap features that has records."""
    def has(method: str, where: dict) -> bool:
        return any(r.method == method and r.setting == where["setting"] for r in records)

    tables = []
    for ctrn in map(alignment_method, ALIGNMENTS):
        cases = {label: where for label, where in BUDGET_CASES.items() if has(ctrn, where) and has("QRNN", where)}
        if cases:
            tables.append(ctrn_over_qrnn(records, cases, ctrn=ctrn))
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


def paper_budget_reading(records: Sequence[Record], folder) -> str:
    """Notebook 04's committed words on TRAIN-ALL at the paper's budget (:func:`run_paper_budget`): the d DEV chose
    per model, CTRN − QRNN per alignment and kind of overlap features (:func:`paper_budget_claims`), QRNN and CTRN
    over the best floor."""
    claims = paper_budget_claims(records)
    if claims.empty:
        return ("No records of TRAIN-ALL at the paper's budget in this folder: `reproq run --only 04 --param "
                "PAPER_BUDGET=True --executor dask --time-limit 14400` trains them (one cell of about two hours).")
    lines = []
    search = Path(folder) / f"{BUDGET_SEARCH}.csv"
    if search.exists():
        chosen = pd.read_csv(search).query("chosen")
        lines.append("d chosen on DEV MAP (first seed): " + ", ".join(
            f"{m} {d}" for m, d in chosen[["method", "d"]].itertuples(index=False)) + ".\n")
    for ctrn, rows in claims.groupby("CTRN", sort=False):
        lines.append(f"*{ctrn}* − QRNN:\n\n{ctrn_over_qrnn_reading(rows)}")
    cases = {label: BUDGET_CASES[label] for label in claims["case"].unique()}
    return "\n".join(lines) + _then(budget_effect_reading(records)) + \
        "\n\nAgainst the best floor of the same evaluation:\n\n" + over_the_floor_reading(
        over_the_floor(records, cases)) + _then(anchor_reading(anchor_against(records, cases)))


def budget_effect_reading(records: Sequence[Record], metric: str = "MAP") -> str:
    """Whether the paper's TRAIN-ALL budget moves CTRN − QRNN (as printed, raw overlap counts): the change from the
    profile's TRAIN-ALL run to the paper's budget, paired by seed and question
    (:func:`reproq.results.difference_of_differences`), with what else differs between the two runs."""
    try:
        d = difference_of_differences(records, "CTRN", "QRNN", metric=metric, where=BUDGET_CASES["TRAIN-ALL, 5 passes"],
                                      then=TRECQA_CASES["TRAIN-ALL"])
    except ValueError:
        return ""
    low, high = d.interval
    said = "confirmed" if low > 0 else "contradicted" if high < 0 else "not shown"
    interval = f"95 % interval [{low:+.3f}, {high:+.3f}] " if low == low else ""
    return (f"The budget's effect on CTRN − QRNN ({metric}, as printed): at the paper's budget minus at the profile's, "
            f"{d.mean:+.3f}, {interval}({d.over}): **a change {said}**. The two runs "
            "differ in more than the budget (at the paper's, d is chosen on DEV for each model), so a change would "
            "not be the budget's alone.")


def _then(text: str) -> str:
    return f"\n\n{text}" if text else ""


def claims_reading(records: Sequence[Record], cases: Mapping[str, dict], spread: float = float("nan")) -> str:
    """CTRN over QRNN (:func:`ctrn_over_qrnn`), then each model over the best floor (:func:`over_the_floor`) and the
    anchor against each network; a verdict whose interval ends within ``spread`` of 0 (the notebook's cross-machine
    spread, :func:`reproq.results.spread.cross_machine_spread`) says *machine-sensitive*, as notebook 12's do."""
    floors = _marked(over_the_floor(records, cases), "beats the floor", spread)
    against = "\n\nAgainst the best floor of the same evaluation:\n\n" + over_the_floor_reading(floors)
    return (ctrn_over_qrnn_reading(_marked(ctrn_over_qrnn(records, cases), "CTRN > QRNN", spread))
            + (against if len(floors) else "")
            + _then(anchor_reading(_marked(anchor_against(records, cases), "anchor above", spread))))


def paper_inputs_reading(records: Sequence[Record], folder) -> str:
    """Notebook 04's committed words on TRAIN with the paper's kind of overlap features (:func:`run_paper_inputs`),
    as :func:`claims_reading` says them; their verdicts against the paper are the report's."""
    if not any(r.setting == PAPER_INPUTS_SETTING for r in records):
        return "No records of TRAIN with the normalised overlap features in this folder: notebook 04's cell trains them."
    return claims_reading(records, PAPER_INPUTS_CASES, _folder_spread(folder))


def _marked(table: pd.DataFrame, verdict: str, spread: float) -> pd.DataFrame:
    """``table`` with each ``verdict`` whose interval (``95% low``, ``95% high``) ends within ``spread`` of 0 marked
    *machine-sensitive*: another CPU could turn it."""
    if table.empty:
        return table
    return table.assign(**{verdict: [marked(v, low, high, (0.0,), spread) for v, low, high in
                                     zip(table[verdict], table["95% low"], table["95% high"])]})


def _folder_spread(folder) -> float:
    """The cross-machine spread recorded for the notebook whose results are in ``folder``."""
    return cross_machine_spread(Path(folder).parent, Path(folder).name)


TEAM_RUN = "the team's primary test run as the organisers shipped it, re-scored here"  # a 2016 team's records' variant
TABLE5_TEAMS = ("Kelp", "ConvKN")  # the SemEval-2016 systems Tay et al.'s Table 5 prints (as the paper names them)


def team_records(provenance: Provenance) -> list[Record]:
    """Every 2016 team's primary run of subtask A on the 327 test threads, re-scored by the study's metrics as the
    official scorer ranks (:mod:`reproq.baselines.semeval_runs`): P@1, MAP and MRR, each question's values kept, the
    official MAP in the config. The two Table 5 prints are named as the paper names them and join its rows (re-scored
    shipped outputs, :data:`~reproq.papers.paper.GIVEN`); the others are ``2016 team: <name>``, beside."""
    from reproq.baselines import semeval_runs

    shipped = replace(provenance, data=semeval_runs.files("A"), word_vectors=None)
    records = []
    for team in semeval_runs.teams("A"):
        values = semeval_runs.rescore("A", team)
        records += shipped.records(values, metrics=["P@1", "MAP", "MRR"], paper="tay2018", table="Table 5",
                                   dataset="qatarliving", split="test", variant=TEAM_RUN,
                                   method=team if team in TABLE5_TEAMS else f"2016 team: {team}",
                                   config={"official MAP": semeval_runs.official("A", team)["MAP"]})
    return records


QATARLIVING_WIKIQA_CASES = {"QatarLiving test": dict(table="Table 5", dataset="qatarliving", split="test"),
                            "WikiQA test": dict(table="WikiQA", dataset="wikiqa", split="test")}

def runtime_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 05's committed words: the seconds per epoch, Figure 3's claims beside ours, the FLOP counts, and the
    machine the run was timed on (its cost record in ``pipeline_cost.json``) — timings move with the chip and with
    every run, so none of them is typed by hand."""
    folder = Path(folder)
    epochs = pd.read_csv(folder / "seconds_per_epoch.csv").set_index("method")
    ours = {r.method: r for r in records if r.table == "Figure 3"}
    theirs = paper_numbers("tay2018").query("table == 'Figure 3'").set_index("method")["value"]
    cost = json.loads((folder.parent / "pipeline_cost.json").read_text()).get(folder.name, {})
    config = json.loads((folder / "tay2018_figure3.jsonl").read_text().splitlines()[0])["config"]  # the timed sizes
    order = ["QRNN", "CTRN", "LSTM", "AP-BiLSTM"]
    flops = epochs["matmul_flops_per_token"]
    return "\n".join([
        f"- Seconds per TRAIN-ALL epoch at d = {config['hidden_dim']}, m = {config['projection_dim']}, one thread "
        f"({int(epochs['batches_timed'].iloc[0])} timed batches of {config['batch_size']} per method in interleaved "
        f"rounds, their mean times the epoch's batches): "
        + ", ".join(f"{m} {epochs.loc[m, 's_per_epoch']:,.0f}" for m in order) + ".",
        f"- Figure 3's claims beside ours: CTRN costs {ours['CTRN vs QRNN'].value:.0f} s an epoch more than QRNN (the "
        f"paper: about {theirs['CTRN vs QRNN']:g} s); the LSTM takes {ours['CTRN vs LSTM'].value:.2f}× CTRN's time "
        f"(about {theirs['CTRN vs LSTM']:g}×) and AP-BiLSTM {ours['CTRN vs AP-BiLSTM'].value:.2f}× (about "
        f"{theirs['CTRN vs AP-BiLSTM']:g}×).",
        f"- Matrix-product FLOPs per token (`seconds_per_epoch.csv`): the word projection and the LSTM "
        f"{flops['LSTM']:,}, the QRNN (and the CTRN, which shares its weights) {flops['QRNN']:,}, AP-BiLSTM "
        f"{flops['AP-BiLSTM']:,}: were products all the cost, the QRNN would run {flops['LSTM'] / flops['QRNN']:.1f}× "
        f"faster than the LSTM.",
        f"- Timed on {cost.get('cpu', 'a machine not recorded')} ({cost.get('cores', '?')} cores), load "
        f"{cost.get('load_average_before', [float('nan')])[0]:.2f} before, code {ours['CTRN vs QRNN'].code_version} "
        f"(`pipeline_cost.json`); earlier runs on other machines are in `results/bench/README.md`: the seconds, and "
        f"the ratios too, move with the chip.",
    ])


ABLATION = "{}_ablation_vectors_features"  # run_ablation's table in notebooks 04's and 06's folders, per dataset


def ablation_lines(path: Path, method: str, split: str) -> list[str]:
    """The DEV MAP of each vectors and kind of overlap features an ablation table (``run_ablation``'s) tried, the
    chosen row marked, and that row's one TEST reading where the table has one."""
    if not path.exists():
        return []
    rows = pd.read_csv(path)
    lines = [f"- DEV MAP with {vectors} ({method}, first seed{split}): " + "; ".join(
        f"{r['overlap features']} {r['DEV MAP']:.3f}" + (" (**chosen**)" if r["chosen"] else "")
        for r in group.to_dict("records")) + "." for vectors, group in rows.groupby("vectors", sort=False)]
    chosen = rows[rows["chosen"]]
    if len(chosen) and "TEST MAP" in rows and not chosen["TEST MAP"].isna().all():
        lines.append(f"- The chosen row's one TEST reading: MAP {chosen['TEST MAP'].iat[0]:.3f}, MRR "
                     f"{chosen['TEST MRR'].iat[0]:.3f}.")
    return lines


def models_line(records: Sequence[Record], label: str, metrics: Sequence[str], printed: pd.DataFrame) -> str:
    """``label``'s mean ± sd over the seeds (how many) of each trained model on ``metrics`` (joined by " / "), the
    paper's printed numbers beside where it has the model (``printed``: its rows of the same evaluation)."""
    mine = summarize([r for r in records if r.metric in metrics and not r.method.startswith(("floor: ", "anchor: "))
                      and "alignment)" not in r.method and r.variant != TEAM_RUN])
    theirs = printed.set_index(["method", "metric"])["printed"]  # as the paper prints them
    parts = []
    for method, group in mine.groupby("method", sort=False):
        row = group.set_index("metric").reindex(list(metrics))
        n = int(row["n"].max())
        ours = " / ".join(f"{m:.3f}" + (f" ± {s:.3f}" if n > 1 else "") for m, s in zip(row["mean"], row["std"]))
        paper = [theirs.get((method, metric)) for metric in metrics]
        parts.append(f"{method} {ours} ({n})" + ("" if any(v is None for v in paper)
                                                 else ", paper " + " / ".join(paper)))
    return f"- {label}, {' / '.join(metrics)} (mean ± sd, seeds): " + "; ".join(parts) + "."


def teams_line(records: Sequence[Record], metrics: Sequence[str]) -> list[str]:
    """The 2016 teams' re-scored runs among ``records`` in one line (``metrics`` joined by " / "), the paper's
    printed numbers beside the two it prints, and each one's official MAP where it differs from ours; nothing if none."""
    teams = [r for r in records if r.variant == TEAM_RUN]
    if not teams:
        return []
    theirs = paper_numbers("tay2018").query("table == 'Table 5'").set_index(["method", "metric"])["printed"]
    values = {(r.method, r.metric): r for r in teams}
    parts = []
    for method in dict.fromkeys(r.method for r in teams):
        ours = " / ".join(f"{values[method, m].value:.3f}" for m in metrics if (method, m) in values)
        paper = [theirs.get((method, m)) for m in metrics]
        official = values[method, "MAP"].config.get("official MAP") if (method, "MAP") in values else None
        parts.append(f"{method.removeprefix('2016 team: ')} {ours}"
                     + ("" if any(v is None for v in paper) else ", paper " + " / ".join(paper))
                     + ("" if official is None or round(values[method, 'MAP'].value, 4) == official
                        else f" (official MAP {official})"))
    return [f"- The 2016 teams' primary runs, re-scored ({' / '.join(metrics)}): " + "; ".join(parts) + "."]


def glance_reading(records: Sequence[Record], folder) -> str:
    """Notebook 04's committed numbers at a glance: what DEV chose (the ablation's DEV MAP per vectors and kind of
    overlap features, and the chosen row's one TEST reading), then Table 6's TEST MAP of each model the notebook trains
    beside the paper's, mean ± sd over the seeds, per training set — the numbers its summary's prose points to."""
    lines = ablation_lines(Path(folder) / f"{ABLATION.format('trecqa')}.csv", "CTRN", ", TRAIN")
    theirs = paper_numbers("tay2018").query("table == 'Table 6'")
    for setting in TRECQA_SETTINGS:
        mine = [r for r in records if r.table == "Table 6" and r.split == "test" and r.setting == setting]
        if mine:
            lines.append(models_line(mine, f"TEST, {setting.removeprefix('train=')}", ["MAP"],
                                     theirs[theirs.setting == setting]))
    return "\n".join(lines) or "No records of Table 6 in this folder."


def _tested(rows: pd.DataFrame, name: str, delta: str, verdict: str) -> str:
    """"<name> Δ [low, high] verdict" for each row of a tested table (:func:`ctrn_over_qrnn`, :func:`over_the_floor`,
    :func:`anchor_against`), joined by "; "."""
    return "; ".join(f"{r[name]} {r[delta]:+.3f}" + (f" [{r['95% low']:+.3f}, {r['95% high']:+.3f}]"
                                                    if pd.notna(r["95% low"]) else "") + f" {r[verdict]}"
                     for r in rows.to_dict("records"))


def tests_lines(records: Sequence[Record], cases: Mapping[str, dict], ctrns: Sequence[str] = ("CTRN",)) -> list[str]:
    """The study's tests of ``cases`` in one line each, MAP, 95 % intervals over the questions and the seeds: CTRN −
    QRNN for each of ``ctrns`` (the paper's Δ beside), QRNN and CTRN − the best floor, the zero-shot anchor − every
    network. Nothing here is picked after the run: every pair the readings test is listed."""
    lines = []
    for label, where in cases.items():
        claims = pd.concat([ctrn_over_qrnn(records, {label: where}, ctrn=c) for c in ctrns if any(
            r.method == c and all(getattr(r, k) == v for k, v in where.items()) for r in records)], ignore_index=True)
        paper = claims["paper"].iat[0]
        split = claims["paper's split"].iat[0]
        on = f" on {split}" if split and split != claims["split"].iat[0] else ""
        lines.append(f"- {label}, CTRN − QRNN" + (f" (paper {paper:+.3f}{on})" if pd.notna(paper) else "") + ": "
                     + _tested(claims, "CTRN", "CTRN - QRNN (MAP)", "CTRN > QRNN") + ".")
        floors = over_the_floor(records, {label: where})
        if len(floors):
            lines.append(f"- {label}, over the best floor ({floors['best floor'].iat[0]}): "
                         + _tested(floors, "model", "model - floor (MAP)", "beats the floor") + ".")
        anchors = anchor_against(records, {label: where})
        if len(anchors):
            lines.append(f"- {label}, the zero-shot anchor (all-MiniLM-L6-v2, never trained here) minus: "
                         + _tested(anchors, "model", "anchor - model (MAP)", "anchor above") + ".")
    return lines


def trecqa_finding(records: Sequence[Record], folder) -> str:
    """The guide's finding of notebook 04: Table 6's TEST MAP beside the paper's, what DEV chose, then every test of
    the notebook's readings in one line each (:func:`tests_lines`): the three alignments at the profile's budget, then
    at the paper's."""
    theirs = paper_numbers("tay2018").query("table == 'Table 6'")
    lines = [models_line([r for r in records if r.table == "Table 6" and r.split == "test" and r.setting == setting],
                         f"TEST, {setting.removeprefix('train=')}", ["MAP"], theirs[theirs.setting == setting])
             for setting in TRECQA_SETTINGS if any(r.setting == setting for r in records)]
    lines += ablation_lines(Path(folder) / f"{ABLATION.format('trecqa')}.csv", "CTRN", ", TRAIN")
    ctrns = [alignment_method(a) for a in ALIGNMENTS]
    lines += tests_lines(records, TRECQA_CASES, ctrns)
    present = {label: where for label, where in {**PAPER_INPUTS_CASES, **BUDGET_CASES}.items()
               if any(r.setting == where["setting"] for r in records)}
    return "\n".join(lines + tests_lines(records, present, ctrns))


def qatarliving_wikiqa_finding(records: Sequence[Record], folder) -> str:
    """The guide's finding of notebook 06: each trained model beside the paper's (:func:`models_line`) and every
    test of the notebook's reading in one line each (:func:`tests_lines`)."""
    lines = []
    for (label, where), metrics in zip(QATARLIVING_WIKIQA_CASES.items(), (["P@1", "MAP"], ["MAP", "MRR"])):
        mine = [r for r in records if all(getattr(r, k) == v for k, v in where.items())]
        if mine:
            lines.append(models_line(mine, label, metrics, paper_numbers("tay2018").query("table == @where['table']")))
            lines += tests_lines(records, {label: where})
    return "\n".join(lines)


def qatarliving_wikiqa_glance(records: Sequence[Record], folder) -> str:
    """Notebook 06's committed numbers at a glance, per dataset: what DEV chose (the ablation), each trained model's
    mean ± sd over the seeds beside the paper's (Table 5, QatarLiving test), the best floor, the zero-shot anchor and
    the 2016 teams the paper's table has (their shipped runs, re-scored) — the numbers its summary's prose points to."""
    lines = []
    for (label, where), metrics in zip(QATARLIVING_WIKIQA_CASES.items(), (["P@1", "MAP"], ["MAP", "MRR"])):
        mine = [r for r in records if all(getattr(r, k) == v for k, v in where.items())]
        lines += [f"**{label}**", ""] + ablation_lines(Path(folder) / f"{ABLATION.format(where['dataset'])}.csv",
                                                       "CTRN", "")
        if not mine:
            continue
        lines.append(models_line(mine, label, metrics, paper_numbers("tay2018").query("table == @where['table']")))
        lines += teams_line(mine, metrics)
        floors = summarize([r for r in mine if r.method.startswith(("floor: ", "anchor: ")) and r.metric in metrics])
        for kind, group in floors.groupby(floors["method"].str.startswith("anchor: "), sort=True):
            best = group[group.metric == "MAP"].sort_values("mean").iloc[-1]["method"] if not kind else None
            for method, row in group.groupby("method", sort=False):
                if kind or method == best:
                    values = row.set_index("metric").reindex(metrics)["mean"]
                    lines.append(f"- {'The external anchor' if kind else 'The best floor by MAP'}, "
                                 f"{method.split(': ', 1)[1]}: " + " / ".join(f"{v:.3f}" for v in values) + ".")
        lines.append("")
    return "\n".join(lines).strip() or "No records of QatarLiving or WikiQA in this folder."


TRECQA_SETTINGS = tuple(where["setting"] for where in TRECQA_CASES.values())  # Table 6's TRAIN and TRAIN-ALL


FINDINGS = (  # the guide's "What we have found so far" (reproq.report.readings.findings_markdown)
    Finding("00_datasets", "Tay et al. Table 3, TrecQA and QatarLiving (notebook 00; data statistics)",
            "beside:tay2018_table3"),
    Finding("01_lexical_baselines", "BM25 on TrecQA (notebook 01; Lucene's formula over the split's lower-cased "
            "answers), beside the BM25 row Tay et al.'s Table 7 quotes from Wang et al. (2015), whose configuration "
            "is not stated", "beside:tay2018_table7_lexical"),
    Finding("04_trecqa_ctrn", "Tay et al. Table 6 on real TrecQA (notebook 04, `cpu` profile, raw TEST, trec_eval; "
            "results of training; MAP, 95 % intervals over the test questions and the seeds; the inputs DEV chose)",
            "trecqa_finding"),
    Finding("04_trecqa_ctrn", "Tay et al. Table 2 parameter counts of the built models (notebook 04; model sizes, "
            "not results)", "beside:tay2018_table2"),
    Finding("05_runtime", "Tay et al. Figure 3, runtime (notebook 05), one thread", "runtime"),
    Finding("06_qatarliving_wikiqa", "Tay et al. Table 5 on the real QatarLiving test threads, and WikiQA test "
            "(notebook 06, each with its own DEV's choice of vectors and features; QatarLiving trained on part 2 and "
            "the organisers' 2015 extras, the paper's part 1 cannot be had)",
            "qatarliving_wikiqa_finding"),
)

READINGS = {  # notebook 04's, 05's and 06's committed words (reproq.report.readings)
    "glance": glance_reading,
    "qatarliving_wikiqa_glance": qatarliving_wikiqa_glance,
    "trecqa_finding": trecqa_finding,
    "qatarliving_wikiqa_finding": qatarliving_wikiqa_finding,
    "trecqa": lambda records, folder: claims_reading(records, TRECQA_CASES, _folder_spread(folder)),
    "alignments": alignments_reading,
    "paper_budget": paper_budget_reading,
    "paper_inputs": paper_inputs_reading,
    "qatarliving_wikiqa": lambda records, folder: claims_reading(records, QATARLIVING_WIKIQA_CASES,
                                                                 _folder_spread(folder)),
    "runtime": runtime_reading,
}


def alignment_shares(pairs: PairSet, alignments: Sequence[str] = ALIGNMENTS) -> pd.DataFrame:
    """What each reading of CTRN's aligned step t* (:mod:`reproq.models.ctrn`) makes of a split's real lengths:
    the share of pairs whose answer is the longer side, and per alignment the share of answer steps and of question
    steps that read the partner's *last* gate (as printed, the longer side mostly does: its t* is clipped)."""
    len_q = torch.tensor([max(len(q), 1) for q in pairs.q_ids])
    len_a = torch.tensor([max(len(a), 1) for a in pairs.a_ids])
    rows = []
    for alignment in alignments:
        row = {"alignment": alignment, "pairs": len(len_q), "answer longer": float((len_a > len_q).float().mean())}
        for side, own, partner in (("answer", len_a, len_q), ("question", len_q, len_a)):
            steps = aligned_steps(int(own.max()), own, partner, alignment)
            real = torch.arange(int(own.max()))[None, :] < own[:, None]
            last = (steps == (partner - 1)[:, None]) & real
            row[f"{side} steps reading the partner's last"] = float(last.sum() / real.sum())
        rows.append(row)
    return pd.DataFrame(rows)
