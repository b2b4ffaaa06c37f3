"""A rehearsal of a profile's training before the real thing (``reproq run --profile paper --rehearse``).

A ``paper`` run trains for hours; a shape, memory or device error in one of its configurations would first show
hours into it. The rehearsal builds each model family at the largest configuration of the profile's grids for it
(:func:`shapes`: Lei et al.'s four encoders and the pre-trained RCNN, Rankine's networks, Smolyakov & Srikant's
adversarial CNN and LSTM and their Siamese network, dos Santos et al.'s full-collection networks, notebook 14's
networks on SemEval-2016 3B, every answer ranker on TrecQA), on the data a notebook reads (the real set where it is
here, else the stand-in at the profile's size) and the device the run would use, and runs the study's own training
routine on it for one step on a real-size batch with its evaluations over a slice of the queries. It then times the
step again, alone, with the evaluation pass over the whole dev set, and the peak memory of the host (resident) and of
the device. The first failure stops it in one line: the shape, its configuration and the error.

The plan (:func:`plan`) is what each notebook trains of each shape at the profile (:class:`Work`: its runs, epochs
and steps, read from the same grid functions and the notebooks' own literals — ``MODELS``, ``DATASETS``,
``METHODS`` — as the notebooks use them), costed at the shape's measured step and dev pass, summed per notebook and
for ``make reproduce PROFILE=<profile>``. It is an estimate of training steps and dev evaluations at the largest
configuration of each grid, without early stopping.

Longer than most modules here: the shapes of six model families, the rehearsal of each and the plan that costs every
notebook's work from them share the same grids and are read together.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from reproq import atomic, papers, paths, profiles
from reproq.peak_memory import PeakMemory
from reproq.train.runtime import resolve_device

SLICE = 8  # queries of dev and test (and held-out questions) the routine's own evaluations read in the rehearsal run
TIMED = 3  # steps timed alone after one warm-up (0: none, no dev pass either: the routine's own step only, as in CI)


class RehearsalFailed(RuntimeError):
    """A shape failed to build, step or evaluate; the message names it, its configuration and the error."""


@dataclass(frozen=True)
class Work:
    """What one notebook trains of a shape at the profile, each run costed at the shape's measured step and dev
    pass."""

    notebook: str
    runs: int  # the runs it starts (not those an earlier notebook's checkpoints already hold)
    epochs: int
    steps: int | Callable[[], int]  # training steps an epoch (counted when the plan is made, where that costs)
    evaluation: float = 1.0  # its dev pass over the rehearsed one (their candidates' ratio)
    what: str = ""  # what it is, where not the shape itself ("pooling=max", "TRAIN-ALL", "pre-training", ...)


@dataclass(frozen=True)
class Shape:
    """One model family at the largest configuration of the profile's grids for it, and what each notebook trains
    of it."""

    family: str  # a key of FAMILIES
    name: str
    config: object  # the configuration rehearsed (its label says it)
    rehearse: Callable[[torch.device], dict]  # device -> step_seconds, evaluation_seconds
    data: str  # what it was rehearsed on: the real set, or the stand-in at the profile's size
    work: tuple[Work, ...]


def _largest(configs: Sequence, size: Callable) -> object:
    return max(configs, key=size)


def _literal(notebook: str, name: str):
    """The literal a code cell of ``notebook`` assigns to ``name`` at its top level (``MODELS = {...}``): what the
    notebook trains, read from the notebook itself."""
    import ast

    from reproq import notebook_json

    for cell in notebook_json.read(paths.NOTEBOOKS_DIR / f"{notebook}.ipynb")["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        code = "\n".join(line for line in source.splitlines() if not line.startswith(("%", "!")))  # no magics
        for statement in ast.parse(code).body:
            if isinstance(statement, ast.Assign) and [getattr(t, "id", None) for t in statement.targets] == [name]:
                return ast.literal_eval(statement.value)
    raise LookupError(f"notebook {notebook} assigns no literal to {name}: the rehearsal's plan reads it there")


def _steps(items: int, cap: int | None, per_batch: int) -> int:
    """Training steps an epoch: ``items`` (queries, pairs), or the first ``cap`` of them, ``per_batch`` a step."""
    return math.ceil(min(items, cap or items) / per_batch)


def _candidates(queries) -> int:
    return sum(len(q.candidate_ids) for q in queries)


@functools.cache
def _askubuntu(profile: str):
    """AskUbuntu as the notebooks load it at ``profile`` (the real corpus where it is here, else the stand-in at the
    profile's size, generated once for every family that reads it)."""
    from reproq import corpora

    with warnings.catch_warnings():  # the plan says so
        warnings.simplefilter("ignore", corpora.SyntheticDataWarning)
        return corpora.load_askubuntu("auto", synthetic_config=papers.profile(profile).synthetic_config("askubuntu"))


def _retrieval_shapes(profile: profiles.Profile) -> list[Shape]:
    """Lei et al.'s four encoders, the pre-trained ones (notebooks 02, 03, 07, 08) and Rankine's networks (11). On the
    stand-in, 07 and 08 read one of their own (key phrases), so they reuse no run of 02 or 03; on the real corpus 08's
    runs from scratch of 02's and 03's poolings are theirs."""
    from reproq.papers import lei2016, rankine2016
    from reproq.question_retrieval.inputs import cut_corpus, prepare
    from reproq.question_retrieval.pretrain import title_pairs

    qr = profile.section(lei2016.SECTION)
    data = prepare(_askubuntu(profile.name))
    on = f"AskUbuntu's synthetic stand-in at the {profile.name} profile's size" if data.synthetic else "AskUbuntu"
    seeds = len(qr.seeds)

    def size(config):
        return sorted(config.encoder_settings), config.question.dropout

    def steps(config) -> int:
        return _steps(len(data.groups), config.max_train_queries, config.queries_per_batch)

    def runs(encoder, **kw) -> int:
        return len(lei2016.lei_grid(qr, encoder, **kw)) * seeds

    def shape(family, name, configs, work):
        config = _largest(configs, size)
        return Shape(family, name, config, lambda device: _rehearse_retrieval(data, config, qr.seeds[0], device), on,
                     tuple(Work(n, r, epochs or config.epochs, steps(config), what=what)
                           for n, r, what, epochs in work if r))

    table2 = _literal("02_lei_neural_encoders", "MODELS").values()  # (encoder, pooling) of each Table 2 row
    pretrained = _literal("08_lei_pretraining", "MODELS").values()
    poolings = {e: ({p, "mean", "last"} if qr.table4_pretrained else {p}) for e, p in pretrained}  # 08's POOLINGS
    from_02 = {(e, p, "title+body") for e, p in table2}
    from_03 = {("cnn", "max", "title+body"),  # notebook 03: Table 4's max pooling, Table 5's RCNN poolings and fields
               *(("rcnn", p, f) for p in ("mean", "last") for f in ("title", "title+body"))}
    shapes = []
    for encoder in lei2016.LEI_ENCODERS:
        work = [("02_lei_neural_encoders", runs(encoder, pooling=p), f"pooling={p}", None) for e, p, _ in from_02
                if e == encoder]
        work += [("03_pooling_body_smolyakov", runs(e, pooling=p, fields=f), f"pooling={p}, {f}", None)
                 for e, p, f in sorted(from_03 - from_02) if e == encoder]
        if encoder == "cnn" and qr.max_pooling_epochs:
            work.append(("03_pooling_body_smolyakov", runs("cnn", pooling="max", epochs=qr.max_pooling_epochs),
                         "pooling=max, a longer run", qr.max_pooling_epochs))
        work += [("08_lei_pretraining", runs(encoder, pooling=p), f"pooling={p}, from scratch", None)
                 for p in sorted(poolings.get(encoder, ())) if data.synthetic or (encoder, p, "title+body") not in
                 from_02 | from_03]
        shapes.append(shape("question encoder", f"Lei et al. {encoder}",
                            lei2016.lei_grid(qr, encoder, pooling="mean"), work))
    rcnn = _largest(lei2016.lei_grid(qr, "rcnn", pooling="mean", pretrain=True), size)
    fine_tunes = sum(runs(e, pooling=p, pretrain=True) for e in poolings for p in poolings[e])
    pretrainings = sum(runs(e, pooling="mean") for e in poolings)  # one per configuration and seed, every pooling's
    pairs = len(title_pairs(data.groups, cut_corpus(data, rcnn), heldout=data.heldout,
                            similar_pairs=rcnn.pretrain.similar_pairs))
    pretraining_steps = _steps(pairs, rcnn.pretrain.max_pairs, rcnn.pretrain.batch_size)
    shapes.append(Shape("pre-training", "Lei et al. rcnn, pre-trained (§4.2)", rcnn,
                        lambda device: _rehearse_retrieval(data, rcnn, qr.seeds[0], device), on, (
                            Work("07_lei_gates", 2, rcnn.epochs, steps(rcnn), what="fine-tuned, its two gates"),
                            Work("07_lei_gates", 2, rcnn.pretrain.epochs, pretraining_steps,
                                 what="pre-training, at a fine-tuning step's time"),
                            Work("08_lei_pretraining", fine_tunes - 1, rcnn.epochs, steps(rcnn),
                                 what="fine-tuned (LSTM, GRU at the RCNN's step time)"),
                            Work("08_lei_pretraining", pretrainings - 1, rcnn.pretrain.epochs, pretraining_steps,
                                 what="pre-training, at a fine-tuning step's time"))))
    r = profile.section(rankine2016.SECTION)
    shapes += [shape("question encoder", f"Rankine {name}", configs,
                     [("11_rankine", len(configs) * len(r.seeds), "", None)])
               for name, configs in rankine2016.rankine_grid(r).items()]
    return shapes


def _rehearse_retrieval(data, config, seed: int, device: torch.device) -> dict:
    """The study's routine on one batch (:func:`reproq.question_retrieval.run.trained_model`), then the step and
    the dev evaluation timed alone at their real sizes."""
    from reproq.question_retrieval.evaluate import evaluate
    from reproq.question_retrieval.inputs import build_model, cut_corpus, source_batches
    from reproq.question_retrieval.run import trained_model
    from reproq.train.objectives import MaxMarginObjective

    one = replace(config, epochs=1, max_train_queries=config.queries_per_batch,
                  pretrain=replace(config.pretrain, epochs=1, max_pairs=config.pretrain.batch_size)
                  if config.pretrain else None)
    sliced = replace(data, dev=data.dev[:SLICE], test=data.test[:SLICE], heldout=data.heldout[:SLICE])
    trained_model(sliced, one, seed, device=str(device), progress=False)
    if not TIMED:
        return None
    model = build_model(data, config).to(device)
    corpus = cut_corpus(data, config)
    batch = next(iter(source_batches(data, corpus, config, seed=seed, epoch=1))).to(device)
    return _measured(model, MaxMarginObjective(margin=config.margin, l2=config.l2), batch, config.lr, device,
                     lambda m: evaluate(m.question_encoder, corpus, data.dev, device=device,
                                        no_positive=data.no_positive))


def _measured(model, objective, batch, lr: float, device: torch.device, evaluate_dev: Callable, *,
              optimizer: Callable = torch.optim.Adam) -> dict:
    """A training step of ``model`` on ``batch`` (``optimizer`` at ``lr``) and ``evaluate_dev(model)``, each timed
    alone (each rehearsal returns None before it when :data:`TIMED` is 0)."""
    optimizer = optimizer([p for p in model.parameters() if p.requires_grad], lr=lr)

    def step():
        optimizer.zero_grad(set_to_none=True)
        out = objective(model, batch)  # a loss, or a dict of its parts with the loss (as the fit loop reads it)
        (out["loss"] if isinstance(out, dict) else out).backward()
        optimizer.step()

    def evaluation():
        model.eval()
        evaluate_dev(model)
        model.train()

    return {"step_seconds": _seconds(step, device, TIMED), "evaluation_seconds": _seconds(evaluation, device, 1)}


def _adaptation_shapes(profile: profiles.Profile) -> list[Shape]:
    from reproq import corpora
    from reproq.papers import lei2016, smolyakov2017
    from reproq.question_retrieval.adaptation import with_target_sample
    from reproq.question_retrieval.inputs import prepare

    qr, a = profile.section(lei2016.SECTION), profile.section(smolyakov2017.SECTION)
    with warnings.catch_warnings():  # the plan says so
        warnings.simplefilter("ignore", corpora.SyntheticDataWarning)
        target = corpora.load_android("auto", synthetic_config=profile.synthetic_config("android"))
    data = with_target_sample(prepare(_askubuntu(profile.name), target=target), dev=a.target_dev_queries,
                              test=a.target_test_queries)
    on = ("AskUbuntu → Android" if not (data.synthetic or data.target.synthetic) else
          f"the AskUbuntu and Android stand-ins at the {profile.name} profile's size")
    seeds = len(a.seeds)

    def steps(config) -> int:
        return _steps(len(data.groups), config.max_train_queries, config.queries_per_batch)

    shapes = []
    for encoder in _literal("09_domain_adaptation", "ENCODERS"):  # Table 7's direct and adversarial networks
        config = smolyakov2017.adaptation_config(qr, a, encoder, adversarial=True)
        in_domain = smolyakov2017.smolyakov_config(qr, encoder)  # notebook 03's Table 3 network on AskUbuntu
        shapes.append(Shape(
            "domain adaptation", f"Smolyakov & Srikant {encoder}, adversarial", config,
            lambda device, config=config: _rehearse_adaptation(data, config, a.seeds[0], max(a.lambdas), device), on,
            (Work("09_domain_adaptation", (1 + len(a.lambdas)) * seeds, config.epochs, steps(config),
                  what="direct (λ = 0) and each λ"),
             Work("03_pooling_body_smolyakov", len(qr.seeds), in_domain.epochs, steps(in_domain),
                  _candidates(data.dev) / _candidates(data.target.dev),
                  what="in-domain (Table 3), at the adversarial network's step time"))))
    lstm = smolyakov2017.adaptation_config(qr, a, "lstm")  # notebook 09's Siamese network (Experiment 3)
    shapes.append(Shape("domain adaptation", "Smolyakov & Srikant Siamese BiLSTM", lstm,
                        lambda device: _rehearse_siamese(data, lstm, a.seeds[0], device), on,
                        (Work("09_domain_adaptation", seeds, lstm.epochs, steps(lstm)),)))
    return shapes


def _rehearse_adaptation(data, config, seed: int, lam: float, device: torch.device) -> dict:
    """The study's adversarial routine on one batch (:func:`reproq.question_retrieval.adaptation.adapt`), then its
    step and the Android dev evaluation timed alone at their real sizes."""
    from reproq.models.adversarial import AdversarialRanker, DomainClassifier, DomainClassifierConfig
    from reproq.question_retrieval.adaptation import adapt, adversarial_batches
    from reproq.question_retrieval.batches import candidate_scores
    from reproq.question_retrieval.inputs import build_model, cut_corpus, cut_target, source_batches
    from reproq.train.objectives import DomainAdversarialObjective

    target = data.target
    adapt(_sliced(data), replace(config, epochs=1, max_train_queries=config.queries_per_batch), seed, lam=lam,
          device=str(device), progress=False)
    if not TIMED:
        return None
    encoder = build_model(data, config).question_encoder
    model = AdversarialRanker(encoder, DomainClassifier(encoder.output_dim, replace(DomainClassifierConfig(), lam=lam)))
    target_corpus = cut_target(data, config)
    batch = next(iter(adversarial_batches(source_batches(data, cut_corpus(data, config), config, seed=seed, epoch=1),
                                          target_corpus, epoch=1, seed=seed)))
    return _measured(model.to(device), DomainAdversarialObjective(margin=config.margin, l2=config.l2),
                     batch.to(device), config.lr, device,
                     lambda m: candidate_scores(m.question_encoder, target_corpus, target.dev, device=device))


def _sliced(data):
    """``data`` (with a target) with :data:`SLICE` queries of each evaluation split, for the routine's own run."""
    target = data.target
    return replace(data, dev=data.dev[:SLICE], test=data.test[:SLICE],
                   target=replace(target, dev=target.dev[:SLICE], test=target.test[:SLICE]))


def _rehearse_siamese(data, config, seed: int, device: torch.device) -> dict:
    """The study's Siamese routine on one batch (:func:`reproq.question_retrieval.adaptation.siamese`), then its
    step and the Android dev evaluation (minus the distances) timed alone at their real sizes."""
    from reproq.models.siamese import SiameseConfig, SiameseEncoder, SiameseRanker
    from reproq.question_retrieval.adaptation import siamese
    from reproq.question_retrieval.batches import candidate_scores
    from reproq.question_retrieval.inputs import build_model, cut_corpus, cut_target, source_batches
    from reproq.train.objectives import ContrastiveObjective

    network = SiameseConfig()
    siamese(_sliced(data), replace(config, epochs=1, max_train_queries=config.queries_per_batch), seed,
            network=network, device=str(device), progress=False)
    if not TIMED:
        return None
    model = SiameseRanker(SiameseEncoder(build_model(data, config).question_encoder, network))
    target_corpus = cut_target(data, config)
    batch = next(iter(source_batches(data, cut_corpus(data, config), config, seed=seed, epoch=1)))
    return _measured(model.to(device), ContrastiveObjective(margin=network.margin), batch.to(device), config.lr,
                     device, lambda m: candidate_scores(m.question_encoder, target_corpus, data.target.dev,
                                                        device=device, distance=True))


def _full_collection_shapes(profile: profiles.Profile) -> list[Shape]:
    from reproq.baselines.lexical import FIELDS
    from reproq.papers import dossantos2015
    from reproq.question_retrieval import full_collection_training as bow_cnn
    from reproq.question_retrieval.full_collection import duplicate_split
    from reproq.question_retrieval.inputs import prepare

    d = profile.section(dossantos2015.SECTION)
    data = _askubuntu(profile.name)
    split = duplicate_split(data, valid_queries=d.valid_queries, test_queries=d.test_queries, seed=0)  # SPLIT_SEED
    collection = bow_cnn.Collection.build(prepare(data), split, "title+body")  # the longer of the two fields
    on = (f"AskUbuntu's synthetic stand-in at the {profile.name} profile's size, {len(split.collection):,} questions"
          if data.synthetic else f"AskUbuntu, {len(split.collection):,} questions")
    runs = {"CNN": len(FIELDS) * len(d.seeds),  # Tables 3 and 4; BOW-CNN in Table 5's settings too (the first is it)
            "BOW-CNN": sum(len(dossantos2015.table5_configs(d, f)) for f in FIELDS) * len(d.seeds)}
    shapes = []
    for name, config in dossantos2015.dos_santos_configs(d, "title+body").items():
        shapes.append(Shape("full collection", f"dos Santos et al. {name}", config,
                            lambda device, config=config: _rehearse_full_collection(collection, config, d.seeds[0],
                                                                                    device), on,
                            (Work("10_dos_santos", runs[name], config.epochs,
                                  _steps(len(split.train), config.max_train_pairs, config.pairs_per_batch),
                                  what="title and title+body" + (", Table 5's t" if name == "BOW-CNN" else "")),)))
    return shapes


def _rehearse_full_collection(collection, config, seed: int, device: torch.device, *, reranked=None) -> dict:
    """The study's BOW-CNN routine on one batch (:func:`reproq.question_retrieval.full_collection_training.
    trained_model`, its evaluations over :data:`SLICE` validation and test queries), then its step and a validation
    pass (every validation query against the whole collection; with ``reranked``, each dev query's candidates) timed
    alone."""
    from reproq.question_retrieval import full_collection_training as bow_cnn
    from reproq.question_retrieval.full_collection import evaluate
    from reproq.train.objectives import LogisticRankingObjective

    split = collection.split
    one = replace(config, epochs=1, max_train_pairs=config.pairs_per_batch)
    if reranked is None:
        sliced = replace(collection, split=replace(split, valid=split.valid[:SLICE], test=split.test[:SLICE]))
        bow_cnn.trained_model(sliced, one, seed, device=str(device), progress=False)
    else:
        bow_cnn.trained_model(collection, one, seed, device=str(device), progress=False,
                              reranked=replace(reranked, dev=reranked.dev[:SLICE], test=reranked.test[:SLICE]))
    if not TIMED:
        return None
    negatives = bow_cnn.draw_negatives(split, n=config.n_negatives, seed=seed,
                                       pools=reranked.pools if reranked else None)
    batch = next(iter(bow_cnn.training_batches(collection, negatives, config, epoch=1, seed=seed)))

    def validation(m):
        blocks = bow_cnn.score_blocks(m, collection, device=device)
        if reranked is None:
            return evaluate(blocks, split, split.valid)
        return bow_cnn.candidate_evaluation(blocks, collection, reranked.dev, no_positive=reranked.no_positive)

    return _measured(bow_cnn.build_model(collection, config).to(device), LogisticRankingObjective(gamma=config.gamma),
                     batch.to(device), config.lr, device, validation, optimizer=torch.optim.SGD)


def _semeval_shapes(profile: profiles.Profile) -> list[Shape]:
    """Notebook 14's networks on SemEval-2016 3B (real, small): each method of
    :func:`reproq.papers.real_substitute.methods` at the largest of its configurations, dos Santos et al.'s reranking
    each query's candidates."""
    from reproq import corpora
    from reproq.papers import real_substitute as substitute
    from reproq.question_retrieval import full_collection_training as bow_cnn
    from reproq.question_retrieval.inputs import prepare

    n14 = "14_semeval_question_retrieval"
    data = prepare(corpora.load_semeval_b(_literal(n14, "VECTORS")))
    seeds = profile.section(substitute.SECTION).seeds
    reranked = bow_cnn.reranking(data)

    def size(config):
        return sorted(config.encoder_settings), config.question.dropout

    shapes = []
    for m in substitute.methods(profile):
        name = f"{m.method} ({m.paper}, {m.setting})" + (f", {m.variant}" if m.variant else "")
        if m.paper == "dossantos2015":
            config = m.configs[0]
            collection = bow_cnn.Collection.build(data, reranked.split, m.setting)
            steps = _steps(len(reranked.split.train), config.max_train_pairs, config.pairs_per_batch)
            rehearse = functools.partial(_rehearse_full_collection, collection, config, seeds[0], reranked=reranked)
        else:
            config = _largest(m.configs, size)
            steps = _steps(len(data.groups), config.max_train_queries, config.queries_per_batch)
            rehearse = functools.partial(_rehearse_retrieval, data, config, seeds[0])
        work = [Work(n14, len(m.configs) * len(seeds), config.epochs, steps)]
        if getattr(config, "pretrain", None):
            work.append(Work(n14, len(m.configs) * len(seeds), config.pretrain.epochs, steps,
                             what="pre-training, at a fine-tuning step's time and steps"))
        shapes.append(Shape("SemEval-2016 3B", name, config, rehearse, "SemEval-2016 3B", tuple(work)))
    return shapes


def _answer_shapes(profile: profiles.Profile) -> list[Shape]:
    """Every answer ranker, rehearsed on TrecQA at the largest configuration of its grid; notebooks 04, 06 and 12
    train it on their datasets (:func:`reproq.papers.tay2018.searched`: the grid with the first seed, then DEV's
    choice with every seed), each run costed at the rehearsed step time with its dataset's steps and dev pass."""
    from reproq.answer_selection.inputs import prepare
    from reproq.models.answer_ranker import METHODS
    from reproq.papers import side_by_side, tay2018

    p = profile.section(tay2018.SECTION)
    n04, n06, n12 = "04_trecqa_ctrn", "06_qatarliving_wikiqa", "12_encoders_side_by_side"
    in_04 = {k: _literal(n04, k) for k in ("SETTINGS", "METHODS", "ABLATION_METHOD", "ABLATION_VECTORS", "ALIGNMENTS")}
    in_06 = {k: _literal(n06, k) for k in ("DATASETS", "METHODS", "ABLATION_METHOD", "ABLATION_VECTORS")}
    in_12 = {k: _literal(n12, k) for k in ("DATASETS", "METHODS")}
    sets = {d: prepare(d, w2v_epochs=1, limit=p.limit)  # the vectors' values change no shape
            for d in ("trecqa", *in_06["DATASETS"], *in_12["DATASETS"])}
    data = sets["trecqa"]

    def size(config):
        return config.ranker.hidden_dim, config.ranker.mlp_layers, config.batch_size

    def seeds(method) -> int:
        return len(p.seeds if method in tay2018.PAPER_MODELS else p.baseline_seeds)

    def work(notebook, method, dataset, split, runs, what, largest):
        data_ = sets[dataset]
        first = tay2018.tay_configs(p, data_, method, split)[0]  # the setting's epochs and batches an epoch
        config = replace(largest, epochs=first.epochs, max_batches=first.max_batches, train_split=split)
        return Work(notebook, runs, config.epochs, lambda: len(_answer_batches(data_, config, 1)),
                    len(data_.splits["dev"].labels) / len(data.splits["dev"].labels), what)

    def grid(method, dataset, split="train") -> int:
        return len(tay2018.tay_configs(p, sets[dataset], method, split))

    settings = in_04["SETTINGS"]
    other_alignments = [a for a in in_04["ALIGNMENTS"] if a != "literal"]
    shapes = []
    for method in METHODS:
        largest = _largest(tay2018.tay_configs(p, data, method, "train"), size)
        todo = [(n04, "trecqa", s, tay2018.searched_runs(grid(method, "trecqa", s), seeds(method)), s)
                for s in settings if method in in_04["METHODS"]]
        if method == in_04["ABLATION_METHOD"]:
            todo.append((n04, "trecqa", "train", len(in_04["ABLATION_VECTORS"]) * len(tay2018.FEATURE_VARIANTS),
                         "vectors and features tried, first seed"))
            todo += [(n04, "trecqa", s, len(other_alignments) * seeds(method), f"{s}, other alignments")
                     for s in settings]
        if method in tay2018.NORMALISED_MODELS:
            todo.append((n04, "trecqa", "train", tay2018.searched_runs(grid(method, "trecqa"), seeds(method)),
                         "normalised features"))
        for dataset in in_06["DATASETS"]:
            if method in in_06["METHODS"]:
                todo.append((n06, dataset, "train", tay2018.searched_runs(grid(method, dataset), seeds(method)),
                             dataset))
            if method == in_06["ABLATION_METHOD"]:
                todo.append((n06, dataset, "train", len(in_06["ABLATION_VECTORS"]) * len(tay2018.FEATURE_VARIANTS),
                             f"{dataset}, vectors and features tried"))
        if method in in_12["METHODS"]:
            todo += [(n12, dataset, side_by_side.EVALUATIONS[dataset][2], len(p.seeds), dataset)
                     for dataset in in_12["DATASETS"]]
        if todo:  # a method no notebook trains at the profile costs nothing to rehearse
            shapes.append(Shape("answer ranker", f"{method} ranker", largest,
                                lambda device, config=largest: _rehearse_answers(data, config, p.seeds[0], device),
                                "TrecQA", tuple(work(n, method, d, s, r, what, largest) for n, d, s, r, what in todo)))
    return shapes


def _answer_batches(data, config, seed: int) -> list:
    """An epoch's training batches of ``config``, as :func:`reproq.answer_selection.run.run_one` draws them."""
    from reproq.answer_selection.batches import training_batches
    from reproq.models.answer_ranker import PAIRWISE

    return list(training_batches(data.splits[config.train_split], 1, seed=seed, batch_size=config.batch_size,
                                 pairwise=config.method in PAIRWISE, max_batches=config.max_batches))


def _rehearse_answers(data, config, seed: int, device: torch.device) -> dict:
    """The study's routine for one batch (:func:`reproq.answer_selection.run.run_one`), then the step and the DEV
    evaluation timed alone at their real sizes."""
    from reproq.answer_selection.evaluate import evaluate
    from reproq.answer_selection.inputs import build_model
    from reproq.answer_selection.run import run_one
    from reproq.models.answer_ranker import PAIRWISE
    from reproq.train import objectives

    run_one(data, replace(config, epochs=1, max_batches=1), seed, device=str(device))
    if not TIMED:
        return None
    model = build_model(data, config).to(device)
    batch = _answer_batches(data, config, seed)[0].to(device)
    objective = objectives.MaxMarginObjective(margin=config.margin, l2=0.0) if config.method in PAIRWISE \
        else objectives.SoftmaxCrossEntropyObjective(l2=config.l2)
    return _measured(model, objective, batch, config.lr, device, lambda m: evaluate(m, data.splits["dev"], seed=seed))


def _seconds(work: Callable[[], object], device: torch.device, repeats: int) -> float:
    """The median seconds of ``work`` over ``repeats`` runs after one warm-up (synchronised on a GPU)."""
    def synchronise():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    work()
    times = []
    for _ in range(repeats):
        synchronise()
        start = time.perf_counter()
        work()
        synchronise()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


FAMILIES = {"question encoder": _retrieval_shapes, "pre-training": _retrieval_shapes,
            "domain adaptation": _adaptation_shapes, "full collection": _full_collection_shapes,
            "SemEval-2016 3B": _semeval_shapes, "answer ranker": _answer_shapes}


def shapes(profile: str, families: Sequence[str] = (), names: Sequence[str] = ()) -> list[Shape]:
    """Every shape the rehearsal builds at ``profile``: of ``families`` only (keys of :data:`FAMILIES`), of those
    ``names`` only, where given."""
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise ValueError(f"no model family {', '.join(unknown)}; there are: {', '.join(FAMILIES)}")
    chosen = papers.profile(profile)
    found = []
    for builder in dict.fromkeys(FAMILIES[f] for f in (families or FAMILIES)):
        found += [s for s in builder(chosen) if (not families or s.family in families)
                  and (not names or s.name in names)]
    missing = sorted(set(names) - {s.name for s in found})
    if missing:
        raise ValueError(f"no shape {', '.join(missing)} at the {profile} profile")
    return found


def rehearse(profile: str, *, device: str = "auto", families: Sequence[str] = (), names: Sequence[str] = (),
             say: Callable[[str], None] = print, chosen: Sequence[Shape] | None = None) -> list[dict]:
    """Rehearse every shape of ``profile`` (module docstring; :func:`shapes` chooses with ``families`` and ``names``,
    unless ``chosen`` gives them) on ``device``, saying each as it ends; the rows of the plan.
    :class:`RehearsalFailed` at the first shape that fails."""
    device_ = resolve_device(device)
    rows = []
    for shape in shapes(profile, families, names) if chosen is None else chosen:
        if device_.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device_)
        started = time.perf_counter()
        try:
            with PeakMemory(children=False) as memory:
                measured = shape.rehearse(device_)
        except Exception as error:  # noqa: BLE001 - whatever a shape raises is the finding, said in one line
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise RehearsalFailed(f"{shape.family} {shape.name!r} failed at the {profile} profile ({_label(shape)}) "
                                  f"on {device_}: {type(error).__name__}: {first}") from error
        if measured is None:  # untimed: it built, stepped and evaluated
            say(f"rehearsed {shape.family} {shape.name}: it builds, steps and evaluates on {device_} (untimed)")
            rows.append({"family": shape.family, "shape": shape.name, "configuration": _label(shape),
                         "runs": sum(w.runs for w in shape.work)})
            continue
        work = [_costed(w, measured) for w in shape.work]
        runs, hours = sum(w["runs"] for w in work), sum(w["hours"] for w in work)
        rows.append({"family": shape.family, "shape": shape.name, "configuration": _label(shape), "data": shape.data,
                     "step seconds": round(measured["step_seconds"], 4),
                     "dev evaluation seconds": round(measured["evaluation_seconds"], 3),
                     "peak host MB (so far)": round(memory.peak_mb),
                     "peak device MB": round(torch.cuda.max_memory_allocated(device_) / 2**20)
                     if device_.type == "cuda" else None,
                     "runs": runs, "hours": round(hours, 2),
                     "rehearsed in seconds": round(time.perf_counter() - started, 1), "work": work})
        say(f"rehearsed {shape.family} {shape.name}: a step {measured['step_seconds']:.3f} s, a dev pass "
            f"{measured['evaluation_seconds']:.2f} s, peak {memory.peak_mb:,.0f} MB host; {runs} runs in "
            f"{len({w['notebook'] for w in work})} notebook(s) ≈ {hours:,.1f} h on {device_}")
    return rows


def _costed(work: Work, measured: dict) -> dict:
    """``work``'s row of the plan: its runs × epochs × (steps × the step's seconds + its dev pass), in hours."""
    steps = work.steps() if callable(work.steps) else work.steps
    seconds = work.runs * work.epochs * (steps * measured["step_seconds"]
                                         + work.evaluation * measured["evaluation_seconds"])
    return {"notebook": work.notebook, "what": work.what, "runs": work.runs, "epochs": work.epochs,
            "steps an epoch": steps, "hours": round(seconds / 3600, 4)}


def _label(shape: Shape) -> str:
    return shape.config.label() if hasattr(shape.config, "label") else str(shape.config)


def plan(profile: str, rows: list[dict], *, device: str, seconds: float, families: Sequence[str] = (),
         commit: bool = False) -> tuple[Path, Path]:
    """Write the rehearsal's plan as ``build/rehearsal/<profile>/plan.json`` and ``plan.md`` (with ``commit``, the
    committed study's ``results/machines/rehearsal/<profile>/``): each notebook's runs and hours, their total
    (``make reproduce PROFILE=<profile>``'s training), each shape's measurement, and what each notebook trains of it;
    what it was measured on, and, with ``families``, that it covers those only."""
    import pandas as pd

    from reproq.machine import cpu_name
    from reproq.results import code_version

    folder = (paths.committed_dirs()[0] / "machines" if commit else paths.build_dir()) / "rehearsal" / profile
    measured_on = f"{device} ({torch.cuda.get_device_name(0) if device.startswith('cuda') else cpu_name()})"
    work = pd.DataFrame([{"shape": r["shape"], **w} for r in rows for w in r["work"]])
    notebooks = (work.groupby("notebook")[["runs", "hours"]].sum().round(4).reset_index() if len(work) else
                 pd.DataFrame(columns=["notebook", "runs", "hours"]))
    total = float(notebooks["hours"].sum())
    covers = f"the families {', '.join(families)} only" if families else "every family"
    said = {"profile": profile, "device": measured_on, "threads": torch.get_num_threads(), "code": code_version(),
            "rehearsal seconds": round(seconds, 1), "covers": covers, "hours": round(total, 4),
            "runs": int(notebooks["runs"].sum()), "notebooks": notebooks.to_dict("records"),
            "shapes": rows}
    atomic.write_json(folder / "plan.json", said)
    note = ("" if device.startswith("cuda") else
            " Estimated on this CPU; a GPU divides the step time by about what `reproq gpu-check` measures there.")
    shapes_table = pd.DataFrame([{k: v for k, v in r.items() if k not in ("configuration", "data", "work")}
                                 for r in rows]).dropna(axis=1, how="all")
    markdown = (
        f"# Rehearsal of the `{profile}` profile\n\nMeasured on {measured_on}, {torch.get_num_threads()} "
        f"thread(s), code {code_version()}, in {seconds:.0f} s, covering {covers}.{note}\n\n"
        f"**`make reproduce PROFILE={profile}` trains {int(notebooks['runs'].sum()):,} runs: about {total:,.0f} "
        "hours on this device**, one run after another. Each run is costed at the largest configuration of its "
        "grid (its epochs × steps × the measured step, and a dev pass each epoch, scaled by its dev set's "
        "candidates); training only: no early stop, no data preparation, test pass, baseline or figure. A "
        "pre-training step is costed as a fine-tuning step; an answer ranker's step as the one measured on TrecQA. "
        "Runs an earlier notebook's checkpoints hold are not counted again.\n\n"
        "## Each notebook\n\n" + notebooks.round(1).to_markdown(index=False, intfmt=",", floatfmt=",.1f")
        + "\n\n## Each shape, as rehearsed\n\n" + shapes_table.to_markdown(index=False)
        + "\n\nRehearsed on: " + "; ".join(dict.fromkeys(r["data"] for r in rows))
        + ".\n\n## What each notebook trains of each shape\n\n"
        + work.fillna("").to_markdown(index=False) + "\n")
    atomic.write_text(folder / "plan.md", markdown)
    return folder / "plan.json", folder / "plan.md"
