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
    """Lei et al. Figure 3, its two curves per model in two panels over one epoch axis (the paper draws them on one
    panel with two y axes, which a reader has to keep apart): held-out perplexity (left, log scale) and dev MRR
    (right) after each pre-training epoch, mean over seeds with the seeds' standard deviation as vertical bars, one
    colour and marker per model in both; ``paper`` (``reproq.results.paper_numbers`` rows) marks the paper's numbers,
    drawn only for real data."""
    import matplotlib.pyplot as plt

    fig, (ax_ppl, ax_mrr) = plt.subplots(1, 2, figsize=(12, 4.5), sharex=True)
    summary = curves.groupby(["model", "epoch"])[["heldout perplexity", "dev MRR (%)"]].agg(["mean", "std"])
    for i, model in enumerate(dict.fromkeys(curves["model"])):
        rows, style = summary.loc[model], {"color": f"C{i}", "marker": "osD^v"[i % 5], "markersize": 4, "capsize": 3}
        ax_ppl.errorbar(rows.index, rows[("heldout perplexity", "mean")], rows[("heldout perplexity", "std")],
                        label=model, **style)
        ax_mrr.errorbar(rows.index, rows[("dev MRR (%)", "mean")], rows[("dev MRR (%)", "std")], label=model, **style)
    if paper is not None:
        for row in paper.itertuples():
            ax = ax_ppl if row.metric == "perplexity" else ax_mrr
            ax.axhline(row.value, color="grey", linewidth=0.8, linestyle="--")
            ax.annotate(f"paper: {row.method} {row.value:g}", (0, row.value), fontsize=7, color="grey",
                        xytext=(2, 2), textcoords="offset points")
    ax_ppl.set(xlabel="pre-training epoch (0: untrained)", ylabel="held-out perplexity (log scale)", yscale="log",
               title="held-out perplexity (lower is better)")
    ax_mrr.set(xlabel="pre-training epoch (0: untrained)", ylabel="dev MRR (%) of the title states",
               title="dev MRR (higher is better)")
    ax_ppl.xaxis.get_major_locator().set_params(integer=True)
    ax_mrr.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5), title="mean ± sd over seeds")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
