"""Lei, Joshi, Barzilay, Jaakkola, Tymoshenko, Moschitti, Màrquez. *Semi-supervised Question Retrieval with Gated
Convolutions*. NAACL 2016 (seed ``000_1eb555c2ca15b20a.txt``).

Here: the paper's configurations at a profile's scale (:func:`lei_grid`: §6's grid at Table 3's sizes), Table 3's
parameter counts, the gate figures' records (Figure 5; :mod:`reproq.question_retrieval.gates` reads the gates) and the
pre-training figure's (Figure 3) with the "does pre-training help" table; :mod:`reproq.figures.lei2016` draws
Figures 3–5. The committed words of notebooks 00, 03, 07 and 08 (``READINGS``, :mod:`reproq.report.readings`) and the
guide's findings of notebooks 00–03, 07, 08 and the encoder benchmark (``FINDINGS``) are written here too.

Longer than most modules here: it is the paper's one home (issue 43's unit), its configurations, records, claims
and four notebooks' readings together, as :mod:`reproq.papers.tay2018` is.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reproq.models import build_encoder, count_parameters, encoder_config
from reproq.models.question import QuestionEncoderConfig
from reproq.papers.paper import CONFIGURATION, DATA, GIVEN, SIZE, Claim, Finding, Paper
from reproq.papers.wording import on_data
from reproq.profiles import Overrides, scaled
from reproq.question_retrieval.inputs import PretrainConfig, TrainConfig
from reproq.results import Difference, Provenance, Record, claim, paired_difference, paper_numbers, summarize
from reproq.results.paired import shown


# its settings at each profile (reproq.papers.profile gathers them; its notebooks' setup(section=...) reads them)
SECTION = "question_retrieval"  # Smolyakov & Srikant's configurations (notebook 03) read it too


THE_PAPERS_PRETRAINING = Overrides(PretrainConfig)  # none changed


@dataclass(frozen=True, kw_only=True)
class QuestionRetrieval:
    """Neural question retrieval on AskUbuntu at a profile (:func:`lei_grid` and the other papers' configurations
    turn it into runs)."""

    seeds: tuple[int, ...]
    scale: float  # hidden sizes relative to the papers'
    epochs: int
    patience: int
    max_train_queries: int | None  # query groups per epoch (None: all)
    lrs: tuple[float, ...]
    dropouts: tuple[float, ...]
    cnn_widths: tuple[int, ...]
    smolyakov_epochs: int
    max_body_len: int = 100  # Lei et al. footnote 5; smoke and cpu cut shorter, to stay fast
    max_pooling_epochs: int | None = None  # a second, longer run of the max-pooling CNN (None: none)
    pretraining: Overrides = THE_PAPERS_PRETRAINING  # Lei et al. §4.2's settings changed
    table4_pretrained: bool = True  # fine-tune pre-trained encoders with both poolings (Table 4), not only Table 2's


PROFILES = {
    # tiny sizes, bodies cut at 30 words, 2 epochs of 40 query groups, 1 seed
    "smoke": QuestionRetrieval(seeds=(1,), scale=0.05, epochs=2, patience=15, max_train_queries=40, lrs=(1e-3,),
                               dropouts=(0.1,), cnn_widths=(3,), smolyakov_epochs=2, max_body_len=30,
                               max_pooling_epochs=3, pretraining=Overrides(PretrainConfig, epochs=2, batch_size=32, max_pairs=64)),
    # a quarter of Table 3's hidden sizes, bodies cut at 50 words, one configuration (lr 1e-3, dropout 0.1,
    # width 3), 6 epochs of 480 query groups, 2 seeds; the max-pooling CNN gets a second run of 30 epochs;
    # pre-training: 6 epochs of 8,000 (context, title) pairs (the cpu stand-in has about 34,000), fine-tuned with
    # Table 2's pooling only (both poolings, Table 4, would double notebook 08's 20 minutes)
    "cpu": QuestionRetrieval(seeds=(1, 2), scale=0.25, epochs=6, patience=15, max_train_queries=480, lrs=(1e-3,),
                             dropouts=(0.1,), cnn_widths=(3,), smolyakov_epochs=6, max_body_len=50,
                             max_pooling_epochs=30, pretraining=Overrides(PretrainConfig, epochs=6, max_pairs=8000),
                             table4_pretrained=False),
    # Lei et al.'s Table 3 sizes and §6 grid (lr {1e-3, 3e-4} x dropout {0.1, 0.2, 0.3}, CNN width {2, 3, 4}),
    # up to 50 epochs with patience 15, 5 seeds; Smolyakov & Srikant's 16 epochs
    "paper": QuestionRetrieval(seeds=(1, 2, 3, 4, 5), scale=1.0, epochs=50, patience=15, max_train_queries=None,
                               lrs=(1e-3, 3e-4), dropouts=(0.1, 0.2, 0.3), cnn_widths=(2, 3, 4), smolyakov_epochs=16),
}

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


PRETRAINING_ONLY = " (pre-training only)"  # Figure 3's methods: "<model> (pre-training only)", as the paper's text


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
                                              split=split, method=f"{label}{PRETRAINING_ONLY}", setting="-",
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


# The committed words of notebooks 00, 03, 07 and 08 and the guide's findings (reproq.report.readings): each reading
# is given the records of a notebook's results folder and the folder.

def _saved_table(folder: Path, name: str) -> tuple[pd.DataFrame | None, bool]:
    """The table ``name`` a notebook saved in ``folder`` (``<name>.csv`` on real data, ``<name>__synthetic.csv`` on
    the stand-in; the real one where both are there) and whether it is the stand-in's; ``(None, False)`` if none."""
    for synthetic, path in enumerate((Path(folder) / f"{name}.csv", Path(folder) / f"{name}__synthetic.csv")):
        if path.exists():
            return pd.read_csv(path), bool(synthetic)
    return None, False


def _to(before: float, after: float, places: int) -> str:
    """``"falls to <after>"``, ``"rises to <after>"`` or ``"stays at <after>"``, as the two read at ``places``
    decimals."""
    a, b = round(before, places), round(after, places)
    return f"{'falls to' if b < a else 'rises to' if b > a else 'stays at'} {after:.{places}f}"


UNTRAINED = "trained_vs_untrained"  # notebooks 02's and 03's table of MRR before training and at the kept epoch
MAX_POOLING = "CNN max"  # notebook 03's label of Table 4's max-pooling CNN, and the start of its longer run's


def _untrained(folder: Path) -> tuple[pd.DataFrame | None, str]:
    """:func:`reproq.question_retrieval.summaries.trained_vs_untrained`'s table as the notebook saved it in
    ``folder``, and the opening line of a reading of it."""
    table, synthetic = _saved_table(folder, UNTRAINED)
    if table is None:
        return None, f"No `{UNTRAINED}` table in this folder."
    seeds = " or ".join(map(str, sorted(set(table["seeds"]))))
    return table, (f"{on_data(synthetic)}, `{UNTRAINED}.md`: MRR in percent untrained (epoch 0) and at the best dev "
                   f"epoch, mean over {seeds} seeds, and the dev MRR's change seed by seed (the trained dev number is "
                   "a maximum over epochs; the questions' values are not kept, so no interval and no verdict):")


def _untrained_line(row: Mapping) -> str:
    """One model of the trained-vs-untrained table: its MRRs untrained and trained, and the dev change."""
    return (f"- {row['model']}: dev {row['untrained dev MRR']:.1f} untrained, {row['trained dev MRR']:.1f} trained "
            f"({row['gain']:+.2f}; lowest seed {row['min gain over seeds']:+.2f}); test {row['untrained test MRR']:.1f}"
            f", {row['trained test MRR']:.1f}; best dev epochs {row['best epochs']}")


def untrained_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebooks 02's and 03's models against their own untrained state: every model's dev and test MRR untrained
    and trained with the dev change (numbers, no verdict), then which model started lowest and which changed most."""
    table, opening = _untrained(folder)
    if table is None:
        return opening
    low, most = table.loc[table["untrained dev MRR"].idxmin()], table.loc[table["gain"].idxmax()]
    return "\n".join([opening, "", *map(_untrained_line, table.to_dict("records")),
                      f"\nLowest untrained dev MRR: {low['model']} ({low['untrained dev MRR']:.1f}); largest dev "
                      f"change: {most['model']} ({most['gain']:+.2f})."])


def max_pooling_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 03 in short, for the guide's findings: the max-pooling CNN untrained and trained, at the profile's epochs and in
    its longer run, beside the range of the other models' dev changes (numbers, no verdict)."""
    table, opening = _untrained(folder)
    if table is None:
        return opening
    mine = table["model"].str.startswith(MAX_POOLING)
    others = table[~mine]
    lines = [opening, "", *map(_untrained_line, table[mine].to_dict("records"))]
    if len(others):
        lines.append(f"- The other {len(others)} models' dev changes: {others['gain'].min():+.2f} to "
                     f"{others['gain'].max():+.2f} (lowest seed {others['min gain over seeds'].min():+.2f})")
    return "\n".join(lines)


KEY_PHRASE = "name"  # the stand-in's kind of a key phrase's words (reproq.synthetic.word_kinds)
FIELDS = {"title": "titles", "body": "bodies"}  # a question's fields as the readings name them


def gates_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 07's committed words: Figure 5's mean and max over the dimensions of 1 − λ_t at the first and the
    last word position of titles and bodies; the stand-in's kinds of words ranked by their mean 1 − λ_t per model and
    field, and which kind comes first; Figure 4's two models' dev and test MRR (their difference; one seed: no
    interval, no verdict)."""
    figure5 = [r for r in records if r.table == "Figure 5"]
    seeds = sorted({s for r in records if r.table.startswith("Figure") for s in r.seeds})
    lines = [f"{on_data(any(r.synthetic for r in figure5))}, seed {', '.join(map(str, seeds))}:", ""]
    for (method, setting), group in pd.DataFrame([asdict(r) for r in figure5]).groupby(["method", "setting"],
                                                                                      sort=False):
        at = {(r["metric"], int(r["variant"].removeprefix("position "))): r["value"] for r in group.to_dict("records")}
        last = max(position for _, position in at)
        lines.append(f"- Figure 5, {method}, {FIELDS[setting.removeprefix('field=')]}, 1 − λ_t: " + "; ".join(
            f"the {metric} {at[(metric, 1)]:.2f} at word 1, {_to(at[(metric, 1)], at[(metric, last)], 2)} "
            f"at word {last}" for metric in ("mean over dimensions", "max over dimensions")) + ".")
    kinds, _ = _saved_table(folder, "decay_by_word_kind")
    if kinds is not None:
        first = []
        for (model, field), group in kinds.groupby(["model", "field"], sort=False):
            ranked = group.sort_values("mean decay", ascending=False)
            first.append(ranked["kind"].iat[0])
            lines.append(f"- {model}, {FIELDS[field]}, mean 1 − λ_t per kind of word, highest first: "
                         + ", ".join(f"{k} {v:.3f}" for k, v in zip(ranked["kind"], ranked["mean decay"])) + ".")
        counts = Counter(first)
        lines.append("- First (model × field): " + ", ".join(f"{kind} words in {n} of {len(first)}"
                                                              for kind, n in counts.most_common())
                     + f"; the key phrases' {KEY_PHRASE} words in {counts[KEY_PHRASE]} of {len(first)}.")
    figure4 = [r for r in records if r.table == "Figure 4"]
    full, *variants = dict.fromkeys(r.method for r in figure4)
    for variant in variants:
        mrr = {(r.method, r.split): 100 * r.value for r in figure4 if r.metric == "MRR"}
        said = {split: claim(figure4, variant, full, metric="MRR", split=split) for split in ("dev", "test")}
        lines.append("- Figure 4's models, MRR: " + "; ".join(
            f"{split} {variant} {mrr[(variant, split)]:.1f}, {full} {mrr[(full, split)]:.1f}, difference "
            f"{100 * c['delta']:+.1f}, {c['verdict']}" for split, c in said.items()) + ".")
    return "\n".join(lines)


PRETRAIN = "+pretrain"  # a model fine-tuned from its pre-trained encoder: "<model>+pretrain" (Tables 2 and 4)


def _difference(d: Difference, a: str, b: str) -> str:
    """A paired difference (:class:`reproq.results.Difference`) of fractions in points: ``a − b``, its 95 % interval,
    what the interval resamples (:func:`reproq.results.paired.shown`) and what it shows."""
    return f"{shown(d.mean, d.low, d.high, d.over, scale=100, decimals=2)}: {d.verdict(a, b)}"


def _perplexity_line(records: Sequence[Record], folder: Path) -> str:
    """Notebook 08's pre-training: held-out perplexity untrained and at the kept epoch per model, whether it fell after
    every epoch of every seed (the notebook's ``pretrained_vs_untrained`` table) and which epoch is kept."""
    before_after, _ = _saved_table(folder, "pretrained_vs_untrained")
    figure3 = [r for r in records if r.table == "Figure 3" and r.metric == "perplexity"]
    if before_after is None or not figure3:
        return ""
    kept = summarize(figure3).set_index("method")
    before_after = before_after.set_index("model")
    fell = before_after["perplexity fell every epoch"]
    epochs = {r.config["epochs"] for r in figure3}
    kept_epochs = (f"every run keeps its last epoch ({epochs.pop()})"
                   if len(epochs) == 1 and all(r.config["kept_epoch"] == r.config["epochs"] for r in figure3) else
                   "kept epochs " + ", ".join(f"{r.method.removesuffix(PRETRAINING_ONLY)} seed {r.seeds[0]}: "
                                              f"{r.config['kept_epoch']} of {r.config['epochs']}" for r in figure3))
    return ("- Held-out perplexity, untrained → the kept epoch (mean ± sd over the seeds): " + ", ".join(
        f"{model} {before_after.at[model, 'heldout perplexity untrained']:,.0f} → {row['mean']:,.0f} ± "
        f"{row['std']:.0f}" for model, row in ((m.removesuffix(PRETRAINING_ONLY), row) for m, row in kept.iterrows()))
        + "; lower after every epoch of every seed: " + (", ".join(fell.index[fell]) or "none")
        + ("" if fell.all() else f" (not: {', '.join(fell.index[~fell])})") + f"; {kept_epochs}.")


def _figure3_lines(records: Sequence[Record], folder: Path) -> list[str]:
    """Figure 3's dev MRR of each model's untuned title states untrained, after the first epoch and at the kept epoch
    (the notebook's ``pretraining_curves`` table and the records), with kept − untrained paired by seed."""
    curves, _ = _saved_table(folder, "pretraining_curves")
    figure3 = [r for r in records if r.table == "Figure 3" and r.metric == "MRR"]
    if curves is None or not figure3:
        return []
    kept = summarize(figure3).set_index("method")
    untrained = [Record(PAPER.key, "Figure 3", "askubuntu", "dev", f"{row['model']} (untrained)", "-", "MRR",
                        row["dev MRR (%)"] / 100, seeds=(int(row["seed"]),))
                 for row in curves[curves["epoch"] == 0].to_dict("records")]
    lines = []
    for model, group in curves.groupby("model", sort=False):
        at = group.groupby("epoch")["dev MRR (%)"].mean()
        mine = kept.loc[model + PRETRAINING_ONLY]
        d = paired_difference(figure3 + untrained, model + PRETRAINING_ONLY, f"{model} (untrained)", metric="MRR")
        lines.append(f"- Figure 3, {model}, dev MRR of the untuned title states: {at[0]:.1f} untrained, "
                     f"{_to(at[0], at[1], 1)} after epoch 1, {_to(at[1], 100 * mine['mean'], 1)} ± "
                     f"{100 * mine['std']:.1f} at the kept epoch; kept − untrained "
                     f"{_difference(d, 'kept', 'untrained')}.")
    return lines


def _gain_lines(records: Sequence[Record], metrics: Sequence[str]) -> list[str]:
    """Each pre-trained model of Table 2 fine-tuned against the same from scratch (:func:`pretraining_gain`): per
    split and metric, from scratch → pre-trained, the difference and its interval, and what the interval shows."""
    models = [m.removesuffix(PRETRAIN) for m in dict.fromkeys(r.method for r in records if r.table == "Table 2")
              if m.endswith(PRETRAIN)]
    if not models:
        return []
    gain = pretraining_gain(records, models, table="Table 2", metrics=metrics)
    seeds = " or ".join(map(str, sorted(set(gain["seeds"]))))
    return [f"- Fine-tuned from scratch → from the pre-trained encoder, the same seeds and budget (percent; the "
            f"difference paired by seed, its 95 % t interval over {seeds} seeds, and what it shows):"] + [
        f"  - {model} ({setting.removeprefix('pooling=')} pooling): " + "; ".join(
            f"{r['split']} {r['metric']} {r['from scratch']:.1f} → {r['+ pre-train']:.1f}, {r['difference']:+.2f} "
            + (f"({r['95% low']:+.2f} to {r['95% high']:+.2f}: {r['pre-training']})" if r["95% low"] == r["95% low"]
               else f"({r['seeds']} seed(s), no interval: {r['pre-training']})") for r in group.to_dict("records"))
        + "." for (model, setting), group in gain.groupby(["model", "setting"], sort=False)]


def _best_row_line(records: Sequence[Record]) -> str:
    """The paper's best row of Table 2 by MRR (among those run here) against our strongest other row, per split,
    paired by seed (:func:`paired_difference`)."""
    table2 = [r for r in records if r.table == "Table 2" and r.metric == "MRR"]
    ours = summarize(table2)
    theirs = paper_numbers(PAPER.key, "Table 2").query("metric == 'MRR'")
    parts = []
    for split, group in ours.groupby("split", sort=False):
        printed = theirs[(theirs.split == split) & theirs.method.isin(group.method)]
        if printed.empty or len(group) < 2:
            continue
        best = printed.sort_values("value")["method"].iat[-1]
        other = group[group.method != best].sort_values("mean").iloc[-1]
        d = paired_difference(table2, best, other["method"], metric="MRR", split=split)
        mean = group.set_index("method")["mean"]
        parts.append(f"{split} {best} {100 * mean[best]:.1f}, {other['method']} {100 * other['mean']:.1f}: "
                     + _difference(d, best, other["method"]))
    return ("- The paper's best row of Table 2 (by its MRR) against our strongest other row: " + "; ".join(parts)
            + ".") if parts else ""


def _pretraining_opening(records: Sequence[Record]) -> str:
    """The opening line of notebook 08's readings: which data and seeds."""
    mine = [r for r in records if r.table in ("Figure 3", "Table 2")]
    seeds = sorted({s for r in mine for s in r.seeds})
    return f"{on_data(any(r.synthetic for r in mine))}, seeds {', '.join(map(str, seeds))}:\n"


def pretraining_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 08's committed words: pre-training's perplexity (:func:`_perplexity_line`) and Figure 3's dev MRR
    (:func:`_figure3_lines`), fine-tuning from the pre-trained encoder against from scratch on dev and test MAP and
    MRR (:func:`_gain_lines`), and the paper's best row of Table 2 against our strongest other
    (:func:`_best_row_line`)."""
    return "\n".join(line for line in [_pretraining_opening(records), _perplexity_line(records, folder),
                                        *_figure3_lines(records, folder), *_gain_lines(records, ("MAP", "MRR")),
                                        _best_row_line(records)] if line)


def pretraining_summary(records: Sequence[Record], folder: Path) -> str:
    """Notebook 08 in short, for the guide's findings: :func:`pretraining_reading` with fine-tuning's MRR only and without the
    best row's comparison."""
    return "\n".join(line for line in [_pretraining_opening(records), _perplexity_line(records, folder),
                                        *_figure3_lines(records, folder), *_gain_lines(records, ("MRR",))] if line)


BENCH_MODELS = {"RCNN fast path": "rcnn", "our GRU": "gru"}  # the encoders the guide's "Speed" sets beside nn.LSTM


def speed_reading(records: Sequence[Record], folder: Path) -> str:
    """The guide's "Speed", from the encoder benchmarks in ``folder`` (``results/bench``, :mod:`reproq.bench.encoders`;
    no records): per file (thread count), the RCNN fast path's and our GRU's forward + backward throughput as a ratio
    to ``torch.nn.LSTM``'s — the median of the round-by-round ratios, their range beside — and the machine, load and
    code version the file records."""
    lines = []
    for path in sorted(Path(folder).glob("encoders_*thread.json")):
        bench = json.loads(path.read_text())
        rows = {row["model"]: row for row in bench["rows"]}
        ratios = [(label, rows[f"{name} d={TABLE3_HIDDEN[name]} (ours)"]) for label, name in BENCH_MODELS.items()]
        lines.append(f"- {bench['threads']} thread(s) (`{path.name}`): " + "; ".join(
            f"{label} {row['relative_to_torch_lstm']:.2f}× (rounds {row['ratio_lowest']:.2f}–"
            f"{row['ratio_highest']:.2f})" for label, row in ratios)
            + f"; {bench['cpu']} ({bench['cpu_capability']}), torch {bench['torch']}, load average "
            f"{bench['load_average_before'][0]:.2f} before and {bench['load_average_after'][0]:.2f} after "
            f"({bench['load_warning'] or 'no load warning'}), code {bench['code_version']}.")
    if not lines:
        return "No encoder benchmark in this folder."
    return ("Forward + backward throughput as a ratio to `torch.nn.LSTM`'s (the median of the round-by-round ratios "
            "of interleaved repeats, every model under the allocator conditions the file records):\n\n"
            + "\n".join(lines))


READINGS = {  # notebooks 00's, 03's, 07's and 08's committed words and the guide's findings (reproq.report.readings)
    "trained_vs_untrained": untrained_reading,
    "max_pooling": max_pooling_reading,
    "gates": gates_reading,
    "pretraining": pretraining_reading,
    "pretraining_summary": pretraining_summary,
    "speed": speed_reading,
}

FINDINGS = (  # the guide's "What we have found so far" (reproq.report.readings.findings_markdown)
    Finding("00_datasets", "Lei et al. Table 1, AskUbuntu's dev and test sets (notebook 00, the real `dev.txt` and "
            "`test.txt`): queries, annotated pairs and mean positives per query (data statistics)",
            "beside:lei2016_table1_eval_sets"),
    Finding("01_lexical_baselines", "Lei et al. Table 2, BM25 row: the Lucene scores shipped in AskUbuntu's "
            "`dev.txt`/`test.txt`, re-scored (notebook 01; an evaluation of given outputs, not a run of BM25 here)",
            "beside:lei2016_table2_bm25"),
    Finding("02_lei_neural_encoders", "Lei et al. Table 3 parameter counts of the built models (notebook 02; model "
            "sizes, not results; the hidden sizes and widths are copied from the paper into the configs)",
            "beside:lei2016_table3"),
    Finding("02_lei_neural_encoders", "Lei et al. Table 2's encoders against their own untrained state, on the "
            "synthetic stand-in (notebook 02; a pipeline check, never a reproduction)", "trained_vs_untrained"),
    Finding("03_pooling_body_smolyakov", "Lei et al. Table 4's max-pooling CNN against its untrained state, at the "
            "profile's epochs and in a longer run, on the synthetic stand-in (notebook 03; a pipeline check, never "
            "a reproduction)", "max_pooling"),
    Finding("07_lei_gates", "Lei et al. Figures 4 and 5, the RCNN's gate 1 − λ_t, on the synthetic stand-in with key "
            "phrases (notebook 07; a pipeline and mechanism check, never a reproduction)", "gates"),
    Finding("08_lei_pretraining", 'Lei et al. pre-training (§4.2, Figure 3, Table 2 "+ pre-train"), on the synthetic '
            "stand-in with key phrases (notebook 08; a pipeline and mechanism check, never a reproduction)",
            "pretraining_summary"),
    Finding("bench", "Speed: the RCNN fast path (its steps in C++, `reproq/models/rcnn_kernel.cpp`) and our GRU "
            "against `torch.nn.LSTM`, forward + backward at Lei et al.'s Table 3 sizes (`reproq bench encoders`)",
            "speed"),
)
