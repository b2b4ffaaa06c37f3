"""The study's sentences about its own earlier runs, held to the records those runs committed.

The committed records are the current run's. A sentence that says what an *earlier* run gave (*an earlier run chose
word2vec*, *seed 1's records came out identical at three commits*) describes records a reader no longer has in front
of them, so it names where they are: the commit and the committed file (a results file, or the code the run had),
written as ``git show`` takes them (```5be998f:results/04_trecqa_ctrn/trecqa_ablation_vectors_features.md```).
:func:`check` finds each sentence of the README, the guide's pages and the notebooks' typed Markdown that speaks of
an earlier run (:data:`EARLIER`), and fails it when it names no such file, or names one that the repository's history
does not hold (:data:`CITED`). It reads words: that the file shows what the sentence says is for its reader to see.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from reproq import paths
from reproq.report import guide
from reproq.report.comparisons import Unsupported
from reproq.report.prose import GENERATED, SENTENCE, notebook_markdown, paragraphs

# a sentence about a run that is not the committed one: "an earlier run", "an earlier `cpu` run", "runs of earlier
# code", "at three different commits"
EARLIER = re.compile(r"\b(?:earlier|previous|older) (?:committed )?(?:`?[\w-]+`? )?(?:runs?|code|commits?|versions?)\b"
                     r"|\b(?:committed )?runs? (?:at|of) (?:\w+ )?(?:earlier|different|other) (?:commits?|code)\b"
                     r"|\bat (?:two|three|several|\d+) (?:earlier |different )?commits\b", re.I)
# where an earlier run's records (or the code it ran) are: `<commit>:<path>`, as `git show` takes it
CITED = re.compile(r"`([0-9a-f]{7,40}):((?:results|figures|reproq|notebooks)/[^`\s]+)`")


def held(commit: str, path: str) -> bool | None:
    """Whether the project's history holds ``path`` at ``commit``; None where there is no history to ask (a checkout
    without ``.git``, or a shallow clone without that commit)."""
    def asks(what: str) -> bool:
        asked = subprocess.run(["git", "-C", str(paths.ROOT), "cat-file", "-e", what], capture_output=True)
        return asked.returncode == 0

    if asks(f"{commit}:{path}"):
        return True
    return False if asks(f"{commit}^{{commit}}") else None


def judge(sentence: str) -> str:
    """Why ``sentence`` fails (empty when it does not): it speaks of an earlier run and names no committed file of
    it, or one the history does not hold."""
    cited = CITED.findall(sentence)
    wrong = [f"{c}:{p}" for c, p in cited if held(c, p) is False]
    if wrong:
        return "names a file the repository's history does not hold: " + ", ".join(wrong)
    if EARLIER.search(CITED.sub("", sentence)) and not cited:
        return "speaks of an earlier run and names no committed file of it (`<commit>:<path>`, as git show takes it)"
    return ""


def check(root: Path | None = None) -> list[Unsupported]:
    """Every sentence of the reader pages and of the notebooks' typed Markdown under ``root`` (the project's, or a copy
    of its pages) that speaks of an earlier run without naming its committed records, or names records the project's
    history does not hold (:func:`judge`); empty when none."""
    root = Path(root or paths.ROOT)
    texts = [(f"{page.relative_to(root)}", page.read_text()) for page in guide.reader_pages(root)]
    texts += [cell for notebook in sorted((root / "notebooks").glob("*.ipynb")) for cell in notebook_markdown(notebook)]
    out = []
    for where, text in texts:
        bare = GENERATED.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
        for line, paragraph in paragraphs(bare):
            for sentence in SENTENCE.split(" ".join(paragraph.split())):
                if why := judge(sentence):
                    out.append(Unsupported(f"{where}:{line}" if where.endswith(".md") else where, sentence, why))
    return out
