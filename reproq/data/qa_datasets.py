"""The answer-selection datasets as the experiments use them: splits, the papers' word-vector sizes, truncation,
and every split read at once with the provenance of its files.

TrecQA (Tay et al. Table 3: TRAIN and TRAIN-ALL, DEV, raw TEST), WikiQA (beyond the paper) and SemEval-2016
Task 3 subtask A, which the paper calls QatarLiving (train part 2 and dev only: the test threads cannot be had).
"""

from __future__ import annotations

from reproq.data import semeval, trecqa, wikiqa
from reproq.data.qa import QAQuestion
from reproq.data.sources import provenance

SPLITS = {  # dataset -> (training splits, dev split, test split or None)
    "trecqa": (("train", "train-all"), "dev", "test"),
    "wikiqa": (("train",), "dev", "test"),
    "semeval2016": (("train",), "dev", None),  # QatarLiving: the test threads cannot be had (reproq.data.semeval)
}
MAX_TRAIN_ANSWER = {"trecqa": 60}  # Severyn & Moschitti parse.py: training answers over 60 tokens are dropped
EMBEDDING_DIM = {  # the paper's word-vector sizes (§Implementation Details); ours are word2vec of that size
    "trecqa": 50,  # Severyn & Moschitti's 50-d aquaint + Wikipedia skip-gram vectors
    "semeval2016": 200,  # GloVe 200-d trained on the task's unannotated QatarLiving corpus
    "wikiqa": 50,  # not in the paper: as TrecQA
}
TRUNCATE = {"semeval2016": 100}  # forum threads: keep the first 100 tokens of a question or comment (ours)
NAMES = {"semeval2016": "qatarliving"}  # what Tay et al. call a dataset, where it differs from ours


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
    files = [semeval.DEV_XML, *semeval.TRAIN_XMLS[1:]]  # train part 1 cannot be had (reproq.data.semeval)
    return {s: semeval.load_semeval(s) for s in names}, provenance("semeval2016", files)
