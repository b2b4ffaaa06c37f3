"""Tay et al. 2018's Table 6 drawn seed by seed, beside the paper's number and the floors of the same split."""

from __future__ import annotations

from reproq.results import paper_numbers, records_frame

# the floors' lines, each its own colour and kind of line (two dotted greys were one line to a reader)
FLOOR_STYLES = (("#555555", "--"), ("#dd8452", ":"), ("#55a868", "-."), ("#8172b3", (0, (5, 1, 1, 1, 1, 1))))


def seeds_figure(records, floors: dict[str, float], *, metric: str = "MAP", title: str):
    """One panel per setting: each method's ``metric`` seed by seed (dots), the paper's number (a red cross) and the
    floors of the same split (a line each, e.g. ``{"BM25": 0.71}``; at most four) — whether a trained model clears
    what no training gives, and how far the seeds spread, at a glance."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    if len(floors) > len(FLOOR_STYLES):
        raise ValueError(f"{len(floors)} floors; the figure draws at most {len(FLOOR_STYLES)} apart")
    frame = records_frame(records)
    frame = frame[frame["metric"] == metric]
    paper = paper_numbers().set_index(["paper", "table", "dataset", "split", "method", "setting", "metric"])["value"]
    settings = list(dict.fromkeys(frame["setting"]))
    fig, axes = plt.subplots(1, len(settings), figsize=(5.5 * len(settings), 4), sharey=True, squeeze=False)
    for ax, setting in zip(axes[0], settings):
        shown = frame[frame["setting"] == setting]
        methods = list(dict.fromkeys(shown["method"]))
        sns.stripplot(shown, x="method", y="value", order=methods, ax=ax, size=7, jitter=0.15, color="#4c72b0")
        keys = [(r.paper, r.table, r.dataset, r.split, r.method, r.setting, metric)
                for r in shown.drop_duplicates("method").itertuples()]
        printed = [(i, paper[key]) for i, key in enumerate(keys) if key in paper.index]
        if printed:
            ax.scatter(*zip(*printed), marker="x", color="#c44e52", s=80, linewidths=2, zorder=3, label="Tay et al.")
        for (name, value), (color, style) in zip(floors.items(), FLOOR_STYLES):
            ax.axhline(value, color=color, linestyle=style, linewidth=1.2, label=f"{name} (no training)")
        ax.set(title=setting, xlabel="", ylabel=f"test {metric}")
        ax.legend(fontsize=8, loc="best")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
