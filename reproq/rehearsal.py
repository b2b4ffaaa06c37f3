"""A rehearsal of a profile's training before the real thing (``reproq run --profile paper --rehearse``).

A ``paper`` run trains for hours; a shape, memory or device error in one of its configurations would first show
hours into it. The rehearsal builds each model family at the largest configuration of the profile's grid for it
(:func:`shapes`: Lei et al.'s four encoders, the pre-trained RCNN, Rankine's networks, Smolyakov & Srikant's
adversarial CNN and LSTM, every answer ranker on TrecQA), on the data a notebook reads (the real set where it is
here, else the stand-in at the profile's size) and the device the run would use, and runs the study's own training
routine on it for one step on a real-size batch with its evaluations over a slice of the queries. It then times the
step again, alone, with the evaluation pass over the whole dev set, and the peak memory of the host (resident) and of
the device. The first failure stops it in one line: the shape, its configuration and the error.

The plan (:func:`plan`) is each shape's cost at the profile: its grid's runs (configurations × seeds), epochs ×
steps, the measured step and evaluation seconds, and the hours of one grid of it on this device; the families a
notebook trains are named beside them. It is an estimate of one grid per shape, not a sum over the notebooks (a
notebook may train a family's grid more than once, with other poolings or fields), and of training steps and dev
evaluations only. Not rehearsed yet: the Siamese network (notebook 09) and dos Santos et al.'s full-collection
training (notebook 10); the plan lists them as such.
"""

from __future__ import annotations

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

NOT_REHEARSED = {"the Siamese network (Smolyakov & Srikant, Experiment 3)": ("09_domain_adaptation",),
                 "full-collection BOW-CNN (dos Santos et al.)": ("10_dos_santos",)}
SLICE = 8  # queries of dev and test (and held-out questions) the routine's own evaluations read in the rehearsal run
TIMED = 3  # steps timed alone after one warm-up


class RehearsalFailed(RuntimeError):
    """A shape failed to build, step or evaluate; the message names it, its configuration and the error."""


@dataclass(frozen=True)
class Shape:
    """One model family at the largest configuration of the profile's grid for it."""

    family: str  # "question encoder", "pre-training", "answer ranker"
    name: str
    notebooks: tuple[str, ...]
    config: object  # the configuration rehearsed (its label says it)
    runs: int  # configurations × seeds of its grid at the profile
    epochs: int
    steps: int | Callable[[], int]  # training steps an epoch (counted when the shape is rehearsed, where it costs)
    rehearse: Callable[[torch.device], dict]  # device -> step_seconds, evaluation_seconds
    data: str  # what it was rehearsed on: "real", or the stand-in at the profile's size


def _largest(configs: Sequence, size: Callable) -> object:
    return max(configs, key=size)


def _retrieval_shapes(profile: profiles.Profile) -> list[Shape]:
    from reproq import corpora
    from reproq.papers import lei2016, rankine2016
    from reproq.question_retrieval.inputs import prepare

    qr = profile.section(lei2016.SECTION)
    with warnings.catch_warnings():  # the plan says so
        warnings.simplefilter("ignore", corpora.SyntheticDataWarning)
        data = prepare(corpora.load_askubuntu("auto", synthetic_config=profile.synthetic_config("askubuntu")))
    on = f"AskUbuntu's synthetic stand-in at the {profile.name} profile's size" if data.synthetic else "AskUbuntu"

    def size(config):
        return sorted(config.encoder_settings), config.question.dropout

    def shape(family, name, notebooks, configs, seeds):
        config = _largest(configs, size)
        queries = min(len(data.groups), config.max_train_queries or len(data.groups))
        return Shape(family, name, notebooks, config, len(configs) * len(seeds),
                     config.epochs + (config.pretrain.epochs if config.pretrain else 0),
                     math.ceil(queries / config.queries_per_batch),
                     lambda device, config=config: _rehearse_retrieval(data, config, qr.seeds[0], device), on)

    table2 = ("02_lei_neural_encoders", "03_pooling_body_smolyakov")
    shapes = [shape("question encoder", f"Lei et al. {encoder}", table2, lei2016.lei_grid(qr, encoder, pooling="mean"),
                    qr.seeds) for encoder in lei2016.LEI_ENCODERS]
    shapes.append(shape("pre-training", "Lei et al. rcnn, pre-trained (§4.2)", ("08_lei_pretraining",),
                        lei2016.lei_grid(qr, "rcnn", pooling="mean", pretrain=True), qr.seeds))
    r = profile.section(rankine2016.SECTION)
    shapes += [shape("question encoder", f"Rankine {name}", ("11_rankine",), configs, r.seeds)
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
    model = build_model(data, config).to(device)
    corpus = cut_corpus(data, config)
    batch = next(iter(source_batches(data, corpus, config, seed=seed, epoch=1))).to(device)
    return _measured(model, MaxMarginObjective(margin=config.margin, l2=config.l2), batch, config.lr, device,
                     lambda m: evaluate(m.question_encoder, corpus, data.dev, device=device,
                                        no_positive=data.no_positive))


def _measured(model, objective, batch, lr: float, device: torch.device, evaluate_dev: Callable) -> dict:
    """A training step of ``model`` on ``batch`` (Adam at ``lr``) and ``evaluate_dev(model)``, each timed alone."""
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)

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
        source = corpora.load_askubuntu("auto", synthetic_config=profile.synthetic_config("askubuntu"))
        target = corpora.load_android("auto", synthetic_config=profile.synthetic_config("android"))
    data = with_target_sample(prepare(source, target=target), dev=a.target_dev_queries, test=a.target_test_queries)
    on = ("AskUbuntu → Android" if not (data.synthetic or data.target.synthetic) else
          f"the AskUbuntu and Android stand-ins at the {profile.name} profile's size")
    shapes = []
    for encoder in ("cnn", "lstm"):  # notebook 09's ENCODERS: Table 7's direct and adversarial networks
        config = smolyakov2017.adaptation_config(qr, a, encoder, adversarial=True)
        queries = min(len(data.groups), config.max_train_queries or len(data.groups))
        shapes.append(Shape("domain adaptation", f"Smolyakov & Srikant {encoder}, adversarial",
                            ("09_domain_adaptation",), config, (1 + len(a.lambdas)) * len(a.seeds), config.epochs,
                            math.ceil(queries / config.queries_per_batch),
                            lambda device, config=config: _rehearse_adaptation(data, config, a.seeds[0],
                                                                               max(a.lambdas), device), on))
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
    sliced = replace(data, dev=data.dev[:SLICE], test=data.test[:SLICE],
                     target=replace(target, dev=target.dev[:SLICE], test=target.test[:SLICE]))
    adapt(sliced, replace(config, epochs=1, max_train_queries=config.queries_per_batch), seed, lam=lam,
          device=str(device), progress=False)
    encoder = build_model(data, config).question_encoder
    model = AdversarialRanker(encoder, DomainClassifier(encoder.output_dim, replace(DomainClassifierConfig(), lam=lam)))
    target_corpus = cut_target(data, config)
    batch = next(iter(adversarial_batches(source_batches(data, cut_corpus(data, config), config, seed=seed, epoch=1),
                                          target_corpus, epoch=1, seed=seed)))
    return _measured(model.to(device), DomainAdversarialObjective(margin=config.margin, l2=config.l2),
                     batch.to(device), config.lr, device,
                     lambda m: candidate_scores(m.question_encoder, target_corpus, target.dev, device=device))


def _answer_shapes(profile: profiles.Profile) -> list[Shape]:
    from reproq.answer_selection.inputs import prepare
    from reproq.models.answer_ranker import METHODS
    from reproq.papers import tay2018

    p = profile.section(tay2018.SECTION)
    data = prepare("trecqa", w2v_epochs=1, limit=p.limit)  # the vectors' values change no shape

    def size(config):
        return config.ranker.hidden_dim, config.ranker.mlp_layers, config.batch_size

    shapes = []
    for method in METHODS:
        configs = tay2018.tay_configs(p, data, method, "train")
        config = _largest(configs, size)
        seeds = p.seeds if method in tay2018.PAPER_MODELS else p.baseline_seeds
        shapes.append(Shape("answer ranker", f"{method} ranker", ("04_trecqa_ctrn", "06_qatarliving_wikiqa",
                                                                      "12_encoders_side_by_side"),
                            config, len(configs) * len(seeds), config.epochs,
                            lambda config=config: len(_answer_batches(data, config, 1)),
                            lambda device, config=config: _rehearse_answers(data, config, p.seeds[0], device),
                            "TrecQA"))
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
            "domain adaptation": _adaptation_shapes, "answer ranker": _answer_shapes}


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
             say: Callable[[str], None] = print) -> list[dict]:
    """Rehearse every shape of ``profile`` (module docstring; :func:`shapes` chooses with ``families`` and ``names``)
    on ``device``, saying each as it ends; the rows of the plan. :class:`RehearsalFailed` at the first shape that
    fails."""
    device_ = resolve_device(device)
    rows = []
    for shape in shapes(profile, families, names):
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
        steps = shape.steps() if callable(shape.steps) else shape.steps
        hours = shape.runs * shape.epochs * (steps * measured["step_seconds"]
                                             + measured["evaluation_seconds"]) / 3600
        rows.append({"family": shape.family, "shape": shape.name, "configuration": _label(shape), "data": shape.data,
                     "notebooks": ", ".join(shape.notebooks), "runs": shape.runs, "epochs": shape.epochs,
                     "steps an epoch": steps, "step seconds": round(measured["step_seconds"], 4),
                     "dev evaluation seconds": round(measured["evaluation_seconds"], 3),
                     "peak host MB (so far)": round(memory.peak_mb),
                     "peak device MB": round(torch.cuda.max_memory_allocated(device_) / 2**20)
                     if device_.type == "cuda" else None,
                     "hours, one grid": round(hours, 2),
                     "rehearsed in seconds": round(time.perf_counter() - started, 1)})
        say(f"rehearsed {shape.family} {shape.name}: a step {measured['step_seconds']:.3f} s, a dev pass "
            f"{measured['evaluation_seconds']:.2f} s, peak {memory.peak_mb:,.0f} MB host; {shape.runs} runs × "
            f"{shape.epochs} epochs × {steps} steps ≈ {hours:.1f} h on {device_}")
    return rows


def _label(shape: Shape) -> str:
    return shape.config.label() if hasattr(shape.config, "label") else str(shape.config)


def plan(profile: str, rows: list[dict], *, device: str, seconds: float) -> tuple[Path, Path]:
    """Write the rehearsal's plan as ``build/rehearsal/<profile>/plan.json`` and ``plan.md``: each shape's row, the
    families not rehearsed, what it was measured on, and the sum of one grid of each shape."""
    from reproq.machine import cpu_name
    from reproq.results import code_version

    folder = paths.build_dir() / "rehearsal" / profile
    measured_on = f"{device} ({torch.cuda.get_device_name(0) if device.startswith('cuda') else cpu_name()})"
    total = sum(r["hours, one grid"] for r in rows)
    said = {"profile": profile, "device": measured_on, "threads": torch.get_num_threads(), "code": code_version(),
            "rehearsal seconds": round(seconds, 1), "hours, one grid of each shape": round(total, 1),
            "shapes": rows, "not rehearsed": {k: list(v) for k, v in NOT_REHEARSED.items()}}
    atomic.write_json(folder / "plan.json", said)
    import pandas as pd

    note = ("" if device.startswith("cuda") else
            " Estimated on this CPU; a GPU divides the step time by about what `reproq gpu-check` measures there.")
    markdown = (f"# Rehearsal of the `{profile}` profile\n\nMeasured on {measured_on}, {torch.get_num_threads()} "
                f"thread(s), code {code_version()}, in {seconds:.0f} s.{note} One grid of each shape: about "
                f"{total:,.1f} hours (training steps and dev evaluations; a notebook may train a family's grid more "
                "than once).\n\n" + pd.DataFrame(rows).drop(columns=["configuration", "data"])
                                .dropna(axis=1, how="all").to_markdown(index=False)
                + "\n\nRehearsed on: " + "; ".join(dict.fromkeys(r["data"] for r in rows))
                + ". Not rehearsed yet: " + "; ".join(f"{k} (notebook {', '.join(v)})"
                                                        for k, v in NOT_REHEARSED.items()) + ".\n")
    atomic.write_text(folder / "plan.md", markdown)
    return folder / "plan.json", folder / "plan.md"
