"""The papers' training configurations for question retrieval, at a profile's scale.

:func:`lei_grid` is Lei et al.'s §6 grid for one encoder (learning rate × dropout, and CNN width), at the
hidden sizes of Table 3 scaled by the profile; :func:`smolyakov_config` is Smolyakov & Srikant's in-domain
setting. What each profile trains is in :mod:`reproq.profiles` (``profile.question_retrieval``).
"""

from __future__ import annotations

from dataclasses import replace

from reproq.models import encoder_config
from reproq.models.question import QuestionEncoderConfig
from reproq.models.bow_cnn import BOWCNNConfig
from reproq.profiles import Adaptation, DosSantos, QuestionRetrieval, Rankine
from reproq.question_retrieval.full_collection_training import DosSantosConfig
from reproq.question_retrieval.inputs import PretrainConfig, TrainConfig

LEI_ENCODERS = ("lstm", "gru", "cnn", "rcnn")  # Lei et al. Table 3's rows
TABLE3_HIDDEN = {name: encoder_config(name).hidden_dim for name in LEI_ENCODERS}  # d: the configs' defaults
TABLE3_WIDTH = {"cnn": encoder_config("cnn").width, "rcnn": encoder_config("rcnn").order}  # n: the configs' defaults
SMOLYAKOV_HIDDEN = {"cnn": 700, "lstm": 128}  # Smolyakov & Srikant Table 6 budgets (see smolyakov_config)
DOS_SANTOS_UNITS = {"CNN": 1_000, "BOW-CNN": 400}  # dos Santos et al. Table 2: convolutional units
DOS_SANTOS_LR = {"CNN": 0.05, "BOW-CNN": 0.01}  # Table 2: learning rates
SMOLYAKOV_TABLE4_FILTERS = 250  # Smolyakov & Srikant Table 4: "Kernel size [2-6] x 250" (1,250 output channels)


def _hidden(p: QuestionRetrieval, size: int) -> int:
    return max(4, round(size * p.scale))


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
                settings = {"hidden_dim": _hidden(p, TABLE3_HIDDEN[encoder])}
                if width is not None:
                    settings["width"] = width
                configs.append(TrainConfig(
                    encoder=encoder, encoder_settings=tuple(settings.items()), lr=lr, epochs=epochs or p.epochs,
                    patience=p.patience, max_train_queries=p.max_train_queries, max_body_len=p.max_body_len,
                    question=QuestionEncoderConfig(pooling=pooling, fields=fields, dropout=dropout),
                    pretrain=PretrainConfig(**p.pretraining) if pretrain else None))
    return configs


def smolyakov_config(p: QuestionRetrieval, encoder: str) -> TrainConfig:
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


def adaptation_config(p: QuestionRetrieval, a: Adaptation, encoder: str, *, adversarial: bool = False) -> TrainConfig:
    """Smolyakov & Srikant's Experiment 2 setting with the adaptation profile's budget: direct transfer on the
    in-domain networks of :func:`smolyakov_config` (Table 3); adversarial runs on the same networks or, when the
    profile asks for ``a.table4``, on Table 4's: a CNN of 1,250 filters, 250 for each width 2–6, and a
    one-directional LSTM of 128 (sizes scaled by the profile). Table 4's 300-d inputs are not available here: every
    network reads the corpus's word vectors (AskUbuntu's are 200-d)."""
    config = replace(smolyakov_config(p, encoder), **a.train)
    if not (adversarial and a.table4):
        return config
    settings = dict(config.encoder_settings)
    if encoder == "cnn":
        widths = (2, 3, 4, 5, 6)
        settings.update(hidden_dim=len(widths) * _hidden(p, SMOLYAKOV_TABLE4_FILTERS), width=widths)
    else:
        settings.update(bidirectional=False)
    return replace(config, encoder_settings=tuple(settings.items()))


def dos_santos_configs(d: DosSantos, fields: str) -> dict[str, DosSantosConfig]:
    """dos Santos et al. Tables 3 and 4's two networks for ``fields`` ("title" or "title+body"): CNN alone and
    BOW-CNN (t from IDF, learned), Table 2's units (scaled by the profile) and learning rates."""
    return {name: DosSantosConfig(model=BOWCNNConfig(conv_units=max(4, round(units * d.scale)), bow=name == "BOW-CNN"),
                                  fields=fields, lr=DOS_SANTOS_LR[name], **d.train)
            for name, units in DOS_SANTOS_UNITS.items()}


def table5_configs(d: DosSantos, fields: str) -> dict[str, DosSantosConfig]:
    """dos Santos et al. Table 5's starts of BOW-CNN's word weights t, keyed as the paper's settings: IDF learned (the
    Tables 3–4 network), IDF frozen, ones learned."""
    bow_cnn = dos_santos_configs(d, fields)["BOW-CNN"]
    return {f"{fields}; t_init={'IDF' if start == 'idf' else start}; t_updated={'yes' if learned else 'no'}":
            replace(bow_cnn, model=replace(bow_cnn.model, t_init=start, train_t=learned))
            for start, learned in (("idf", True), ("idf", False), ("ones", True))}


def rankine_grid(r: Rankine) -> dict[str, list[TrainConfig]]:
    """:func:`rankine_configs` with each of the profile's learning rates (his §6.3 grid; dev MRR chooses)."""
    return {name: [replace(config, lr=lr) for lr in r.lrs] for name, config in rankine_configs(r).items()}


def rankine_configs(r: Rankine) -> dict[str, TrainConfig]:
    """Rankine's Table 1 networks (§3.2, §4, §5.1, §6.3), keyed by his row names, at the profile's scale and budget.

    Shared, as his §6.3 and §5.2 say: Adam; 20 sampled negatives; 16 query groups a batch ("8 and 16 worked pretty
    well"); Adam at 1e-3 (:func:`rankine_grid` searches his learning rates); a margin of 0.05 (his 0.01–0.05: "low margins ... prevented overfitting"); bodies cut at 40 words (his
    clip); the title and the body through encoders of their own with a learned β (his "immediate modification ... to
    get decent results"); fixed word vectors, no IDF scaling, no state normalisation, dropout 0.1 (his Lei-range
    search; he found lower better with bodies). Not reported, so not copied: the epochs. Weighted CBOW is the free weight per word (his first form); "Weighted CBOW (MLP)", the
    MLP-parameterised weights he also proposes, is not in his table; nor is the GRU with β from an MLP of both
    questions' title and body vectors (his §5.2 equation, which he did not run).
    """
    common = dict(lr=1e-3, margin=0.05, l2=0.0, n_negatives=20, queries_per_batch=16, max_body_len=40,
                  idf_reweight=False, separate_fields=True, **r.train)
    question = QuestionEncoderConfig(pooling="mean", normalize_states=False, dropout=0.1)
    hidden = {"gru": max(4, round(280 * r.scale)), "cnn": max(4, round(700 * r.scale))}
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
