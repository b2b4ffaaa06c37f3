"""What a paper is to the study: its citation, what it has, its result figures, the claims its text makes, what
kind of number each of its numbers is, and why some of them run on a stand-in or cannot be had here. One
:class:`Paper` per module of :mod:`reproq.papers`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

# What a number of a paper is, and so what a verdict on it can say (the report's counts are kept by kind, in this
# order: DESIGN.md "Verdicts and what they judge").
RESULT = "result of training or fitting"  # a method run here: a network trained, a lexical scorer fitted
GIVEN = "evaluation of given outputs"  # scores the authors shipped, re-scored here
DATA = "data statistic"  # a count or mean of a dataset
SIZE = "model size"  # a parameter count of the built model
CONFIGURATION = "configuration"  # a setting the paper states and ours copies: shown "as the paper", never judged
QUOTED = "quoted from another paper"  # a baseline the paper copies from elsewhere: not this paper's run
KINDS = (RESULT, GIVEN, DATA, SIZE, CONFIGURATION, QUOTED)


class Finding(NamedTuple):
    """A bullet of the guide's "What we have found so far" (``reproq report --write``): its lead words, typed and
    holding no result number, and the reading that writes the numbers, given the records of ``results/<folder>/``:
    one of its module's ``READINGS``, or ``"beside:<file>"``, the numbers of the results file ``<file>`` beside the
    paper's with the report's verdicts (:func:`reproq.report.readings.beside_the_paper`)."""

    folder: str  # "08_lei_pretraining", or "bench"
    lead: str
    reading: str


@dataclass(frozen=True)
class Claim:
    """"``a`` beats ``b`` on ``metric`` where ``where``" (record fields, e.g. ``table="Table 6"``), as the paper's text
    says it (``quote``) and on the metric it says it of: the report tests it seed by seed on real data, with the
    paper's other metrics for the same pair beside (:func:`reproq.report.verdicts.claim_rows`), and, where the
    sentence states how much (``size``), as a size too. The paper's own numbers must point the same way (a test reads
    them where ``where`` and ``paper_where`` say)."""

    text: str
    a: str
    b: str
    metric: str
    where: dict = field(default_factory=dict)
    quote: str = ""  # the paper's own sentence this claim tests, short, with its section: '"…" (§Results on TrecQA)'
    beside: tuple[str, ...] = ()  # other metrics the paper prints for the same comparison, tested and shown beside
    paper_where: dict = field(default_factory=dict)  # where the paper's numbers differ from ours (its test split)
    # the size the paper states for a − b on ``metric``, (low, high), and its words: tested as a size beside the sign
    # (:func:`reproq.results.paired.size_verdict`); () where the sentence states none
    size: tuple[float, float] = ()
    size_said: str = ""
    # ``b`` is a number the paper prints (a baseline it quotes from another paper), not a run of ours: ours ``a`` −
    # that number over a's seeds (:func:`reproq.results.paired.against`)
    b_printed: bool = False


@dataclass(frozen=True)
class Paper:
    """One source paper (``../shared/seeds/<seed_file>``)."""

    key: str  # as in paper_numbers.csv and every record: "lei2016"
    short: str  # "Lei et al. 2016"
    citation: str  # authors, title, venue
    topic: str  # one line: what it is about, on which data
    has: str  # what its tables and figures hold
    seed_file: str
    figures: tuple[tuple[str, str], ...] = ()  # (item, what it shows): the figures that show a result
    claims: tuple[Claim, ...] = ()
    stand_in: dict[str, str] = field(default_factory=dict)  # dataset -> why its rows run on the synthetic stand-in
    unavailable: dict[str, str] = field(default_factory=dict)  # dataset -> why its rows are not run at all
    notebooks: tuple[str, ...] = ()  # the notebooks that build it, in reading order
    # variants of ours shown beside a number the paper does not claim them for: no verdict
    beside: tuple[str, ...] = ()
    # (item, method) -> (item, method, setting) whose runs they are: one claim printed twice, counted once
    same_as: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)
    # item -> why ours cannot be compared with the paper's (another kind of machine, say)
    not_comparable: dict[str, str] = field(default_factory=dict)
    # what kind each number is (:data:`KINDS`), looked up by (item, method, metric), (item, metric), (item, method)
    # and (item,) in that order; a number none of them names is a result of training or fitting
    kinds: dict[tuple[str, ...], str] = field(default_factory=dict)
    # (item, method) -> "<paper> <item>": the same number of ours as another paper's, counted there (Smolyakov &
    # Srikant re-score the BM25 scores Lei et al. did)
    counted_under: dict[tuple[str, str], str] = field(default_factory=dict)
    # variant of ours -> why it holds part of the paper's data (a data statistic then says "partial data")
    partial: dict[str, str] = field(default_factory=dict)
    # (item, method) -> why a model size was fitted: a width chosen to land on the paper's count ("fitted")
    fitted: dict[tuple[str, str], str] = field(default_factory=dict)
    # figure -> why it draws the paper's own settings, not a result ("as specified")
    as_specified: dict[str, str] = field(default_factory=dict)
    # a setting of our records -> (the paper's setting it is shown under, the variant that says how it differs): runs
    # of ours beside the paper's number that its rows' setting alone would not join
    read_as: dict[str, tuple[str, str]] = field(default_factory=dict)

    def kind(self, item: str, method: str, metric: str) -> str:
        """What kind of number the paper's ``metric`` of ``method`` in ``item`` is (:attr:`kinds`)."""
        for key in ((item, method, metric), (item, metric), (item, method), (item,)):
            if key in self.kinds:
                return self.kinds[key]
        return RESULT

    @property
    def title(self) -> str:
        """``"<short> — <topic>"``: how the report heads the paper."""
        return f"{self.short} — {self.topic}"
