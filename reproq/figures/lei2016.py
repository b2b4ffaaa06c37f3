"""Lei et al. 2016's figures: pre-training (Figure 3) and the RCNN's adaptive decay (Figures 4 and 5); their numbers
come from :mod:`reproq.papers.lei2016` and :mod:`reproq.question_retrieval.gates`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd


def decay_by_position_figure(positions: Mapping[str, pd.DataFrame], *, title: str):
    """Lei et al. Figure 5: per word position, the mean and the max over the dimensions of 1 − λ_t (averaged over
    the questions), one panel per field (``positions``: field -> :func:`~reproq.question_retrieval.gates.by_position`)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(positions), figsize=(5.5 * len(positions), 3.6), squeeze=False)
    for ax, (field, table) in zip(axes[0], positions.items()):
        ax.plot(table["position"], table["max over dimensions"], marker=".", label="max over dimensions")
        ax.plot(table["position"], table["mean over dimensions"], marker=".", label="mean over dimensions")
        ax.set(xlabel=f"word position t in the {field}", ylabel="1 − λ_t (weight of word t)", ylim=(0, 1.02),
               title=f"{ {'title': 'titles', 'body': 'bodies'}.get(field, field)} ({int(table['questions'].iloc[0])} questions)")
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def decay_heatmap(examples: Sequence[tuple[Sequence[str], np.ndarray]], *, title: str):
    """Lei et al. Figure 4: 1 − λ_t of a scalar-gate RCNN over the words of a few questions, one row each
    (``examples``: (words, [T] decays)); each cell is labelled with its word."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    width = max(len(words) for words, _ in examples)
    values = np.full((len(examples), width), np.nan)
    labels = np.full((len(examples), width), "", dtype=object)
    for row, (words, decay) in enumerate(examples):
        values[row, :len(words)], labels[row, :len(words)] = decay, list(words)
    fig, ax = plt.subplots(figsize=(1.0 * width + 2, 0.5 * len(examples) + 1.5))
    sns.heatmap(values, annot=labels, fmt="", mask=np.isnan(values), cmap="Reds", vmin=0, vmax=1, ax=ax,
                annot_kws={"fontsize": 8}, cbar_kws={"label": "1 − λ_t (weight of the word)"}, linewidths=0.5)
    ax.set(xticks=[], yticks=[], xlabel="words, in order", title=title)
    fig.tight_layout()
    return fig


def figure3(curves: pd.DataFrame, *, title: str, paper: pd.DataFrame | None = None):
    """Lei et al. Figure 3 in the paper's styling: per model, held-out perplexity (dotted, left axis, log scale) and
    dev MRR (solid, right axis) after each pre-training epoch, mean over seeds with the seeds' standard deviation as
    vertical bars; ``paper`` (``reproq.results.paper_numbers`` rows) marks the paper's numbers, drawn only for
    real data."""
    import matplotlib.pyplot as plt

    fig, ax_ppl = plt.subplots(figsize=(8, 4.5))
    ax_mrr = ax_ppl.twinx()
    summary = curves.groupby(["model", "epoch"])[["heldout perplexity", "dev MRR (%)"]].agg(["mean", "std"])
    for i, model in enumerate(dict.fromkeys(curves["model"])):
        color, rows = f"C{i}", summary.loc[model]
        ax_ppl.errorbar(rows.index, rows[("heldout perplexity", "mean")], rows[("heldout perplexity", "std")],
                        linestyle=":", marker="o", markersize=3, capsize=3, color=color, label=f"{model} perplexity")
        ax_mrr.errorbar(rows.index, rows[("dev MRR (%)", "mean")], rows[("dev MRR (%)", "std")], linestyle="-",
                        marker="s", markersize=3, capsize=3, color=color, label=f"{model} dev MRR")
    if paper is not None:
        for row in paper.itertuples():
            ax, label = (ax_ppl, "perplexity") if row.metric == "perplexity" else (ax_mrr, "MRR")
            ax.axhline(row.value, color="grey", linewidth=0.8, linestyle="--")
            ax.annotate(f"paper: {row.method} {label} {row.value:g}", (0, row.value), fontsize=7, color="grey",
                        xytext=(2, 2), textcoords="offset points")
    ax_ppl.set(xlabel="pre-training epoch (0: untrained)", ylabel="held-out perplexity (dotted, log scale)",
               yscale="log", title=title)
    ax_mrr.set(ylabel="dev MRR (%) of the title states (solid)")
    ax_ppl.xaxis.get_major_locator().set_params(integer=True)
    handles = [h for ax in (ax_ppl, ax_mrr) for h in ax.get_legend_handles_labels()[0]]
    ax_ppl.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.12, 0.5))
    fig.tight_layout()
    return fig
