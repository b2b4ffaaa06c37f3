"""Every encoder under one protocol (notebook 12, :mod:`reproq.papers.side_by_side`), drawn per evaluation."""

from __future__ import annotations

import pandas as pd

from reproq.papers.side_by_side import NAMES


def figure(shown: pd.DataFrame, *, title: str):
    """One panel per evaluation of :func:`reproq.papers.side_by_side.table`'s ``shown``: each encoder's MAP with its 95 % interval over
    questions and seeds (bars), the best floor (dashed) and the external anchor (dotted) of the same split."""
    import matplotlib.pyplot as plt

    groups = list(shown.groupby(["dataset", "split"], sort=False))
    fig, axes = plt.subplots(1, len(groups), figsize=(4.8 * len(groups), 4.8), squeeze=False)
    for ax, ((dataset, split), rows) in zip(axes[0], groups):
        trained = rows[rows["kind"] == "trained"]
        y = range(len(trained))
        ax.errorbar(trained["MAP"], y, xerr=[trained["MAP"] - trained["95% low"], trained["95% high"] - trained["MAP"]],
                    fmt="o", color="#4c72b0", capsize=3, label="trained here (mean, 95 % interval)")
        ax.set_yticks(list(y), trained["method"])
        floor = rows[rows["kind"] == "floor"].sort_values("MAP").tail(1)
        for r in floor.to_dict("records"):
            ax.axvline(r["MAP"], color="#555555", linestyle="--", linewidth=1, label=f"best floor: {r['method']}")
        for r in rows[rows["kind"] == "anchor"].to_dict("records"):
            ax.axvline(r["MAP"], color="#c44e52", linestyle=":", linewidth=1.5,
                       label=f"{r['method'].removeprefix('anchor: ')} (not trained here)")
        shown_values = [*trained["95% low"], *trained["95% high"], *floor["MAP"], *rows[rows["kind"] == "anchor"]["MAP"]]
        margin = 0.05 * (max(shown_values) - min(shown_values))
        ax.set_xlim(min(shown_values) - margin, max(shown_values) + margin)  # every line inside the panel
        ax.invert_yaxis()
        ax.set(title=f"{NAMES.get(dataset, dataset)} {split}", xlabel=f"{split} MAP (0-1)")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.suptitle(title)
    fig.tight_layout()
    return fig
