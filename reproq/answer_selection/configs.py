"""Tay et al.'s training configurations for answer selection, at a profile's scale.

:func:`tay_configs` gives the configurations of one method on one training set: the profile's one
configuration, or every point of its search grid (the ``paper`` profile: §Implementation Details). What each
profile trains is in :mod:`reproq.profiles` (``profile.answer_selection``).
"""

from __future__ import annotations

import itertools
from dataclasses import fields, replace

from reproq.answer_selection.inputs import AnswerInputs, TrainConfig
from reproq.models.answer_ranker import RankerConfig
from reproq.profiles import AnswerSelection

SETTING_NAMES = {"train": "TRAIN", "train-all": "TRAIN-ALL"}  # Tay et al. Table 6's column names
PAPER_MODELS = ("QRNN", "CTRN")  # the models Tay et al. are about: profile.answer_selection.seeds (the others: baseline_seeds)


def tay_configs(p: AnswerSelection, data: AnswerInputs, method: str, train_split: str = "train", *,
                ranker: dict | None = None) -> list[TrainConfig]:
    """``method`` trained on ``train_split`` of ``data`` with the profile's sizes and epochs (per TrecQA training
    set, or per dataset elsewhere), one configuration per point of the profile's grid (one without a grid);
    ``ranker`` overrides :class:`RankerConfig` fields after the profile's (an ablation's choice)."""
    ranker = RankerConfig(**{"method": method, "n_features": data.n_features, **p.ranker, **(ranker or {})})
    base = TrainConfig(ranker=ranker, train_split=train_split,
                       **p.train[train_split if data.dataset == "trecqa" else data.dataset])
    ranker_fields = {f.name for f in fields(RankerConfig)}
    configs = []
    for values in itertools.product(*p.grid.values()):
        point = dict(zip(p.grid, values))
        configs.append(replace(base, ranker=replace(ranker, **{k: v for k, v in point.items() if k in ranker_fields}),
                               **{k: v for k, v in point.items() if k not in ranker_fields}))
    return configs
