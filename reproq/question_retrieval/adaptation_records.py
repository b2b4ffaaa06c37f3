"""Smolyakov & Srikant (2017) Table 7 and Figures 9–15 from adaptation runs (:mod:`.adaptation`) and scores.

Every AUC is pooled over all (query, candidate) pairs of the Android split. Table 7 reports the course meter's
AUC and AUC(0.05) (``reproq.metrics.auc_meter_score``); scikit-learn's McClish-standardised AUC(0.05) is recorded
beside it under its own name. The ROC curves are scikit-learn's (``RocCurveDisplay``), with the region FPR ≤ 0.05
that AUC(0.05) measures shaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from reproq import metrics
from reproq.question_retrieval.evaluate import pooled, retrieval_scores
from reproq.results import Provenance, Record
from reproq.train.runs import RunResult

TABLE7 = dict(paper="smolyakov2017", table="Table 7", dataset="android", setting="source=askubuntu")


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


def roc_figure(curves: Mapping[str, tuple[np.ndarray, np.ndarray]], *, title: str):
    """ROC curves of several methods (``curves``: label -> pooled labels and scores), FPR ≤ 0.05 shaded; the right
    panel zooms into FPR ≤ 0.1, where AUC(0.05) is decided."""
    import matplotlib.pyplot as plt
    from sklearn.metrics import RocCurveDisplay

    fig, (full, low) = plt.subplots(1, 2, figsize=(12, 5))
    for label, (y, s) in curves.items():
        name = f"{label}: AUC(0.05) {auc_values(y, s)['AUC(0.05)']:.2f}"  # scikit-learn appends the whole AUC
        for ax in (full, low):
            RocCurveDisplay.from_predictions(y, s, ax=ax, name=name)
    for ax in (full, low):
        ax.plot([0, 1], [0, 1], linestyle="--", color="black", linewidth=0.8)
        ax.axvspan(0, 0.05, color="grey", alpha=0.15)
        ax.set(xlabel="false positive rate", ylabel="true positive rate", aspect="auto")
        ax.get_legend().remove()
    low.set(xlim=(0, 0.1), title="FPR up to 0.1 (shaded: FPR ≤ 0.05, what AUC(0.05) measures)")
    full.set(title="whole curve (dashed: chance)")
    fig.legend(*full.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.12 + 0.03 * ((len(curves) + 1) // 2), 1, 1))
    return fig


def separation_histogram(labels: np.ndarray, scores: np.ndarray, *, title: str):
    """Smolyakov & Srikant Figure 11: the scores of similar and of dissimilar pairs, each histogram normalised
    (there are about 100 dissimilar pairs to each similar one)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    bins = np.linspace(scores.min(), scores.max(), 50)
    for value, name in ((0, "dissimilar pairs"), (1, "similar pairs")):
        ax.hist(scores[labels == value], bins=bins, density=True, alpha=0.6, label=f"{name} ({int((labels == value).sum()):,})")
    ax.set(xlabel="score (cosine)", ylabel="density (each class normalised)", title=title)
    ax.legend()
    fig.tight_layout()
    return fig


def in_domain_loss_figure(runs: Mapping[str, RunResult], *, title: str):
    """Smolyakov & Srikant Figure 8 (``runs``: label -> direct-transfer run): the in-domain training loss per epoch,
    the max-margin loss on AskUbuntu's batches alone (the probing domain classifier's loss is not in it)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, run in runs.items():
        trained = pd.DataFrame(run.history).query("epoch > 0")
        ax.plot(trained["epoch"], trained["loss_ranking"], marker="o", label=label)
    ax.set(xlabel="epoch", ylabel="max-margin loss (mean over the epoch)", title=title)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend()
    fig.tight_layout()
    return fig


def training_figure(runs: Mapping[str, RunResult], *, title: str):
    """Smolyakov & Srikant Figures 12–14 per run (``runs``: label -> run): the training loss per epoch (the total:
    ranking plus domain loss), the domain classifier's loss and accuracy on a fixed sample of both domains, and the
    mean gradient norm of each of its layers."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for label, run in runs.items():
        h = pd.DataFrame(run.history)
        trained = h[h["epoch"] > 0]
        axes[0].plot(trained["epoch"], trained["loss"], marker="o", label=label)
        axes[1].plot(h["epoch"], h["domain_loss"], marker="o", label=f"{label}: loss")
        axes[1].plot(h["epoch"], h["domain_accuracy"], marker="x", linestyle=":", label=f"{label}: accuracy")
        for column in sorted(c for c in h if c.startswith("grad_norm_layer")):
            axes[2].plot(trained["epoch"], trained[column], marker=".", label=f"{label}: {column[10:]}")
    axes[0].set(xlabel="epoch", ylabel="training loss (ranking + domain)", title="total loss (Figure 12)")
    axes[1].set(xlabel="epoch (0: untrained)", ylabel="cross entropy / accuracy", ylim=(0, None),
                title="domain classifier on held samples (Figure 13)")
    axes[2].set(xlabel="epoch", ylabel="mean gradient L2 norm", yscale="log", title="classifier gradients (Figure 14)")
    for ax in axes:
        ax.legend(fontsize=6)
        ax.xaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def lambda_sweep_figure(sweep: pd.DataFrame, *, title: str):
    """AUC(0.05) on Android dev (which chooses λ) and test against λ, per encoder (``sweep``: one row per encoder, λ
    and split, column ``AUC(0.05)``); λ = 0, direct transfer, drawn as a dashed line."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for i, ((encoder, split), rows) in enumerate(sweep.groupby(["encoder", "split"], sort=False)):
        adversarial = rows[rows["lambda"] > 0].sort_values("lambda")
        color = f"C{i}"
        ax.plot(adversarial["lambda"], adversarial["AUC(0.05)"], marker="o", color=color, label=f"{encoder} {split}")
        for direct in rows.loc[rows["lambda"] == 0, "AUC(0.05)"]:
            ax.axhline(direct, color=color, linestyle="--", linewidth=0.8, label=f"{encoder} {split}, direct (λ = 0)")
    ax.set(xscale="log", xlabel="λ (gradient reversal scale)", ylabel="AUC(0.05), course meter", title=title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def learning_rate_figure(config, *, title: str):
    """Smolyakov & Srikant Figure 9: the learning rate per epoch (halved every ``lr_halve_every`` epochs)."""
    import matplotlib.pyplot as plt

    epochs = np.arange(1, config.epochs + 1)
    rates = [config.learning_rate(e) for e in epochs]
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.step(epochs, rates, where="post", marker="o")
    ax.set(xlabel="epoch", ylabel="learning rate (Adam)", title=title)
    ax.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    return fig


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
                                 ("Figure 13", ("domain_loss", "domain_accuracy")),
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
