"""Question retrieval's own records, tables and figures: the parameter counts of Lei et al. Table 3 and Smolyakov
& Srikant Table 6, the trained-vs-untrained table, the learning curves, and the RCNN's gates (Lei et al. Figures 4
and 5, from :mod:`reproq.question_retrieval.gates`). (Records of training runs are
:func:`reproq.results.run_records`, as for answer selection.)

Lei et al. print percentages (``Run.report(..., scale=100)``), Smolyakov & Srikant fractions. The untrained
model's numbers go to their own table (:func:`trained_vs_untrained`), never into a table that is joined
with a paper's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd

from reproq import profiles
from reproq.models import build_encoder, count_parameters
from reproq.question_retrieval.configs import TABLE3_HIDDEN, TABLE3_WIDTH, dos_santos_configs, smolyakov_config
from reproq.results import Provenance, Record
from reproq.train.runs import RunResult

METHOD_NAMES = {"cnn": "CNN", "lstm": "LSTM", "gru": "GRU", "rcnn": "RCNN"}
ARCHITECTURE = {"architecture": "200-d word vectors"}  # what the parameter counts depend on: no data


def table3_records() -> list[Record]:
    """Lei et al. Table 3 — hidden size, parameter count and filter width — counted on the modules built at
    the paper's sizes (the encoder configs' defaults; 200-d inputs; word vectors fixed, so not counted)."""
    records = []
    for name, d in TABLE3_HIDDEN.items():
        encoder = build_encoder(name)
        values = {"hidden_dim": d, "params": count_parameters(encoder), "filter_width": TABLE3_WIDTH.get(name, np.nan)}
        records += Provenance(ARCHITECTURE).records(
            {k: v for k, v in values.items() if v == v}, paper="lei2016", table="Table 3", dataset="askubuntu",
            split="-", method=METHOD_NAMES[name], variant="one bias per gate", config=asdict(encoder.config))
    return records


def smolyakov_params_records() -> list[Record]:
    """Smolyakov & Srikant Table 6 "# params", counted on our modules at their sizes (see
    :func:`~reproq.question_retrieval.configs.smolyakov_config`). Depends on no data."""
    records = []
    for label, name in (("CNN", "cnn"), ("LSTM", "lstm")):
        config = smolyakov_config(profiles.get("paper").question_retrieval, name)
        encoder = build_encoder(name, **dict(config.encoder_settings))
        records += Provenance(ARCHITECTURE).records(
            {"params": count_parameters(encoder)}, paper="smolyakov2017", table="Table 6", dataset="askubuntu",
            split="-", method=label, config=asdict(encoder.config),
            variant="width 3, 700 filters" if name == "cnn" else "bidirectional, 128 per direction")
    return records


def dos_santos_table2_records() -> list[Record]:
    """dos Santos et al. Table 2 — context window, convolutional units, learning rate — of the networks the `paper`
    profile trains (:func:`~reproq.question_retrieval.configs.dos_santos_configs`). Depends on no data."""
    return [record for name, config in dos_santos_configs(profiles.get("paper").dos_santos, "title").items()
            for record in Provenance(ARCHITECTURE).records(
                {"context_window": config.model.width, "conv_units": config.model.conv_units,
                 "learning_rate": config.lr}, paper="dossantos2015", table="Table 2", dataset="-", split="-",
                method=name, config=asdict(config.model))]


def trained_vs_untrained(groups: Mapping[str, Sequence[RunResult]]) -> pd.DataFrame:
    """Dev MRR before training (epoch 0) and at the best epoch, per model, mean ± std over seeds; test MRR
    before training and at the best dev epoch beside it (the dev number is the maximum over epochs, so it is
    a little optimistic; the test number is not).

    An untrained encoder gives every candidate a different score, so it ranks by what random weights
    make of the word vectors; it does not inherit BM25's order the way a constant scorer would (ties keep
    the candidate order in this protocol).
    """
    rows = []
    for label, runs in groups.items():
        before = np.array([r.scores["untrained_dev"]["MRR"] for r in runs]) * 100
        after = np.array([r.dev["MRR"] for r in runs]) * 100
        test_before = np.array([r.scores["untrained_test"]["MRR"] for r in runs]) * 100
        test_after = np.array([r.test["MRR"] for r in runs]) * 100
        rows.append({"model": label, "seeds": len(runs), "untrained dev MRR": before.mean(),
                     "trained dev MRR": after.mean(), "std (trained)": after.std(ddof=1) if len(runs) > 1 else np.nan,
                     "gain": (after - before).mean(), "min gain over seeds": (after - before).min(),
                     "untrained test MRR": test_before.mean(), "trained test MRR": test_after.mean(),
                     "best epochs": ", ".join(str(r.best_epoch) for r in runs),
                     "minutes": sum(r.seconds for r in runs) / 60})
    return pd.DataFrame(rows).round(2)


def learning_curves(groups: Mapping[str, Sequence[RunResult]], *, title: str):
    """Training loss and dev MRR per epoch (mean over seeds, band: min to max), one line per model."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    rows = [{"model": label, "seed": r.seed, "epoch": h["epoch"], "loss": h.get("loss", np.nan),
             "dev MRR (%)": h["dev_MRR"] * 100}
            for label, runs in groups.items() for r in runs
            for h in r.history[:min(len(x.history) for x in runs)]]
    frame = pd.DataFrame(rows)
    fig, (ax_loss, ax_mrr) = plt.subplots(1, 2, figsize=(12, 4))
    band = dict(estimator="mean", errorbar=lambda v: (v.min(), v.max()), marker="o", markersize=4)
    sns.lineplot(frame[frame["epoch"] > 0], x="epoch", y="loss", hue="model", ax=ax_loss, legend=False, **band)
    sns.lineplot(frame, x="epoch", y="dev MRR (%)", hue="model", ax=ax_mrr, **band)
    ax_loss.set(xlabel="epoch", ylabel="training loss (max-margin)", title="loss")
    ax_mrr.set(xlabel="epoch (0: untrained)", title="dev MRR")
    for ax in (ax_loss, ax_mrr):
        ax.xaxis.get_major_locator().set_params(integer=True)
    sns.move_legend(ax_mrr, "center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, title=None)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


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


def decay_records(provenance: Provenance, positions: Mapping[str, pd.DataFrame], *, method: str,
                  seeds: Sequence[int]) -> list[Record]:
    """Lei et al. Figure 5 as records: per field and word position, the mean and the max over the dimensions of
    1 − λ_t, averaged over the dev and test questions that reach the position (``variant`` names the position)."""
    return [record for field, table in positions.items() for row in table.to_dict("records")
            for record in provenance.records(row, metrics=["mean over dimensions", "max over dimensions"],
                                             paper="lei2016", table="Figure 5", dataset="askubuntu", split="dev+test",
                                             method=method, setting=f"field={field}",
                                             variant=f"position {int(row['position'])}", seeds=seeds)]


def pretraining_curves(pretrained: Mapping[str, Sequence]) -> pd.DataFrame:
    """Lei et al. Figure 3's data: per model, seed and pre-training epoch (0: untrained), the held-out perplexity and
    the dev MRR (percent) of the untuned encoder's title states (``pretrained``: model -> its
    :class:`~reproq.question_retrieval.pretrain.Pretrained` runs), and whether fine-tuning starts from that epoch."""
    return pd.DataFrame([{"model": label, "seed": r.seed, "epoch": h["epoch"],
                          "heldout perplexity": h["heldout_perplexity"], "dev MRR (%)": h["dev_MRR"] * 100,
                          "kept": h["epoch"] == r.best_epoch}
                         for label, runs in pretrained.items() for r in runs for h in r.history])


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


def pretraining_records(pretrained: Mapping[str, Sequence], provenance: Provenance) -> list[Record]:
    """Lei et al. Figure 3's numbers at the epoch fine-tuning starts from, one record per model, seed and metric:
    held-out perplexity and dev MRR of the untuned encoder (method ``"<model> (pre-training only)"``, as the paper's
    text names them)."""
    records = []
    for label, runs in pretrained.items():
        for r in runs:
            kept = r.history[r.best_epoch]
            for split, metric, value in (("heldout", "perplexity", kept["heldout_perplexity"]),
                                         ("dev", "MRR", kept["dev_MRR"])):
                records += provenance.records({metric: value}, paper="lei2016", table="Figure 3", dataset="askubuntu",
                                              split=split, method=f"{label} (pre-training only)", setting="-",
                                              seeds=(r.seed,), wall_time_s=r.seconds,
                                              config={"kept_epoch": r.best_epoch, "epochs": len(r.history) - 1})
    return records


def pretraining_gain(records: Sequence[Record], models: Sequence[str], *, table: str,
                     metrics: Sequence[str] = ("MAP", "MRR")) -> pd.DataFrame:
    """Lei et al.'s question, "does pre-training help, and by how much?": per model, pooling, split and metric, the
    mean over seeds from scratch and fine-tuned from the pre-trained encoder (methods ``m`` and ``m+pretrain``), and
    their difference paired by seed with its 95 % t interval (:func:`reproq.results.paired_difference`), percent."""
    from reproq.results import paired_difference

    rows = []
    settings = dict.fromkeys(r.setting for r in records if r.table == table)
    for model in models:
        for setting in settings:
            for split in ("dev", "test"):
                for metric in metrics:
                    where = dict(table=table, setting=setting, split=split)
                    try:
                        gap = paired_difference(records, f"{model}+pretrain", model, metric=metric, **where)
                    except ValueError:  # this model was not trained with this pooling
                        continue
                    mean = {m: np.mean([r.value for r in records if r.method == m and r.metric == metric and
                                        all(getattr(r, k) == v for k, v in where.items())]) * 100
                            for m in (model, f"{model}+pretrain")}
                    low, high = gap.interval
                    rows.append({"model": model, "setting": setting, "split": split, "metric": metric,
                                 "from scratch": mean[model], "+ pre-train": mean[f"{model}+pretrain"],
                                 "difference": gap.mean * 100, "95% low": low * 100, "95% high": high * 100,
                                 "seeds": gap.n, "pre-training": "helps" if low > 0 else "hurts" if high < 0 else
                                 "no difference shown"})
    return pd.DataFrame(rows).round(2)
