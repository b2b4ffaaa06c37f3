"""Execute the notebooks in reading order, headless, with papermill.

``reproq run --profile cpu`` runs ``notebooks/NN_*.ipynb`` one after the other. Each executed copy goes
to ``build/notebooks/<profile>/`` (the sources are never overwritten). A notebook is skipped when its
inputs — its own source, the ``reproq`` library, the parameters, and the state of the data files — are
unchanged since its last successful run, so a killed batch resumes where it stopped; ``force`` reruns.
A failure names the notebook and the failing cell and stops the batch; what finished before stays.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from reproq import paths, profiles
from reproq.data import sources

PROFILES = tuple(profiles.PROFILES)
LIBRARY_SUFFIXES = {".py", ".tsv", ".csv"}


@dataclass(frozen=True)
class Outcome:
    notebook: str
    status: str  # ran | skipped | failed
    seconds: float
    executed: Path
    message: str = ""


class NotebookFailed(RuntimeError):
    """A notebook raised; the message names it, the cell and the error."""


def notebooks(only: Sequence[str] = ()) -> list[Path]:
    """The ordered notebooks; ``only`` selects by number prefix or name (``"01"``, ``"01_lexical_baselines"``)."""
    found = sorted(p for p in paths.NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    if not only:
        return found
    chosen = [p for p in found if any(p.stem == o or p.stem.startswith(f"{o}_") or p.name == o for o in only)]
    unknown = [o for o in only if not any(p.stem == o or p.stem.startswith(f"{o}_") or p.name == o for p in found)]
    if unknown:
        raise ValueError(f"no notebook matches {', '.join(unknown)}; there are: "
                         + ", ".join(p.stem for p in found))
    return chosen


def fingerprint(notebook: Path, parameters: dict) -> str:
    """A hash of everything a notebook's outputs depend on."""
    digest = hashlib.sha256(notebook.read_bytes())
    library = paths.ROOT / "reproq"
    for path in sorted(p for p in library.rglob("*") if p.suffix in LIBRARY_SUFFIXES):
        digest.update(str(path.relative_to(library)).encode() + path.read_bytes())
    digest.update(json.dumps(parameters, sort_keys=True, default=str).encode())
    digest.update(json.dumps(sources.status()).encode())
    return digest.hexdigest()


def _stamp(profile: str, notebook: Path) -> Path:
    return paths.build_dir() / "runs" / profile / f"{notebook.stem}.json"


def run_notebook(notebook: Path, *, profile: str, parameters: dict | None = None, force: bool = False,
                 progress: bool = True) -> Outcome:
    """Run one notebook unless its last successful run had the same inputs; raise NotebookFailed on error."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    params = {"PROFILE": profile, **(parameters or {})}
    executed = paths.build_dir() / "notebooks" / profile / notebook.name
    stamp = _stamp(profile, notebook)
    key = fingerprint(notebook, params)
    if not force and stamp.is_file() and json.loads(stamp.read_text()).get("fingerprint") == key:
        return Outcome(notebook.stem, "skipped", 0.0, executed, "inputs unchanged since its last run")
    executed.parent.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    start = time.time()
    try:
        papermill.execute_notebook(str(notebook), str(executed), parameters=params, cwd=str(notebook.parent),
                                   progress_bar=progress, kernel_name="python3")
    except PapermillExecutionError as exc:
        first_line = next((line for line in exc.source.splitlines() if line.strip()), "")
        raise NotebookFailed(f"{notebook.name} failed in the cell starting `{first_line}` (execution count "
                             f"{exc.exec_count}) with {exc.ename}: {exc.evalue}; the executed copy with the "
                             f"traceback is {executed}") from None
    seconds = time.time() - start
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"fingerprint": key, "seconds": round(seconds, 1), "parameters": params,
                                 "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}, indent=2) + "\n")
    return Outcome(notebook.stem, "ran", seconds, executed)


def run(*, profile: str = "cpu", only: Sequence[str] = (), parameters: dict | None = None, force: bool = False,
        progress: bool = True) -> Iterator[Outcome]:
    """Run the notebooks in order, yielding each outcome as it finishes; a failure raises NotebookFailed."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    for nb in notebooks(only):
        yield run_notebook(nb, profile=profile, parameters=parameters, force=force, progress=progress)
