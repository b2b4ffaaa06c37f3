"""Smolyakov & Srikant 2017's Figures 8–15 and the λ sweep, from the adaptation runs and scores of notebook 09: ROC
curves are scikit-learn's (``RocCurveDisplay``), the region FPR ≤ 0.05 that AUC(0.05) measures shaded; the AUCs
in their labels are :func:`reproq.question_retrieval.adaptation.auc_values`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from reproq.figures import plot_seen
from reproq.question_retrieval.adaptation import auc_values
from reproq.train.grid import RunResult


LINE_STYLES = ("-", "--", "-.", ":")  # with a colour each, curves that coincide stay visible
LAYER_MARKERS = ("o", "s", "^", "D")  # Figure 14: one per classifier layer, with its line style


def coinciding(curves: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> list[list[str]]:
    """Groups of labels whose (labels, scores) are identical, so that their curves coincide (and the caption says so)."""
    groups: dict[bytes, list[str]] = {}
    for label, (y, s) in curves.items():
        groups.setdefault(np.asarray(y).tobytes() + np.asarray(s, dtype=np.float64).tobytes(), []).append(label)
    return [g for g in groups.values() if len(g) > 1]


def roc_figure(curves: Mapping[str, tuple[np.ndarray, np.ndarray]], *, title: str):
    """ROC curves of several methods (``curves``: label -> pooled labels and scores), FPR ≤ 0.05 shaded; the right
    panel zooms into FPR ≤ 0.1, where AUC(0.05) is decided."""
    import matplotlib.pyplot as plt
    from sklearn.metrics import RocCurveDisplay

    fig, (full, low) = plt.subplots(1, 2, figsize=(12, 5))
    for i, (label, (y, s)) in enumerate(curves.items()):
        name = f"{label}: AUC(0.05) {auc_values(y, s)['AUC(0.05)']:.2f}"  # scikit-learn appends the whole AUC
        style = dict(color=f"C{i}", linestyle=LINE_STYLES[i % len(LINE_STYLES)], linewidth=2.4 - 1.6 * i / len(curves))
        for ax in (full, low):
            RocCurveDisplay.from_predictions(y, s, ax=ax, name=name, curve_kwargs=style)
    for ax in (full, low):
        ax.plot([0, 1], [0, 1], linestyle="--", color="black", linewidth=0.8)
        ax.axvspan(0, 0.05, color="grey", alpha=0.15)
        ax.set(xlabel="false positive rate", ylabel="true positive rate", aspect="auto")
        ax.get_legend().remove()
    low.set(xlim=(0, 0.1), title="FPR up to 0.1 (shaded: FPR ≤ 0.05, what AUC(0.05) measures)")
    full.set(title="whole curve (dashed: chance)")
    fig.legend(*full.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    same = coinciding(curves)
    fig.suptitle(title + (f"\n(identical curves, drawn thinner on thicker: {'; '.join(' = '.join(g) for g in same)})"
                          if same else ""))
    fig.tight_layout(rect=(0, 0.12 + 0.03 * ((len(curves) + 1) // 2), 1, 1))
    return fig


def separation_figure(labels: np.ndarray, scores: np.ndarray, *, title: str):
    """Smolyakov & Srikant Figure 11: the scores of similar and of dissimilar pairs, each histogram normalised
    (there are about 100 dissimilar pairs to each similar one), and the ROC curve the threshold traces, as the paper
    pairs them ("by varying the threshold ... the ROC curve shown on the left")."""
    import matplotlib.pyplot as plt
    from sklearn.metrics import RocCurveDisplay

    fig, (roc, ax) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": (1, 1.4)})
    RocCurveDisplay.from_predictions(labels, scores, ax=roc, name="TF-IDF")
    roc.plot([0, 1], [0, 1], linestyle="--", color="black", linewidth=0.8)
    roc.set(xlabel="false positive rate", ylabel="true positive rate", title="ROC (dashed: chance)", aspect="auto")
    bins = np.linspace(scores.min(), scores.max(), 50)
    for value, name in ((0, "dissimilar pairs"), (1, "similar pairs")):
        ax.hist(scores[labels == value], bins=bins, density=True, alpha=0.6, label=f"{name} ({int((labels == value).sum()):,})")
    ax.set(xlabel="score (cosine)", ylabel="density (each class normalised)", title="class separation")
    ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def in_domain_loss_figure(runs: Mapping[str, RunResult], *, title: str):
    """Smolyakov & Srikant Figure 8 (``runs``: label -> direct-transfer run): the in-domain training loss per epoch,
    the max-margin loss on AskUbuntu's batches alone (the probing domain classifier's loss is not in it)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, run in runs.items():
        trained = pd.DataFrame(run.history).query("epoch > 0")
        plot_seen(ax, trained["epoch"], trained["loss_ranking"], marker="o", label=label)
    ax.set(xlabel="epoch", ylabel="max-margin loss (mean over the epoch)", title=title)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend()
    fig.tight_layout()
    return fig


def training_figure(runs: Mapping[str, RunResult], *, title: str):
    """Smolyakov & Srikant Figures 12–14 per run (``runs``: label -> run), a colour per run: the training loss per
    epoch (the total: ranking plus domain loss, Figure 12), the domain classifier's training loss (its cross entropy
    on the training batches, mean over the epoch, Figure 13), the mean gradient norm of each of its layers (Figure
    14: a line style per layer), and, beyond the paper, its accuracy on a fixed held sample of both domains. Runs whose
    curves coincide (a tiny λ, a short run) are drawn one on the other, the lower widened
    (:func:`reproq.figures.plot_seen`)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, axes = plt.subplots(1, 4, figsize=(19, 4.2))
    layers = sorted({c for run in runs.values() for h in run.history for c in h if c.startswith("grad_norm_layer")})
    for i, (label, run) in enumerate(runs.items()):
        h = pd.DataFrame(run.history)
        trained, color = h[h["epoch"] > 0], f"C{i}"
        plot_seen(axes[0], trained["epoch"], trained["loss"], marker="o", color=color, label=label)
        plot_seen(axes[1], trained["epoch"], trained["loss_domain"], marker="o", color=color, label=label)
        for layer, style, marker in zip(layers, LINE_STYLES, LAYER_MARKERS):
            plot_seen(axes[2], trained["epoch"], trained[layer], marker=marker, markersize=4, color=color,
                      linestyle=style)
        plot_seen(axes[3], h["epoch"], h["domain_accuracy"], marker="x", color=color, label=label)
    axes[0].set(xlabel="epoch", ylabel="training loss (ranking + domain)", title="total loss (Figure 12)")
    axes[1].set(xlabel="epoch", ylabel="binary cross entropy (training batches)",
                title="discriminator training loss (Figure 13)")
    axes[2].set(xlabel="epoch", ylabel="mean gradient L2 norm", yscale="log", title="classifier gradients (Figure 14)")
    axes[3].set(xlabel="epoch (0: untrained)", ylabel="accuracy (0.5: domains aligned)", ylim=(0, 1),
                title="discriminator on held samples (not in the paper)")
    axes[0].legend(fontsize=7, title="colour: run", title_fontsize=7)
    axes[2].legend([Line2D([], [], color="black", linestyle=style, marker=marker, markersize=4)
                    for style, marker in zip(LINE_STYLES[:len(layers)], LAYER_MARKERS)],
                   [f"layer {layer.removeprefix('grad_norm_layer')}" for layer in layers], fontsize=7,
                   title="line: classifier layer", title_fontsize=7)
    for ax in axes:
        ax.xaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def lambda_sweep_figure(sweep: pd.DataFrame, *, title: str):
    """AUC(0.05) on Android dev (which chooses λ) and test against λ, per encoder (``sweep``: one row per encoder, λ
    and split, columns ``AUC(0.05)`` and ``chosen on dev``); λ = 0, direct transfer, drawn as a dashed line, each λ
    the profile ran marked on the axis, and dev's choice ringed."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, ((encoder, split), rows) in enumerate(sweep.groupby(["encoder", "split"], sort=False)):
        adversarial = rows[rows["lambda"] > 0].sort_values("lambda")
        color = f"C{i}"
        ax.plot(adversarial["lambda"], adversarial["AUC(0.05)"], marker="o", color=color, label=f"{encoder} {split}")
        chosen = adversarial[adversarial["chosen on dev"].astype(bool)]
        ax.scatter(chosen["lambda"], chosen["AUC(0.05)"], s=160, facecolors="none", edgecolors=color, linewidths=1.5)
        for direct in rows.loc[rows["lambda"] == 0, "AUC(0.05)"]:
            ax.axhline(direct, color=color, linestyle="--", linewidth=0.8, label=f"{encoder} {split}, direct (λ = 0)")
    lambdas = sorted(sweep.loc[sweep["lambda"] > 0, "lambda"].unique())
    ax.set_xscale("log")
    ax.set_xticks(lambdas, [f"{lam:g}" for lam in lambdas])
    ax.minorticks_off()
    ax.set(xlabel=f"λ, the gradient reversal's scale (the {len(lambdas)} this profile runs; ringed: dev's choice)",
           ylabel="AUC(0.05): ROC area up to FPR 0.05, ÷ 0.05\n(the course's AUCMeter)", title=title)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return fig


def learning_rate_figure(config, *, title: str, trained: int | None = None):
    """Smolyakov & Srikant Figure 9: the learning rate per epoch of ``config`` (halved every ``lr_halve_every``
    epochs; :data:`reproq.papers.smolyakov2017.PAPER_SCHEDULE` is the paper's), the first ``trained`` epochs shaded (what a profile runs)."""
    import matplotlib.pyplot as plt

    epochs = np.arange(1, config.epochs + 1)
    rates = [config.learning_rate(e) for e in epochs]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.step(epochs, rates, where="post", marker="o", label=f"{config.epochs} epochs, halved every {config.lr_halve_every}")
    if trained:
        ax.axvspan(0.5, trained + 0.5, color="grey", alpha=0.15, label=f"epochs this profile trains ({trained})")
    ax.set(xlabel="epoch", ylabel="learning rate (Adam)", title=title)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
