"""Lei, Joshi, Barzilay, Jaakkola, Tymoshenko, Moschitti, Màrquez. *Semi-supervised Question Retrieval with Gated
Convolutions*. NAACL 2016 (seed ``000_1eb555c2ca15b20a.txt``).

Here: the paper's configurations at a profile's scale (:func:`lei_grid`: §6's grid at Table 3's sizes), Table 3's
parameter counts, the gate figures (Figures 4 and 5, :mod:`reproq.question_retrieval.gates` reads the gates) and the
pre-training figure (Figure 3) with its records and the "does pre-training help" table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd

from reproq.models import build_encoder, count_parameters, encoder_config
from reproq.models.question import QuestionEncoderConfig
from reproq.papers.paper import Claim, Paper
from reproq.profiles import QuestionRetrieval, scaled
from reproq.question_retrieval.inputs import PretrainConfig, TrainConfig
from reproq.results import Provenance, Record, paired_difference

ASKUBUNTU = ("the AskUbuntu corpus is not reachable here: the synthetic stand-in (the same notebook runs on the real "
             "data for a user who has it)")

PAPER = Paper(
    key="lei2016", short="Lei et al. 2016",
    citation="Lei, Joshi, Barzilay, Jaakkola, Tymoshenko, Moschitti, Màrquez. *Semi-supervised Question Retrieval "
             "with Gated Convolutions*, NAACL 2016",
    topic="semi-supervised question retrieval with gated convolutions (AskUbuntu)",
    has="AskUbuntu; BM25 / TF-IDF / SVM; CNN, LSTM, GRU, RCNN encoders; encoder-decoder pre-training "
        "(Tables 1–5, Figures 3–5)",
    seed_file="000_1eb555c2ca15b20a.txt",
    # section 7 "Results", paragraphs "Pre-training" and "Adaptive Decay" (Figures 1-2 are an example pair and the
    # model diagram)
    figures=(("Figure 3", "heldout perplexity vs dev MRR during encoder-decoder pre-training"),
             ("Figure 4", "scalar-decay gate 1 - lambda_t shown over words of example questions"),
             ("Figure 5", "max and mean of the 400-d gate 1 - lambda_t per word position, dev+test")),
    claims=(Claim("RCNN > LSTM on AskUbuntu (Table 2)", "RCNN", "LSTM", "MAP",
                  dict(table="Table 2", dataset="askubuntu", split="test")),),
    stand_in={"askubuntu": ASKUBUNTU},
    notebooks=("00_datasets", "01_lexical_baselines", "02_lei_neural_encoders", "03_pooling_body_smolyakov",
               "07_lei_gates", "08_lei_pretraining"),
)


LEI_ENCODERS = ("lstm", "gru", "cnn", "rcnn")  # Lei et al. Table 3's rows

TABLE3_HIDDEN = {name: encoder_config(name).hidden_dim for name in LEI_ENCODERS}  # d: the configs' defaults

TABLE3_WIDTH = {"cnn": encoder_config("cnn").width, "rcnn": encoder_config("rcnn").order}  # n: the configs' defaults

def lei_grid(p: QuestionRetrieval, encoder: str, *, pooling: str, fields: str = "title+body",
             epochs: int | None = None, pretrain: bool = False) -> list[TrainConfig]:
    """Lei et al.'s configurations of ``encoder`` for one pooling and fields setting: the profile's grid,
    trained for the profile's epochs or ``epochs``; with ``pretrain``, each fine-tuned from an encoder pre-trained
    as §4.2 (the profile's ``pretraining``) with the same learning rate, dropout and seed (footnote 7)."""
    widths = p.cnn_widths if encoder == "cnn" else (None,)
    configs = []
    for lr in p.lrs:
        for dropout in p.dropouts:
            for width in widths:
                settings = {"hidden_dim": scaled(TABLE3_HIDDEN[encoder], p.scale)}
                if width is not None:
                    settings["width"] = width
                configs.append(TrainConfig(
                    encoder=encoder, encoder_settings=tuple(settings.items()), lr=lr, epochs=epochs or p.epochs,
                    patience=p.patience, max_train_queries=p.max_train_queries, max_body_len=p.max_body_len,
                    question=QuestionEncoderConfig(pooling=pooling, fields=fields, dropout=dropout),
                    pretrain=PretrainConfig(**p.pretraining) if pretrain else None))
    return configs


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
