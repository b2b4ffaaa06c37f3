"""The three notebook profiles in one table: what ``smoke``, ``cpu`` and ``paper`` mean for every part.

A :class:`Profile` has a section per part of the study — the synthetic stand-in's size, the lexical
baselines, question retrieval (Lei et al., Smolyakov & Srikant), answer selection (Tay et al.) and the
two speed benchmarks — so a notebook reads ``profile.<part>`` and never branches on the profile's name.
The papers' own settings are not repeated here: they are the defaults of the configs (``reproq.models``
encoder configs hold Lei et al.'s Table 3 sizes, ``answer_selection.inputs.TrainConfig`` Tay et al.'s
epochs); a profile only says how far to shrink them.

- ``smoke``: every code path in seconds (the tests and CI).
- ``cpu``: the whole pipeline on a 2-core laptop; meaningful numbers on the real data present.
- ``paper``: the papers' sizes, epochs, search grids and 5 seeds; a GPU job.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reproq.synthetic import SyntheticConfig


@dataclass(frozen=True)
class Lexical:
    tfidf_ngrams: tuple[int, ...] = (1, 2, 3)  # Lei et al. §6: n-gram order 1 to 3


@dataclass(frozen=True)
class QuestionRetrieval:
    """Neural question retrieval on AskUbuntu (:func:`reproq.papers.lei2016.lei_grid` and the other papers' configurations turn it into runs)."""

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
    pretraining: dict = field(default_factory=dict)  # PretrainConfig overrides (Lei et al. §4.2; {}: the paper's)
    table4_pretrained: bool = True  # fine-tune pre-trained encoders with both poolings (Table 4), not only Table 2's


@dataclass(frozen=True)
class Adaptation:
    """Smolyakov & Srikant's AskUbuntu → Android experiments (:mod:`reproq.question_retrieval.adaptation`)."""

    seeds: tuple[int, ...]
    lambdas: tuple[float, ...]  # λ of the adversarial runs, chosen on Android dev (λ = 0, direct transfer, always runs)
    train: dict  # TrainConfig overrides of Smolyakov & Srikant's setting (configs.smolyakov_config)
    doc2vec_epochs: int = 64  # §6.3
    target_dev_queries: int | None = None  # Android dev queries that choose the epoch (None: all 1,145)
    target_test_queries: int | None = None  # Android test queries reported (None: all 1,148; smoke: a few)
    table4: bool = False  # adversarial runs on Table 4's networks (else on Table 3's, as direct transfer)


@dataclass(frozen=True)
class DosSantos:
    """dos Santos et al.'s full-collection retrieval (:mod:`reproq.question_retrieval.full_collection_training`)."""

    seeds: tuple[int, ...]
    valid_queries: int  # Table 1: 1,991 validation queries (AskUbuntu)
    test_queries: int  # Table 1: 3,800 test queries
    scale: float  # convolution units relative to Table 2's (BOW-CNN 400, CNN alone 1,000)
    train: dict  # DosSantosConfig overrides (epochs, max_train_pairs, ...)


@dataclass(frozen=True)
class Rankine:
    """Rankine's CS287 models on AskUbuntu (:func:`reproq.papers.rankine2016.rankine_configs`)."""

    seeds: tuple[int, ...]
    scale: float  # the GRU's and CNN's hidden sizes relative to his Table 1 (280, 700)
    train: dict  # TrainConfig overrides (epochs, max_train_queries, ...)
    lrs: tuple[float, ...] = (5e-3, 1e-3, 3e-4, 1e-5)  # his §6.3 grid (Adam), chosen on dev MRR


@dataclass(frozen=True)
class AnswerSelection:
    """Tay et al.'s rankers (:func:`reproq.papers.tay2018.tay_configs` turns it into runs)."""

    seeds: tuple[int, ...]  # the two models the paper is about, QRNN and CTRN
    baseline_seeds: tuple[int, ...]  # every other model (LSTM, AP-CNN, AP-BiLSTM)
    ranker: dict  # RankerConfig overrides
    train: dict[str, dict]  # TrainConfig overrides per training set ("train", "train-all") or dataset
    w2v_epochs: int = 5
    grid: dict = field(default_factory=dict)  # RankerConfig / TrainConfig field -> values, searched on DEV
    limit: int | None = None  # the first questions of each split only (smoke: every code path, in seconds)


@dataclass(frozen=True)
class Benchmarks:
    encoders: dict  # reproq.bench.encoders: questions per batch, title and body tokens, repeats
    pretraining: dict  # reproq.bench.pretraining: pairs per step, title and context words, repeats (vocabulary)
    answer_ranking: dict  # reproq.bench.answer_ranking: ranker sizes, batch size, warm-up and timed batches
    full_collection: dict  # reproq.bench.full_collection: collection and query counts, lengths, block, BOW-CNN units
    threads: dict  # reproq.bench.threads: the LSTM training step timed at each thread count (batch, length, d, steps)


@dataclass(frozen=True)
class Profile:
    name: str
    synthetic: dict  # SyntheticConfig overrides: the stand-in's size when a corpus is missing
    lexical: Lexical
    question_retrieval: QuestionRetrieval
    adaptation: Adaptation
    dos_santos: DosSantos
    rankine: Rankine
    answer_selection: AnswerSelection
    bench: Benchmarks

    def synthetic_config(self, domain: str = "askubuntu", seed: int = 0, **overrides) -> SyntheticConfig:
        """The synthetic stand-in of ``domain`` at this profile's size, with ``overrides`` of its structure (e.g.
        :data:`reproq.synthetic.KEY_PHRASES`)."""
        return SyntheticConfig(domain=domain, seed=seed, **{**self.synthetic, **overrides})


_FIGURE3_SIZES = dict(projection_dim=300, hidden_dim=800, mlp_dim=128)  # Tay et al. Figure 3: d = 800
# dos Santos et al.'s AskUbuntu: 167,765 questions; title + body about 50 words once cut (Lei et al. cut bodies at 100);
# 1,000 queries in blocks of 128 ([128, N] float64 scores: 172 MB); BOW-CNN's 400 convolutional units (Table 2)
_FULL_COLLECTION = dict(documents=167_765, mean_length=50, vocabulary=100_000, queries=1_000, block=128, conv_units=400,
                        repeats=3)
TAY_GRID = {  # Tay et al. §Implementation Details
    "hidden_dim": list(range(128, 1025, 128)), "mlp_layers": [1, 2, 3],
    "lr": [1e-3, 1e-4, 1e-5], "batch_size": [64, 128, 256, 512],
}

PROFILES = {
    "smoke": Profile(
        "smoke", synthetic={}, lexical=Lexical(tfidf_ngrams=(1, 2)),
        # tiny sizes, bodies cut at 30 words, 2 epochs of 40 query groups, 1 seed
        question_retrieval=QuestionRetrieval((1,), 0.05, 2, 15, 40, (1e-3,), (0.1,), (3,), 2, max_body_len=30,
                                             max_pooling_epochs=3,
                                             pretraining={"epochs": 2, "batch_size": 32, "max_pairs": 64}),
        adaptation=Adaptation(seeds=(1,), lambdas=(1e-3,), train={"epochs": 1, "max_train_queries": 20},
                              doc2vec_epochs=2, target_dev_queries=40, target_test_queries=40, table4=True),
        dos_santos=DosSantos(seeds=(1,), valid_queries=10, test_queries=20, scale=0.02,
                             train={"epochs": 1, "max_train_pairs": 40}),
        rankine=Rankine(seeds=(1,), scale=0.05, train={"epochs": 1, "max_train_queries": 40}, lrs=(1e-3,)),
        answer_selection=AnswerSelection(
            seeds=(1,), baseline_seeds=(1,), ranker={"projection_dim": 16, "hidden_dim": 16, "mlp_dim": 16},
            train={s: {"epochs": 1, "batch_size": 32, "max_batches": 3}
                   for s in ("train", "train-all", "semeval2016", "wikiqa")},
            w2v_epochs=1, limit=12),
        bench=Benchmarks(encoders=dict(questions=8, title_len=5, body_len=12, repeats=1),
                         pretraining=dict(pairs=4, title_len=3, body_len=6, repeats=1, vocabulary=500),
                         answer_ranking=dict(projection_dim=16, hidden_dim=16, mlp_dim=16, batch_size=32, warmup=1,
                                             timed=2),
                         full_collection=dict(documents=3_000, mean_length=20, vocabulary=2_000, queries=50,
                                              block=16, conv_units=16, repeats=1),
                         threads=dict(batch=8, length=6, hidden=8, steps=2))),
    "cpu": Profile(
        "cpu", synthetic=dict(n_questions=20_000, n_intents=4_000, n_train_queries=4_000, n_dev_queries=200,
                              n_test_queries=200, n_heldout=1_000),
        lexical=Lexical(),
        # a quarter of Table 3's hidden sizes, bodies cut at 50 words, one configuration (lr 1e-3, dropout 0.1,
        # width 3), 6 epochs of 480 query groups, 2 seeds; the max-pooling CNN gets a second run of 30 epochs;
        # pre-training: 6 epochs of 8,000 (context, title) pairs (the cpu stand-in has about 34,000), fine-tuned with
        # Table 2's pooling only (both poolings, Table 4, would double notebook 08's 20 minutes)
        question_retrieval=QuestionRetrieval((1, 2), 0.25, 6, 15, 480, (1e-3,), (0.1,), (3,), 6, max_body_len=50,
                                             max_pooling_epochs=30, pretraining={"epochs": 6, "max_pairs": 8000},
                                             table4_pretrained=False),
        # half the grid's smallest filter count, no search; 5 seeds for QRNN and CTRN, 3 for the other models (a
        # "QRNN > LSTM" verdict on one seed rests on that seed; with 3, AP-BiLSTM is about a third of notebook 04);
        # TRAIN: the paper's 25 epochs (patience 5); TRAIN-ALL: 3 epochs of 200 batches of 128 (1.5 passes over
        # TRAIN-ALL in all; the paper: 5 passes); QatarLiving and WikiQA: fewer epochs
        # 2 seeds (a "model A beats model B" sentence on one seed rests on that seed), 4 epochs of 240 AskUbuntu
        # queries, λ in {0.1, 1e-3}, 300 Android dev queries choose the epoch
        adaptation=Adaptation(seeds=(1, 2), lambdas=(1e-1, 1e-3), train={"epochs": 4, "max_train_queries": 240},
                              doc2vec_epochs=16, target_dev_queries=300),
        # Table 1's share of the collection as queries (3,800 test and 1,991 validation of 167,765 questions)
        dos_santos=DosSantos(seeds=(1, 2), valid_queries=240, test_queries=450, scale=0.25,
                             train={"epochs": 5, "max_train_pairs": 2_000}),
        # as question_retrieval: a quarter of the hidden sizes, 6 epochs of 480 query groups; the two largest
        # learning rates of his grid, 2 seeds (about 8 minutes)
        rankine=Rankine(seeds=(1, 2), scale=0.25, train={"epochs": 6, "max_train_queries": 480}, lrs=(5e-3, 1e-3)),
        answer_selection=AnswerSelection(
            seeds=(1, 2, 3, 4, 5), baseline_seeds=(1, 2, 3),
            ranker={"projection_dim": 50, "hidden_dim": 64, "mlp_dim": 64},
            train={"train": {"epochs": 25, "batch_size": 64},
                   "train-all": {"epochs": 3, "batch_size": 128, "max_batches": 200},
                   "semeval2016": {"epochs": 8, "batch_size": 64},
                   "wikiqa": {"epochs": 6, "batch_size": 64}}),
        # the encoder benchmark's batch is a realistic training batch: 40 query groups x 22 questions
        bench=Benchmarks(encoders=dict(questions=880, title_len=10, body_len=100, repeats=5),
                         # a quarter of pt/main.py's 256 pairs: the full softmax over 100K words is 1 GB at 64
                         pretraining=dict(pairs=64, title_len=10, body_len=100, repeats=5),
                         answer_ranking=dict(**_FIGURE3_SIZES, batch_size=128, warmup=2, timed=20),
                         full_collection=_FULL_COLLECTION,
                         # about one cpu-profile batch: 40 query groups of ~22 questions' titles and 50-word bodies
                         threads=dict(batch=880, length=50, hidden=60, steps=20))),
    "paper": Profile(
        "paper", synthetic=dict(n_questions=60_000, n_intents=12_000, n_train_queries=12_000, n_dev_queries=200,
                                n_test_queries=200, n_heldout=2_000),
        lexical=Lexical(),
        # Lei et al.'s Table 3 sizes and §6 grid (lr {1e-3, 3e-4} x dropout {0.1, 0.2, 0.3}, CNN width {2, 3, 4}),
        # up to 50 epochs with patience 15, 5 seeds; Smolyakov & Srikant's 16 epochs
        question_retrieval=QuestionRetrieval((1, 2, 3, 4, 5), 1.0, 50, 15, None, (1e-3, 3e-4), (0.1, 0.2, 0.3),
                                             (2, 3, 4), 16),
        # Tay et al.: 25 epochs (TRAIN) and 5 (TRAIN-ALL), the search grid
        # Table 4's λ (1e-6 CNN, 1e-7 LSTM) among the sweep of §7 (1e-3 .. 1e-7), and a strong 0.1 beside it
        adaptation=Adaptation(seeds=(1, 2, 3, 4, 5), lambdas=(1e-1, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7), train={},
                              table4=True),
        dos_santos=DosSantos(seeds=(1, 2, 3, 4, 5), valid_queries=1_991, test_queries=3_800, scale=1.0, train={}),
        rankine=Rankine(seeds=(1, 2, 3, 4, 5), scale=1.0, train={}),
        answer_selection=AnswerSelection(
            seeds=(1, 2, 3, 4, 5), baseline_seeds=(1, 2, 3, 4, 5), ranker={},
            train={"train": {"epochs": 25}, "train-all": {"epochs": 5}, "semeval2016": {"epochs": 25},
                   "wikiqa": {"epochs": 25}},
            w2v_epochs=20, grid=TAY_GRID),
        bench=Benchmarks(encoders=dict(questions=880, title_len=10, body_len=100, repeats=5),
                         pretraining=dict(pairs=256, title_len=10, body_len=100, repeats=5),  # pt/main.py --batch_size
                         answer_ranking=dict(**_FIGURE3_SIZES, batch_size=128, warmup=2, timed=None),
                         full_collection=_FULL_COLLECTION, threads=dict(batch=880, length=100, hidden=240, steps=8))),
}


def check_seeds(seeds) -> None:
    """ValueError, one sentence, where ``seeds`` names a seed more than once (a mean and an interval over the seeds
    would count that run twice)."""
    twice = sorted({str(s) for s in seeds if list(seeds).count(s) > 1})
    if twice:
        raise ValueError(f"SEEDS names seed {', '.join(twice)} more than once: a mean and an interval over the seeds "
                         "would count its run twice")


def get(name: str) -> Profile:
    """The profile called ``name``; ValueError naming the known ones otherwise.

    >>> get("cpu").question_retrieval.seeds
    (1, 2)
    """
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {name!r}")
    return PROFILES[name]


def scaled(size: int, scale: float) -> int:
    """A paper's layer size at a profile's ``scale`` (a section's ``scale``), never below 4.

    >>> scaled(400, 1.0), scaled(400, 0.25), scaled(10, 0.01)
    (400, 100, 4)
    """
    return max(4, round(size * scale))
