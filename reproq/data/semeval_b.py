"""SemEval-2016 Task 3, subtask B (QatarLiving question–question similarity): a real question-retrieval set of
AskUbuntu's shape — a query with a subject (title) and a body, the ten questions a search engine retrieved for it, and a
relevance label per pair — read into the bundle of the AskUbuntu family (:func:`retrieval_data`, through
:func:`reproq.corpora.load_semeval_b`).

The files (Nakov et al. 2016; the organisers' README) hold one ``<OrgQuestion>`` element per (query, related
question), the query's subject and body repeated in each::

    <OrgQuestion ORGQ_ID="Q268"><OrgQSubject>Good Bank</OrgQSubject><OrgQBody>Which is a good bank ...</OrgQBody>
      <Thread THREAD_SEQUENCE="Q268_R4" SubtaskA_Skip_Because_Same_As_RelQuestion_ID="Q246_R15">
        <RelQuestion RELQ_ID="Q268_R4" RELQ_RANKING_ORDER="4" RELQ_RELEVANCE2ORGQ="PerfectMatch" ...>
          <RelQSubject>Best Bank</RelQSubject><RelQBody>Hi Guys; I need to open ...</RelQBody>

- **Labels.** ``PerfectMatch`` and ``Relevant`` are positives, ``Irrelevant`` is not: the official scorer merges the
  first two ("at test time, merged with Relevant", README §8). The test input's labels are "?"; they come from the
  official gold file, joined pair by pair on (ORGQ_ID, RELQ_ID) (:func:`reproq.data.semeval.join_gold`).
- **Candidate order.** Each query's related questions are kept in the search engine's order (``RELQ_RANKING_ORDER``),
  as the gold file lists them and as the official scorer breaks ties: a constant scorer gets the engine's own MAP
  (dev 0.7135, test 0.7475). The order is the engine's, not the labels'.
- **Splits.** ``train`` is part 1 then part 2 (267 queries), ``dev`` 50, ``test`` 70. Part 2, dev and test are the
  organisers' xml. **Part 1 is a derived CSV** (:func:`read_part1_csv`): a third party's ``TRAIN-BASE.csv`` with the
  subjects, bodies and labels of 1,958 of the organisers' 1,999 pairs, no ids and no search-engine order, so it serves
  training only; its ids are made up here (``P1-<n>`` and ``P1-<n>_R<k>``).
- **Shared related questions.** The same forum thread is retrieved for several queries, within a split and across
  splits (``SubtaskA_Skip_Because_Same_As_RelQuestion_ID`` names the earlier copy); that is built into the official
  data and is counted (:func:`shared_related`), not removed.
- **No leakage.** No dev or test query may be a training query, by id or by its text (:func:`check_no_leakage`, which
  every load runs): an earlier upstream "part1 v2.0" file held the dev set's queries, and a copy of it in place of
  part 1 is refused by its content whatever its hash (no pinned hash of that file could be had here).
- **Pre-training texts** (:func:`pretraining_corpus`). The unlabelled QatarLiving corpus is not reachable; the training
  threads are: every question and comment of subtask B's train part 2, subtask A's train part 2 and the organisers'
  2015 extras, and part 1's questions (its CSV has no comments). A question whose subject and body are also a dev or
  test question's (a shared forum thread) is left out with its comments, so no dev or test text is pre-trained on.

Longer than most modules here: the format, the derived part 1, the gold join, the leakage check and the
pre-training texts of one dataset, each relied on by the others.
"""

from __future__ import annotations

import csv
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reproq.data.askubuntu import MAX_BODY_LEN, EvalQuery, PretrainingCorpus, Question, TrainQuery
from reproq.data.errors import DataError, FormatError
from reproq.data.qa import SHUFFLE_SEED
from reproq.data.semeval import (DATASET, EXTRA_2015_XMLS, SUBMISSIONS, TRAIN_XMLS, UNLABELLED, join_gold, line_of,
                                 parse_xml, required_attribute, text_of, tokenize)
from reproq.data.sources import provenance, require

FILES = {  # split -> its files, in the order they are read
    "train": ("dataset/Subtask B/TRAIN-BASE.csv", "Data/train/SemEval2016-Task3-CQA-QL-train-part2.xml"),
    "dev": ("Data/dev/SemEval2016-Task3-CQA-QL-dev.xml",),
    "test": ("SemEval2016_task3_test_input/English/SemEval2016-Task3-CQA-QL-test-input.xml",),
}
TEST_GOLD = f"{SUBMISSIONS}/_gold/SemEval2016-Task3-CQA-QL-test.xml.subtaskB.relevancy"
DEV_GOLD = "Data/english_scorer_and_random_baselines_v2.2/SemEval2016-Task3-CQA-QL-dev.xml.subtaskB.relevancy"
RELEVANCE = {"PerfectMatch": 1, "Relevant": 1, "Irrelevant": 0}  # the scorer merges PerfectMatch with Relevant
MERGED = "PerfectMatch or Relevant"  # a test pair's positive label: the gold file has no finer one
PART1_COLUMNS = ["feature", "question", "rel_question", "labels"]
PART1_PREFIX = "P1-"  # the made-up ids of part 1's queries
# the organisers' own counts (Data/README.txt §8 "STATISTICS"), beside ours in the statistics table
OFFICIAL_COUNTS = {
    "train part 1": dict(queries=200, pairs=1999, PerfectMatch=181, Relevant=606, Irrelevant=1212),
    "train part 2": dict(queries=67, pairs=670, PerfectMatch=54, Relevant=242, Irrelevant=374),
    "dev": dict(queries=50, pairs=500, PerfectMatch=59, Relevant=155, Irrelevant=286),
}


@dataclass(frozen=True)
class Related:
    """One related question of a query: the question, its search-engine rank (None in part 1), its relevance to the
    query, and the id of the earlier related question that is the same forum thread (None if it is the first)."""

    question: Question  # the body uncut (:func:`corpus_of` cuts it at 100 words, as Lei et al.)
    rank: int | None
    relevance: str  # PerfectMatch | Relevant | Irrelevant, or MERGED (test: the gold file's positive)
    same_as: str | None = None

    @property
    def label(self) -> int:
        return 1 if self.relevance == MERGED else RELEVANCE[self.relevance]


@dataclass(frozen=True)
class Query:
    """An original question and its related questions, in the search engine's order (part 1: the CSV's)."""

    question: Question
    related: tuple[Related, ...]
    part: str  # "train part 1" | "train part 2" | "dev" | "test"

    @property
    def positives(self) -> tuple[str, ...]:
        return tuple(r.question.id for r in self.related if r.label)

    def as_eval_query(self) -> EvalQuery:
        """The query as the AskUbuntu family's evaluation reads it (no BM25 scores: the order is the engine's)."""
        return EvalQuery(self.question.id, self.positives, tuple(r.question.id for r in self.related), None)


def _question(qid: str, subject: str, body: str) -> Question:
    return Question(qid, tokenize(subject), tokenize(body))


def read_subtask_b(path: str | Path, *, part: str, gold: str | Path | None = None) -> list[Query]:
    """The queries of a subtask B xml file in file order, each with its related questions in the search engine's
    order. A test input (labels "?") needs its ``gold`` ``.relevancy`` file; with a gold file for a labelled split
    (dev's), every label must agree with it."""
    path = Path(path)
    root = parse_xml(path)
    queries: dict[str, tuple[Question, list[Related]]] = {}
    pairs: dict[tuple[str, str], str] = {}
    for element in root.iter("OrgQuestion"):
        qid = required_attribute(path, element, "ORGQ_ID", "<OrgQuestion")
        where = f'ORGQ_ID="{qid}"'
        query = _question(qid, text_of(element, "OrgQSubject"), text_of(element, "OrgQBody"))
        if queries.setdefault(qid, (query, []))[0] != query:
            raise FormatError(path, line_of(path, where), f"the same subject and body in every <OrgQuestion> {qid}",
                              "another one")
        thread = element.find("Thread")
        relq = None if thread is None else thread.find("RelQuestion")
        if relq is None:
            raise FormatError(path, line_of(path, where), "a <Thread> with a <RelQuestion> in <OrgQuestion>", "none")
        rid = required_attribute(path, relq, "RELQ_ID", where)
        needle = f'RELQ_ID="{rid}"'
        if (qid, rid) in pairs:
            raise FormatError(path, line_of(path, needle), "each related question of a query once", f"{rid} twice")
        pairs[qid, rid] = needle
        relevance = relq.get("RELQ_RELEVANCE2ORGQ")
        if relevance not in RELEVANCE and not (gold is not None and relevance == UNLABELLED):
            raise FormatError(path, line_of(path, needle), f"RELQ_RELEVANCE2ORGQ in {', '.join(RELEVANCE)}",
                              repr(relevance))
        rank = required_attribute(path, relq, "RELQ_RANKING_ORDER", needle)
        if not rank.isdigit():
            raise FormatError(path, line_of(path, needle), "RELQ_RANKING_ORDER as a whole number", repr(rank))
        queries[qid][1].append(Related(_question(rid, text_of(relq, "RelQSubject"), text_of(relq, "RelQBody")),
                                       int(rank), relevance, thread.get("SubtaskA_Skip_Because_Same_As_RelQuestion_ID")))
    if not queries:
        raise FormatError(path, 1, "at least one <OrgQuestion>", "none")
    if gold is not None:
        labels = join_gold(path, pairs, Path(gold), "related question")
        for qid, (_, related) in queries.items():
            for i, r in enumerate(related):
                expected = labels[qid, r.question.id]
                if r.relevance == UNLABELLED:
                    related[i] = Related(r.question, r.rank, MERGED if expected else "Irrelevant", r.same_as)
                elif r.label != expected:
                    raise FormatError(path, line_of(path, pairs[qid, r.question.id]),
                                      f"the label of {Path(gold).name} ({'true' if expected else 'false'})",
                                      r.relevance)
    return [Query(q, tuple(sorted(related, key=lambda r: r.rank)), part) for q, related in queries.values()]


def _common_prefix(features: Sequence[list[str]]) -> int:
    """How many leading words every feature shares."""
    n = 0
    while all(len(f) > n for f in features) and len({f[n] for f in features}) == 1:
        n += 1
    return n


def read_part1_csv(path: str | Path) -> list[Query]:
    """Train part 1 from the derived ``TRAIN-BASE.csv`` (chaobotic-vasu/Community-Question-Answering).

    Columns: ``feature`` = the query's subject + " " + the related question's subject, ``question`` = the query's body,
    ``rel_question`` = the related question's body, ``labels``. The rows of one query come together and share its body:
    a query is a run of rows with one body; its subject is the words its rows' ``feature`` values all begin with, and
    each related question's subject the rest (checked: every run of the released file has 8 to 10 rows and a non-empty
    split, and where a related question's body is found in the organisers' xml its subject there is the one derived
    here: ``tests/data/test_semeval_b.py``). A query of one row cannot be split and is a FormatError.
    """
    path = Path(path)
    runs: list[tuple[int, str, list[tuple[int, dict]]]] = []
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh)
            header = next(reader, None)
            if header != PART1_COLUMNS:
                raise FormatError(path, 1, f"the header {','.join(PART1_COLUMNS)}", repr(header))
            for row in reader:
                line = reader.line_num
                if len(row) != len(PART1_COLUMNS):
                    raise FormatError(path, line, f"{len(PART1_COLUMNS)} comma-separated fields", f"{len(row)}")
                fields = dict(zip(PART1_COLUMNS, row))
                if fields["labels"] not in RELEVANCE:
                    raise FormatError(path, line, f"a label in {', '.join(RELEVANCE)}", repr(fields["labels"]))
                if not runs or runs[-1][1] != fields["question"]:
                    runs.append((line, fields["question"], []))
                runs[-1][2].append((line, fields))
    except UnicodeDecodeError as exc:
        raise FormatError(path, 1, "UTF-8 text", f"undecodable bytes at byte {exc.start}") from None
    except csv.Error as exc:
        raise FormatError(path, reader.line_num, "well-formed CSV", str(exc)) from None
    queries = []
    for n, (line, body, rows) in enumerate(runs, start=1):
        features = [fields["feature"].split(" ") for _, fields in rows]
        cut = _common_prefix(features)
        if len(rows) < 2 or cut == 0:
            raise FormatError(path, line, "a query of at least two rows whose features share its subject",
                              f"{len(rows)} row(s) sharing {cut} word(s)")
        qid = f"{PART1_PREFIX}{n}"
        related = tuple(Related(_question(f"{qid}_R{k}", " ".join(f[cut:]), fields["rel_question"]), None,
                                fields["labels"]) for k, (f, (_, fields)) in enumerate(zip(features, rows), start=1))
        queries.append(Query(_question(qid, " ".join(features[0][:cut]), body), related, "train part 1"))
    if not queries:
        raise FormatError(path, 1, "at least one row after the header", "none")
    return queries


def _text_key(q: Question) -> tuple[str, ...]:
    """What makes two queries the same text: the body's words (the subject's where the body is empty)."""
    return q.body or q.title


def check_no_leakage(train: Sequence[Query], dev: Sequence[Query], test: Sequence[Query]) -> None:
    """DataError naming the first dev or test query that is also a training query, by id or by text, or a test query
    that is a dev query: training on it would score the model on what it was taught."""
    seen = {"train": train, "dev": dev}
    for split, queries, against in (("dev", dev, ("train",)), ("test", test, ("train", "dev"))):
        for other in against:
            ids = {q.question.id for q in seen[other]}
            texts = {_text_key(q.question): q.question.id for q in seen[other]}
            for q in queries:
                same = q.question.id if q.question.id in ids else texts.get(_text_key(q.question))
                if same is not None:
                    raise DataError(
                        f"{split} query {q.question.id} of SemEval-2016 3B is also a {other} query ({same}, the same "
                        f"{'id' if same == q.question.id else 'text'}): a {other} file holds {split} queries (the "
                        f"upstream 'part1 v2.0' held the dev set); use the registry's files "
                        f"(`reproq data fetch {DATASET}`)")


def shared_related(splits: dict[str, Sequence[Query]]) -> dict[str, int]:
    """How often one related question (its subject and body) is retrieved for several queries: those that occur again
    within their split (after their first occurrence), and those of the later split that are also a related question
    of the earlier one, per pair of splits ("train and dev", ...)."""
    texts = {name: Counter((r.question.title, r.question.body) for q in queries for r in q.related)
             for name, queries in splits.items()}
    counts = {f"repeated within {name}": sum(n - 1 for n in c.values()) for name, c in texts.items()}
    names = list(splits)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            counts[f"{a} and {b}"] = sum(n for text, n in texts[b].items() if text in texts[a])
    return counts


@dataclass(frozen=True)
class SubtaskB:
    """The three splits of subtask B and where they came from."""

    train: tuple[Query, ...]
    dev: tuple[Query, ...]
    test: tuple[Query, ...]
    provenance: dict[str, str]

    @property
    def splits(self) -> dict[str, tuple[Query, ...]]:
        return {"train": self.train, "dev": self.dev, "test": self.test}


def load_subtask_b(*, root: Path | None = None) -> SubtaskB:
    """Every split, each file fetched and verified first; the dev labels checked against the dev gold file, the test
    labels joined from the test gold file; :func:`check_no_leakage` run."""
    def need(file: str) -> Path:
        return require(DATASET, file, root=root)

    part1, part2 = FILES["train"]
    train = read_part1_csv(need(part1)) + read_subtask_b(need(part2), part="train part 2")
    dev = read_subtask_b(need(FILES["dev"][0]), part="dev", gold=need(DEV_GOLD))
    test = read_subtask_b(need(FILES["test"][0]), part="test", gold=need(TEST_GOLD))
    check_no_leakage(train, dev, test)
    files = [*FILES["train"], *FILES["dev"], DEV_GOLD, *FILES["test"], TEST_GOLD]
    return SubtaskB(tuple(train), tuple(dev), tuple(test), provenance(DATASET, files))


def corpus_of(b: SubtaskB, *, max_body_len: int | None = MAX_BODY_LEN) -> dict[str, Question]:
    """Every question of every split by id, the queries and their related questions, each body cut at
    ``max_body_len`` words (Lei et al.'s 100, as :func:`reproq.data.askubuntu.read_corpus` cuts AskUbuntu's)."""
    return {q.id: Question(q.id, q.title, q.body[:max_body_len]) for queries in b.splits.values() for query in queries
            for q in (query.question, *(r.question for r in query.related))}


def training_queries(train: Sequence[Query], *, n_random: int = 20, seed: int = SHUFFLE_SEED) -> list[TrainQuery]:
    """The training queries as the AskUbuntu family trains on them: the positives as similar questions, and as the
    pool negatives are drawn from, the query's labelled irrelevant related questions followed by ``n_random``
    questions of other training queries (queries or related questions), drawn once with ``random.Random(f"{seed}:<id>")``
    (Lei et al. draw 20 random negatives; here the labelled ones come first, so most epochs meet them)."""
    pool = sorted({q.id for query in train for q in (query.question, *(r.question for r in query.related))})
    out = []
    for query in train:
        own = {query.question.id, *(r.question.id for r in query.related)}
        rng = random.Random(f"{seed}:{query.question.id}")
        others = []
        while len(others) < n_random:
            pick = pool[rng.randrange(len(pool))]
            if pick not in own and pick not in others:
                others.append(pick)
        irrelevant = tuple(r.question.id for r in query.related if not r.label)
        out.append(TrainQuery(query.question.id, query.positives, irrelevant + tuple(others)))
    return out


PARTS = ("train part 1", "train part 2", "dev", "test")


def statistics(b: SubtaskB) -> list[dict]:
    """One row per part (:data:`PARTS`): queries, pairs, labels (test: only positive or not, as its gold file has them),
    queries with a positive, and the mean words per subject and per body of the queries and of the related questions
    (tokens of :func:`reproq.data.semeval.tokenize`, bodies before the 100-word cut)."""
    def mean(lengths: list[int]) -> float:
        return round(sum(lengths) / len(lengths), 1)

    rows = []
    for part in PARTS:
        queries = [q for queries in b.splits.values() for q in queries if q.part == part]
        related = [r for q in queries for r in q.related]
        labels = Counter(r.relevance for r in related)
        rows.append({"part": part, "queries": len(queries), "pairs": len(related),
                     **{name: labels.get(name, 0) for name in (*RELEVANCE, MERGED)},
                     "queries with a positive": sum(bool(q.positives) for q in queries),
                     "query subject words": mean([len(q.question.title) for q in queries]),
                     "query body words": mean([len(q.question.body) for q in queries]),
                     "related subject words": mean([len(r.question.title) for r in related]),
                     "related body words": mean([len(r.question.body) for r in related])})
    return rows


PRETRAINING_FILES = (FILES["train"][1], TRAIN_XMLS[1], *EXTRA_2015_XMLS)  # the training threads with their comments


def read_threads(path: str | Path) -> list[tuple[Question, tuple[Question, ...]]]:
    """Every ``<Thread>`` of a SemEval xml file (subtask A's or B's) as its question and its comments, each comment a
    question with an empty title and the comment as its body (ids: ``RELQ_ID``, ``RELC_ID``); labels are not read."""
    path = Path(path)
    threads = []
    for thread in parse_xml(path).iter("Thread"):
        relq = thread.find("RelQuestion")
        if relq is None:
            raise FormatError(path, line_of(path, f'THREAD_SEQUENCE="{thread.get("THREAD_SEQUENCE")}"'),
                              "a <RelQuestion> in <Thread>", "none")
        rid = required_attribute(path, relq, "RELQ_ID", "<RelQuestion")
        comments = tuple(Question(required_attribute(path, c, "RELC_ID", f'RELQ_ID="{rid}"'), (),
                                  tokenize(text_of(c, "RelCText"))) for c in thread.iter("RelComment"))
        threads.append((_question(rid, text_of(relq, "RelQSubject"), text_of(relq, "RelQBody")), comments))
    return threads


@dataclass(frozen=True)
class Pretraining:
    """The pre-training texts (:func:`pretraining_corpus`), the held-out questions whose titles measure the
    encoder–decoder's perplexity, and what was counted on the way."""

    corpus: PretrainingCorpus
    heldout: tuple[str, ...]
    counts: dict[str, int]


def pretraining_corpus(b: SubtaskB, *, root: Path | None = None, heldout_share: float = 0.05,
                       seed: int = SHUFFLE_SEED) -> Pretraining:
    """Every question and comment of the training threads (module docstring), each question once (its first id;
    the training queries and related questions keep theirs, so their similar pairs are pre-training pairs too), no
    text of a dev or test question; ``heldout_share`` of the questions drawn (``random.Random(seed)``) as held out."""
    barred = {(q.title, q.body) for queries in (b.dev, b.test) for query in queries
              for q in (query.question, *(r.question for r in query.related))}
    questions: dict[str, Question] = {}
    comments: dict[str, Question] = {}
    pairs: list[tuple[str, str]] = []
    seen: dict[tuple, str] = {}
    counts = Counter()

    def add(question: Question, its_comments: Sequence[Question] = ()) -> None:
        key = (question.title, question.body)
        if key in barred:
            counts["questions left out: also a dev or test text"] += 1
            counts["comments left out with them"] += len(its_comments)
            return
        if key in seen:
            counts["questions read again (the same text)"] += 1
        else:
            seen[key] = question.id
            questions[question.id] = question
        for c in its_comments:
            if c.id not in comments and c.body:
                comments[c.id] = c
                pairs.append((c.id, seen[key]))

    for query in b.train:
        for q in (query.question, *(r.question for r in query.related)):
            add(q)
    for file in PRETRAINING_FILES:
        for question, its_comments in read_threads(require(DATASET, file, root=root)):
            add(question, its_comments)
    heldout = sorted(q for q in questions if random.Random(f"{seed}:{q}").random() < heldout_share)
    counts |= {"questions": len(questions), "comments": len(comments), "held-out questions": len(heldout)}
    return Pretraining(PretrainingCorpus({**questions, **comments}, tuple(pairs)), tuple(heldout), dict(counts))
