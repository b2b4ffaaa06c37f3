"""The learning curves of question-retrieval runs (notebooks 02 and 03): training loss and dev MRR per epoch;
the tables beside them are :mod:`reproq.question_retrieval.summaries`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from reproq.train.grid import RunResult


def learning_curves(groups: Mapping[str, Sequence[RunResult]], *, title: str):
    """Training loss and dev MRR per epoch (mean over seeds, bars: min to max), one line per model, each with its own
    colour, marker and dash, so that no two look alike; a model whose curves are another's first epochs (the same
    runs, read for fewer epochs) says so in the legend, since its line lies under the other's."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    rows = [{"model": label, "seed": r.seed, "epoch": h["epoch"], "loss": h.get("loss", np.nan),
             "dev MRR (%)": h["dev_MRR"] * 100}
            for label, runs in groups.items() for r in runs
            for h in r.history[:min(len(x.history) for x in runs)]]
    frame = pd.DataFrame(rows)
    frame["model"] = frame["model"].map(_under_another(frame))
    fig, (ax_loss, ax_mrr) = plt.subplots(1, 2, figsize=(13, 4.5))
    style = dict(hue="model", style="model", markers=True, dashes=True, palette="tab10", estimator="mean",
                 errorbar=lambda v: (v.min(), v.max()), err_style="bars", err_kws={"capsize": 2},
                 markersize=5)
    sns.lineplot(frame[frame["epoch"] > 0], x="epoch", y="loss", ax=ax_loss, legend=False, **style)
    sns.lineplot(frame, x="epoch", y="dev MRR (%)", ax=ax_mrr, **style)
    ax_loss.set(xlabel="epoch", ylabel="training loss (max-margin)", title="loss (mean over seeds; bars: min to max)")
    ax_mrr.set(xlabel="epoch (0: untrained)", title="dev MRR (mean over seeds; bars: min to max)")
    for ax in (ax_loss, ax_mrr):
        ax.xaxis.get_major_locator().set_params(integer=True)
    sns.move_legend(ax_mrr, "center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, title=None)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def _under_another(frame: pd.DataFrame) -> dict[str, str]:
    """Each model's legend label: its own, or, where its mean dev MRR per epoch is another model's over all of its
    epochs (the same runs, fewer epochs), ``"<model> (the first epochs of <other>)"``, the longest such other."""
    curves = {model: rows.groupby("epoch")["dev MRR (%)"].mean() for model, rows in frame.groupby("model", sort=False)}
    labels = {}
    for model, curve in curves.items():
        under = [other for other, longer in curves.items() if other != model and len(longer) > len(curve)
                 and longer.index[:len(curve)].equals(curve.index) and np.allclose(longer.iloc[:len(curve)], curve)]
        longest = max(under, key=lambda other: len(curves[other]), default=None)  # the line drawn whole
        labels[model] = f"{model} (the first epochs of {longest})" if longest else model
    return labels
