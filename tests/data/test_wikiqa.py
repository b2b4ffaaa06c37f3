"""WikiQA: grouping the castorini line-aligned files into questions, and the split counts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reproq.data.errors import FormatError
from reproq.data.wikiqa import FILE_NAMES, load_wikiqa, read_wikiqa

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "wikiqa"


def test_pairs_are_grouped_by_question_in_file_order():
    questions = read_wikiqa(FIXTURES)
    assert [q.id for q in questions] == ["12", "1"]  # order of first appearance, not sorted
    tablespoon, glacier = questions
    assert tablespoon.tokens == ("how", "much", "is", "1", "tablespoon", "of", "water")
    assert sorted(tablespoon.labels.tolist()) == [0, 1]
    assert sorted(glacier.labels.tolist()) == [0, 0, 1]
    answers = {" ".join(c.tokens): c.label for c in glacier.candidates}
    assert answers["a glacier cave is a cave formed within the ice of a glacier ."] == 1
    assert [c.id for c in glacier.candidates] == ["1-0", "1-1", "1-2"]
    assert read_wikiqa(FIXTURES) == questions


@pytest.fixture
def split_copy(tmp_path):
    for name in FILE_NAMES:
        shutil.copy(FIXTURES / name, tmp_path / name)
    return tmp_path


def test_files_of_different_lengths_name_the_file(split_copy):
    path = split_copy / "sim.txt"
    path.write_text("0\n1\n0\n0\n")  # 4 lines beside 5
    with pytest.raises(FormatError) as info:
        read_wikiqa(split_copy)
    assert str(info.value).startswith(f"{path}:5: expected 5 lines, as many as a.toks, found 4 lines")


def test_a_label_other_than_0_or_1_names_file_and_line(split_copy):
    path = split_copy / "sim.txt"
    path.write_text("0\n1\n0\ntrue\n1\n")
    with pytest.raises(FormatError) as info:
        read_wikiqa(split_copy)
    assert str(info.value).startswith(f"{path}:4: expected 0 or 1, found 'true'")


def test_unknown_split_is_a_value_error():
    with pytest.raises(ValueError, match="dev"):
        load_wikiqa("validation")


@pytest.mark.parametrize("split, questions, pairs, positives, cut", [
    ("train", 873, 8672, 1040, 1094), ("dev", 126, 1130, 140, 125), ("test", 243, 2351, 293, 279),
])
def test_split_counts(real_data, split, questions, pairs, positives, cut):
    for name in FILE_NAMES:
        real_data("wikiqa", f"WikiQA/{split}/{name}")
    found = load_wikiqa(split)
    assert len(found) == questions
    assert sum(len(q.candidates) for q in found) == pairs
    assert sum(q.n_positive for q in found) == positives
    # castorini keeps only questions with a correct answer, as Yang et al. 2015 evaluate.
    assert all(q.n_positive > 0 for q in found)
    # castorini's copy cuts answer sentences at 40 tokens (the module docstring says so): none is longer.
    lengths = [len(c.tokens) for q in found for c in q.candidates]
    assert max(lengths) == 40 and lengths.count(40) == cut
