"""Smolyakov, Srikant. *Neural Approaches to Question Retrieval*. MIT 6.864 term project, 2017 (seed
``003_6d6226b7de5bc4d3.txt``).

Here: the paper's in-domain and adaptation configurations at a profile's scale (:func:`smolyakov_config`,
:func:`adaptation_config`), Table 6's parameter counts, and Table 7 and the numbers behind Figures 8–15 from the
adaptation runs (:mod:`reproq.question_retrieval.adaptation`) and scores (:mod:`reproq.figures.smolyakov2017` draws
the figures), and notebook 09's readings of them (:func:`table7_reading`; :func:`summary_reading`, the guide's
finding). Every AUC is pooled over all (query, candidate) pairs of the Android split: Table 7 reports the course
meter's AUC and AUC(0.05) (``reproq.metrics.auc_score``), scikit-learn's McClish-standardised AUC(0.05) beside it
under its own name.

Longer than most modules here: it is the paper's one home (issue 43's unit), its configurations, records, claims
and its notebooks' readings together, as :mod:`reproq.papers.tay2018` is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from reproq import metrics
from reproq.models import build_encoder, count_parameters
from reproq.models.question import QuestionEncoderConfig
from reproq.papers import lei2016
from reproq.papers.lei2016 import ARCHITECTURE, ASKUBUNTU, QuestionRetrieval
from reproq.papers.paper import DATA, GIVEN, SIZE, Claim, Finding, Paper
from reproq.profiles import Overrides, scaled
from reproq.question_retrieval.adaptation import auc_values
from reproq.question_retrieval.evaluate import pooled, retrieval_scores
from reproq.question_retrieval.inputs import TrainConfig
from reproq.results import Provenance, Record, paired_difference, paper_numbers, summarize
from reproq.results.paired import shown, t_interval
from reproq.train.grid import RunResult


# its settings at each profile (reproq.papers.profile gathers them; its notebooks' setup(section=...) reads them)
SECTION = "adaptation"


@dataclass(frozen=True, kw_only=True)
class Adaptation:
    """Smolyakov & Srikant's AskUbuntu → Android experiments (:mod:`reproq.question_retrieval.adaptation`)."""

    seeds: tuple[int, ...]
    lambdas: tuple[float, ...]  # λ of the adversarial runs, chosen on Android dev (λ = 0, direct transfer, always runs)
    train: Overrides  # Smolyakov & Srikant's setting (smolyakov_config) changed
    doc2vec_epochs: int = 64  # §6.3
    target_dev_queries: int | None = None  # Android dev queries that choose the epoch (None: all 1,145)
    target_test_queries: int | None = None  # Android test queries reported (None: all 1,148; smoke: a few)
    table4: bool = False  # adversarial runs on Table 4's networks (else on Table 3's, as direct transfer)


PROFILES = {
    "smoke": Adaptation(seeds=(1,), lambdas=(1e-3,), train=Overrides(TrainConfig, epochs=1, max_train_queries=20), doc2vec_epochs=2,
                        target_dev_queries=40, target_test_queries=40, table4=True),
    # 2 seeds (a "model A beats model B" sentence on one seed rests on that seed), 4 epochs of 240 AskUbuntu
    # queries, λ in {0.1, 1e-3}, 300 Android dev queries choose the epoch
    "cpu": Adaptation(seeds=(1, 2), lambdas=(1e-1, 1e-3), train=Overrides(TrainConfig, epochs=4, max_train_queries=240),
                      doc2vec_epochs=16, target_dev_queries=300),
    # Table 4's λ (1e-6 CNN, 1e-7 LSTM) among the sweep of §7 (1e-3 .. 1e-7), and a strong 0.1 beside it
    "paper": Adaptation(seeds=(1, 2, 3, 4, 5), lambdas=(1e-1, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7), train=Overrides(TrainConfig), table4=True),
}

ADVERSARIAL_QUOTE = ("\"The neural models for domain adaptation clearly beat these two baselines by 0.13 points on an "
                     "average\" (§7.2)")

PAPER = Paper(
    key="smolyakov2017", short="Smolyakov & Srikant 2017",
    citation="Smolyakov, Srikant. *Neural Approaches to Question Retrieval*, MIT 6.864 project, 2017",
    topic="AskUbuntu → Android domain adaptation",
    has="in-domain CNN/BiLSTM; AskUbuntu → Android domain adaptation; AUC and AUC(0.05) (Tables 2, 6, 7, "
        "Figures 8–15)",
    seed_file="003_6d6226b7de5bc4d3.txt",
    # Figures 1-2 in section 3.1 "Dataset" (3-7 are architecture); 8-15 at the end of section 6, discussed in 7
    figures=(("Figure 1", "AskUbuntu dataset description (word-length distribution)"),
             ("Figure 2", "Android dataset description (word-length distribution)"),
             ("Figure 8", "in-domain LSTM and CNN training loss (Experiment 1)"),
             ("Figure 9", "learning-rate schedule (all experiments)"),
             ("Figure 10", "ROC curves, direct transfer TF-IDF/LSTM/CNN (Experiment 2)"),
             ("Figure 11", "TF-IDF score histogram of similar vs dissimilar pairs (Experiment 2)"),
             ("Figure 12", "LSTM and CNN total adversarial training loss (Experiment 2)"),
             ("Figure 13", "discriminator training loss (Experiment 2)"),
             ("Figure 14", "gradient norms of the domain classifier (Experiment 2)"),
             ("Figure 15", "ROC curves of Siamese RNN and doc2vec (Experiment 3)")),
    # "these two baselines" are TF-IDF and direct transfer; the 0.13 is the two adversarial models' mean AUC(0.05)
    # (0.75) above TF-IDF's 0.62, so it is tested as a size against TF-IDF only (his LSTM alone gains 0.12)
    claims=(Claim("adversarial > direct transfer to Android, LSTM (Table 7)", "LSTM-adversarial", "LSTM-direct",
                  "AUC(0.05)", dict(table="Table 7", dataset="android", split="test"), beside=("AUC",),
                  quote=ADVERSARIAL_QUOTE),
            Claim("adversarial > TF-IDF transfer to Android by 0.13, LSTM (Table 7; the 0.13 is the mean of his two "
                  "adversarial models)", "LSTM-adversarial", "TF-IDF", "AUC(0.05)",
                  dict(table="Table 7", dataset="android", split="test", setting="source=askubuntu"),
                  beside=("AUC",), quote=ADVERSARIAL_QUOTE, size=(0.125, 0.135), size_said="0.13 points")),
    # TF-IDF fitted on Android's own corpus: an in-domain reference, not the paper's source-fitted baseline (§6.2)
    beside=("fitted on Android (in-domain reference)",),
    # Table 6's BM25 row re-scores the Lucene scores shipped with AskUbuntu, as Lei et al.'s Table 2 does: the same
    # eight numbers of ours, counted there
    kinds={("Table 2",): DATA, ("Table 6", "BM25"): GIVEN, ("Table 6", "params"): SIZE},
    counted_under={("Table 6", "BM25"): "lei2016 Table 2"},
    as_specified={"Figure 9": "it draws the paper's stated schedule (Adam at 1e-3, halved every 4 epochs), not a "
                              "result"},
    stand_in={"android": "the Android corpus is not reachable here (its pair files are): the stand-in",
              "askubuntu": ASKUBUNTU},
    notebooks=("00_datasets", "01_lexical_baselines", "03_pooling_body_smolyakov", "09_domain_adaptation"),
)


# Table 3: "Kernel size [1-5] × 200", "Output channels 5 × 200": 200 filters per kernel size, as Table 4's "[2-6] × 250"
# with its 1,250 output channels reads
SMOLYAKOV_CNN = dict(widths=(1, 2, 3, 4, 5), filters=200)
SMOLYAKOV_LSTM_HIDDEN = 128  # Table 3: "Hidden size 128 x 2"

SMOLYAKOV_TABLE4_FILTERS = 250  # Smolyakov & Srikant Table 4: "Kernel size [2-6] x 250" (1,250 output channels)


def smolyakov_config(p: QuestionRetrieval, encoder: str) -> TrainConfig:
    """Smolyakov & Srikant's in-domain setting (§3.2, §6.1, Table 3).

    CNN: one convolution per kernel size 1–5 over the 200-d word vectors, 200 filters each ("[1-5] × 200", "Output
    channels 5 × 200"), 1,000 in all: 601,000 parameters, where Table 6 prints 420,600 and §6.1 a budget of 450K. The
    paper contradicts itself here; no integer input width or filter count gives its 420,600 with 1,000 channels, and
    we follow its table's channels rather than fit a width to its count (140 filters a size would give 420,700).
    LSTM: bidirectional, 128 units per direction, torch's two biases (337,920, their count exactly). Mean
    pooling, margin 0.4, 40 negatives, titles cut at 10 words and bodies at 100 (or the profile's shorter
    cut), Adam lr 1e-3 with weight
    decay 1e-5 halved every 4 epochs, 32 queries a batch, 16 epochs. Not reported, so not copied: dropout
    (none here), state normalisation (none: "average pooling"), IDF weights (none), their stop-word list
    (the synthetic stand-in has no English stop words; on real data this is a known difference).
    """
    if encoder == "cnn":
        widths = SMOLYAKOV_CNN["widths"]
        settings = {"hidden_dim": len(widths) * scaled(SMOLYAKOV_CNN["filters"], p.scale), "width": widths}
    elif encoder == "lstm":
        settings = {"hidden_dim": scaled(SMOLYAKOV_LSTM_HIDDEN, p.scale), "bidirectional": True, "one_bias": False}
    else:
        raise ValueError(f"Smolyakov & Srikant trained 'cnn' and 'lstm', not {encoder!r}")
    return TrainConfig(
        encoder=encoder, encoder_settings=tuple(settings.items()), lr=1e-3, weight_decay=1e-5, lr_halve_every=4,
        margin=0.4, l2=0.0, n_negatives=40, queries_per_batch=32, max_title_len=10, max_body_len=min(100, p.max_body_len),
        idf_reweight=False, epochs=p.smolyakov_epochs, patience=p.smolyakov_epochs,
        max_train_queries=p.max_train_queries,
        question=QuestionEncoderConfig(pooling="mean", fields="title+body", normalize_states=False, dropout=0.0))


def adaptation_config(p: QuestionRetrieval, a: Adaptation, encoder: str, *, adversarial: bool = False) -> TrainConfig:
    """Smolyakov & Srikant's Experiment 2 setting with the adaptation profile's budget: direct transfer on the
    in-domain networks of :func:`smolyakov_config` (Table 3); adversarial runs on the same networks or, when the
    profile asks for ``a.table4``, on Table 4's: a CNN of 1,250 filters, 250 for each width 2–6, and a
    one-directional LSTM of 128 (sizes scaled by the profile). Table 4's 300-d inputs are not available here: every
    network reads the corpus's word vectors (AskUbuntu's are 200-d)."""
    config = replace(smolyakov_config(p, encoder), **a.train)
    if not (adversarial and a.table4):
        return config
    settings = dict(config.encoder_settings)
    if encoder == "cnn":
        widths = (2, 3, 4, 5, 6)
        settings.update(hidden_dim=len(widths) * scaled(SMOLYAKOV_TABLE4_FILTERS, p.scale), width=widths)
    else:
        settings.update(bidirectional=False)
    return replace(config, encoder_settings=tuple(settings.items()))


def smolyakov_params_records() -> list[Record]:
    """Smolyakov & Srikant Table 6 "# params", counted on our modules at their sizes (see
    :func:`smolyakov_config`). Depends on no data."""
    records = []
    for label, name in (("CNN", "cnn"), ("LSTM", "lstm")):
        config = smolyakov_config(lei2016.PROFILES["paper"], name)
        encoder = build_encoder(name, **dict(config.encoder_settings))
        records += Provenance(ARCHITECTURE).records(
            {"params": count_parameters(encoder)}, paper="smolyakov2017", table="Table 6", dataset="askubuntu",
            split="-", method=label, config=asdict(encoder.config),
            variant=f"widths 1-5, {SMOLYAKOV_CNN['filters']} filters each" if name == "cnn"
            else "bidirectional, 128 per direction")
    return records


# Figure 9 is the schedule of every experiment: Adam at 1e-3, halved every 4 epochs, over Table 3's 16 epochs
PAPER_SCHEDULE = smolyakov_config(lei2016.PROFILES["paper"], "cnn")

TABLE7 = dict(paper="smolyakov2017", table="Table 7", dataset="android", setting="source=askubuntu")
# Table 7's TF-IDF is "trained on the source domain" (§6.2): term statistics of AskUbuntu, Android scored with them
TFIDF_SOURCE = "fitted on AskUbuntu"
TFIDF_IN_DOMAIN = PAPER.beside[0]  # fitted on Android itself: shown beside the paper, no verdict


def table7_records(runs: Sequence[RunResult], provenance: Provenance, *, method: str, variant: str = "") -> list[Record]:
    """One record per run, Android split and AUC: dev (which chose the epoch) and test."""
    return [record for r in runs for split in ("dev", "test")
            for record in provenance.records(r.scores[f"target_{split}"], split=split, method=method, variant=variant,
                                             seeds=(r.seed,), wall_time_s=r.seconds, run=r.settings,
                                             config={"best_epoch": r.best_epoch, "n_parameters": r.n_parameters},
                                             **TABLE7)]


def figure_records(provenance: Provenance, *, roc: Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]],
                   runs: Mapping[str, RunResult], in_domain: Mapping[str, RunResult],
                   histogram: tuple[np.ndarray, np.ndarray], config) -> list[Record]:
    """The numbers behind Figures 8–15 as records: the in-domain runs' max-margin loss per epoch (Figure 8,
    ``in_domain``: label -> run), each ROC curve's AUCs (``roc``: figure -> label -> pooled labels and scores), the
    TF-IDF scores' mean per class (Figure 11), each of ``runs``' training loss and its parts, domain-classifier loss
    and accuracy, and gradient norms per epoch (Figures 12–14), and the learning rate per epoch (Figure 9)."""
    base = dict(paper="smolyakov2017", dataset="android")
    records = [record for figure, curves in roc.items() for label, (y, s) in curves.items()
               for record in provenance.records(auc_values(y, s), table=figure, split="test", method=label, **base)]
    y, s = histogram
    records += provenance.records({"mean score, similar": float(s[y == 1].mean()),
                                   "mean score, dissimilar": float(s[y == 0].mean())},
                                  table="Figure 11", split="test", method="TF-IDF", **base)
    for label, run in runs.items():
        for h in run.history:
            values = {k: v for k, v in h.items() if k == "loss" or k.startswith(("loss_", "domain_", "grad_norm"))}
            for figure, keys in (("Figure 12", ("loss", "loss_ranking", "loss_domain")),
                                 ("Figure 13", ("loss_domain", "domain_loss", "domain_accuracy")),
                                 ("Figure 14", tuple(k for k in values if k.startswith("grad_norm")))):
                present = {k: values[k] for k in keys if k in values and values[k] == values[k]}  # NaN: epoch 0 loss
                records += provenance.records(present, table=figure, split="train", method=label,
                                              setting=f"epoch={h['epoch']}", seeds=(run.seed,), **base) if present else []
    records += [record for label, run in in_domain.items() for h in run.history[1:]
                for record in provenance.records({"loss": h["loss_ranking"]}, table="Figure 8", split="train",
                                                 method=label, setting=f"epoch={h['epoch']}", seeds=(run.seed,),
                                                 paper="smolyakov2017", dataset="askubuntu")]
    for epoch in range(1, config.epochs + 1):
        records += provenance.records({"learning rate": config.learning_rate(epoch)}, table="Figure 9", split="train", method="Adam",
                                      setting=f"epoch={epoch}", paper="smolyakov2017", dataset="askubuntu")
    return records


def ranking_table(methods: Mapping[str, tuple[Sequence, Sequence[np.ndarray]]]) -> pd.DataFrame:
    """Is a low pooled AUC the pooling's doing? Per method (``methods``: label -> (queries, score arrays)): the
    pooled AUC, the mean over queries of each query's own AUC (queries with a similar and a dissimilar candidate),
    and Lei et al.'s MAP and MRR of the same rankings. Pooling compares scores across queries, so an encoder whose
    scores sit at a different level per query loses pooled AUC that its per-query rankings keep."""
    rows = []
    for label, (queries, scores) in methods.items():
        y, s = pooled(queries, scores)
        own = [metrics.auc_score(q.labels, v) for q, v in zip(queries, scores) if 0 < q.labels.sum() < len(q.labels)]
        ranking = retrieval_scores(queries, scores)
        rows.append({"method": label, "pooled AUC": metrics.auc_score(y, s), "mean per-query AUC": float(np.mean(own)),
                     "MAP": ranking["MAP"], "MRR": ranking["MRR"], "queries": len(queries)})
    return pd.DataFrame(rows)


def lambda_sweep(runs: Mapping[tuple[str, float], Sequence[RunResult]], names: Mapping[str, str]
                 ) -> tuple[pd.DataFrame, dict[str, float]]:
    """Smolyakov & Srikant's choice of λ ("by sweeping between 1e-3 to 1e-7"), on Android dev only.

    ``runs``: (encoder, λ) -> that configuration's run per seed, λ = 0 being direct transfer; ``names``:
    encoder -> its name in the tables. Returns the mean over seeds, per encoder, λ and Android split, of the AUCs at
    each run's kept epoch and of the domain classifier's accuracy there (0.5: the encodings no longer tell the domains
    apart), with ``chosen on dev``; and per encoder the λ > 0 of the best mean dev AUC(0.05) (the first on ties, in
    the order of ``runs``). Test is read, never chosen on."""
    sweep = pd.DataFrame([{"encoder": names[name], "lambda": lam, "split": split, "seed": r.seed,
                           **r.scores[f"target_{split}"], "best epoch": r.best_epoch,
                           "domain accuracy at that epoch": r.history[r.best_epoch]["domain_accuracy"]}
                          for (name, lam), group in runs.items() for r in group for split in ("dev", "test")])
    mean = sweep.groupby(["encoder", "lambda", "split"], sort=False).mean(numeric_only=True).reset_index()
    dev_auc = mean[mean["split"] == "dev"].set_index(["encoder", "lambda"])["AUC(0.05)"]
    chosen = {}
    for name in dict.fromkeys(name for name, _ in runs):
        adversarial = [lam for n, lam in runs if n == name and lam > 0]
        chosen[name] = max(adversarial, key=lambda lam: dev_auc[names[name], lam])
    by_name = {names[name]: lam for name, lam in chosen.items()}
    mean["chosen on dev"] = [lam == by_name[encoder] for encoder, lam in zip(mean["encoder"], mean["lambda"])]
    return mean, chosen


# Table 7's Android test, the split its readings report (dev chose the epochs and λ)
TABLE7_TEST = dict(table="Table 7", split="test")
LEXICAL = ("TF-IDF", "BM25")  # Table 7's rows that learn nothing: every other row is a learned representation


def _table(folder: Path, name: str) -> pd.DataFrame | None:
    """The table ``name`` the notebook saved in ``folder`` (``<name>.csv``, or ``<name>__synthetic.csv`` on the
    stand-in), or None where it saved none."""
    found = sorted(Path(folder).glob(f"{name}*.csv"))
    return pd.read_csv(found[0]) if found else None


def _test_means(records: Sequence[Record]) -> pd.DataFrame:
    """Table 7's Android test rows: mean over the seeds per (method, variant) and metric, with ``n``, the seeds."""
    test = summarize([r for r in records if all(getattr(r, k) == v for k, v in TABLE7_TEST.items())])
    means = test.pivot_table(index=["method", "variant"], columns="metric", values="mean", sort=False)
    return means.join(test[test.metric == "AUC"].set_index(["method", "variant"])["n"])


def _aucs(row) -> str:
    return f"{row['AUC']:.3f} / {row['AUC(0.05)']:.3f}"


def _theirs(metric: str) -> pd.Series:
    """Smolyakov & Srikant's Table 7 ``metric`` per method."""
    return paper_numbers("smolyakov2017").query("table == 'Table 7' and metric == @metric").set_index("method")["value"]


def _paper(method: str) -> str:
    """`` (paper AUC / AUC(0.05))`` of ``method`` in Smolyakov & Srikant's Table 7, or nothing where it has no row."""
    auc, partial = _theirs("AUC"), _theirs("AUC(0.05)")
    return f" (paper {auc[method]:.2f} / {partial[method]:.2f})" if method in auc.index else ""


def _paired(records: Sequence[Record], a: str, b: str, metric: str = "AUC(0.05)") -> str:
    """``a − b`` on ``metric`` over Android test, seed by seed, as a reading: Δ, its 95 % interval and what the
    interval shows. ``records`` must hold one variant per method (TF-IDF: the source-fitted one)."""
    d = paired_difference(records, a, b, metric=metric, **TABLE7_TEST)
    verdict = f": **{d.verdict(a, b)}**" if d.low == d.low else ""  # too few distinct seeds: no interval, no verdict
    return f"{a} − {b} {metric} {shown(d.mean, d.low, d.high, d.over)}{verdict}"


def _head(records: Sequence[Record], means: pd.DataFrame) -> str:
    data = "Synthetic text on the real Android pairs (a stand-in, never a reproduction)" \
        if any(r.synthetic for r in records) else "The real AskUbuntu and Android corpora"
    return (f"{data}. Android test, pooled AUC / AUC(0.05) (the course meter), mean over {int(means['n'].max())} "
            f"seed(s) for the trained networks (the lexical scorers and doc2vec run once); Δ with its paired 95 % "
            f"interval:")


def _lexical_line(means: pd.DataFrame) -> str:
    return (f"- **Word matching**: TF-IDF fitted on AskUbuntu (the paper's baseline, §6.2) "
            f"{_aucs(means.loc['TF-IDF', TFIDF_SOURCE])}{_paper('TF-IDF')}; fitted on Android, an in-domain "
            f"reference, {_aucs(means.loc['TF-IDF', TFIDF_IN_DOMAIN])}; BM25 {_aucs(means.loc['BM25', ''])}.")


def _direct_line(means: pd.DataFrame, paired: Sequence[Record]) -> str:
    direct = [m for m in means.index.get_level_values("method") if m.endswith("-direct")]
    return ("- **Direct transfer**: " + ", ".join(f"{m.removesuffix('-direct')} {_aucs(means.loc[m].iloc[0])}"
                                                  f"{_paper(m)}" for m in direct)
            + "; against TF-IDF fitted on AskUbuntu: " + "; ".join(_paired(paired, m, "TF-IDF") for m in direct) + ".")


def _adversarial_lines(records: Sequence[Record], paired: Sequence[Record], folder: Path) -> list[str]:
    """Per encoder: the domain probe's accuracy and dev AUC(0.05) at each λ of the sweep, dev's choice and its margin
    against the seeds' spread, and adversarial − direct on test beside the paper's gain."""
    sweep = _table(folder, "smolyakov2017_lambda_sweep")
    if sweep is None:
        return []
    dev = sweep[sweep["split"] == "dev"]
    spread = summarize([r for r in records if r.table == "Table 7" and r.split == "dev" and r.metric == "AUC(0.05)"
                        and r.method.endswith("-direct")]).set_index("method")["std"]
    theirs = _theirs("AUC(0.05)")
    lines = ["- **Adversarial training** (λ swept, Android dev choosing; the probe: the domain classifier's accuracy "
             "on held samples of both domains at the kept epoch, 0.5 where the encodings no longer tell them apart):"]
    for encoder, rows in dev.groupby("encoder", sort=False):
        steps = ", ".join(f"λ = {r['lambda']:g}{' (direct)' if r['lambda'] == 0 else ''} "
                          f"{r['domain accuracy at that epoch']:.3f} / {r['AUC(0.05)']:.4f}"
                          for r in rows.to_dict("records"))
        adversarial = rows[rows["lambda"] > 0].sort_values("AUC(0.05)", ascending=False, kind="stable")
        chosen = adversarial[adversarial["chosen on dev"]].iloc[0]
        choice = f"dev chose λ = {chosen['lambda']:g}"
        if len(adversarial) > 1:
            margin = chosen["AUC(0.05)"] - adversarial[~adversarial["chosen on dev"]]["AUC(0.05)"].iloc[0]
            sd = spread[f"{encoder}-direct"]
            choice += (f", by {margin:.4f} over the next λ, {'inside' if margin < sd else 'outside'} the direct runs' "
                       f"seed-to-seed sd ({sd:.4f})")
        a, b = f"{encoder}-adversarial", f"{encoder}-direct"
        gain = theirs[a] - theirs[b]
        lines.append(f"  - {encoder}, probe / dev AUC(0.05): {steps}; {choice}. On test, {_paired(paired, a, b)}; "
                     f"the paper {'gains' if gain > 0 else 'loses'} {gain:+.2f}.")
    return lines


def _experiment3_line(means: pd.DataFrame, paired: Sequence[Record]) -> str:
    """Experiment 3's rows beside the paper's, and the highest and lowest test AUC(0.05) among the learned
    representations, each paired with its neighbour in that order."""
    rows = [(m, v) for m, v in means.index if m in ("Siamese", "doc2vec-DM", "doc2vec-DBOW")]
    learned = means[~means.index.get_level_values("method").isin(LEXICAL)].sort_values("AUC(0.05)", ascending=False,
                                                                                      kind="stable")
    order = list(learned.index.get_level_values("method"))
    theirs = _theirs("AUC(0.05)")
    dm, dbow = theirs["doc2vec-DM"], theirs["doc2vec-DBOW"]
    paper_word = "above" if dm > dbow else "below" if dm < dbow else "level with"
    return ("- **Experiment 3**: " + ", ".join(f"{m} {_aucs(means.loc[m, v])}{_paper(m)}" for m, v in rows)
            + f"; the paper's DM AUC(0.05) {paper_word} its DBOW. The highest test AUC(0.05) of the learned "
            f"representations: {order[0]} ({_paired(paired, order[0], order[1])}); the lowest: {order[-1]} "
            f"({_paired(paired, order[-1], order[-2])}).")


def _pooling_lines(folder: Path, first: str) -> list[str]:
    """Is the encoders' low AUC the pooling's doing? The first seed's pooled AUC, mean per-query AUC and MAP per
    method (:func:`ranking_table`), and each direct encoder's gap to the in-domain TF-IDF both ways."""
    ranking = _table(folder, "smolyakov2017_pooled_vs_per_query")
    if ranking is None:
        return []
    rows = ranking.set_index("method")
    reference = "TF-IDF (fitted on Android)"
    lines = [f"- **Pooled or per query** ({first}; pooled AUC / mean per-query AUC / MAP): " + "; ".join(
        f"{m} {r['pooled AUC']:.3f} / {r['mean per-query AUC']:.3f} / {r['MAP']:.3f}"
        for m, r in rows.iterrows()) + "."]
    for m in [m for m in rows.index if m.endswith("-direct")]:
        pooled_gap = rows.at[reference, "pooled AUC"] - rows.at[m, "pooled AUC"]
        own_gap = rows.at[reference, "mean per-query AUC"] - rows.at[m, "mean per-query AUC"]
        lines.append(f"  - {m}'s gap to {reference}: {pooled_gap:.3f} pooled, {own_gap:.3f} per query: most of it "
                     f"{'remains' if own_gap > pooled_gap / 2 else 'closes'} per query.")
    return lines


def _before_after_lines(folder: Path) -> list[str]:
    """What AskUbuntu training did to each direct encoder's Android dev AUC: untrained → kept epoch, paired by
    seed."""
    before_after = _table(folder, "smolyakov2017_direct_before_after")
    if before_after is None:
        return []
    lines = ["- **What AskUbuntu training did to Android** (direct runs, Android dev AUC of the untrained encoder → "
             "at the kept epoch, paired by seed, 95 % t interval):"]
    for encoder, rows in before_after.groupby("encoder", sort=False):
        gaps = (rows["trained dev AUC"] - rows["untrained dev AUC"]).to_numpy()
        low, high = t_interval(gaps)
        word = "trained > untrained" if low > 0 else "trained < untrained" if high < 0 else "no difference shown"
        interval = f" [{low:+.3f}, {high:+.3f}] ({len(gaps)} seed(s))" if low == low else \
            f" ({len(gaps)} seed(s), no interval)"
        lines.append(f"  - {encoder}: {rows['untrained dev AUC'].mean():.3f} → {rows['trained dev AUC'].mean():.3f}, "
                     f"{gaps.mean():+.3f}{interval}: **{word}**.")
    return lines


def _figure8_line(figure8: Sequence[Record], first: str) -> list[str]:
    """Figure 8's max-margin loss per epoch of each direct run, and whether it falls every epoch."""
    if not figure8:
        return []
    losses = pd.DataFrame([{"method": r.method, "loss": r.value} for r in figure8])
    return [f"- **Figure 8** (max-margin loss per epoch of the direct runs on AskUbuntu, {first}; margin "
            f"{PAPER_SCHEDULE.margin:g}): " + "; ".join(
                f"{m} " + ", ".join(f"{v:.3f}" for v in group["loss"])
                + (" (falls every epoch)" if group["loss"].is_monotonic_decreasing else " (does not fall every epoch)")
                for m, group in losses.groupby("method", sort=False)) + "."]


def _prepared(records: Sequence[Record]) -> tuple[pd.DataFrame, list[Record]]:
    """Table 7's test means, and its records with the source-fitted TF-IDF alone (one variant per method to pair)."""
    return _test_means(records), [r for r in records if r.table == "Table 7" and r.variant != TFIDF_IN_DOMAIN]


def summary_reading(records: Sequence[Record], folder: Path) -> str:
    """The guide's finding for notebook 09: TF-IDF against the paper and the in-domain reference, direct transfer
    against TF-IDF, what adversarial λ does to the domain probe and to dev AUC(0.05) and which λ dev chose, and
    Experiment 3 with the highest and lowest learned representation."""
    means, paired = _prepared(records)
    return "\n".join([_head(records, means), "", _lexical_line(means), _direct_line(means, paired),
                      *_adversarial_lines(records, paired, folder), _experiment3_line(means, paired)])


def table7_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 09's committed words: :func:`summary_reading`'s lines, with whether the pooling explains the encoders'
    low AUC (the first seed's per-query AUC and MAP) and what AskUbuntu training did to the direct runs' Android dev
    AUC (paired over the seeds) after direct transfer, and Figure 8's loss per epoch at the end."""
    means, paired = _prepared(records)
    figure8 = [r for r in records if r.table == "Figure 8"]  # the first seed's direct runs, as the two tables
    first = f"seed {figure8[0].seeds[0]}" if figure8 else "the first seed"
    return "\n".join([_head(records, means), "", _lexical_line(means), _direct_line(means, paired),
                      *_pooling_lines(folder, first), *_before_after_lines(folder),
                      *_adversarial_lines(records, paired, folder), _experiment3_line(means, paired),
                      *_figure8_line(figure8, first)])


READINGS = {"table7": table7_reading, "summary": summary_reading}  # notebook 09's words (reproq.report.readings)

FINDINGS = (  # the guide's "What we have found so far" (reproq.report.readings.findings_markdown)
    Finding("03_pooling_body_smolyakov", "Smolyakov & Srikant's parameter counts of the built models (notebook 03; "
            "model sizes, not results; the CNN as Table 3 gives it, 200 filters for each kernel size 1–5, where the "
            "printed count and §6.1's budget of 450K would need fewer)", "beside:smolyakov2017_table6_params"),
    Finding("09_domain_adaptation", "Smolyakov & Srikant Table 7 and Figures 8–15 (notebook 09): AskUbuntu → Android "
            "on the real Android pairs, synthetic text (the protocol is real, the numbers are not a reproduction)",
            "summary"),
)
