"""Malformed and foreign files: every reader raises a :class:`FormatError` that names the file and the line,
never a bare exception and never an empty result; a leading byte-order mark is not an error.

Each file in ``tests/fixtures/bad/`` holds one defect: wrong columns, a non-numeric or non-finite field,
latin-1 bytes, a truncated gzip stream, an HTML page where the data should be, or nothing at all.
:data:`BAD` says which reader call reads it and how its message begins; :data:`BOM` lists the files that
differ from a good fixture only by a leading byte-order mark, and must read exactly as that fixture does.
A file of the folder that is in neither table fails its test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reproq.data.askubuntu import (read_android_eval, read_corpus, read_eval, read_heldout, read_train,
                                   read_vectors)
from reproq.data.errors import DataError
from reproq.data.semeval import read_relevancy, read_semeval
from reproq.data.trecqa import read_jacana, read_trecqa_xml
from reproq.data.wikiqa import FILE_NAMES, read_wikiqa

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BAD_DIR = FIXTURES / "bad"
JACANA = [FIXTURES / "trecqa" / name for name in (
    "Train1-2393.Question.POSInput", "Train1-2393.Positive-M.POSInput.cleaned", "Train1-2393.Negative-M.POSInput")]
ANDROID = [FIXTURES / "android/dev.pos.txt", FIXTURES / "android/dev.neg.txt"]


def alone(reader):
    """``reader`` on the bad file by itself."""
    return lambda bad, tmp: reader(bad)


def jacana(position):
    """:func:`read_jacana` with the bad file as its ``position``-th file (0 questions, 1 positives,
    2 negatives) and the good fixtures as the others."""
    return lambda bad, tmp: read_jacana(*(bad if i == position else good for i, good in enumerate(JACANA)))


def android(position):
    """:func:`read_android_eval` with the bad file as its pos (0) or neg (1) file."""
    return lambda bad, tmp: read_android_eval(*(bad if i == position else good for i, good in enumerate(ANDROID)))


def wikiqa(*names):
    """:func:`read_wikiqa` on a copy of the good split folder whose ``names`` are the bad file."""
    def read(bad, tmp):
        for name in FILE_NAMES:
            shutil.copy(bad if name in names else FIXTURES / "wikiqa" / name, tmp / name)
        return read_wikiqa(tmp)
    return read


FOUR_FIELDS = "expected 4 fields (query id, similar ids, candidate ids, BM25 scores separated by tabs)"
RELEVANCY = "expected 5 tab-separated fields ending in true or false"

# bad file -> (reader call, start of the message; {bad} is the file's path, {tmp} a scratch folder)
BAD = {
    "askubuntu_corpus_columns.txt": (alone(read_corpus),
        "{bad}:1: expected 3 fields (id, title, body separated by tabs), found 4 fields"),
    "askubuntu_corpus_latin1.txt": (alone(read_corpus), "{bad}:2: expected UTF-8 text, found undecodable bytes"),
    "askubuntu_corpus_empty.txt": (alone(read_corpus), "{bad}:1: expected at least one question, found none"),
    "askubuntu_corpus_truncated.txt.gz": (alone(read_corpus),
        "{bad}:7: expected a complete gzip stream, found one cut short"),
    "askubuntu_corpus_not_gzip.txt.gz": (alone(read_corpus),
        "{bad}:1: expected a complete gzip stream, found corrupt data (Not a gzipped file"),
    "askubuntu_corpus_html.txt": (alone(read_corpus),
        "{bad}:1: expected 3 fields (id, title, body separated by tabs), found 1 field"),
    "askubuntu_train_columns.txt": (alone(read_train),
        "{bad}:1: expected 3 fields (query id, similar ids, random ids separated by tabs), found 2 fields"),
    "askubuntu_train_latin1.txt": (alone(read_train), "{bad}:2: expected UTF-8 text, found undecodable bytes"),
    "askubuntu_train_empty.txt": (alone(read_train), "{bad}:1: expected at least one training query, found none"),
    "askubuntu_dev_nan_score.txt": (alone(read_eval), "{bad}:1: expected finite BM25 scores, found 'nan'"),
    "askubuntu_dev_inf_score.txt": (alone(read_eval), "{bad}:2: expected finite BM25 scores, found 'inf'"),
    "askubuntu_dev_text_score.txt": (alone(read_eval),
        "{bad}:1: expected BM25 scores as numbers, found '31.5 twenty 12.0 9.875'"),
    "askubuntu_dev_columns.txt": (alone(read_eval), "{bad}:1: " + FOUR_FIELDS + ", found 3 fields"),
    "askubuntu_dev_score_count.txt": (alone(read_eval),
        "{bad}:1: expected one BM25 score per candidate (4 candidates), found 3 scores"),
    "askubuntu_dev_html.txt": (alone(read_eval), "{bad}:1: " + FOUR_FIELDS + ", found 1 field"),
    "askubuntu_dev_empty.txt": (alone(read_eval), "{bad}:1: expected at least one query, found none"),
    "askubuntu_heldout_two_ids.txt": (alone(read_heldout), "{bad}:1: expected one question id, found 2 fields"),
    "askubuntu_heldout_latin1.txt": (alone(read_heldout), "{bad}:2: expected UTF-8 text, found undecodable bytes"),
    "askubuntu_heldout_blank.txt": (alone(read_heldout), "{bad}:1: expected at least one question id, found none"),
    "askubuntu_vectors_ragged.txt": (alone(read_vectors), "{bad}:2: expected a word and 4 numbers, found 3 numbers"),
    "askubuntu_vectors_text_value.txt": (alone(read_vectors),
        "{bad}:2: expected numbers after the word, found '-1.5 two 0.25 1e-3'"),
    "askubuntu_vectors_nan.txt": (alone(read_vectors),
        "{bad}:2: expected finite numbers after the word, found '-1.5 nan 0.25 1e-3'"),
    "askubuntu_vectors_truncated.txt.gz": (alone(read_vectors),
        "{bad}:1: expected a complete gzip stream, found one cut short"),
    "askubuntu_vectors_empty.txt": (alone(read_vectors), "{bad}:1: expected at least one word vector, found none"),
    "android_pos_columns.txt": (android(0),
        "{bad}:2: expected 2 fields (query id and candidate id), found 3 fields"),
    "android_neg_latin1.txt": (android(1), "{bad}:2: expected UTF-8 text, found undecodable bytes"),
    "android_pos_empty.txt": (android(0), "{bad}:1: expected at least one query-candidate pair, found none"),
    "android_corpus_truncated.tsv.gz": (alone(read_corpus),
        "{bad}:2: expected a complete gzip stream, found one cut short"),
    "trecqa_xml_latin1.xml": (alone(read_trecqa_xml), "{bad}:32: expected UTF-8 text, found undecodable bytes"),
    "trecqa_xml_empty.xml": (alone(read_trecqa_xml), "{bad}:1: expected at least one <QApairs> block, found none"),
    "trecqa_xml_html.xml": (alone(read_trecqa_xml), "{bad}:1: expected <QApairs id='...'>, found '<!DOCTYPE html>'"),
    "trecqa_xml_unclosed.xml": (alone(read_trecqa_xml),
        "{bad}:1: expected </QApairs> closing <QApairs id='32.1'>, found end of file"),
    "trecqa_jacana_question_truncated.POSInput.gz": (jacana(0),
        "{bad}:2: expected a complete gzip stream, found one cut short"),
    "trecqa_jacana_positive_latin1.POSInput": (jacana(1), "{bad}:6: expected UTF-8 text, found undecodable bytes"),
    "trecqa_jacana_positive_not_gzip.POSInput.gz": (jacana(1),
        "{bad}:1: expected a complete gzip stream, found corrupt data (Not a gzipped file"),
    "trecqa_jacana_negative_empty.POSInput": (jacana(2), "{bad}:1: expected at least one <A n > block, found none"),
    "wikiqa_sim_text_label.txt": (wikiqa("sim.txt"), "{tmp}/sim.txt:4: expected 0 or 1, found 'true'"),
    "wikiqa_a_latin1.toks": (wikiqa("a.toks"), "{tmp}/a.toks:3: expected UTF-8 text, found undecodable bytes"),
    "wikiqa_b_short.toks": (wikiqa("b.toks"), "{tmp}/b.toks:5: expected 5 lines, as many as a.toks, found 4 lines"),
    "wikiqa_sim_html.txt": (wikiqa("sim.txt"), "{tmp}/sim.txt:1: expected 0 or 1, found '<!DOCTYPE html>'"),
    "wikiqa_all_empty.txt": (wikiqa(*FILE_NAMES),
        "{tmp}/a.toks:1: expected at least one question-answer pair, found none"),
    "semeval_xhtml.xml": (alone(read_semeval),
        "{bad}:2: expected <xml> as the root element (a SemEval thread file), found <html>"),
    "semeval_html.xml": (alone(read_semeval), "{bad}:3: expected well-formed xml, found mismatched tag"),
    "semeval_latin1.xml": (alone(read_semeval), "{bad}:30: expected well-formed xml, found not well-formed"),
    "semeval_no_threads.xml": (alone(read_semeval), "{bad}:1: expected at least one <Thread>, found none"),
    "semeval_empty.xml": (alone(read_semeval), "{bad}:1: expected well-formed xml, found no element found"),
    "semeval_truncated.xml": (alone(read_semeval), "{bad}:18: expected well-formed xml, found unclosed token"),
    "semeval_missing_relevance.xml": (alone(read_semeval),
        "{bad}:10: expected RELC_RELEVANCE2RELQ in Good, PotentiallyUseful, Bad, found None"),
    "semeval_relevancy_columns.relevancy": (alone(read_relevancy), "{bad}:2: " + RELEVANCY + ", found 'Q268_R16"),
    "semeval_relevancy_latin1.relevancy": (alone(read_relevancy),
        "{bad}:4: expected UTF-8 text, found undecodable bytes"),
    "semeval_relevancy_empty.relevancy": (alone(read_relevancy),
        "{bad}:1: expected at least one gold label, found none"),
    "semeval_relevancy_html.relevancy": (alone(read_relevancy), "{bad}:1: " + RELEVANCY + ", found '<!DOCTYPE html>'"),
}


def vectors_by_word(path):
    words, vectors = read_vectors(path)
    return dict(zip(words, vectors.tolist()))


# a good fixture with a UTF-8 byte-order mark in front -> (reader call, the good fixture it must read as)
BOM = {
    "askubuntu_corpus_bom.txt": (alone(read_corpus), "askubuntu/text_tokenized.txt"),
    "askubuntu_train_bom.txt": (alone(read_train), "askubuntu/train_random.txt"),
    "askubuntu_dev_bom.txt": (alone(read_eval), "askubuntu/dev.txt"),
    "askubuntu_heldout_bom.txt": (alone(read_heldout), "askubuntu/heldout.txt"),
    "askubuntu_vectors_bom.txt": (alone(vectors_by_word), "askubuntu/vector/vectors_pruned.200.txt"),
    "android_pos_bom.txt": (android(0), "android/dev.pos.txt"),
    "trecqa_xml_bom.xml": (alone(read_trecqa_xml), "trecqa/sample.xml"),
    "trecqa_jacana_question_bom.POSInput": (jacana(0), "trecqa/Train1-2393.Question.POSInput"),
    "wikiqa_id_bom.txt": (wikiqa("id.txt"), "wikiqa/id.txt"),  # with the BOM, a phantom question '\ufeff12'
    "semeval_bom.xml": (alone(read_semeval), "semeval2016/subtaskA-sample.xml"),
    "semeval_relevancy_bom.relevancy": (alone(read_relevancy), "semeval2016/subtaskA-sample.xml.subtaskA.relevancy"),
}


@pytest.mark.parametrize("name", sorted(p.name for p in BAD_DIR.iterdir() if p.name not in BOM))
def test_bad_file_is_a_format_error_naming_file_and_line(name, tmp_path):
    assert name in BAD, f"tests/fixtures/bad/{name} has no entry in BAD: add the reader call that reads it"
    read, message = BAD[name]
    with pytest.raises(DataError) as info:  # another exception type, or a result, fails here
        read(BAD_DIR / name, tmp_path)
    assert str(info.value).startswith(message.format(bad=BAD_DIR / name, tmp=tmp_path))


@pytest.mark.parametrize("name", sorted(BOM))
def test_a_leading_byte_order_mark_is_stripped(name, tmp_path):
    read, good = BOM[name]
    found = read(BAD_DIR / name, tmp_path)
    assert "\\ufeff" not in repr(found)  # repr writes the invisible mark as an escape
    assert found == read(FIXTURES / good, tmp_path)


def test_every_table_entry_is_a_file():
    assert set(BAD) | set(BOM) == {p.name for p in BAD_DIR.iterdir()}
