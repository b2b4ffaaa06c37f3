"""Rankine. *Question Retrieval*. Harvard CS287 project, 2016 (seed ``004_afb19b87d6db3268.txt``; no figures).

Here: Table 1's networks at a profile's scale and his learning-rate grid (:func:`rankine_configs`,
:func:`rankine_grid`), and whether the learned word weights become an IDF (:func:`word_weights_against_idf`);
notebook 11's committed words (``READINGS``) and its finding (``FINDINGS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from reproq.models.question import QuestionEncoderConfig
from reproq.papers.lei2016 import ASKUBUNTU
from reproq.papers.paper import Claim, Finding, Paper
from reproq.papers.wording import listed, versus
from reproq.profiles import Overrides, scaled
from reproq.question_retrieval.inputs import RetrievalInputs, TrainConfig
from reproq.results import Record, paper_numbers, summarize

# its settings at each profile (reproq.papers.profile gathers them; its notebooks' setup(section=...) reads them)
SECTION = "rankine"


@dataclass(frozen=True, kw_only=True)
class Rankine:
    """Rankine's CS287 models on AskUbuntu (:func:`reproq.papers.rankine2016.rankine_configs`)."""

    seeds: tuple[int, ...]
    scale: float  # the GRU's and CNN's hidden sizes relative to his Table 1 (280, 700)
    train: Overrides  # TrainConfig's settings changed (epochs, max_train_queries, ...)
    lrs: tuple[float, ...] = (5e-3, 1e-3, 3e-4, 1e-5)  # his §6.3 grid (Adam), chosen on dev MRR


PROFILES = {
    "smoke": Rankine(seeds=(1,), scale=0.05, train=Overrides(TrainConfig, epochs=1, max_train_queries=40), lrs=(1e-3,)),
    # as Lei et al.'s: a quarter of the hidden sizes, 6 epochs of 480 query groups; the two largest learning rates of
    # his grid, 2 seeds (about 8 minutes)
    "cpu": Rankine(seeds=(1, 2), scale=0.25, train=Overrides(TrainConfig, epochs=6, max_train_queries=480), lrs=(5e-3, 1e-3)),
    "paper": Rankine(seeds=(1, 2, 3, 4, 5), scale=1.0, train=Overrides(TrainConfig)),
}

PAPER = Paper(
    key="rankine2016", short="Rankine 2016",
    citation="Rankine. *Question Retrieval*, Harvard CS287 project, 2016",
    topic="CBOW and GRU variants on AskUbuntu",
    has="BOW, TF-IDF, CBOW, weighted CBOW, GRU, CNN on AskUbuntu; separate title and body encoders (Table 1)",
    seed_file="004_afb19b87d6db3268.txt",
    claims=(Claim("CBOW > weighted CBOW on AskUbuntu dev (Table 1)", "CBOW", "Weighted CBOW", "MRR",
                  dict(table="Table 1", dataset="askubuntu", split="dev"), beside=("P@1",),
                  quote="\"Unfortunately the weighted CBOW model performs worse than the CBOW\" (§6.4)"),),
    stand_in={"askubuntu": ASKUBUNTU},
    notebooks=("11_rankine",),
)


def rankine_grid(r: Rankine) -> dict[str, list[TrainConfig]]:
    """:func:`rankine_configs` with each of the profile's learning rates (his §6.3 grid; dev MRR chooses)."""
    return {name: [replace(config, lr=lr) for lr in r.lrs] for name, config in rankine_configs(r).items()}


def rankine_configs(r: Rankine) -> dict[str, TrainConfig]:
    """Rankine's Table 1 networks (§3.2, §4, §5.1, §6.3), keyed by his row names, at the profile's scale and budget.

    Shared, as his §6.3 and §5.2 say: Adam; 20 sampled negatives; 16 query groups a batch ("8 and 16 worked pretty
    well"); Adam at 1e-3 (:func:`rankine_grid` searches his learning rates); a margin of 0.05 (his 0.01–0.05: "low margins ... prevented overfitting"); bodies cut at 40 words (his
    clip); the title and the body through encoders of their own (his "immediate modification ... to get decent
    results") whose cosines one learned β mixes — our reading: he "considered" a trade-off and "wasn't able to
    completely implement" it (§5.2, §6.4), so his Table 1 may have used none; fixed word vectors, no IDF scaling, no state normalisation, dropout 0.1 (his Lei-range
    search; he found lower better with bodies). Not reported, so not copied: the epochs. Weighted CBOW is the free weight per word (his first form); "Weighted CBOW (MLP)", the
    MLP-parameterised weights he also proposes, is not in his table; nor is the GRU with β from an MLP of both
    questions' title and body vectors (his §5.2 equation, which he did not run).
    """
    common = dict(lr=1e-3, margin=0.05, l2=0.0, n_negatives=20, queries_per_batch=16, max_body_len=40,
                  idf_reweight=False, separate_fields=True, **r.train)
    question = QuestionEncoderConfig(pooling="mean", normalize_states=False, dropout=0.1)
    hidden = {"gru": scaled(280, r.scale), "cnn": scaled(700, r.scale)}
    return {
        "CBOW": TrainConfig(encoder="cbow", question=question, **common),
        "Weighted CBOW": TrainConfig(encoder="cbow", encoder_settings=(("projection", False),),
                                     learn_word_weights=True, question=question, **common),
        "Weighted CBOW (MLP)": TrainConfig(encoder="cbow", encoder_settings=(("projection", False),
                                                                             ("weighting", "mlp")),
                                           question=question, **common),
        "GRU (d=280, last state)": TrainConfig(encoder="gru", encoder_settings=(("hidden_dim", hidden["gru"]),),
                                               question=replace(question, pooling="last"), **common),
        "CNN (d=700, k=3, mean pooling)": TrainConfig(encoder="cnn", encoder_settings=(
            ("hidden_dim", hidden["cnn"]), ("width", 3)), question=question, **common),
        "GRU (d=280, last state), MLP-gated β": TrainConfig(
            encoder="gru", encoder_settings=(("hidden_dim", hidden["gru"]),), beta_gate="mlp",
            question=replace(question, pooling="last"), **common),
    }


def word_weights_against_idf(model, data: RetrievalInputs) -> dict[str, float]:
    """Rankine's expectation that weighted CBOW's learned weights "act analogously to IDF" (§5.1), measured: Spearman's
    ρ between each word's learned weight λ_w = softplus(its free weight; all start at 1) in ``model``'s title encoder
    and the word's IDF, over the words the training titles use; and the weights' range there."""
    learned = np.log1p(np.exp(model.question_encoder.title.encoder.embedding.learned.detach().cpu().numpy()))
    used = np.unique([w for g in data.groups for q in (g.query, *g.positives) for w in data.corpus.titles[q]])
    rho = spearmanr(learned[used], data.idf[used]).statistic if np.ptp(learned[used]) > 0 else float("nan")
    return {"title words": len(used), "spearman rho": float(rho), "weight min": float(learned[used].min()),
            "weight max": float(learned[used].max())}


def _dev_mrr(records: Sequence[Record]) -> list[str]:
    """Each row of Table 1 as trained here, ``"<method> (<variant>) <dev MRR>"`` in percent (mean over the seeds),
    with his Table 1's dev MRR beside where he prints the method."""
    his = paper_numbers("rankine2016", "Table 1").query("metric == 'MRR'").set_index("method")["value"]
    dev = summarize([r for r in records if r.table == "Table 1" and r.split == "dev" and r.metric == "MRR"])
    return [f"{r.method}{f' ({r.variant})' if r.variant else ''} {100 * r.mean:.1f}"
            + (f" (his {100 * his[r.method]:.1f})" if r.method in his.index else "") for r in dev.itertuples()]


GRU, CNN, GATED = "GRU (d=280, last state)", "CNN (d=700, k=3, mean pooling)", "GRU (d=280, last state), MLP-gated β"
# the comparisons the notebook's words make, beside his claim (PAPER.claims): (a, b), "a over b" on dev MRR
COMPARISONS = (("Weighted CBOW (MLP)", "CBOW"), ("Weighted CBOW (MLP)", "TF-IDF (title)"), (GATED, GRU), (GRU, CNN))


def _paired(records: Sequence[Record]) -> list[str]:
    """His claim (CBOW over weighted CBOW, :data:`PAPER`'s) and :data:`COMPARISONS`, each paired by seed on dev MRR
    (:func:`reproq.papers.wording.versus`); TF-IDF (title), trained on nothing, pairs with every seed."""
    titles = [replace(r, method=f"{r.method} ({r.variant})") if r.method == "TF-IDF" else r for r in records
              if r.method != "TF-IDF" or r.variant == "title"]
    (his,) = PAPER.claims
    tested = versus(titles, his.a, his.b, metric=his.metric, **his.where)
    return [tested and f"{tested}, his claim: {his.quote}"] + [versus(titles, a, b, metric="MRR", **his.where)
                                                                for a, b in COMPARISONS]


def _word_weights(folder: Path) -> str:
    """Weighted CBOW's learned word weights against the IDF (``word_weights_vs_idf``): Spearman's ρ, its sign in
    words, and the weights' range."""
    found = sorted(Path(folder).glob("word_weights_vs_idf*.csv"))
    if not found:
        return ""
    w = pd.read_csv(found[0]).iloc[0]
    rho = w["spearman rho"]
    sign = ("no ρ: the weights did not move" if rho != rho else "negative: the weights run against the IDF"
            if rho < 0 else "positive: the weights run with the IDF" if rho > 0 else "none")
    return (f"- Learned word weight against IDF (weighted CBOW, seed {int(w['seed'])}): Spearman ρ = {rho:.2f} "
            f"({sign}) over {int(w['title words']):,} title words, the weights from {w['weight min']:.2f} to "
            f"{w['weight max']:.2f}.")


def _betas(folder: Path) -> str:
    """The learned β (the body's share of the score) of each network that learns one, per seed (``networks``)."""
    found = sorted(Path(folder).glob("networks*.csv"))
    if not found:
        return ""
    networks = pd.read_csv(found[0])
    beta = networks["β (body's share)"]
    one = networks.assign(beta=beta.astype(str))[beta != "per pair"]
    return "- The learned β (the body's share of the score), per seed: " + "; ".join(
        f"{name} {', '.join(group['beta'])}" for name, group in one.groupby("network", sort=False)) + "."


def table1_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 11's committed words: dev MRR per row of Table 1 as we train it (his beside), his claim and the
    notebook's comparisons paired by seed, the learned β, and the word weights against IDF."""
    lines = [f"- {row}" for row in _dev_mrr(records)] + [f"- {said}." for said in _paired(records) if said]
    return listed(records, PRINTED, [*lines, _betas(folder), _word_weights(folder)])


def summary_reading(records: Sequence[Record], folder: Path) -> str:
    """Notebook 11 in short, for the guide's findings: every row's dev MRR on one line, the paired comparisons, the
    word weights against IDF."""
    return listed(records, PRINTED, ["- Dev MRR: " + "; ".join(_dev_mrr(records)) + ".",
                                     "- Paired by seed: " + "; ".join(said for said in _paired(records) if said) + ".",
                                     _word_weights(folder)])


PRINTED = ("dev MRR in percent, means over the seeds (in brackets: the fields, or the learning rate dev chose; then "
           "his Table 1's)")


READINGS = {"table1": table1_reading,  # notebook 11's committed words (reproq.report.readings)
            "summary": summary_reading}
FINDINGS = (Finding(folder="11_rankine", reading="summary",
                    lead="Rankine Table 1 (notebook 11), on the stand-in (never a reproduction)"),)
