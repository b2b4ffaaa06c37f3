"""The study's own comparative sentences are held to its own paired test (reproq.report.comparisons)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from reproq import paths
from reproq.report import comparisons, guide
from tests.test_prose import plant


def test_no_comparative_sentence_of_the_readme_or_the_notebooks_says_more_than_its_test():
    unsupported = comparisons.check()
    assert not unsupported, "comparisons the study's own paired test does not support (say what the interval " \
        "shows, or cut them):\n" + "\n".join(f"  {u.where}: {u.why} | {u.sentence[:150]}" for u in unsupported)


@pytest.fixture
def copy(tmp_path):
    """A copy of the README, the guide's pages and the notebooks, to plant sentences in."""
    shutil.copytree(paths.ROOT / "notebooks", tmp_path / "notebooks")
    shutil.copy(paths.ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(paths.ROOT / guide.GUIDE, tmp_path / guide.GUIDE)
    return tmp_path


def test_beats_over_an_interval_that_holds_0_fails_in_the_readme(copy):
    readme = copy / "README.md"
    readme.write_text(readme.read_text() + "\n- On TRAIN, CTRN beats QRNN (+0.009, −0.007 to +0.025).\n")
    [found] = comparisons.check(copy)
    assert found.where.startswith("README.md:") and "holds 0" in found.why


def test_a_comparison_without_a_test_fails_in_a_notebook(copy):
    plant(copy, "12_encoders_side_by_side", "Under one protocol the encoders hardly differ.")
    [found] = comparisons.check(copy)
    assert found.where.startswith("12_encoders_side_by_side.ipynb") and "no paired test" in found.why


def test_what_a_sentence_needs():
    assert comparisons.judge("QRNN beats the floor (+0.024, +0.001 to +0.048).") == ""
    assert comparisons.judge("The anchor is below both networks [−0.058, −0.006].") == ""
    assert "other way" in comparisons.judge("The anchor is below both networks [+0.010, +0.050].")
    assert comparisons.judge("CTRN above QRNN is not shown [-0.007, +0.025].") == ""  # no difference, and 0 inside
    assert "excludes 0" in comparisons.judge("CTRN above QRNN is not shown [+0.007, +0.025].")
    assert "no paired test" in comparisons.judge("CTRN above QRNN is not shown.")  # a verdict carries its interval
    assert comparisons.sentences("CTRN above QRNN is not shown; every network beats the floor.")[1][1] == \
        "every network beats the floor."
    assert comparisons.judge("Their claim: BOW-CNN beats six Lucene similarities.") == ""  # the paper's, tested apart
    assert comparisons.judge('He found that "this worked a lot better".') == ""  # a paper's own words, quoted
    assert comparisons.judge("A run that never beat its start kept the untrained encoder.") == ""  # no two methods
    for placed in ("The table above lists them.", "The reading below sets each count beside the paper's.",
                   "Each run keeps its best epoch.", "Questions are lower-cased.", "Does pre-training help?"):
        assert comparisons.judge(placed) == "", placed  # compares nothing, or asks


# one unsupported sentence of each kind issue 52 found walking around the check (Why 4), planted in each place
PLANTED = {"better": "On TRAIN, CTRN is better than QRNN.",
           "above a method": "On TRAIN, CTRN lands above QRNN.",
           "naming Tay et al.": "Like Tay et al., our CTRN beats QRNN on TRAIN.",
           "naming the paper": "As in the paper, CTRN beats QRNN on TRAIN.",
           "shown": "CTRN's lead over QRNN on TRAIN is shown.",
           "not shown": "Pre-training is not shown to help the RCNN here.",
           "largest": "The largest gap is CTRN's over QRNN.",
           "best": "GRU is the best encoder on WikiQA."}


def _plant_in(copy, place: str, text: str) -> str:
    """Plant ``text`` in ``place`` of the copy (the README, a guide page or a notebook); where it will be found."""
    if place == "notebook":
        plant(copy, "04_trecqa_ctrn", text)
        return "04_trecqa_ctrn.ipynb"
    page = copy / "README.md" if place == "README" else copy / guide.GUIDE / "findings.md"
    page.write_text(page.read_text() + f"\n{text}\n")
    return str(page.relative_to(copy))


@pytest.mark.parametrize("place", ["README", "guide", "notebook"])
@pytest.mark.parametrize("kind", list(PLANTED))
def test_each_kind_of_unsupported_sentence_fails_in_each_place(copy, kind, place):
    where = _plant_in(copy, place, PLANTED[kind])
    found = comparisons.check(copy)
    assert [u.sentence for u in found] == [PLANTED[kind]] and found[0].where.startswith(where), kind


def test_the_sentences_this_check_was_made_for_fail_at_6c072d8(tmp_path):
    """The README and notebooks as they were before issue 41: the anchor "above them all", "they hardly differ", the
    budget that "turns the sign" over an interval holding 0 — each caught."""
    if subprocess.run(["git", "-C", str(paths.ROOT), "cat-file", "-e", "6c072d8"], capture_output=True).returncode:
        pytest.skip("no git history here")
    archive = subprocess.run(["git", "-C", str(paths.ROOT), "archive", "6c072d8", "README.md", "notebooks"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive, check=True)
    caught = " ".join(u.sentence for u in comparisons.check(tmp_path))
    for phrase in ("is above them all", "they hardly differ", "turns the sign", "far above every network",
                   "beats them all"):
        assert phrase in caught
