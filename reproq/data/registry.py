"""The datasets of the study and their upstream files, pinned in ``registry.tsv``.

Each file is known by the repository and commit it comes from and by its git blob SHA-1, so a copy from
anywhere (GitHub, a mirror, a colleague's disk) is accepted only if it is byte-identical to upstream.
On disk a file lives at ``<data dir>/<dataset>/<path in upstream repo>``, the layout a mirror uses too.
"""

from __future__ import annotations

import csv
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

REGISTRY_TSV = Path(__file__).with_name("registry.tsv")

# What each dataset is, for `reproq data status` and the notebooks.
DESCRIPTIONS = {
    "askubuntu": "AskUbuntu question retrieval (Lei et al. 2016; dos Santos et al. 2015)",
    "android": "Android StackExchange duplicates, target domain of Smolyakov & Srikant 2017",
    "trecqa": "TrecQA answer selection (Wang et al. 2007; Tay et al. 2018)",
    "wikiqa": "WikiQA answer selection (Yang et al. 2015; beyond the papers)",
    "semeval2016": "SemEval-2016 Task 3, QatarLiving: subtask A answer ranking (Tay et al. 2018) and subtask B "
                   "question retrieval (a real substitute for AskUbuntu), with every team's primary run",
    "rcnn-checkpoint": "Lei et al.'s released pre-trained RCNN (for comparison with our pre-training)",
    "yahooqa": "YahooQA splits of Tay et al. 2018",
}


@dataclass(frozen=True)
class DataFile:
    """One upstream file of a dataset.

    ``blob_sha1`` is None for a file known by name only (it is fetched but cannot be verified);
    ``size`` is None where upstream's size is not recorded.
    """

    dataset: str
    repo: str
    commit: str
    path: str
    blob_sha1: str | None
    size: int | None
    note: str

    def __post_init__(self):
        parts = Path(self.path).parts
        if not self.path or Path(self.path).is_absolute() or ".." in parts or self.dataset in ("", ".", ".."):
            raise ValueError(f"registry entry {self.dataset}/{self.path}: a path must stay inside its dataset's "
                             "folder (relative, no '..')")

    @property
    def url(self) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{urllib.parse.quote(self.path)}"

    @property
    def key(self) -> str:
        """``<dataset>/<path>``: where the file lives under a data dir or a mirror."""
        return f"{self.dataset}/{self.path}"


def _read_registry(path: Path = REGISTRY_TSV) -> tuple[DataFile, ...]:
    lines = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    files = []
    for row in csv.DictReader(lines, delimiter="\t"):
        files.append(DataFile(
            dataset=row["dataset"], repo=row["repo"], commit=row["commit"], path=row["path"],
            blob_sha1=None if row["git_blob_sha1"] == "-" else row["git_blob_sha1"],
            size=None if row["size"] == "-" else int(row["size"]),
            note=row["note"],
        ))
    return tuple(files)


FILES: tuple[DataFile, ...] = _read_registry()
DATASETS: tuple[str, ...] = tuple(dict.fromkeys(f.dataset for f in FILES))


def files_of(dataset: str) -> tuple[DataFile, ...]:
    """The registered files of one dataset; ValueError naming the known datasets otherwise."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}")
    return tuple(f for f in FILES if f.dataset == dataset)


def lookup(dataset: str, path: str) -> DataFile:
    """The registered file ``<dataset>/<path>``."""
    for f in files_of(dataset):
        if f.path == path:
            return f
    raise ValueError(f"{dataset!r} has no registered file {path!r}")
