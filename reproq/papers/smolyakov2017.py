"""Smolyakov, Srikant. *Neural Approaches to Question Retrieval*. MIT 6.864 term project, 2017 (seed
``003_6d6226b7de5bc4d3.txt``).

Here: the paper's in-domain and adaptation configurations at a profile's scale (:func:`smolyakov_config`,
:func:`adaptation_config`), Table 6's parameter counts, and Table 7 and the numbers behind Figures 8–15 from the
adaptation runs (:mod:`reproq.question_retrieval.adaptation`) and scores (:mod:`reproq.figures.smolyakov2017` draws
the figures). Every AUC is pooled over all (query, candidate) pairs of the Android split: Table 7 reports the course
meter's AUC and AUC(0.05) (``reproq.metrics.auc_score``), scikit-learn's McClish-standardised AUC(0.05) beside it
under its own name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace

import numpy as np
import pandas as pd

from reproq import metrics, profiles
from reproq.models import build_encoder, count_parameters
from reproq.models.question import QuestionEncoderConfig
from reproq.papers.lei2016 import ARCHITECTURE, ASKUBUNTU
from reproq.papers.paper import DATA, GIVEN, SIZE, Claim, Paper
from reproq.profiles import Adaptation, QuestionRetrieval, scaled
from reproq.question_retrieval.evaluate import pooled, retrieval_scores
from reproq.question_retrieval.inputs import TrainConfig
from reproq.results import Provenance, Record
from reproq.train.grid import RunResult

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
    claims=(Claim("adversarial > direct transfer to Android, LSTM (Table 7)", "LSTM-adversarial", "LSTM-direct",
                  "AUC(0.05)", dict(table="Table 7", dataset="android", split="test"), beside=("AUC",),
                  quote="\"The neural models for domain adaptation clearly beat these two baselines by 0.13 points on "
                        "an average\" (§7.2)"),),
    # TF-IDF fitted on Android's own corpus: an in-domain reference, not the paper's source-fitted baseline (§6.2)
    beside=("fitted on Android (in-domain reference)",),
    # Table 6's BM25 row re-scores the Lucene scores shipped with AskUbuntu, as Lei et al.'s Table 2 does: the same
    # eight numbers of ours, counted there
    kinds={("Table 2",): DATA, ("Table 6", "BM25"): GIVEN, ("Table 6", "params"): SIZE},
    counted_under={("Table 6", "BM25"): "lei2016 Table 2"},
    fitted={("Table 6", "CNN"): "Table 3 prints the kernel sizes, not the filters per size: 140 were chosen to land "
                                "near the printed count (smolyakov_config)"},
    as_specified={"Figure 9": "it draws the paper's stated schedule (Adam at 1e-3, halved every 4 epochs), not a "
                              "result"},
    stand_in={"android": "the Android corpus is not reachable here (its pair files are): the stand-in",
              "askubuntu": ASKUBUNTU},
    notebooks=("00_datasets", "01_lexical_baselines", "03_pooling_body_smolyakov", "09_domain_adaptation"),
)


SMOLYAKOV_CNN = dict(widths=(1, 2, 3, 4, 5), filters=140)  # Table 3: "Kernel size [1-5] x 200" (200-d inputs)
SMOLYAKOV_LSTM_HIDDEN = 128  # Table 3: "Hidden size 128 x 2"

SMOLYAKOV_TABLE4_FILTERS = 250  # Smolyakov & Srikant Table 4: "Kernel size [2-6] x 250" (1,250 output channels)

def smolyakov_config(p: QuestionRetrieval, encoder: str) -> TrainConfig:
    """Smolyakov & Srikant's in-domain setting (§3.2, §6.1, Table 3).

    CNN: one convolution per kernel size 1–5 over the 200-d word vectors ("[1-5] × 200"), 140 filters each, 700 in
    all: 420,700 parameters, where Table 6 prints 420,600. No measurement here accounts for the 100 (a count without
    the 700 biases would be 420,000). LSTM: bidirectional, 128 units per direction, torch's two biases (337,920,
    their count exactly). Mean
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
        config = smolyakov_config(profiles.get("paper").question_retrieval, name)
        encoder = build_encoder(name, **dict(config.encoder_settings))
        records += Provenance(ARCHITECTURE).records(
            {"params": count_parameters(encoder)}, paper="smolyakov2017", table="Table 6", dataset="askubuntu",
            split="-", method=label, config=asdict(encoder.config),
            variant="widths 1-5, 140 filters each" if name == "cnn" else "bidirectional, 128 per direction")
    return records


# Figure 9 is the schedule of every experiment: Adam at 1e-3, halved every 4 epochs, over Table 3's 16 epochs
PAPER_SCHEDULE = smolyakov_config(profiles.get("paper").question_retrieval, "cnn")

TABLE7 = dict(paper="smolyakov2017", table="Table 7", dataset="android", setting="source=askubuntu")
# Table 7's TF-IDF is "trained on the source domain" (§6.2): term statistics of AskUbuntu, Android scored with them
TFIDF_SOURCE = "fitted on AskUbuntu"
TFIDF_IN_DOMAIN = PAPER.beside[0]  # fitted on Android itself: shown beside the paper, no verdict

def auc_values(labels: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    """The meter's AUC and AUC(0.05), and scikit-learn's McClish-standardised AUC(0.05)."""
    return {"AUC": metrics.auc_score(labels, scores), "AUC(0.05)": metrics.auc_score(labels, scores, max_fpr=0.05),
            "AUC(0.05), McClish": metrics.auc_score(labels, scores, max_fpr=0.05, variant="mcclish")}

def table7_records(runs: Sequence[RunResult], provenance: Provenance, *, method: str, variant: str = "") -> list[Record]:
    """One record per run, Android split and AUC: dev (which chose the epoch) and test."""
    return [record for r in runs for split in ("dev", "test")
            for record in provenance.records(r.scores[f"target_{split}"], split=split, method=method, variant=variant,
                                             seeds=(r.seed,), wall_time_s=r.seconds,
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


def lambda_sweep(runs: Mapping[tuple[str, float], Sequence[tuple[object, RunResult]]], names: Mapping[str, str]
                 ) -> tuple[pd.DataFrame, dict[str, float]]:
    """Smolyakov & Srikant's choice of λ ("by sweeping between 1e-3 to 1e-7"), on Android dev only.

    ``runs``: (encoder, λ) -> that configuration's ``(model, run)`` per seed, λ = 0 being direct transfer; ``names``:
    encoder -> its name in the tables. Returns the mean over seeds, per encoder, λ and Android split, of the AUCs at
    each run's kept epoch and of the domain classifier's accuracy there (0.5: the encodings no longer tell the domains
    apart), with ``chosen on dev``; and per encoder the λ > 0 of the best mean dev AUC(0.05) (the first on ties, in
    the order of ``runs``). Test is read, never chosen on."""
    sweep = pd.DataFrame([{"encoder": names[name], "lambda": lam, "split": split, "seed": r.seed,
                           **r.scores[f"target_{split}"], "best epoch": r.best_epoch,
                           "domain accuracy at that epoch": r.history[r.best_epoch]["domain_accuracy"]}
                          for (name, lam), group in runs.items() for _, r in group for split in ("dev", "test")])
    mean = sweep.groupby(["encoder", "lambda", "split"], sort=False).mean(numeric_only=True).reset_index()
    dev_auc = mean[mean["split"] == "dev"].set_index(["encoder", "lambda"])["AUC(0.05)"]
    chosen = {}
    for name in dict.fromkeys(name for name, _ in runs):
        adversarial = [lam for n, lam in runs if n == name and lam > 0]
        chosen[name] = max(adversarial, key=lambda lam: dev_auc[names[name], lam])
    by_name = {names[name]: lam for name, lam in chosen.items()}
    mean["chosen on dev"] = [lam == by_name[encoder] for encoder, lam in zip(mean["encoder"], mean["lambda"])]
    return mean, chosen
