"""The four AskUbuntu papers' networks on SemEval-2016 3B (notebook 14, :mod:`reproq.papers.real_substitute`)."""

from __future__ import annotations

import pandas as pd

from reproq.papers.real_substitute import SHARED, label

NAMES = {"lei2016": "Lei et al. 2016", "smolyakov2017": "Smolyakov & Srikant 2017", "rankine2016": "Rankine 2016",
         "dossantos2015": "dos Santos et al. 2015"}


def figure(shown: pd.DataFrame, *, title: str):
    """:func:`reproq.papers.real_substitute.table`'s trained rows, one panel per paper: test MAP with its 95 % interval
    over queries and seeds; the search engine's order (dashed), the best 2016 team (dotted) and the anchor (dash-dot)
    drawn in every panel."""
    import matplotlib.pyplot as plt

    trained = shown[(shown["seeds"] > 0) & shown["paper"].isin(NAMES)]  # floors have no seed
    shared = shown[shown["paper"] == SHARED].set_index("method")["MAP"]
    lines = {"search engine's order": (shared.get("floor: search engine order"), "--", "#555555")}
    teams = shared[[m for m in shared.index if m.startswith("2016 team: ")]]
    if len(teams):
        lines[f"best 2016 team ({teams.idxmax().removeprefix('2016 team: ')})"] = (teams.max(), ":", "#c44e52")
    anchors = shared[[m for m in shared.index if m.startswith("anchor: ")]]
    if len(anchors):
        lines["all-MiniLM-L6-v2, zero-shot"] = (anchors.iloc[0], "-.", "#8172b2")
    papers = [p for p in NAMES if (trained["paper"] == p).any()]
    fig, axes = plt.subplots(len(papers), 1, figsize=(8.5, 1.3 + 0.42 * len(trained) + 0.6 * len(papers)),
                             sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [max(2, (trained["paper"] == p).sum()) for p in papers]})
    low = min([*trained["MAP 95% low"], *(v for v, _, _ in lines.values() if v is not None)])
    high = max([*trained["MAP 95% high"], *(v for v, _, _ in lines.values() if v is not None)])
    for ax, paper in zip(axes[:, 0], papers):
        rows = trained[trained["paper"] == paper]
        y = range(len(rows))
        ax.errorbar(rows["MAP"], y, xerr=[rows["MAP"] - rows["MAP 95% low"], rows["MAP 95% high"] - rows["MAP"]],
                    fmt="o", color="#4c72b0", capsize=3, label="trained here (mean over seeds, 95 % interval)")
        ax.set_yticks(list(y), [label(r) for r in rows.to_dict("records")], fontsize=8)
        for name, (value, style, color) in lines.items():
            if value is not None:
                ax.axvline(value, linestyle=style, color=color, linewidth=1.3, label=name)
        ax.invert_yaxis()
        ax.set_title(NAMES[paper], fontsize=9, loc="left")
    margin = 0.05 * (high - low)
    axes[-1, 0].set_xlim(low - margin, high + margin)
    axes[-1, 0].set_xlabel("test MAP (0-1; the official scorer's: a query without a positive counts 0)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig
