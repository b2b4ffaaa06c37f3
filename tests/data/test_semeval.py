"""SemEval-2016 3A (QatarLiving): the thread reader, the gold relevancy files, and the split counts."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from reproq.data.errors import FormatError, MissingDataError
from reproq.data.semeval import (
    DEV_RELEVANCY,
    DEV_XML,
    EXTRA_2015_XMLS,
    TEST_RELEVANCY,
    TEST_XML,
    TRAIN_XMLS,
    load_semeval,
    read_relevancy,
    read_semeval,
    tokenize,
)
from reproq.data.sources import fetch_command

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "semeval2016"
SAMPLE = FIXTURES / "subtaskA-sample.xml"


def test_tokenize_lowercases_and_splits_off_symbols():
    assert tokenize("Hi ti all QL's; What bank?") == ("hi", "ti", "all", "ql's", ";", "what", "bank", "?")
    assert tokenize("QNB &amp; CBQ :)") == ("qnb", "&", "amp", ";", "cbq", ":", ")")
    assert tokenize("") == ()


def test_threads_become_questions_with_good_as_the_only_positive():
    questions = read_semeval(SAMPLE)
    assert [q.id for q in questions] == ["Q268_R16", "Q318_R6"]
    bank, party = questions
    assert bank.tokens[:3] == ("best", "bank", ".")  # subject, then body
    assert bank.tokens[3:6] == ("hi", "ti", "all")
    labels = {c.id: c.label for c in bank.candidates}
    assert labels == {"Q268_R16_C1": 0, "Q268_R16_C2": 0, "Q268_R16_C3": 1}  # Bad, PotentiallyUseful, Good
    potentially_useful = next(c for c in bank.candidates if c.id == "Q268_R16_C2")
    assert "&" in potentially_useful.tokens and "amp" not in potentially_useful.tokens  # entities decoded
    assert party.tokens == ("kiddie", "party", "venues", "?")  # empty body
    assert party.labels.tolist() == [1, 1]
    assert read_semeval(SAMPLE) == questions


def test_relevancy_file_agrees_with_the_thread_labels():
    gold = read_relevancy(FIXTURES / "subtaskA-sample.xml.subtaskA.relevancy")
    assert gold == {(q.id, c.id): c.label for q in read_semeval(SAMPLE) for c in q.candidates}


def test_xml_parse_error_names_the_line(tmp_path):
    path = tmp_path / "broken.xml"
    text = SAMPLE.read_text().replace("</RelQSubject>", "</RelQSubjet>", 1)
    path.write_text(text)
    line = next(n for n, s in enumerate(text.splitlines(), 1) if "</RelQSubjet>" in s)
    with pytest.raises(FormatError) as info:
        read_semeval(path)
    assert str(info.value).startswith(f"{path}:{line}: expected well-formed xml, found mismatched tag")


def test_unknown_relevance_names_the_comment_line(tmp_path):
    path = tmp_path / "broken.xml"
    text = SAMPLE.read_text().replace('RELC_RELEVANCE2RELQ="PotentiallyUseful"', 'RELC_RELEVANCE2RELQ="Dialogue"')
    path.write_text(text)
    line = next(n for n, s in enumerate(text.splitlines(), 1) if "Dialogue" in s)
    with pytest.raises(FormatError) as info:
        read_semeval(path)
    assert str(info.value).startswith(f"{path}:{line}: expected RELC_RELEVANCE2RELQ in Good, ")


def test_malformed_relevancy_line_is_a_format_error(tmp_path):
    path = tmp_path / "gold.relevancy"
    path.write_text("Q1\tQ1_C1\t1\t1\tfalse\nQ1\tQ1_C2\t2\t0.5\tGood\n")
    with pytest.raises(FormatError) as info:
        read_relevancy(path)
    assert str(info.value).startswith(f"{path}:2: expected 5 tab-separated fields")


def test_unknown_split():
    with pytest.raises(ValueError, match="dev"):
        load_semeval("validation")


def test_a_test_input_needs_its_gold_file(tmp_path):
    path = tmp_path / "input.xml"
    path.write_text(SAMPLE.read_text().replace('RELC_RELEVANCE2RELQ="Bad"', 'RELC_RELEVANCE2RELQ="?"'))
    with pytest.raises(FormatError, match="expected RELC_RELEVANCE2RELQ in Good"):
        read_semeval(path)
    joined = read_semeval(path, gold=FIXTURES / "subtaskA-sample.xml.subtaskA.relevancy")
    assert joined == read_semeval(SAMPLE)
    gold = tmp_path / "gold.relevancy"
    gold.write_text((FIXTURES / "subtaskA-sample.xml.subtaskA.relevancy").read_text() + "Q318_R6\tQ318_R6_C9\t9\t0.1\tfalse\n")
    with pytest.raises(FormatError, match="gold.relevancy:6: expected only comments of input.xml"):
        read_semeval(path, gold=gold)


# --- the real files ---------------------------------------------------------------------------------


def test_dev_counts_and_labels_match_the_gold_file(real_data):
    real_data("semeval2016", DEV_XML)
    dev = load_semeval("dev")
    assert len(dev) == 244
    assert sum(len(q.candidates) for q in dev) == 2440
    assert sum(q.n_positive for q in dev) == 818
    gold = read_relevancy(real_data("semeval2016", DEV_RELEVANCY))
    assert gold == {(q.id, c.id): c.label for q in dev for c in q.candidates}


def test_train_part2_counts(real_data):
    part2 = read_semeval(real_data("semeval2016", TRAIN_XMLS[1]))
    assert (len(part2), sum(len(q.candidates) for q in part2)) == (379, 3790)
    assert sum(q.n_positive for q in part2) == 1364


def test_train_without_part1_warns_and_uses_part2(real_data):
    real_data("semeval2016", TRAIN_XMLS[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train = load_semeval("train")
    missing = [w for w in caught if TRAIN_XMLS[0] in str(w.message)]
    if missing:  # part 1 cannot be had here
        assert fetch_command("semeval2016") in str(missing[0].message)
        assert len(train) == 379
    else:
        assert len(train) > 379


def test_test_threads_join_the_gold_labels(real_data):
    real_data("semeval2016", TEST_XML)
    test = load_semeval("test")
    assert (len(test), sum(len(q.candidates) for q in test), sum(q.n_positive for q in test)) == (327, 3270, 1329)


def test_the_2015_extra_threads(real_data):
    for path in EXTRA_2015_XMLS:
        real_data("semeval2016", path)
    extra = load_semeval("train-2015")
    assert (len(extra), sum(len(q.candidates) for q in extra)) == (610, 3405)
    assert not {q.id for q in extra} & {q.id for q in load_semeval("dev")}


def test_test_gold_labels(real_data):
    gold = read_relevancy(real_data("semeval2016", TEST_RELEVANCY))
    assert len(gold) == 3270
    assert len({qid for qid, _ in gold}) == 327  # Tay et al. 2018, Table 3
    assert sum(gold.values()) == 1329
