"""The answer-selection datasets as the experiments use them: splits, the papers' word-vector sizes, truncation,
and every split read at once with the provenance of its files.

TrecQA (Tay et al. Table 3: TRAIN and TRAIN-ALL, DEV, raw TEST), WikiQA (beyond the paper), SemEval-2016 Task 3
subtask A, which the paper calls QatarLiving (train: part 2 and the organisers' 2015 extra threads, part 1 cannot be
had; dev; the 327 test threads), and subtask B as an answer-ranking set (``semeval2016b``: a query's ten related
questions are its candidates, subject and body one text; notebook 12's fourth real set).
"""

from __future__ import annotations

from reproq.data import semeval, semeval_b, trecqa, wikiqa
from reproq.data.qa import Candidate, QAQuestion, shuffle_candidates
from reproq.data.sources import provenance

SPLITS = {  # dataset -> (training splits, dev split, test split or None)
    "trecqa": (("train", "train-all"), "dev", "test"),
    "wikiqa": (("train",), "dev", "test"),
    "semeval2016": (("train",), "dev", "test"),  # QatarLiving: train is part 2 and the 2015 extras
    "semeval2016b": (("train",), "dev", "test"),  # subtask B: train is part 1 (derived) and part 2
}
MAX_TRAIN_ANSWER = {"trecqa": 60}  # Severyn & Moschitti parse.py: training answers over 60 tokens are dropped
EMBEDDING_DIM = {  # the paper's word-vector sizes (§Implementation Details); ours are word2vec of that size
    "trecqa": 50,  # Severyn & Moschitti's 50-d aquaint + Wikipedia skip-gram vectors
    "semeval2016": 200,  # GloVe 200-d trained on the task's unannotated QatarLiving corpus
    "semeval2016b": 200,  # not in the paper: as QatarLiving
    "wikiqa": 50,  # not in the paper: as TrecQA
}
TRUNCATE = {"semeval2016": 100, "semeval2016b": 100}  # forum texts: keep the first 100 tokens (ours)
NAMES = {"semeval2016": "qatarliving"}  # what Tay et al. call a dataset, where it differs from ours


def subtask_b_questions(queries) -> list[QAQuestion]:
    """Subtask B's queries as answer ranking reads them: a query's subject and body one text, each related question's
    too, candidates shuffled (:func:`reproq.data.qa.shuffle_candidates`: answer ranking breaks ties at random)."""
    return shuffle_candidates(QAQuestion(q.question.id, q.question.title + q.question.body,
                                         tuple(Candidate(r.question.id, r.question.title + r.question.body, r.label)
                                               for r in q.related)) for q in queries)


def load_splits(dataset: str) -> tuple[dict[str, list[QAQuestion]], dict[str, str]]:
    """Every split of ``dataset`` (raw TrecQA) and the provenance of their files."""
    if dataset not in SPLITS:
        raise ValueError(f"dataset must be one of {', '.join(SPLITS)}, got {dataset!r}")
    training, dev, test = SPLITS[dataset]
    names = [*training, dev] + ([test] if test else [])
    if dataset == "trecqa":
        files = list(trecqa.XML_FILES.values()) + list(trecqa.TRAIN_ALL_FILES)
        return {s: trecqa.load_trecqa(s) for s in names}, provenance("trecqa", files)
    if dataset == "wikiqa":
        files = [f"WikiQA/{s}/{f}" for s in names for f in wikiqa.FILE_NAMES]
        return {s: wikiqa.load_wikiqa(s) for s in names}, provenance("wikiqa", files)
    if dataset == "semeval2016b":
        b = semeval_b.load_subtask_b()
        return {s: subtask_b_questions(b.splits[s]) for s in names}, b.provenance
    files = [semeval.DEV_XML, *semeval.TRAIN_XMLS[1:], *semeval.EXTRA_2015_XMLS, semeval.TEST_XML,
             semeval.TEST_RELEVANCY]  # train part 1 cannot be had (reproq.data.semeval)
    loaded = {s: semeval.load_semeval(s) for s in names}
    loaded["train"] = loaded["train"] + semeval.load_semeval("train-2015")  # the organisers' extra training threads
    return loaded, provenance("semeval2016", files)
