"""YahooQA, the splits of Tay et al. 2017 (SIGIR) that Tay et al. 2018 use (vanzytay/YahooQA_Splits).

``data/env.pkl.zip`` holds one pickle, ``env.pkl``: a dict with the splits ``train``, ``dev`` and ``test``,
each a dict from the question text to its candidate answers with 0/1 labels (the repository's readme:
"dictionaries of the format train_QA[question] = [[ans1,0],[ans2,1],[ans3],0]")::

    {"train": {"how do i ...": [["you can ...", 1], ["try ...", 0], ...], ...}, "dev": {...}, "test": {...}}

Texts are whitespace-tokenised strings (readers of the file split them with ``str.split()``). Each question
has one positive and four negatives drawn from Lucene's top 1,000 hits (Tay et al. 2018, §Datasets), and
Tay et al.'s Table 3 counts 50.1K / 6.2K / 6.2K questions and 253K / 31.7K / 31.7K pairs. The pickle was
written by Python 2: its strings are read as UTF-8 (bytes that are not UTF-8 are replaced, not fatal).

The splits are not reachable from here and have no pinned hash (``reproq data status yahooqa``), so reproq
never downloads them; this reader is for users who put their copy in place. It unpickles with
:class:`~reproq.data.pickles.AllowListUnpickler` and no global admitted, which reads only plain containers,
numbers and strings: a pickle that would call a function (``os.system``, any class) is refused with a
:class:`~reproq.data.errors.FormatError`. Questions get ids ``<split>-<n>`` in the pickle's order (the texts
are the keys; there are no ids), candidates are shuffled and numbered, as in the other answer-selection
readers.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

from reproq.data.errors import FormatError
from reproq.data.pickles import AllowListUnpickler
from reproq.data.qa import Candidate, QAQuestion, shuffle_and_number
from reproq.data.sources import require

SPLITS = ("train", "dev", "test")
ARCHIVE = "data/env.pkl.zip"
MEMBER = "env.pkl"


def _unpickle(fh) -> object:
    return AllowListUnpickler(fh, encoding="utf-8", errors="replace").load()  # no global is admitted


def _text(value, path: Path, where: str) -> str:
    if isinstance(value, bytes):  # a Python 2 str unpickled without an encoding
        return value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        raise FormatError(path, 1, f"a text in {where}", type(value).__name__)
    return value


def _split(raw: dict, name: str, path: Path) -> list[QAQuestion]:
    if not isinstance(raw, dict):
        raise FormatError(path, 1, f"split {name!r} as a dict question -> answers", type(raw).__name__)
    questions = []
    for n, (question, answers) in enumerate(raw.items()):
        where = f"{name} question {n}"
        if not isinstance(answers, (list, tuple)):
            raise FormatError(path, 1, f"a list of [answer, label] in {where}", type(answers).__name__)
        candidates = []
        for answer in answers:
            if not isinstance(answer, (list, tuple)) or len(answer) != 2 or answer[1] not in (0, 1):
                raise FormatError(path, 1, f"[answer text, 0 or 1] in {where}", repr(answer)[:60])
            candidates.append(Candidate("", tuple(_text(answer[0], path, where).split()), int(answer[1])))
        questions.append(QAQuestion(f"{name}-{n}", tuple(_text(question, path, where).split()), tuple(candidates)))
    return shuffle_and_number(questions)


def read_yahooqa(path: str | Path) -> dict[str, list[QAQuestion]]:
    """All three splits of an ``env.pkl`` (or of the ``env.pkl.zip`` that holds it), by split name.

    The file is a pickle, read with no global admitted (:mod:`reproq.data.pickles`): one that would run code
    is refused.
    """
    path = Path(path)
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if Path(n).name == MEMBER]
                if not names:
                    raise FormatError(path, 1, f"a member named {MEMBER}", ", ".join(archive.namelist()) or "none")
                with archive.open(names[0]) as fh:
                    env = _unpickle(fh)
        else:
            with open(path, "rb") as fh:
                env = _unpickle(fh)
    except (pickle.UnpicklingError, EOFError, zipfile.BadZipFile, ValueError, KeyError, IndexError) as exc:
        raise FormatError(path, 1, "a pickled dict of splits", f"unreadable data ({exc})") from None
    if not isinstance(env, dict) or not all(s in env for s in SPLITS):
        found = sorted(map(str, env)) if isinstance(env, dict) else type(env).__name__
        raise FormatError(path, 1, f"a dict with the splits {', '.join(SPLITS)}", str(found))
    return {s: _split(env[s], s, path) for s in SPLITS}


def load_yahooqa(split: str, *, root: Path | None = None) -> list[QAQuestion]:
    """One split, through :func:`reproq.data.sources.require` (raises MissingDataError when absent)."""
    if split not in SPLITS:
        raise ValueError(f"unknown YahooQA split {split!r}; known: {', '.join(SPLITS)}")
    return read_yahooqa(require("yahooqa", ARCHIVE, root=root))[split]
