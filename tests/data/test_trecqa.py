"""TrecQA: the xml reader, the TRAIN-ALL rebuild from jacana, and the published counts."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

from reproq.data.errors import FormatError
from reproq.data.qa import clean, qa_stats
from reproq.data.trecqa import SPLITS, TRAIN_ALL_FILES, XML_FILES, load_trecqa, read_jacana, read_trecqa_xml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trecqa"
JACANA = [FIXTURES / Path(p).name.removesuffix(".gz") for p in TRAIN_ALL_FILES]


def average_precision(labels) -> float:
    labels = np.asarray(labels)
    hits = np.cumsum(labels)
    return float((hits / np.arange(1, len(labels) + 1))[labels == 1].mean())


# --- the xml reader, on a fixture -------------------------------------------------------------------


def test_xml_reader_reads_questions_in_file_order_and_first_lines_only():
    questions = read_trecqa_xml(FIXTURES / "sample.xml")
    assert [q.id for q in questions] == ["32.1", "33.1", "41.3"]
    first = questions[0]
    assert first.tokens == ("What", "do", "practitioners", "of", "Wicca", "worship", "?")
    assert sorted(first.labels.tolist()) == [0, 0, 0, 1, 1]
    texts = {c.tokens: c.label for c in first.candidates}
    assert texts[("AT&T", "sold", "books", "on", "Wicca", ".")] == 0  # html characters are not escaped
    assert not any("NNP" in c.tokens or "DT" in c.tokens for c in first.candidates)  # POS lines skipped
    assert questions[1].labels.tolist() == [1]
    assert questions[2].candidates == ()


def test_candidate_ids_name_the_shuffled_position_and_reading_is_deterministic():
    questions = read_trecqa_xml(FIXTURES / "sample.xml")
    for q in questions:
        assert [c.id for c in q.candidates] == [f"{q.id}-{i}" for i in range(len(q.candidates))]
    assert read_trecqa_xml(FIXTURES / "sample.xml") == questions


@pytest.mark.parametrize("lines, line, expected", [
    (["<QApairs id='1'>", "<question>", "Who\t?", "</question>", "<positive>", "An\tanswer", "<negative>"],
     7, "expected </positive>, found <negative>"),
    (["<QApairs id='1'>", "<question>", "Who\t?", "</question>", "<positive>", "An\tanswer", "</positive>"],
     1, "expected </QApairs> closing <QApairs id='1'>, found end of file"),
    (["<QApairs id='1'>", "<positive>", "An\tanswer", "</positive>", "</QApairs>"],
     2, "expected <question> first, found <positive>"),
    (["<QApairs id='1'>", "<question>", "</question>"], 3, "expected a line of tokens after <question>"),
    (["<QAPairs id=1>"], 1, "expected <QApairs id='...'>"),
])
def test_malformed_xml_names_file_line_and_what_was_expected(tmp_path, lines, line, expected):
    path = tmp_path / "broken.xml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError) as info:
        read_trecqa_xml(path)
    assert (info.value.path, info.value.line) == (str(path), line)
    assert str(info.value).startswith(f"{path}:{line}: {expected}")


# --- the jacana rebuild, on fixtures ----------------------------------------------------------------


def test_jacana_rebuild_aligns_blocks_by_number():
    questions = read_jacana(*JACANA)
    assert [q.id for q in questions] == ["1", "2", "1697"]
    by_id = {q.id: q for q in questions}
    assert by_id["1"].tokens[:4] == ("Who", "is", "the", "author")
    assert sorted(by_id["1"].labels.tolist()) == [0, 0, 1, 1]
    assert by_id["2"].labels.tolist() == [1]  # an empty negative block: only a positive
    statue = {c.tokens[:3]: c.label for c in by_id["1697"].candidates}
    assert statue[("<", "P", ">")] == 1  # a sentence that starts with "<" is a sentence, not a tag
    assert not any("\r" in t for q in questions for c in q.candidates for t in c.tokens)


def test_jacana_rebuild_reads_the_gzipped_files_the_same(tmp_path):
    gzipped = []
    for path in JACANA:
        target = tmp_path / (path.name + ".gz")
        with open(path, "rb") as src, gzip.open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        gzipped.append(target)
    assert read_jacana(*gzipped) == read_jacana(*JACANA)


def test_jacana_answer_block_without_a_question_is_a_format_error(tmp_path):
    negatives = tmp_path / "negatives"
    negatives.write_text("<A 1 >\nA sentence .\n</A>\n<A 3 >\nAnother one .\n</A>\n")
    with pytest.raises(FormatError) as info:
        read_jacana(JACANA[0], JACANA[1], negatives)
    assert str(info.value).startswith(f"{negatives}:4: expected a question number of ")


def test_jacana_unclosed_block_is_a_format_error(tmp_path):
    questions = tmp_path / "questions"
    questions.write_text("<Q 1 >\nWho ?\n</Q>\n<Q 2 >\nWhat ?\n<Q 3 >\nWhy ?\n</Q>\n")
    with pytest.raises(FormatError) as info:
        read_jacana(questions, JACANA[1], JACANA[2])
    assert str(info.value).startswith(f"{questions}:6: expected </Q> closing <Q 2 >")


def test_unknown_split_or_evaluation_is_a_value_error():
    with pytest.raises(ValueError, match="train-all"):
        load_trecqa("TRAIN")
    with pytest.raises(ValueError, match="clean"):
        load_trecqa("test", evaluation="filtered")


# --- the real files ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trecqa(real_data):
    for path in [*XML_FILES.values(), *TRAIN_ALL_FILES]:
        real_data("trecqa", path)
    return {split: load_trecqa(split) for split in SPLITS}


@pytest.mark.parametrize("split, questions, pairs, positives", [
    ("train", 94, 4718, 348), ("dev", 82, 1148, 222), ("test", 100, 1517, 284),
    ("train-all", 1229, 53417, 6410),  # the published TRAIN-ALL, rebuilt
])
def test_published_counts(trecqa, split, questions, pairs, positives):
    found = trecqa[split]
    assert len(found) == questions
    assert sum(len(q.candidates) for q in found) == pairs
    assert sum(q.n_positive for q in found) == positives
    assert len({q.id for q in found}) == questions


@pytest.mark.parametrize("split, with_positive, only_positive, n_clean", [
    ("test", 89, 21, 68), ("dev", 78, 13, 65),
])
def test_raw_and_clean_evaluation_sets(trecqa, split, with_positive, only_positive, n_clean):
    raw = trecqa[split]
    stats = qa_stats(raw)
    assert (stats["with_positive"], stats["only_positive"], stats["clean"]) == (with_positive, only_positive, n_clean)
    cleaned = load_trecqa(split, evaluation="clean")
    assert [q.id for q in cleaned] == [q.id for q in clean(raw)]
    assert len(cleaned) == n_clean and all(0 < q.n_positive < len(q.candidates) for q in cleaned)


def lower(tokens) -> tuple[str, ...]:
    return tuple(t.lower() for t in tokens)


def test_train_is_part_of_train_all_and_dev_test_are_not(trecqa):
    train_all = {q.id: lower(q.tokens) for q in trecqa["train-all"]}
    assert all(train_all[q.id] == lower(q.tokens) for q in trecqa["train"])
    texts = set(train_all.values())
    assert not any(lower(q.tokens) in texts for split in ("dev", "test") for q in trecqa[split])


@pytest.mark.parametrize("split", ["test", "train-all"])
def test_candidate_order_does_not_leak_labels(trecqa, split):
    """In the files positives come first (a constant scorer would get MAP 1.0); as read, the order is
    as good as random: MAP of the order as read is within 0.05 of the MAP of random orders."""
    answered = [q.labels for q in trecqa[split] if q.n_positive > 0]
    as_read = np.mean([average_precision(labels) for labels in answered])
    rng = np.random.default_rng(0)
    random_orders = np.mean([average_precision(rng.permutation(labels)) for labels in answered for _ in range(20)])
    assert abs(as_read - random_orders) < 0.05
    assert as_read < 0.7
