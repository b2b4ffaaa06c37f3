"""Training runs as result records, tables and learning-curve figures for the notebooks.

Lei et al. print percentages (``Run.report(..., scale=100)``), Smolyakov & Srikant fractions. The untrained
model's numbers go to their own table (:func:`trained_vs_untrained`), never into a table that is joined
with a paper's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd

from reproq.evaluation import metric_records
from reproq.models import build_encoder, count_parameters
from reproq.results import Record, code_version
from reproq.retrieval.experiment import PreparedData, RunResult
from reproq.retrieval.profiles import PROFILES, TABLE3_HIDDEN, TABLE3_WIDTH, smolyakov_config

METRICS = ("MAP", "MRR", "P@1", "P@5")
METHOD_NAMES = {"cnn": "CNN", "lstm": "LSTM", "gru": "GRU", "rcnn": "RCNN"}


def run_records(runs: Sequence[RunResult], *, paper: str, table: str, method: str, setting: str,
                data: PreparedData, splits: Sequence[str] = ("dev", "test"), metrics: Sequence[str] = METRICS,
                variant: str = "", device: str = "cpu") -> list[Record]:
    """One record per run, split and metric, at each run's best dev epoch (``summarize`` gives mean ± std)."""
    records = []
    for r in runs:
        config = {**asdict(r.config), "n_parameters": r.n_parameters, "best_epoch": r.best_epoch}
        for split in splits:
            records += metric_records(getattr(r, split), paper=paper, table=table, dataset="askubuntu", split=split,
                                      method=method, setting=setting, variant=variant, seeds=(r.seed,),
                                      synthetic=data.synthetic, data=data.provenance, config=config, device=device,
                                      wall_time_s=r.seconds, metric_names=list(metrics))
    return records


def table3_records() -> list[Record]:
    """Lei et al. Table 3 — hidden size, parameter count and filter width — counted on the modules built at
    the paper's sizes (200-d inputs; word vectors fixed, so not counted). Depends on no data."""
    version, records = code_version(), []
    for name, d in TABLE3_HIDDEN.items():
        encoder = build_encoder(name, hidden_dim=d, **({"width": TABLE3_WIDTH[name]} if name == "cnn" else {}))
        values = {"hidden_dim": d, "params": count_parameters(encoder), "filter_width": TABLE3_WIDTH.get(name, np.nan)}
        records += [Record(paper="lei2016", table="Table 3", dataset="askubuntu", split="-", method=METHOD_NAMES[name],
                           setting="-", metric=metric, value=float(value), variant="one bias per gate",
                           config=asdict(encoder.config), data={"architecture": "200-d word vectors"},
                           code_version=version)
                    for metric, value in values.items() if value == value]
    return records


def smolyakov_params_records() -> list[Record]:
    """Smolyakov & Srikant Table 6 "# params", counted on our modules at their sizes (see
    :func:`~reproq.retrieval.profiles.smolyakov_config`). Depends on no data."""
    version, records = code_version(), []
    for label, name in (("CNN", "cnn"), ("LSTM", "lstm")):
        config = smolyakov_config(PROFILES["paper"], name)
        encoder = build_encoder(name, **dict(config.encoder_settings))
        records.append(Record(paper="smolyakov2017", table="Table 6", dataset="askubuntu", split="-", method=label,
                              setting="-", metric="params", value=float(count_parameters(encoder)),
                              variant="width 3, 700 filters" if name == "cnn" else "bidirectional, 128 per direction",
                              config=asdict(encoder.config), data={"architecture": "200-d word vectors"},
                              code_version=version))
    return records


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
        before = np.array([r.untrained_dev["MRR"] for r in runs]) * 100
        after = np.array([r.dev["MRR"] for r in runs]) * 100
        test_before = np.array([r.untrained_test["MRR"] for r in runs]) * 100
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
    from matplotlib.ticker import MaxNLocator

    fig, (ax_loss, ax_mrr) = plt.subplots(1, 2, figsize=(12, 4))
    for label, runs in groups.items():
        epochs = min(len(r.history) for r in runs)
        for ax, key, start in ((ax_loss, "loss", 1), (ax_mrr, "dev_MRR", 0)):
            values = np.array([[h[key] for h in r.history[start:epochs]] for r in runs])
            if key == "dev_MRR":
                values = values * 100
            x = np.arange(start, epochs)
            line, = ax.plot(x, values.mean(axis=0), marker="o", ms=3, label=label)
            ax.fill_between(x, values.min(axis=0), values.max(axis=0), color=line.get_color(), alpha=0.15)
    for ax in (ax_loss, ax_mrr):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_loss.set(xlabel="epoch", ylabel="training loss (max-margin)", title="loss")
    ax_mrr.set(xlabel="epoch (0: untrained)", ylabel="dev MRR (%)", title="dev MRR")
    ax_mrr.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.suptitle(title)
    fig.tight_layout()
    return fig
