"""Lei et al. (2016) §4.2 and Figure 3: pre-training a question encoder on the whole corpus, before fine-tuning.

The encoder is trained as the encoder of an encoder–decoder (:mod:`reproq.models.encoder_decoder`) that
generates a question's title from a context: the title itself, the body, or the title or body of a question
marked similar to it. Where the paper is silent this follows taolei87/rcnn ``pt/main.py`` and ``pt/myio.py``:

- the pairs (context question, title question) of an epoch are every question with itself (auto-encoding)
  and both directions of every user-marked similar pair of the training file (queries with 1 to 10 similar
  questions, as for fine-tuning), shuffled; each batch of pairs is two updates, one with the titles as
  contexts and one with the bodies (``--use_title 1 --use_body 1``); 256 pairs a batch; where the data bring
  pre-training texts of their own (SemEval-2016 3B's training threads: :class:`~reproq.question_retrieval.inputs.
  PretrainingInputs`), those are the questions, and their extra pairs (a comment, its thread's question) are pairs
  too; a context without a title (a comment's) is left out of the titles' update;
- the same learning rate and dropout as fine-tuning (footnote 7), Adam, the same L2 term, up to 40 epochs,
  stopping after 15 without a better score. The released code saves a model each time dev MRR improves; we keep
  the epoch of the lowest held-out perplexity, the pre-training objective's own validation, so that no label of
  the retrieval task chooses the pre-trained encoder, and so that an encoder whose title states never beat the
  untrained ones on dev (Figure 3 shows that this happens early on) is still the pre-trained one;
- after each epoch (Figure 3): the *perplexity* of the titles of the held-out questions (``heldout.txt``,
  never trained on) given their bodies, exp of the mean negative log-likelihood per real title word, and the
  dev MRR of the untuned encoder, ranking by the cosine of the last hidden states of the titles.

:func:`pretrain_one` is called by ``run.run_one`` for a configuration with ``pretrain`` set (the fine-tuning
starts from its encoder; :class:`~reproq.question_retrieval.inputs.PretrainConfig` says how it pre-trains); one
pre-training serves every fine-tuning configuration that shares its network,
learning rate, dropout and seed (Table 4's mean and last pooling), through its checkpoint. With
``PretrainConfig(released=True)`` it pre-trains nothing and hands on the authors' released RCNN instead
(:mod:`reproq.models.rcnn_checkpoint`: d = 400, order 2, 200-d inputs; its word ids are theirs, so it is a starting
point only on the real corpus with the real vectors).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from reproq.data.batching import pad_batch
from reproq.models import build_encoder
from reproq.models.embedding import TokenEncoder
from reproq.models.encoder_decoder import EncoderDecoder, TitleBatch
from reproq.models.question import QuestionEncoder, QuestionEncoderConfig
from reproq.models.rcnn_checkpoint import load_checkpoint, load_rcnn
from reproq.question_retrieval.batches import EncodedCorpus
from reproq.question_retrieval.evaluate import evaluate, headline
from reproq.question_retrieval.inputs import RetrievalInputs, TrainConfig, build_embedding, cut_corpus, run_code
from reproq.train import callbacks as cb
from reproq.train import checkpoint, routine
from reproq.train.objectives import SequenceLikelihoodObjective


@dataclass(frozen=True)
class Pretrained:
    """A finished pre-training: its history (epoch 0 = untrained: loss, ``heldout_perplexity``, ``dev_MRR`` ...),
    the epoch kept, and the encoder's weights at that epoch."""

    seed: int
    history: list[dict]
    best_epoch: int
    encoder: dict[str, torch.Tensor]  # the sequence encoder's state dict
    key: str
    seconds: float


def title_pairs(groups, corpus: EncodedCorpus, *, heldout: Sequence[str], similar_pairs: bool = True
                ) -> list[tuple[str, str]]:
    """(context question, title question) pairs: every question with itself and, with ``similar_pairs``, both
    directions of every (query, similar) pair of the training ``groups``; never a held-out question, never an
    empty title (nothing to generate). Sorted, so that an epoch's order depends on its seed alone."""
    barred = set(heldout)
    pairs = {(q, q) for q in corpus.titles}
    if similar_pairs:
        pairs |= {pair for g in groups for p in g.positives for pair in ((g.query, p), (p, g.query))}
    return sorted((a, b) for a, b in pairs if a not in barred and b not in barred and corpus.titles.get(b)
                  and a in corpus.titles)


def title_batches(pairs: Sequence[tuple[str, str]], corpus: EncodedCorpus, *, contexts: Sequence[str], epoch: int,
                  seed: int, batch_size: int, max_pairs: int | None = None) -> Iterator[TitleBatch]:
    """One epoch: the pairs in an order drawn from ``(seed, epoch)`` (its first ``max_pairs``), ``batch_size``
    a batch, each batch once per context field (a pair whose context has no title is left out of the titles')."""
    order = np.random.default_rng([seed, epoch]).permutation(len(pairs))[:max_pairs]
    for start in range(0, len(order), batch_size):
        chunk = [pairs[i] for i in order[start:start + batch_size]]
        for field in contexts:
            texts = corpus.titles if field == "title" else corpus.bodies
            read = [(a, b) for a, b in chunk if field != "title" or texts[a]]
            if read:
                yield TitleBatch(*pad_batch([texts[a] for a, _ in read]), *pad_batch([corpus.titles[b] for _, b in read]))


def heldout_perplexity(model: EncoderDecoder, corpus: EncodedCorpus, heldout: Sequence[str], *, device,
                       batch_size: int = 256) -> float:
    """exp of the mean NLL per real title word of the held-out questions, given their bodies (eval mode is the
    caller's business). Questions with an empty title have no word to count and are left out."""
    ids = sorted((q for q in heldout if corpus.titles.get(q)), key=lambda q: len(corpus.bodies[q]))
    if not ids:
        raise ValueError("no held-out question with a title in the corpus: perplexity needs at least one")
    total, words = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(ids), batch_size):
            chunk = ids[start:start + batch_size]
            batch = TitleBatch(*pad_batch([corpus.bodies[q] for q in chunk]),
                               *pad_batch([corpus.titles[q] for q in chunk])).to(device)
            nll, mask = model(batch)
            total, words = total + float(nll.double().sum()), words + int(mask.sum())
    return float(np.exp(total / words))


def title_encoder(model: EncoderDecoder) -> QuestionEncoder:
    """The pre-trained encoder as Figure 3 evaluates it: the last hidden state of the title, cosine scores."""
    config = QuestionEncoderConfig(pooling="last", fields="title", dropout=0.0)
    return QuestionEncoder(TokenEncoder(model.embedding, model.encoder), config)


def build_encoder_decoder(data: RetrievalInputs, config: TrainConfig) -> EncoderDecoder:
    """The encoder–decoder for the fine-tuning configuration ``config`` on ``data``."""
    settings = dict(input_dim=data.vectors.shape[1], **dict(config.encoder_settings))
    return EncoderDecoder(build_embedding(data, config), build_encoder(config.encoder, **settings),
                          build_encoder(config.encoder, **settings), dropout=config.question.dropout)


def pretraining_key(data: RetrievalInputs, config: TrainConfig, seed: int) -> str:
    """What a pre-training's checkpoint belongs to: data, the network and what it shares with fine-tuning
    (not the pooling, fields or fine-tuning budget, which it does not depend on), its own settings, seed, code."""
    shared = {k: v for k, v in asdict(config).items()
              if k in ("encoder", "encoder_settings", "lr", "l2", "max_body_len", "max_title_len", "idf_reweight",
                       "pretrain")}
    shared["dropout"] = config.question.dropout
    return checkpoint.key({"data": data.provenance, "vocab": len(data.vocab), "pretraining": True}, shared, seed,
                          code=run_code(config, __name__))


def pretrain_one(data: RetrievalInputs, config: TrainConfig, seed: int, *, device: str = "auto",
                 checkpoint_root: Path | None = None, progress: bool = True) -> Pretrained:
    """Pre-train the encoder of ``config`` (``pretrain`` set) with one seed on ``data``, through the study's training
    routine (:func:`reproq.train.routine.train`; the lowest held-out perplexity keeps the epoch); a finished or
    interrupted run under ``checkpoint_root`` is resumed."""
    if config.pretrain is None:
        raise ValueError("config.pretrain is None: nothing to pre-train")
    p = config.pretrain
    if p.released:
        return _released(data, config, seed)
    corpus = cut_corpus(data, config) if data.pretraining is None else \
        data.pretraining.corpus.cut(config.max_title_len, config.max_body_len)
    pairs = title_pairs(data.groups, corpus, heldout=data.heldout, similar_pairs=p.similar_pairs)
    if data.pretraining is not None:
        barred = set(data.heldout)
        pairs = sorted({*pairs, *((a, b) for a, b in data.pretraining.pairs
                                 if a not in barred and b not in barred and corpus.titles.get(b))})
    dev_corpus = cut_corpus(data, config)  # the untuned encoder's dev MRR reads the retrieval corpus

    def evaluations(model: EncoderDecoder, device: torch.device):
        return [cb.Evaluate(lambda m: {"perplexity": heldout_perplexity(m, corpus, data.heldout, device=device)},
                            "heldout_"),
                cb.Evaluate(lambda m: headline(evaluate(title_encoder(m), dev_corpus, data.dev, device=device,
                                                             no_positive=data.no_positive)))]

    def batches(epoch: int):
        return title_batches(pairs, corpus, contexts=p.contexts, epoch=epoch, seed=seed, batch_size=p.batch_size,
                             max_pairs=p.max_pairs)

    key = pretraining_key(data, config, seed)
    fitted = routine.train(
        lambda device: build_encoder_decoder(data, config), SequenceLikelihoodObjective(l2=config.l2), batches,
        seed=seed, device=device, epochs=p.epochs, selection=routine.Selection("heldout_perplexity", p.patience, "min"),
        evaluations=evaluations, optimizer=functools.partial(torch.optim.Adam, lr=config.lr), key=key,
        checkpoint_root=checkpoint_root, desc=f"pre-train {config.encoder} seed {seed}", progress=progress)
    prefix = "encoder."
    encoder = {k[len(prefix):]: v for k, v in fitted.state.best["model"].items() if k.startswith(prefix)}
    return Pretrained(seed, fitted.state.history, fitted.state.best["epoch"], encoder, key, fitted.seconds)


def _released(data: RetrievalInputs, config: TrainConfig, seed: int) -> Pretrained:
    """The authors' released RCNN as the starting point, if ``config`` builds the same network."""
    theirs = load_rcnn(load_checkpoint())
    ours = build_encoder(config.encoder, input_dim=data.vectors.shape[1], **dict(config.encoder_settings))
    if config.encoder != "rcnn" or ours.config != theirs.config:
        raise ValueError(f"the authors' released encoder is an RCNN with {theirs.config}; this configuration builds "
                         f"{config.encoder} with {ours.config}: set encoder='rcnn' and those sizes to start from it")
    key = checkpoint.key({"released": "taolei87/rcnn"}, seed, code=run_code(config, "reproq.models.rcnn_checkpoint"))
    return Pretrained(seed, [], 0, {k: v.detach().clone() for k, v in theirs.state_dict().items()}, key, 0.0)
