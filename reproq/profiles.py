"""The three notebook profiles: what ``smoke``, ``cpu`` and ``paper`` mean for what the papers share.

A :class:`Profile` holds the synthetic stand-in's size, the lexical baselines and the speed benchmarks; each paper
declares its own settings at each profile in its module (``SECTION`` and ``PROFILES`` in
:mod:`reproq.papers.lei2016`, ...), and :func:`reproq.papers.profile` puts them in ``Profile.sections``, so a notebook
reads ``profile.section("question_retrieval")`` and never branches on the profile's name. The papers' own settings
are not repeated: they are the defaults of the configs (``reproq.models`` encoder configs hold Lei et al.'s Table 3
sizes, ``answer_selection.inputs.TrainConfig`` Tay et al.'s epochs); a profile only says how far to shrink them.

- ``smoke``: every code path in seconds (the tests and CI).
- ``cpu``: the whole pipeline on a 2-core laptop; meaningful numbers on the real data present.
- ``paper``: the papers' sizes, epochs, search grids and 5 seeds; a GPU job.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

import pydantic

from reproq.synthetic import SyntheticConfig


class Overrides(dict):
    """The fields of a config class that a profile changes, checked against the class where the profile is written: a
    name the class does not have, or a value its annotation does not admit (pydantic in strict mode: :func:`_admits`),
    is a TypeError when the paper's module is imported, not a surprise when a run starts. It reads as the dict of those fields (``replace(config, **overrides)``)
    and cannot be changed.

    >>> from reproq.question_retrieval.inputs import TrainConfig
    >>> Overrides(TrainConfig, epochs=4, max_train_queries=240)
    Overrides(TrainConfig, epochs=4, max_train_queries=240)
    >>> Overrides(TrainConfig, epoch=4)
    Traceback (most recent call last):
    TypeError: TrainConfig has no field 'epoch' (a profile's override names one of its fields: ...)
    >>> Overrides(TrainConfig, epochs="4")
    Traceback (most recent call last):
    TypeError: TrainConfig.epochs is int, the profile's override '4' is str
    >>> Overrides(TrainConfig, encoder_settings=(1, 2, 3))  # the items are checked too (pydantic, strict)
    Traceback (most recent call last):
    TypeError: TrainConfig.encoder_settings is tuple[tuple[str, object], ...], the profile's override (1, 2, 3) is tuple
    """

    def __init__(self, of: type, /, **values):
        hints = typing.get_type_hints(of)
        names = [f.name for f in fields(of)]
        for name, value in values.items():
            if name not in names:
                raise TypeError(f"{of.__name__} has no field {name!r} (a profile's override names one of its fields: "
                                f"{', '.join(names)})")
            if not _admits(hints[name], value):
                raise TypeError(f"{of.__name__}.{name} is {_spelled(hints[name])}, the profile's override {value!r} is "
                                f"{type(value).__name__}")
        super().__init__(values)
        self.of = of

    def __repr__(self) -> str:
        return f"Overrides({self.of.__name__}{''.join(f', {k}={v!r}' for k, v in self.items())})"

    def __hash__(self) -> int:  # read-only, so a profile section can hold it as a default
        return hash((self.of, tuple(sorted(self.items()))))

    def __reduce__(self):
        return _overrides, (self.of, dict(self))

    def _read_only(self, *args, **kwargs):
        raise TypeError("a profile's overrides cannot be changed: write another profile")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _read_only


def _overrides(of: type, values: dict) -> Overrides:
    return Overrides(of, **values)


def _admits(annotation, value) -> bool:
    """Whether ``value`` is of the type ``annotation`` names, checked whole by pydantic in strict mode (nothing
    coerced: ``"4"`` is no int, a bool is no int, an int is a float; a tuple's items are checked too:
    ``tuple[tuple[str, object], ...]`` refuses ``(1, 2, 3)``)."""
    try:
        _adapter(annotation).validate_python(value, strict=True)
    except pydantic.ValidationError:
        return False
    return True


@functools.cache
def _adapter(annotation) -> pydantic.TypeAdapter:
    return pydantic.TypeAdapter(annotation)


def _spelled(annotation) -> str:
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)


@dataclass(frozen=True, kw_only=True)
class Lexical:
    tfidf_ngrams: tuple[int, ...] = (1, 2, 3)  # Lei et al. §6: n-gram order 1 to 3


@dataclass(frozen=True, kw_only=True)
class Benchmarks:
    encoders: dict  # reproq.bench.encoders: questions per batch, title and body tokens, repeats
    pretraining: dict  # reproq.bench.pretraining: pairs per step, title and context words, repeats (vocabulary)
    answer_ranking: dict  # reproq.bench.answer_ranking: ranker sizes, batch size, warm-up and timed batches
    full_collection: dict  # reproq.bench.full_collection: collection and query counts, lengths, block, BOW-CNN units
    threads: dict  # reproq.bench.threads: the LSTM training step timed at each thread count (batch, length, d, steps)


@dataclass(frozen=True, kw_only=True)
class Profile:
    """What a profile means for what the papers share (the stand-in's size, the lexical baselines, the benchmarks),
    and each paper's own settings at it (``sections``, declared in the paper's module: :func:`reproq.papers.profile`
    fills them)."""

    name: str
    synthetic: Overrides  # SyntheticConfig's settings changed: the stand-in's size when a corpus is missing
    lexical: Lexical
    bench: Benchmarks
    sections: Mapping[str, object] = field(default_factory=dict)  # section name -> a paper's settings at this profile

    def synthetic_config(self, domain: str = "askubuntu", seed: int = 0, **overrides) -> SyntheticConfig:
        """The synthetic stand-in of ``domain`` at this profile's size, with ``overrides`` of its structure (e.g.
        :data:`reproq.synthetic.KEY_PHRASES`)."""
        return SyntheticConfig(domain=domain, seed=seed, **{**self.synthetic, **overrides})

    def section(self, name: str):
        """A paper's settings at this profile (``"question_retrieval"``: Lei et al.'s, :mod:`reproq.papers.lei2016`);
        ValueError naming the sections there are."""
        if name not in self.sections:
            raise ValueError(f"no profile section {name!r}; there are: {', '.join(sorted(self.sections)) or 'none'} "
                             "(a paper module declares its own: SECTION and PROFILES)")
        return self.sections[name]


_FIGURE3_SIZES = dict(projection_dim=300, hidden_dim=800, mlp_dim=128)  # Tay et al. Figure 3: d = 800
# dos Santos et al.'s AskUbuntu: 167,765 questions; title + body about 50 words once cut (Lei et al. cut bodies at 100);
# 1,000 queries in blocks of 128 ([128, N] float64 scores: 172 MB); BOW-CNN's 400 convolutional units (Table 2)
_FULL_COLLECTION = dict(documents=167_765, mean_length=50, vocabulary=100_000, queries=1_000, block=128, conv_units=400,
                        repeats=3)

PROFILES = {
    "smoke": Profile(
        name="smoke", synthetic=Overrides(SyntheticConfig), lexical=Lexical(tfidf_ngrams=(1, 2)),
        bench=Benchmarks(encoders=dict(questions=8, title_len=5, body_len=12, repeats=1),
                         pretraining=dict(pairs=4, title_len=3, body_len=6, repeats=1, vocabulary=500),
                         answer_ranking=dict(projection_dim=16, hidden_dim=16, mlp_dim=16, batch_size=32, warmup=1,
                                             timed=2),
                         full_collection=dict(documents=3_000, mean_length=20, vocabulary=2_000, queries=50,
                                              block=16, conv_units=16, repeats=1),
                         threads=dict(batch=8, length=6, hidden=8, steps=2))),
    "cpu": Profile(
        name="cpu", synthetic=Overrides(SyntheticConfig, n_questions=20_000, n_intents=4_000, n_train_queries=4_000,
                                        n_dev_queries=200, n_test_queries=200, n_heldout=1_000),
        lexical=Lexical(),
        # the encoder benchmark's batch is a realistic training batch: 40 query groups x 22 questions
        bench=Benchmarks(encoders=dict(questions=880, title_len=10, body_len=100, repeats=5),
                         # a quarter of pt/main.py's 256 pairs: the full softmax over 100K words is 1 GB at 64
                         pretraining=dict(pairs=64, title_len=10, body_len=100, repeats=5),
                         answer_ranking=dict(**_FIGURE3_SIZES, batch_size=128, warmup=2, timed=20),
                         full_collection=_FULL_COLLECTION,
                         # about one cpu-profile batch: 40 query groups of ~22 questions' titles and 50-word bodies
                         threads=dict(batch=880, length=50, hidden=60, steps=20))),
    "paper": Profile(
        name="paper", synthetic=Overrides(SyntheticConfig, n_questions=60_000, n_intents=12_000, n_train_queries=12_000,
                                          n_dev_queries=200, n_test_queries=200, n_heldout=2_000),
        lexical=Lexical(),
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

    >>> get("cpu").lexical.tfidf_ngrams
    (1, 2, 3)
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
