"""reproq.rehearsal: each model family built at the largest configuration of a profile's grid, one training step and
one evaluation on real-size batches through the study's own routine, a plan of the hours, the first failure in one
line (issue 56, item 1)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from reproq import rehearsal
from reproq.cli import main

pytestmark = pytest.mark.slow


# what `make reproduce PROFILE=paper` trains, per notebook, as read from the notebooks' cells (on the AskUbuntu
# stand-in: 07 and 08 read one with key phrases, so they reuse no run of 02 or 03; 03 reuses 02's CNN with mean
# pooling and RCNN with last; 04 and 06 search Tay et al.'s 288 configurations with the first seed, then train DEV's
# choice with all five; 08's pre-trainings serve both poolings, and 07's full RCNN is 08's first)
PAPER_RUNS = {
    "02_lei_neural_encoders": 4 * 6 * 5 + 2 * 6 * 5,  # LSTM, GRU, RCNN 6 configurations, CNN 18 (3 widths), 5 seeds
    "03_pooling_body_smolyakov": 18 * 5 + 3 * 6 * 5 + 2 * 5,  # CNN max; RCNN's 3 other poolings/fields; Smolyakov's
    "04_trecqa_ctrn": 5 * 2 * (288 + 4) + 8 + 2 * 2 * 5 + 2 * (288 + 4),  # + CTRN's ablation, alignments; normalised
    "06_qatarliving_wikiqa": 2 * 3 * (288 + 4) + 2 * 8,
    "07_lei_gates": 2 + 2,  # the full and the scalar-gate RCNN, each fine-tuned from its own pre-training
    "08_lei_pretraining": 3 * 2 * 6 * 5 - 1 + 3 * 6 * 5 - 1 + 3 * 2 * 6 * 5,  # fine-tuned, pre-trained, from scratch
    "09_domain_adaptation": 2 * (1 + 6) * 5 + 5,  # CNN, LSTM: λ = 0 and 6 λ; the Siamese network
    "10_dos_santos": 2 * 2 * 5 + 2 * 2 * 5,  # two networks × two fields; Table 5's two other t
    "11_rankine": 6 * 4 * 5,
    "12_encoders_side_by_side": 7 * 4 * 5,
    # Lei et al.'s Table 2 rows (the CNN's 18 configurations), the +pretrain row's pre-trainings, Tables 4 and 5's
    # three variants; Smolyakov & Srikant's two networks; Rankine's three with four learning rates; dos Santos's four
    "14_semeval_question_retrieval": (18 + 6 + 6 + 6 + 6) * 5 + 6 * 5 + (18 + 6 + 6) * 5 + 2 * 5 + 3 * 4 * 5 + 4 * 5,
}
# the CI subset: the paper profile's largest network of each family, built, stepped and evaluated through the
# study's routine on the CPU (untimed; `reproq run --profile paper --rehearse` times every shape and writes the plan).
# dos Santos et al.'s BOW-CNN at Table 2's size reranks SemEval-2016 3B's candidates here: scoring the paper-size
# stand-in's whole collection (60,000 questions) takes minutes a pass, so that path is rehearsed at the smoke profile
PAPERS_OWN = ("Lei et al. rcnn", "Lei et al. rcnn, pre-trained (§4.2)", "Smolyakov & Srikant lstm, adversarial",
              "RCNN+pretrain (lei2016, pooling=last)", "BOW-CNN (dossantos2015, title+body)", "CTRN ranker")


@pytest.fixture(scope="module")
def paper_shapes():
    return rehearsal.shapes("paper")


def test_the_plan_counts_the_runs_each_notebook_trains_at_the_paper_profile(paper_shapes):
    """Issue 56: what `make reproduce PROFILE=paper` would train, notebook by notebook, before anyone starts it."""
    planned = {}
    for shape in paper_shapes:
        for work in shape.work:
            planned[work.notebook] = planned.get(work.notebook, 0) + work.runs
    assert planned == PAPER_RUNS
    assert {s.family for s in paper_shapes} == set(rehearsal.FAMILIES)


def test_the_paper_profile_rehearses_the_largest_shape_of_each_family_on_the_cpu(
        paper_shapes, tmp_path, monkeypatch, real_data):
    """Issue 56: a shape, memory or device error of the paper profile shows in minutes on the CPU, not hours into a
    run on a user's GPU."""
    real_data("trecqa", "TrecQA/data/DEV.xml")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path))
    monkeypatch.setattr(rehearsal, "TIMED", 0)  # the routine's own step and evaluations: CI checks that it runs
    chosen = [s for s in paper_shapes if s.name in PAPERS_OWN]
    assert {s.family for s in chosen} == set(rehearsal.FAMILIES) - {"full collection"}
    rows = rehearsal.rehearse("paper", device="cpu", chosen=chosen, say=lambda line: None)
    assert [r["shape"] for r in rows] == list(PAPERS_OWN)
    configuration = dict((r["shape"], r["configuration"]) for r in rows)
    assert configuration["Lei et al. rcnn"].startswith("rcnn(hidden_dim=400")  # Lei et al. Table 3's RCNN
    assert "d=1024" in configuration["CTRN ranker"]  # the largest d of Tay et al.'s grid (128 to 1024)


def test_the_smoke_profile_rehearses_every_shape_and_plans_each_notebook(tmp_path, monkeypatch, capsys, real_data):
    real_data("trecqa", "TrecQA/data/DEV.xml")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path))
    assert main(["run", "--profile", "smoke", "--rehearse"]) == 0
    said = capsys.readouterr().out
    planned = json.loads((tmp_path / "rehearsal" / "smoke" / "plan.json").read_text())
    assert said.count("rehearsed ") == len(planned["shapes"]) + 1 and "the plan: " in said
    assert {r["family"] for r in planned["shapes"]} == set(rehearsal.FAMILIES)
    assert "Smolyakov & Srikant Siamese BiLSTM" in {r["shape"] for r in planned["shapes"]}
    notebooks = {n["notebook"]: n for n in planned["notebooks"]}
    assert set(notebooks) == set(PAPER_RUNS) and planned["covers"] == "every family"
    assert planned["runs"] == sum(n["runs"] for n in notebooks.values()) == sum(r["runs"] for r in planned["shapes"])
    assert notebooks["06_qatarliving_wikiqa"]["runs"] == 2 * 3 + 2 * 8  # smoke: one configuration, one seed
    assert planned["hours"] > 0 and all(r["step seconds"] > 0 for r in planned["shapes"])
    page = (tmp_path / "rehearsal" / "smoke" / "plan.md").read_text()
    assert "`make reproduce PROFILE=smoke` trains" in page and "## Each notebook" in page
    assert "Estimated on this CPU" in page and "None" not in page and "nan" not in page


def test_a_planted_shape_error_in_a_paper_section_stops_the_rehearsal_in_one_line(tmp_path, monkeypatch, capsys,
                                                                                    real_data):
    from reproq.models.answer_ranker import RankerConfig
    from reproq.papers import tay2018
    from reproq.profiles import Overrides

    real_data("trecqa", "TrecQA/data/DEV.xml")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path))
    planted = replace(tay2018.PROFILES["paper"], ranker=Overrides(RankerConfig, projection_dim=-300))
    monkeypatch.setitem(tay2018.PROFILES, "paper", planted)
    assert main(["run", "--profile", "paper", "--rehearse", "--family", "answer ranker"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("FAILED   answer ranker 'QRNN ranker' failed at the paper profile (QRNN m=-300")
    assert "RuntimeError" in line
    assert not (tmp_path / "rehearsal" / "paper" / "plan.json").exists()


def test_an_unknown_family_is_refused_with_the_ones_there_are():
    with pytest.raises(ValueError, match="no model family dragons; there are: question encoder, pre-training, domain"):
        rehearsal.shapes("smoke", ["dragons"])
