"""reproq.rehearsal: each model family built at the largest configuration of a profile's grid, one training step and
one evaluation on real-size batches through the study's own routine, a plan of the hours, the first failure in one
line (issue 56, item 1)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from reproq import rehearsal
from reproq.cli import main
from reproq.models.answer_ranker import METHODS

pytestmark = pytest.mark.slow


# the CI subset of the paper profile: Lei et al.'s RCNN and Tay et al.'s CTRN at the largest configuration of their
# grids (the RCNN's kernel compiled on the way); the pre-training and adaptation families run at the smoke profile
# below (at the paper's size they are several minutes more on a CPU); `reproq run --profile paper --rehearse` builds
# every shape
PAPERS_OWN = ("Lei et al. rcnn", "CTRN ranker")


def test_the_paper_profile_rehearses_the_papers_own_model_of_each_family_on_the_cpu(tmp_path, monkeypatch, real_data):
    """Issue 56: a shape, memory or device error of the paper profile shows in minutes on the CPU, not hours into a
    run on a user's GPU."""
    real_data("trecqa", "TrecQA/data/DEV.xml")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path))
    monkeypatch.setattr(rehearsal, "TIMED", 1)  # one timed step: the CI subset checks that it runs, not the time
    rows = rehearsal.rehearse("paper", device="cpu", families=["question encoder", "answer ranker"],
                              names=PAPERS_OWN, say=lambda line: None)  # the families: no other family's data is made
    assert [r["shape"] for r in rows] == list(PAPERS_OWN)
    assert rows[0]["configuration"].startswith("rcnn(hidden_dim=400")  # Lei et al. Table 3's RCNN
    assert "d=1024" in rows[1]["configuration"]  # the largest d of Tay et al.'s grid (128 to 1024)
    assert rows[1]["runs"] == 288 * 5  # 288 configurations of the grid, 5 seeds
    assert all(r["step seconds"] > 0 and r["hours, one grid"] > 0 for r in rows)


def test_the_smoke_profiles_other_families_rehearse_and_the_plan_says_what_it_left_out(
        tmp_path, monkeypatch, capsys, real_data):
    real_data("trecqa", "TrecQA/data/DEV.xml")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path))
    assert main(["run", "--profile", "smoke", "--rehearse", "--family", "pre-training", "domain adaptation",
                 "answer ranker"]) == 0
    said = capsys.readouterr().out
    assert said.count("rehearsed answer ranker") == len(METHODS) and "the plan: " in said
    planned = json.loads((tmp_path / "rehearsal" / "smoke" / "plan.json").read_text())
    assert [r["shape"] for r in planned["shapes"]] == [
        "Lei et al. rcnn, pre-trained (§4.2)", "Smolyakov & Srikant cnn, adversarial",
        "Smolyakov & Srikant lstm, adversarial", *(f"{m} ranker" for m in METHODS)]
    assert planned["shapes"][1]["runs"] == 2  # λ = 0 and the smoke profile's one λ, one seed
    assert planned["hours, one grid of each shape"] >= 0 and "10_dos_santos" in str(planned["not rehearsed"])
    page = (tmp_path / "rehearsal" / "smoke" / "plan.md").read_text()
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
