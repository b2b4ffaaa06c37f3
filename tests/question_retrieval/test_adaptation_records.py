"""The records behind Smolyakov & Srikant's figures say what the runs measured."""

from __future__ import annotations

import math

import numpy as np

from reproq import profiles
from reproq.question_retrieval import adaptation_records as ar
from reproq.question_retrieval.configs import adaptation_config
from reproq.results import Provenance
from reproq.train.runs import RunResult


def _run(seed: int, losses: list[tuple[float, float]]) -> RunResult:
    history = [{"epoch": 0, "loss": math.nan, "domain_loss": 0.7, "domain_accuracy": 0.5}]
    history += [{"epoch": e, "loss": r + d, "loss_ranking": r, "loss_domain": d, "domain_loss": d,
                 "domain_accuracy": 0.6, "grad_norm_layer1": 0.1} for e, (r, d) in enumerate(losses, 1)]
    return RunResult(None, seed, history, 1, len(losses), {}, 0, 0.0)


def test_figure_records_carry_each_epochs_losses():
    direct, adversarial = _run(1, [(0.9, 0.6), (0.5, 0.65)]), _run(1, [(1.0, 0.7), (0.8, 0.69)])
    p = profiles.get("smoke")
    labels, scores = np.array([1, 0, 1, 0]), np.array([0.9, 0.1, 0.4, 0.6])
    records = ar.figure_records(Provenance(), roc={"Figure 10": {"TF-IDF": (labels, scores)}},
                                runs={"CNN direct": direct, "CNN λ = 0.1": adversarial}, in_domain={"CNN": direct},
                                histogram=(labels, scores),
                                config=adaptation_config(p.question_retrieval, p.adaptation, "cnn"))
    figure8 = {(r.setting, r.metric): r.value for r in records if r.table == "Figure 8"}
    assert figure8 == {("epoch=1", "loss"): 0.9, ("epoch=2", "loss"): 0.5}  # the ranking part alone
    figure12 = {(r.method, r.setting, r.metric): r.value for r in records if r.table == "Figure 12"}
    assert figure12[("CNN λ = 0.1", "epoch=2", "loss")] == 0.8 + 0.69
    assert figure12[("CNN λ = 0.1", "epoch=2", "loss_domain")] == 0.69
    assert ("CNN direct", "epoch=0", "loss") not in figure12  # epoch 0 trains nothing
    figure10 = {r.metric: r.value for r in records if r.table == "Figure 10"}
    assert figure10 == ar.auc_values(labels, scores) and figure10["AUC"] == 0.25  # the meter misses the last strip
