"""What a notebook profile means for the neural question-retrieval runs, and the papers' configurations.

- ``paper``: Lei et al.'s Table 3 sizes and §6 grid (learning rate {1e-3, 3e-4} × dropout {0.1, 0.2, 0.3},
  CNN width {2, 3, 4}), up to 50 epochs with patience 15, 5 seeds; Smolyakov & Srikant's 16 epochs. A GPU job.
- ``cpu``: the same models at a quarter of Table 3's hidden sizes, bodies cut at 50 words instead of 100
  (bodies are most of the cost), one configuration (lr 1e-3, dropout 0.1, width 3), 6 short epochs of
  480 query groups (12 batches of 40) each, 2 seeds: a few minutes per model on 2 cores. Everything else
  (20 negatives, batches of 40 query groups, the loss, the selection on dev MRR) is the paper's.
  The max-pooling CNN learns far more slowly than the rest (notebook 03): it gets a second run of 30 epochs.
- ``smoke``: tiny sizes, bodies cut at 30 words, 2 epochs of 40 query groups, 1 seed: every code path in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from reproq.models.question import QuestionEncoderConfig
from reproq.retrieval.experiment import TrainConfig

TABLE3_HIDDEN = {"lstm": 240, "gru": 280, "cnn": 667, "rcnn": 400}  # Lei et al. Table 3, d
TABLE3_WIDTH = {"cnn": 3, "rcnn": 2}  # Lei et al. Table 3, n
SMOLYAKOV_HIDDEN = {"cnn": 700, "lstm": 128}  # Smolyakov & Srikant Table 6 budgets (see smolyakov_config)


@dataclass(frozen=True)
class Profile:
    name: str
    synthetic: str  # size of the synthetic stand-in (reproq.data.synthetic.profile_config) when data is missing
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


PROFILES = {
    "smoke": Profile("smoke", "smoke", (1,), 0.05, 2, 15, 40, (1e-3,), (0.1,), (3,), 2, max_body_len=30,
                     max_pooling_epochs=3),
    "cpu": Profile("cpu", "cpu", (1, 2), 0.25, 6, 15, 480, (1e-3,), (0.1,), (3,), 6, max_body_len=50,
                   max_pooling_epochs=30),
    "paper": Profile("paper", "paper", (1, 2, 3, 4, 5), 1.0, 50, 15, None, (1e-3, 3e-4), (0.1, 0.2, 0.3),
                     (2, 3, 4), 16),
}


def profile(name: str) -> Profile:
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {name!r}")
    return PROFILES[name]


def _hidden(p: Profile, size: int) -> int:
    return max(4, round(size * p.scale))


def lei_grid(p: Profile, encoder: str, *, pooling: str, fields: str = "title+body",
             epochs: int | None = None) -> list[TrainConfig]:
    """Lei et al.'s configurations of ``encoder`` for one pooling and fields setting: the profile's grid,
    trained for the profile's epochs or ``epochs``."""
    widths = p.cnn_widths if encoder == "cnn" else (None,)
    configs = []
    for lr in p.lrs:
        for dropout in p.dropouts:
            for width in widths:
                settings = {"hidden_dim": _hidden(p, TABLE3_HIDDEN[encoder])}
                if width is not None:
                    settings["width"] = width
                configs.append(TrainConfig(
                    encoder=encoder, encoder_settings=tuple(settings.items()), lr=lr, epochs=epochs or p.epochs,
                    patience=p.patience, max_train_queries=p.max_train_queries, max_body_len=p.max_body_len,
                    question=QuestionEncoderConfig(pooling=pooling, fields=fields, dropout=dropout)))
    return configs


def smolyakov_config(p: Profile, encoder: str) -> TrainConfig:
    """Smolyakov & Srikant's in-domain setting (§3.2, §6.1, Table 3).

    CNN: width 3 and 700 filters (420,700 parameters; the report's 420,600 = 3·200·701 is what 701 width-3
    filters without bias would have: no width/filter count with a bias gives it exactly). LSTM:
    bidirectional, 128 units per direction, torch's two biases (337,920, their count exactly). Mean
    pooling, margin 0.4, 40 negatives, titles cut at 10 words and bodies at 100 (or the profile's shorter
    cut), Adam lr 1e-3 with weight
    decay 1e-5 halved every 4 epochs, 32 queries a batch, 16 epochs. Not reported, so not copied: dropout
    (none here), state normalisation (none: "average pooling"), IDF weights (none), their stop-word list
    (the synthetic stand-in has no English stop words; on real data this is a known difference).
    """
    if encoder == "cnn":
        settings = {"hidden_dim": _hidden(p, SMOLYAKOV_HIDDEN["cnn"]), "width": 3}
    elif encoder == "lstm":
        settings = {"hidden_dim": _hidden(p, SMOLYAKOV_HIDDEN["lstm"]), "bidirectional": True, "one_bias": False}
    else:
        raise ValueError(f"Smolyakov & Srikant trained 'cnn' and 'lstm', not {encoder!r}")
    return TrainConfig(
        encoder=encoder, encoder_settings=tuple(settings.items()), lr=1e-3, weight_decay=1e-5, lr_halve_every=4,
        margin=0.4, l2=0.0, n_negatives=40, queries_per_batch=32, max_title_len=10, max_body_len=min(100, p.max_body_len),
        idf_reweight=False, epochs=p.smolyakov_epochs, patience=p.smolyakov_epochs,
        max_train_queries=p.max_train_queries,
        question=QuestionEncoderConfig(pooling="mean", fields="title+body", normalize_states=False, dropout=0.0))
