"""Lei, Joshi, Barzilay, Jaakkola, Tymoshenko, Moschitti, Màrquez. *Semi-supervised Question Retrieval with Gated
Convolutions*. NAACL 2016 (seed ``000_1eb555c2ca15b20a.txt``).

Here: the paper's configurations at a profile's scale (:func:`lei_grid`: §6's grid at Table 3's sizes), Table 3's
parameter counts, the gate figures' records (Figure 5; :mod:`reproq.question_retrieval.gates` reads the gates) and the
pre-training figure's (Figure 3) with the "does pre-training help" table; :mod:`reproq.figures.lei2016` draws
Figures 3–5.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd

from reproq.models import build_encoder, count_parameters, encoder_config
from reproq.models.question import QuestionEncoderConfig
from reproq.papers.paper import CONFIGURATION, DATA, GIVEN, SIZE, Claim, Paper
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
    claims=(Claim("RCNN > LSTM on AskUbuntu test (Table 2)", "RCNN", "LSTM", "MAP",
                  dict(table="Table 2", dataset="askubuntu", split="test"), beside=("MRR", "P@1", "P@5"),
                  quote="\"our RCNN model also outperforms the other neural encoder models and the baselines across "
                        "all metrics\" (§7, Overall Performance)"),),
    stand_in={"askubuntu": ASKUBUNTU},
    # Table 2's BM25 row re-scores the Lucene scores shipped in dev.txt/test.txt; Table 3 prints the sizes its
    # models were built with (copied into our configs) beside their parameter counts
    kinds={("Table 1",): DATA, ("Table 2", "BM25"): GIVEN, ("Table 3", "hidden_dim"): CONFIGURATION,
           ("Table 3", "filter_width"): CONFIGURATION, ("Table 3", "params"): SIZE},
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
