"""The notebooks' schedule: in what order they run, which may run at the same time, and the runner of notebooks side
by side (``reproq run --jobs N``).

A machine of several cores runs several notebooks at once, one torch thread each, each in a ``reproq run --only``
process of its own (its own kernel, its own peak memory, its own log: ``build/runs/<profile>/<notebook>.log``).
Each notebook runs exactly as it runs alone — the same parameters, thread count and seeds — so its records are the
serial run's. What may not overlap is read from each notebook's own declarations (:func:`declared`):

- notebooks whose ``setup(..., checkpoints="<folder>")`` names one folder share finished training runs (the AskUbuntu
  runs of 02, 03, 07 and 08; the answer rankers of 04, 06 and 12): they run one after another in one lane, so that a
  run is trained once and then reused;
- a notebook whose metadata says ``"reproq": {"runs": "alone"}`` times code (05's runtime figure and benchmarks) and
  runs with nothing beside it;
- the report (``"runs": "last"``) reads every notebook's results: it runs after the rest, and not at all after a
  failure, whatever its number.

The lanes and single notebooks start longest first, by the seconds the profile's ``pipeline_cost.json`` recorded
(a notebook with no record counts as longest). A failure names the notebook and its one line, the others finish.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from reproq import atomic, notebook_json, paths

ALONE, LAST = "alone", "last"  # what a notebook's metadata may say of how it runs ("reproq": {"runs": ...})


@dataclass(frozen=True)
class Declared:
    """What a notebook says of itself that the schedule needs: the checkpoint folder its ``setup(...)`` call names
    (None: no runs shared), and how it runs (:data:`ALONE`, :data:`LAST`, or None: beside others)."""

    checkpoints: str | None = None
    runs: str | None = None


def declared(notebook: Path) -> Declared:
    """``notebook``'s declarations: its metadata's ``reproq.runs``, and the ``checkpoints=`` string of the
    :func:`reproq.notebook.setup` call in its code (read from the source, nothing run)."""
    content = notebook_json.read(notebook)
    runs = content.get("metadata", {}).get("reproq", {}).get("runs")
    folders = set()
    for cell in content.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", []))
        try:
            tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
        except SyntaxError:
            continue
        folders |= {kw.value.value for node in ast.walk(tree)
                    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setup"
                    for kw in node.keywords if kw.arg == "checkpoints" and isinstance(kw.value, ast.Constant)}
    if len(folders) > 1:
        raise ValueError(f"{notebook}: setup(checkpoints=...) names {len(folders)} folders ({', '.join(sorted(folders))}); "
                         "a notebook's runs share one")
    return Declared(next(iter(folders), None), runs)


def _numbered() -> tuple[list[Path], list[Path]]:
    """The numbered notebooks (``notebooks/NN_*.ipynb``) by number, and those of them that run last."""
    numbered = sorted(paths.NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    return numbered, [nb for nb in numbered if _runs(nb) == LAST]


def _runs(notebook: Path) -> str | None:
    """When ``notebook`` says it runs; None for one that cannot be read, which stops a run of itself (in one line),
    not a run of the others."""
    try:
        return notebook_json.read(notebook)["metadata"].get("reproq", {}).get("runs")
    except ValueError:
        return None


def in_order() -> list[Path]:
    """The numbered notebooks in order, those that run last (the report) after the rest, whatever their numbers."""
    numbered, last = _numbered()
    return [nb for nb in numbered if nb not in last] + last


def report_notebook() -> Path:
    """The notebook that runs last, the report: its results folder holds the papers' pages."""
    _, last = _numbered()
    if len(last) != 1:
        raise ValueError(f"{len(last)} notebooks in {paths.NOTEBOOKS_DIR} say they run last ({', '.join(nb.name for nb in last)}); "
                         'the report is one: its metadata says "reproq": {"runs": "last"}')
    return last[0]


@dataclass(frozen=True)
class Unit:
    """Notebooks that run one after another in one slot, and the seconds they are expected to take."""

    notebooks: tuple[Path, ...]
    expected_s: float


def expected_seconds(profile: str, *, longest: bool = False) -> dict[str, float]:
    """Each notebook's last recorded wall seconds (``longest``: the longest recorded, ``longest_s``, where longer) in
    the ``pipeline_cost.json`` of where the profile's runs write (none where unreadable); for the profile of the
    committed study (:data:`reproq.paths.COMMITTED_PROFILE`), the committed study's where the run folder has none
    yet."""
    places = [paths.output_dirs(profile)[0]]
    if profile == paths.COMMITTED_PROFILE:
        places.insert(0, paths.committed_dirs()[0])
    recorded = {}
    for place in dict.fromkeys(places):  # the run folder's own last times win
        recorded |= atomic.read_json(place / "pipeline_cost.json", otherwise="no expected times") or {}
    fields = ("seconds", "longest_s") if longest else ("seconds",)
    return {name: float(max(entry[f] for f in fields if isinstance(entry.get(f), (int, float))))
            for name, entry in recorded.items()
            if isinstance(entry, dict) and isinstance(entry.get("seconds"), (int, float))}


def plan(notebooks: Sequence[Path], expected: dict[str, float],
         declarations: Callable[[Path], Declared] = declared) -> tuple[list[Path], list[Unit], list[Path]]:
    """``(alone, units, last)``: the notebooks to run by themselves first, the units to run side by side (longest
    first: a lane of notebooks that share a checkpoint folder, or one notebook), and those to run after everything
    else, from each notebook's ``declarations``."""
    said = {nb: declarations(nb) for nb in notebooks}
    alone = [nb for nb in notebooks if said[nb].runs == ALONE]
    last = [nb for nb in notebooks if said[nb].runs == LAST]
    rest = [nb for nb in notebooks if nb not in alone and nb not in last]
    groups: dict[str, list[Path]] = {}
    for nb in rest:
        groups.setdefault(f"runs in {said[nb].checkpoints}" if said[nb].checkpoints else nb.stem, []).append(nb)
    units = [Unit(tuple(nbs), sum(expected.get(nb.stem, float("inf")) for nb in nbs)) for nbs in groups.values()]
    return alone, sorted(units, key=lambda u: -u.expected_s), last


@dataclass(frozen=True)
class Finished:
    """A notebook's child process, ended: its exit status (negative: the signal that killed it), wall seconds, log,
    what it said of its notebook (``ran`` or ``skipped``) and why (``because``: the inputs that changed, or that they
    had not), and the line that says why it failed."""

    notebook: Path
    returncode: int
    seconds: float
    log: Path
    said: str = "ran"
    why: str = ""
    because: str = ""


def _this_runs_lines(log: Path, offset: int) -> list[str]:
    """The non-blank lines a child wrote to ``log`` after ``offset`` (where its run's header ended)."""
    if not log.exists():
        return []
    with log.open("rb") as handle:
        handle.seek(offset)
        return [line for line in handle.read().decode(errors="replace").splitlines() if line.strip()]


def ended(notebook: Path, returncode: int, seconds: float, log: Path, offset: int = 0) -> Finished:
    """How a child that ran ``notebook`` ended, read from its part of ``log``: its outcome line (``ran`` or
    ``skipped``) and the reason it gives (``ran  NN  (12 s; run because R) -> ...`` or ``skipped  NN  (R) -> ...``:
    R), and where it failed the line that says why (``FAILED ...`` or ``reproq: ...``, else its last line; killed by a
    signal: that signal, and its last line)."""
    lines = _this_runs_lines(log, offset)
    outcomes = [line for line in lines if f" {notebook.stem} " in f" {line} " and line.startswith(("ran", "skipped"))]
    said = [line.split()[0] for line in outcomes]
    note = re.search(r"\((.*)\) -> ", outcomes[-1]) if outcomes else None
    because = re.sub(r"^\d+ s(; run because )?", "", note.group(1)) if note else ""
    last = lines[-1].strip() if lines else "nothing"
    if returncode < 0:
        why = f"killed by {_signal_name(-returncode)} (its log's last line: {last})"
    elif returncode:
        why = next((line for line in reversed(lines) if line.startswith(("FAILED", "reproq:"))), last)
    else:
        why = ""
    return Finished(notebook, returncode, seconds, log, said[-1] if said else "ran", why, because)


def _signal_name(number: int) -> str:
    import signal

    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


def log_path(profile: str, notebook: Path) -> Path:
    """Where a side-by-side run of ``notebook`` writes its output (``build/runs/<profile>/<notebook>.log``)."""
    return paths.build_dir() / "runs" / profile / f"{notebook.stem}.log"


def command(notebook: Path, *, profile: str, parameters: dict, force: bool, threads: int,
            executor: dict, limit: float | None = None) -> list[str]:
    """The ``reproq run`` of one notebook, as the side-by-side runner starts it: with ``parameters`` (those it has)
    and ``executor`` (``{"executor": "dask", "address": None, "workers": 2}``), writing where the runner writes."""
    where = [arg for k, v in executor.items() if v is not None for arg in (f"--{k}", str(v))]
    # the child reads the notebooks from this runner's folder (paths.NOTEBOOKS_DIR), wherever that is
    bootstrap = ("import sys; from pathlib import Path; from reproq import cli, paths; "
                 "paths.NOTEBOOKS_DIR = Path(sys.argv[1]); sys.exit(cli.main(sys.argv[2:]))")
    return [sys.executable, "-c", bootstrap, str(paths.NOTEBOOKS_DIR), "run", "--profile", profile,
            "--only", notebook.stem, "--jobs", "1", "--threads", str(threads), "--no-compare",  # the runner compares
            *where, *(["--force"] if force else []),
            *(["--commit"] if paths.writes_committed() else []),  # as the runner that starts it
            *(["--time-limit", "none" if math.isinf(limit) else repr(limit)] if limit else []),
            *(arg for k, v in parameters.items() for arg in ("-p", f"{k}={json.dumps(v)}"))]


def run_side_by_side(notebooks: Sequence[Path], jobs: int, *, profile: str, parameters: Callable[[Path], dict],
                     force: bool, threads: int, executor: dict,
                     limit: float | None = None) -> Iterator[tuple[str, Path, Finished | None]]:
    """Run ``notebooks`` as :func:`plan` orders them, ``jobs`` at a time, each with ``parameters(notebook)``; yields
    ``("started", notebook, None)`` and ``("finished", notebook, Finished)`` as they happen. The environment
    (retrain time, data mirror) is inherited by every child."""
    for nb in notebooks:  # a log that is a link is refused before any child starts
        atomic.refuse_link(log_path(profile, nb))
    alone, units, last = plan(notebooks, expected_seconds(profile))
    failed = False

    def start(nb: Path):
        log = log_path(profile, nb)
        log.parent.mkdir(parents=True, exist_ok=True)
        # appended to, never truncated: a run of the same notebook may be writing it (this child then says so there)
        handle = atomic.open_for_appending(log)  # closed when the child ends
        handle.write(f"==== reproq run of {nb.name} started {time.strftime('%Y-%m-%d %H:%M:%S')} by pid {os.getpid()}\n")
        handle.flush()
        offset = os.lseek(handle.fileno(), 0, os.SEEK_CUR)
        child = subprocess.Popen(command(nb, profile=profile, parameters=parameters(nb), force=force, threads=threads,
                                         executor=executor, limit=limit),
                                 stdout=handle, stderr=subprocess.STDOUT, cwd=paths.ROOT,
                                 preexec_fn=functools.partial(_die_with, os.getpid()))
        return child, handle, log, offset, time.time()

    def phase(queues: list[list[Path]], slots: int) -> Iterator[tuple[str, Path, Finished | None]]:
        nonlocal failed
        waiting, running = [list(q) for q in queues if q], {}
        try:
            while waiting or running:
                while waiting and len(running) < slots:
                    queue = waiting.pop(0)
                    nb = queue.pop(0)
                    running[nb] = (*start(nb), queue)
                    yield "started", nb, None
                for nb, (child, handle, log, offset, began, queue) in list(running.items()):
                    if child.poll() is None:
                        continue
                    handle.close()
                    del running[nb]
                    done = ended(nb, child.returncode, time.time() - began, log, offset)
                    failed |= child.returncode != 0
                    yield "finished", nb, done
                    if queue:  # the rest of its lane, in this slot
                        waiting.insert(0, queue)
                time.sleep(0.2)
        finally:  # Ctrl-C, or the caller stopped listening: no child outlives the runner
            for child, *_ in running.values():
                child.terminate()
            for child, handle, *_ in running.values():
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
                handle.close()

    yield from phase([[nb] for nb in alone], 1)
    yield from phase([list(u.notebooks) for u in units], max(1, jobs))
    if last and not failed:
        yield from phase([[nb] for nb in last], 1)


def _die_with(parent: int) -> None:
    """In a child, before it runs: a SIGTERM when ``parent`` dies, however it dies (kill -9 too; Linux's
    ``PR_SET_PDEATHSIG``), which the child takes as Ctrl-C and so stops its kernel (:func:`reproq.cli.main`)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the call: nobody would send it
            os._exit(1)


def default_jobs(threads: int, executor: str) -> int:
    """As many notebooks as the cores allow at ``threads`` each; one with the Dask executor (its cluster takes the
    cores)."""
    return 1 if executor != "local" else max(1, (os.cpu_count() or 1) // threads)
