"""SemEval-2016 3B (QatarLiving question–question similarity): the readers on good and broken files, the derived part-1
CSV, the join of the test input to its gold file, the leakage check, and the real splits against the organisers'
counts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from reproq.data import semeval_b
from reproq.data.errors import DataError, FormatError
from reproq.data.semeval_b import (DEV_GOLD, FILES, MERGED, OFFICIAL_COUNTS, TEST_GOLD, check_no_leakage,
                                   read_part1_csv, read_subtask_b, training_queries)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "semeval2016"
SAMPLE = FIXTURES / "subtaskB-sample.xml"
INPUT = FIXTURES / "subtaskB-sample-input.xml"
GOLD = FIXTURES / "subtaskB-sample.xml.subtaskB.relevancy"
PART1 = FIXTURES / "TRAIN-BASE-sample.csv"


def RELQ(rid: str) -> str:
    return f'RELQ_ID="{rid}"'


def line_with(path: Path, needle: str) -> int:
    return next(n for n, s in enumerate(path.read_text().splitlines(), 1) if needle in s)


def broken(tmp_path: Path, source: Path, old: str, new: str, count: int = 1) -> Path:
    path = tmp_path / source.name
    text = source.read_text()
    assert old in text
    path.write_text(text.replace(old, new, count))
    return path


def test_queries_have_their_related_questions_in_search_engine_order():
    bank, visa = read_subtask_b(SAMPLE, part="dev")
    assert bank.question.id == "Q268" and bank.question.title == ("good", "bank")
    assert [r.question.id for r in bank.related] == ["Q268_R4", "Q268_R6", "Q268_R9"]  # by RELQ_RANKING_ORDER
    assert [r.rank for r in bank.related] == [4, 6, 9]
    assert bank.positives == ("Q268_R4", "Q268_R9")  # PerfectMatch and Relevant are positives, as the scorer merges
    assert "&" in bank.related[2].question.body and "amp" not in bank.related[2].question.body  # entities decoded
    assert visa.related[0].same_as == "Q268_R6"  # the same forum thread as an earlier related question
    evaluation = bank.as_eval_query()
    assert evaluation.candidate_ids == ("Q268_R4", "Q268_R6", "Q268_R9") and evaluation.labels.tolist() == [1, 0, 1]


def test_a_test_input_takes_its_labels_from_the_gold_file():
    labelled = read_subtask_b(SAMPLE, part="dev")
    joined = read_subtask_b(INPUT, part="test", gold=GOLD)
    assert [q.positives for q in joined] == [q.positives for q in labelled]
    assert {r.relevance for q in joined for r in q.related} == {MERGED, "Irrelevant"}
    with pytest.raises(FormatError, match="RELQ_RELEVANCE2ORGQ in PerfectMatch, Relevant, Irrelevant"):
        read_subtask_b(INPUT, part="test")  # no gold file: "?" is no label


def test_a_labelled_file_must_agree_with_its_gold_file(tmp_path):
    gold = broken(tmp_path, GOLD, "Q268\tQ268_R6\t6\t0.166666666666667\tfalse", "Q268\tQ268_R6\t6\t0.166666666666667\ttrue")
    with pytest.raises(FormatError) as info:
        read_subtask_b(SAMPLE, part="dev", gold=gold)
    assert str(info.value).startswith(f"{SAMPLE}:{line_with(SAMPLE, RELQ('Q268_R6'))}: expected the label of")


def test_a_gold_line_whose_pair_is_not_in_the_input_names_its_line(tmp_path):
    gold = tmp_path / GOLD.name
    gold.write_text(GOLD.read_text() + "Q269\tQ269_R7\t7\t0.142857142857143\ttrue\n")
    with pytest.raises(FormatError) as info:
        read_subtask_b(INPUT, part="test", gold=gold)
    assert str(info.value).startswith(f"{gold}:6: expected only related questions of {INPUT.name}, found Q269 Q269_R7")


def test_an_input_pair_without_a_gold_label_names_its_line(tmp_path):
    gold = tmp_path / GOLD.name
    gold.write_text("".join(line for line in GOLD.read_text().splitlines(True) if "Q269_R3" not in line))
    with pytest.raises(FormatError) as info:
        read_subtask_b(INPUT, part="test", gold=gold)
    assert str(info.value).startswith(f"{INPUT}:{line_with(INPUT, RELQ('Q269_R3'))}: expected a gold label")


def test_a_duplicate_pair_is_named_in_the_xml_and_in_the_gold_file(tmp_path):
    xml = broken(tmp_path, SAMPLE, 'RELQ_ID="Q268_R9"', 'RELQ_ID="Q268_R4"')
    with pytest.raises(FormatError, match="each related question of a query once, found Q268_R4 twice"):
        read_subtask_b(xml, part="dev")
    gold = tmp_path / "twice.relevancy"
    gold.write_text(GOLD.read_text() + GOLD.read_text().splitlines(True)[0])
    with pytest.raises(FormatError) as info:
        read_subtask_b(INPUT, part="test", gold=gold)
    assert str(info.value).startswith(f"{gold}:6: expected each pair once, found Q268 Q268_R4 again (line 1)")


def test_a_label_outside_the_set_names_its_line(tmp_path):
    xml = broken(tmp_path, SAMPLE, 'RELQ_RELEVANCE2ORGQ="Relevant"', 'RELQ_RELEVANCE2ORGQ="Related"')
    with pytest.raises(FormatError) as info:
        read_subtask_b(xml, part="dev")
    assert str(info.value).startswith(f"{xml}:{line_with(xml, 'Related')}: expected RELQ_RELEVANCE2ORGQ in")


def test_a_truncated_xml_names_the_line_it_stops(tmp_path):
    text = SAMPLE.read_text()
    path = tmp_path / "cut.xml"
    path.write_text(text[:len(text) // 2])
    with pytest.raises(FormatError) as info:
        read_subtask_b(path, part="dev")
    assert str(info.value).startswith(f"{path}:{len(text[:len(text) // 2].splitlines())}: expected well-formed xml")


def test_part1_queries_are_runs_of_rows_split_at_their_common_prefix():
    massage, visa = read_part1_csv(PART1)
    assert massage.question.id == "P1-1" and massage.question.title == ("massage", "oil")
    assert [r.question.title for r in massage.related] == [("massage", "oil"), ("best", "place", "for", "massage"),
                                                           ("massage", "center")]
    assert [r.question.id for r in massage.related] == ["P1-1_R1", "P1-1_R2", "P1-1_R3"]
    assert massage.positives == ("P1-1_R1", "P1-1_R3") and all(r.rank is None for r in massage.related)
    assert "1000qr" in massage.related[1].question.body  # a quoted field with a comma stays one field
    assert visa.question.title == ("can", "i", "extend", "my", "visa", "?") and visa.part == "train part 1"


def test_part1_broken_files_name_their_line(tmp_path):
    for old, new, line, expected in [
        ("feature,question", "subject,question", 1, "expected the header"),
        (",Relevant\n", ",Maybe\n", 4, "expected a label in PerfectMatch, Relevant, Irrelevant"),
        ("Can i extend my visa? Exit permit,", "Exit permit,", 5, None),  # a query whose rows share no word
    ]:
        path = broken(tmp_path, PART1, old, new)
        if expected is None:
            path.write_text(PART1.read_text().replace("Can i extend my visa? Visa extension", "Visa extension"))
            line, expected = 5, "expected a query of at least two rows whose features share its subject"
        with pytest.raises(FormatError) as info:
            read_part1_csv(path)
        assert str(info.value).startswith(f"{path}:{line}: {expected}"), str(info.value)
    lonely = tmp_path / "lonely.csv"
    lonely.write_text("".join(PART1.read_text().splitlines(True)[:5]))  # the second query keeps one row
    with pytest.raises(FormatError, match="5: expected a query of at least two rows"):
        read_part1_csv(lonely)


def test_training_queries_draw_their_negatives_from_the_labelled_and_from_other_queries():
    train = read_part1_csv(PART1) + read_subtask_b(SAMPLE, part="train part 2")
    queries = training_queries(train, n_random=3)
    massage = queries[0]
    assert massage.similar_ids == ("P1-1_R1", "P1-1_R3")
    assert massage.random_ids[0] == "P1-1_R2"  # its labelled irrelevant related question first
    own = {"P1-1", "P1-1_R1", "P1-1_R2", "P1-1_R3"}
    assert len(massage.random_ids) == 4 and not own & set(massage.random_ids[1:])
    assert training_queries(train, n_random=3) == queries  # drawn once, with a fixed seed


def test_the_leakage_check_refuses_a_dev_query_planted_into_training():
    dev = read_subtask_b(SAMPLE, part="dev")
    train = read_part1_csv(PART1)
    check_no_leakage(train, dev, [])  # nothing shared: no error
    with pytest.raises(DataError, match="dev query Q268 .* also a train query \\(Q268, the same id\\)"):
        check_no_leakage(train + [dev[0]], dev, [])
    renamed = replace(dev[1], question=replace(dev[1].question, id="P1-99"))  # the same text under another id
    with pytest.raises(DataError, match="dev query Q269 .* also a train query \\(P1-99, the same text\\)"):
        check_no_leakage(train + [renamed], dev, [])
    with pytest.raises(DataError, match="test query Q268 .* also a dev query"):
        check_no_leakage(train, dev, dev[:1])


# --- the real files ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def subtask_b(real_data):
    for files in FILES.values():
        for path in files:
            real_data(semeval_b.DATASET, path)
    real_data(semeval_b.DATASET, DEV_GOLD)
    real_data(semeval_b.DATASET, TEST_GOLD)
    return semeval_b.load_subtask_b()


def test_the_real_splits_beside_the_organisers_counts(subtask_b):
    rows = {row["part"]: row for row in semeval_b.statistics(subtask_b)}
    for part in ("train part 2", "dev"):  # the organisers' own xml: every count theirs
        assert {k: rows[part][k] for k in OFFICIAL_COUNTS[part]} == OFFICIAL_COUNTS[part]
    # the derived part 1 has 200 of their 200 queries and 1,958 of their 1,999 pairs
    assert (rows["train part 1"]["queries"], rows["train part 1"]["pairs"]) == (200, 1958)
    assert (rows["train part 1"]["PerfectMatch"], rows["train part 1"]["Relevant"], rows["train part 1"]["Irrelevant"]) \
        == (175, 592, 1191)
    assert (rows["test"]["queries"], rows["test"]["pairs"], rows["test"][MERGED]) == (70, 700, 233)
    assert [rows[p]["queries with a positive"] for p in semeval_b.PARTS] == [174, 61, 43, 62]


def test_the_derived_part1_subjects_agree_with_the_organisers_xml(subtask_b):
    """Where a part-1 related question's body is also a related question's body in the organisers' xml, the subject
    derived from the CSV's prefix is the subject there: 773 of the 774 such bodies (the other one is a different
    thread with the same body and another subject)."""
    xml = {}
    for query in (*subtask_b.train, *subtask_b.dev, *subtask_b.test):
        if query.part != "train part 1":
            for r in query.related:
                xml.setdefault(r.question.body, set()).add(r.question.title)
    part1 = [r.question for q in subtask_b.train if q.part == "train part 1" for r in q.related]
    found = [q for q in part1 if q.body and q.body in xml]
    agree = [q for q in found if q.title in xml[q.body]]
    assert len(found) >= 300 and len(found) - len(agree) <= 1


def test_no_dev_or_test_query_is_a_training_query(subtask_b):
    check_no_leakage(subtask_b.train, subtask_b.dev, subtask_b.test)
    train_ids = {q.question.id for q in subtask_b.train}
    assert not train_ids & {q.question.id for q in (*subtask_b.dev, *subtask_b.test)}
    shared = semeval_b.shared_related(subtask_b.splits)  # built into the official data, said and kept
    assert shared["train and test"] > 0 and shared["repeated within test"] > 0


def test_the_search_engine_order_scores_the_official_baseline(subtask_b):
    """A constant scorer keeps the related questions in the engine's order: the scorer's "IR" MAP (README, v2.2
    scorer: dev 0.7135; the test printouts: 0.7475)."""
    from reproq.question_retrieval.evaluate import retrieval_scores

    for queries, expected in ((subtask_b.dev, 0.7135), (subtask_b.test, 0.7475)):
        evaluation = [q.as_eval_query() for q in queries]
        constant = [np.zeros(len(q.candidate_ids)) for q in evaluation]
        assert round(retrieval_scores(evaluation, constant, no_positive="zero")["MAP"], 4) == expected
