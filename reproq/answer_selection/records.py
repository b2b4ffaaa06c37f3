"""Answer selection's own records and figures: the parameter counts of Tay et al. Table 2 (no training needed),
and each seed's TEST score beside the paper and the floors (:func:`seeds_figure`).

(Records of training runs are :func:`reproq.results.run_records`, as for question retrieval.)
"""

from __future__ import annotations

import torch

from reproq.models import count_parameters
from reproq.models.answer_ranker import RankerConfig, build_ranker, paper_parameter_count
from reproq.results import Provenance, Record

TABLE2_SIZES = dict(projection_dim=300, hidden_dim=512, mlp_dim=128, width=2)  # Tay et al. Table 2: m, d, h, k
TABLE2_METHODS = ("LSTM", "AP-BiLSTM", "QRNN", "CTRN")


def table2_records() -> list[Record]:
    """Tay et al. Table 2: parameters at d = 512, m = 300, h = 128, k = 2, counted on the built models, as
    the paper's formulas count them (encoder weights + composition) and every trainable parameter."""
    records = []
    for method in TABLE2_METHODS:
        vectors = torch.zeros(2, TABLE2_SIZES["projection_dim"])  # word vectors do not count: any will do
        model = build_ranker(vectors, RankerConfig(method=method, **TABLE2_SIZES))
        counts = {"as Table 2 counts (encoder weights + composition)": paper_parameter_count(model),
                  "all trainable parameters (biases, 300x300 projection, output layer)": count_parameters(model)}
        for variant, value in counts.items():
            records += Provenance().records({"params": value}, paper="tay2018", table="Table 2", dataset="-",
                                            split="-", method=method, setting="d=512,m=300,h=128,k=2",
                                            variant=variant)
    return records


def seeds_figure(records, floors: dict[str, float], *, metric: str = "MAP", title: str):
    """One panel per setting: each method's ``metric`` seed by seed (dots), the paper's number (a red cross)
    and the floors of the same split (dashed lines, e.g. ``{"BM25": 0.71}``) — whether a trained model clears
    what no training gives, and how far the seeds spread, at a glance."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    from reproq.results import paper_numbers, records_frame

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
        for (name, value), style in zip(floors.items(), ("--", ":", "-.", (0, (1, 3)))):
            ax.axhline(value, color="#555555", linestyle=style, linewidth=1, label=f"{name} (no training)")
        ax.set(title=setting, xlabel="", ylabel=f"test {metric}")
        ax.legend(fontsize=8, loc="best")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
