"""What a question-retrieval run reads: its configuration, the data as ids, and the model it builds.

:class:`TrainConfig` (defaults: Lei et al.'s RCNN) with :class:`PretrainConfig` (Lei et al. §4.2, when it starts from a
pre-trained encoder); :func:`prepare` turns a :class:`~reproq.data.askubuntu.QuestionRetrievalData` into
:class:`RetrievalInputs` (ids, vectors, IDF weights; with a target domain, :class:`Target`); :func:`build_model`,
:func:`cut_corpus`, :func:`source_batches` and :func:`checkpoint_key` are what every run of the task shares
(:mod:`.run`, :mod:`.pretrain`, :mod:`.adaptation`). ``answer_selection.inputs`` is its sibling.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from reproq.data.askubuntu import EvalQuery, QuestionRetrievalData
from reproq.data.vocab import Vocabulary, embedding_matrix, idf_weights
from reproq.models import FAMILY_MODULES, build_encoder, encoder_module
from reproq.models.embedding import TokenEncoder, WordEmbedding
from reproq.models.question import QuestionEncoder, QuestionEncoderConfig, QuestionRanker, SeparateFieldsEncoder
from reproq.question_retrieval.batches import (EncodedCorpus, TrainGroup, encode_corpus, training_batches,
                                               training_groups)
from reproq.train import checkpoint

CONTEXTS = ("title", "body")


@dataclass(frozen=True)
class PretrainConfig:
    """What pre-training adds to a fine-tuning configuration (whose network, learning rate, dropout, L2, body
    length and IDF weights it shares); defaults are taolei87/rcnn ``pt/main.py``'s."""

    epochs: int = 40  # pt/main.py --max_epoch 40
    patience: int = 15  # pt/main.py: stops after 15 epochs without a better dev MRR (here: held-out perplexity)
    batch_size: int = 256  # pt/main.py --batch_size 256 (pairs a batch)
    contexts: tuple[str, ...] = CONTEXTS  # Lei et al. §4.2 (a) the title, (b) the body; --use_title/--use_body 1
    similar_pairs: bool = True  # §4.2 (c) the title/body of a similar question; --use_anno 1
    max_pairs: int | None = None  # a cheaper epoch: only this many pairs (None: all)
    released: bool = False  # no pre-training here: start from the authors' released RCNN (taolei87/rcnn)

    def __post_init__(self):
        if not self.contexts or set(self.contexts) - set(CONTEXTS):
            raise ValueError(f"contexts must be a non-empty subset of {CONTEXTS}, got {self.contexts!r}")


@dataclass(frozen=True)
class TrainConfig:
    """One training configuration; defaults are Lei et al.'s RCNN (and taolei87/rcnn ``qa/main.py``)."""

    encoder: str = "rcnn"
    encoder_settings: tuple[tuple[str, object], ...] = ()  # overrides of the encoder config, e.g. (("hidden_dim", 100),)
    question: QuestionEncoderConfig = QuestionEncoderConfig()
    lr: float = 1e-3  # Adam; Lei et al. §6 grid {1e-3, 3e-4}; qa/main.py --learning_rate 0.001
    weight_decay: float = 0.0  # Smolyakov & Srikant: 1e-5; Lei et al. use the L2 term below instead
    lr_halve_every: int | None = None  # Smolyakov & Srikant §7.1: "halved every 4 epochs"
    margin: float = 1.0  # δ; qa/main.py hard-codes 1.0 (Smolyakov & Srikant: 0.4)
    l2: float = 1e-5  # qa/main.py --l2_reg 0.00001, on Σ‖θ‖₂
    n_negatives: int = 20  # Lei et al. §6: "We randomly sample 20 questions as negative examples ... each epoch"
    queries_per_batch: int = 40  # qa/main.py --batch_size 40 (query groups per batch)
    max_title_len: int | None = None  # Smolyakov & Srikant: 10
    max_body_len: int | None = 100  # Lei et al. footnote 5
    idf_reweight: bool = True  # qa/main.py --reweight 1: word vectors scaled by IDF
    epochs: int = 50  # qa/main.py --max_epoch 50
    patience: int = 15  # qa/main.py stops after 15 epochs without a better dev MRR
    max_train_queries: int | None = None  # a cheaper epoch: only this many query groups (None: all)
    pretrain: PretrainConfig | None = None  # Lei et al. §4.2: start from a pre-trained encoder (None: random init)
    learn_word_weights: bool = False  # Rankine §5.1: a learned weight λ_w >= 0 per word on the fixed vectors
    separate_fields: bool = False  # Rankine §5.2: title and body through encoders of their own, β learned
    beta_gate: str = "scalar"  # with separate_fields: one β ("scalar"), or β of each pair from an MLP ("mlp")

    def learning_rate(self, epoch: int) -> float:
        """The learning rate of ``epoch`` (from 1): ``lr``, halved every ``lr_halve_every`` epochs when set."""
        return self.lr * 0.5 ** ((epoch - 1) // self.lr_halve_every) if self.lr_halve_every else self.lr

    def label(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.encoder_settings)
        return f"{self.encoder}({settings}) {self.question.pooling} {self.question.fields} lr={self.lr} " \
               f"dropout={self.question.dropout}" + (" + pre-train" if self.pretrain else "") + \
               (" learned word weights" if self.learn_word_weights else "") + \
               (f" separate title/body encoders, {self.beta_gate} β" if self.separate_fields else "")


@dataclass(frozen=True)
class Target:
    """The target domain as the encoder reads it: the corpus as ids (the source's vocabulary), its pairs."""

    corpus: EncodedCorpus
    dev: list[EvalQuery]
    test: list[EvalQuery]
    synthetic: bool
    provenance: dict[str, str]


def prepare_target(target: QuestionRetrievalData, vocab) -> Target:
    """``target`` (Android) on ``vocab`` (see :func:`prepare` with ``target=``)."""
    return Target(encode_corpus(target.corpus, vocab, max_body_len=None), target.dev, target.test, target.synthetic,
                  target.provenance)


@dataclass(frozen=True)
class PretrainingInputs:
    """The pre-training texts as the encoder–decoder reads them (:class:`~reproq.data.askubuntu.PretrainingCorpus`
    on the retrieval vocabulary)."""

    corpus: EncodedCorpus
    pairs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RetrievalInputs:
    """A question-retrieval dataset as the encoders read it (:func:`prepare`): the vocabulary, its word vectors and
    IDF weights, the corpus as ids, the training groups, the dev and test queries, and where it came from."""

    vocab: Vocabulary
    vectors: np.ndarray  # float32 [V, E], rows on vocab ids
    idf: np.ndarray  # float32 [V]
    corpus: EncodedCorpus  # body already cut at the reader's 100 tokens, title uncut
    groups: list[TrainGroup]
    dev: list[EvalQuery]
    test: list[EvalQuery]
    synthetic: bool
    provenance: dict[str, str]
    heldout: tuple[str, ...] = ()  # never trained on: pre-training's perplexity (Lei et al. Figure 3)
    target: Target | None = None  # domain adaptation: the target domain on this vocabulary (:mod:`.adaptation`)
    no_positive: str = "skip"  # what a query without a positive counts (QuestionRetrievalData.no_positive)
    pretraining: PretrainingInputs | None = None  # None: pre-training reads ``corpus`` (Lei et al. §4.2)


def prepare(data: QuestionRetrievalData, *, max_positives: int = 10,
            target: QuestionRetrievalData | None = None) -> RetrievalInputs:
    """Vocabulary = the corpus words that have a vector (taolei87/rcnn drops the others from the text); with a
    ``target`` domain (Android, for adaptation), the words of both corpora, and the target prepared on it. IDF
    weights come from the source corpus alone."""
    if data.vectors is None or data.train is None:
        raise ValueError(f"{data.domain} has no vectors or training queries; train on AskUbuntu")
    words, vectors = data.vectors
    corpora = [data.corpus] + ([target.corpus] if target is not None else [])
    seen = {w for corpus in corpora for q in corpus.values() for w in (*q.title, *q.body)}
    vocab = Vocabulary(w for w in words if w in seen)
    documents = [" ".join(part) for q in data.corpus.values() for part in (q.title, q.body)]
    provenance = data.provenance | (target.provenance if target is not None else {})
    return RetrievalInputs(vocab, embedding_matrix(vocab, words, vectors), idf_weights(vocab, documents),
                           encode_corpus(data.corpus, vocab, max_body_len=None),
                           training_groups(data.train, data.corpus, max_positives=max_positives),
                           data.dev, data.test, data.synthetic, provenance, tuple(data.heldout),
                           None if target is None else prepare_target(target, vocab), data.no_positive,
                           None if data.pretraining is None else PretrainingInputs(
                               encode_corpus(data.pretraining.questions, vocab, max_body_len=None),
                               data.pretraining.pairs))


def build_embedding(data: RetrievalInputs, config: TrainConfig) -> WordEmbedding:
    """The fixed word vectors ``config`` reads (IDF-scaled when it says so), with its dropout."""
    return WordEmbedding(torch.from_numpy(data.vectors), weights=torch.from_numpy(data.idf) if config.idf_reweight
                         else None, dropout=config.question.dropout, learn_weights=config.learn_word_weights)


def build_model(data: RetrievalInputs, config: TrainConfig) -> QuestionRanker:
    def question_encoder(question: QuestionEncoderConfig) -> QuestionEncoder:
        encoder = build_encoder(config.encoder, input_dim=data.vectors.shape[1], **dict(config.encoder_settings))
        return QuestionEncoder(TokenEncoder(build_embedding(data, config), encoder), question)

    if config.separate_fields:
        one_field = replace(config.question, fields="title")
        return QuestionRanker(SeparateFieldsEncoder(question_encoder(one_field), question_encoder(one_field),
                                                    gate=config.beta_gate))
    return QuestionRanker(question_encoder(config.question))


def cut_corpus(data: RetrievalInputs, config: TrainConfig) -> EncodedCorpus:
    """The corpus as ``config`` reads it: titles and bodies cut at its lengths."""
    return data.corpus.cut(config.max_title_len, config.max_body_len)


def source_batches(data: RetrievalInputs, corpus: EncodedCorpus, config: TrainConfig, *, seed: int, epoch: int):
    """One epoch's training batches of ``config`` (:func:`~reproq.question_retrieval.batches.training_batches`)."""
    return training_batches(data.groups, corpus, epoch=epoch, seed=seed, n_negatives=config.n_negatives,
                            queries_per_batch=config.queries_per_batch, max_queries=config.max_train_queries)


def checkpoint_key(data: RetrievalInputs, config: TrainConfig, seed: int) -> str:
    """What a run's checkpoint belongs to: data, configuration, seed and code (:func:`run_code`)."""
    return checkpoint.key({"data": data.provenance, "vocab": len(data.vocab)}, config, seed, code=run_code(config))


# what makes the AskUbuntu and Android stand-ins (reproq.synthetic): their provenance names the generator's seed and
# settings, not its code, so a run on them is bound to that code too
STAND_IN = "reproq.corpora"


def run_code(config: TrainConfig, routine: str = "reproq.question_retrieval.run") -> checkpoint.Code:
    """The code a run of ``config`` depends on: its training ``routine`` (fine-tuning, pre-training, an adaptation)
    with what it imports, the stand-in's generator (:data:`STAND_IN`), and the module of ``config``'s encoder
    family, not the other families'."""
    return checkpoint.Code((routine, STAND_IN, encoder_module(config.encoder)), FAMILY_MODULES)


def cut_target(data: RetrievalInputs, config: TrainConfig) -> EncodedCorpus:
    """The target corpus as ``config`` reads it (titles and bodies cut at its lengths)."""
    return data.target.corpus.cut(config.max_title_len, config.max_body_len)


def with_question(config: TrainConfig, **question_overrides) -> TrainConfig:
    """``config`` with some question-encoder settings changed (pooling, fields, dropout)."""
    return replace(config, question=replace(config.question, **question_overrides))
