"""The notebook runner: the notebooks executed in reading order, headless, with papermill (``reproq run``).

``reproq run --profile cpu`` runs ``notebooks/NN_*.ipynb`` one after the other. Each executed copy goes
to ``build/notebooks/<profile>/`` (the sources are never overwritten), named ``<name>.running.ipynb`` until its
run ends, so that a copy left by a killed run says so; a finished run keeps a copy beside its records
(``results/<name>/<name>.ipynb``: :func:`kept_copy`), so that a reader sees what the committed numbers came from.
A run of every notebook records its wall time start to end (:func:`record_whole_run`). A notebook is skipped when its
inputs — its own cells, the code of the reproq modules it reaches, the datasets they read, the parameters and the
torch thread count (:mod:`reproq.dependencies`), taken when it finished — are unchanged since its last successful run
*and* every output it recorded (``settings.json`` beside its results and figures) is still there and readable, so a
killed batch resumes where it stopped; ``force`` reruns. A notebook that runs again says why, in one line
(:func:`reproq.dependencies.why`). Parameters are checked against the notebook's ``parameters`` cell before anything runs:
their names, and their values' kinds against its defaults.
A failure names the notebook and the failing cell and stops the batch; what finished before stays.

What each run cost — wall seconds, the kernel's peak resident memory (sampled), the thread count, the CPU — is
recorded in ``pipeline_cost.json`` beside the profile's results (:func:`record_cost`); ``reproq scope --write``
turns the committed one into the guide's cost table. A run that writes the committed ``results/`` rewrites the
notebook's reading cells from them (:mod:`reproq.report.readings`).

Longer than most modules here: running one notebook safely (its lock, time limit, kernel, Ctrl-C, kept copy, cost and
stamp) and the batch around it are one piece; what may run side by side is :mod:`reproq.notebook_schedule`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from reproq import atomic, dependencies, notebook_json, notebook_schedule, paths, profiles, run_settings
from reproq.machine import cpu_name
from reproq.report import readings
from reproq.peak_memory import PeakMemory
from reproq.train import executors

PROFILES = tuple(profiles.PROFILES)
EXECUTORS = executors.BACKENDS


@dataclass(frozen=True)
class Outcome:
    notebook: str
    status: str  # ran | skipped | started (a side-by-side run's notebook, beside others)
    seconds: float
    executed: Path
    message: str = ""
    notes: str = ""  # what the run did besides its results (runs reused from checkpoints: :func:`_notes`)


class NotebookFailed(RuntimeError):
    """A notebook raised; the message names it, the cell and the error."""


def notebooks(only: Sequence[str] = ()) -> list[Path]:
    """The notebooks in order (by number, the report last: :func:`reproq.notebook_schedule.in_order`); ``only`` selects by
    number prefix or name (``"01"``, ``"1"``, ``"01_lexical_baselines"``)."""
    found = notebook_schedule.in_order()
    if not only:
        return found
    only = [f"{int(o):02d}" if o.isascii() and o.isdigit() else o for o in only]  # 4 is 04
    chosen = [p for p in found if any(p.stem == o or p.stem.startswith(f"{o}_") or p.name == o for o in only)]
    unknown = [o for o in only if not any(p.stem == o or p.stem.startswith(f"{o}_") or p.name == o for p in found)]
    if unknown:
        raise ValueError(f"no notebook matches {', '.join(unknown)}; there are: "
                         + ", ".join(p.stem for p in found))
    return chosen


def fingerprint(notebook: Path, parameters: dict) -> str:
    """One hash of everything a notebook's outputs depend on (:func:`reproq.dependencies.parts`)."""
    return dependencies.digest(dependencies.parts(notebook, parameters, threads()))


def _parameters_cell(notebook: Path) -> str:
    cells = notebook_json.read(notebook)["cells"]
    return "".join(next(("".join(c["source"]) for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])),
                        ""))


def notebook_parameters(notebook: Path) -> set[str]:
    """The names assigned in a notebook's cell tagged ``parameters``."""
    return set(re.findall(r"^([A-Z_][A-Z0-9_]*)\s*=", _parameters_cell(notebook), flags=re.MULTILINE))


def parameter_defaults(notebook: Path) -> dict[str, object]:
    """The parameters of ``notebook`` whose default is a plain literal (``SEEDS = None``, ``DIMS = [64, 128]``), by
    name, with that default."""
    import ast

    defaults = {}
    for statement in ast.parse(_parameters_cell(notebook)).body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            with contextlib.suppress(ValueError, SyntaxError):
                defaults[statement.targets[0].id] = ast.literal_eval(statement.value)
    return defaults


SEED_LISTS = ("SEEDS", "BASELINE_SEEDS")  # a list of integer seeds, or None for the profile's


def _kind(value) -> str:
    """A parameter value's kind as a notebook's default fixes it (an int stands for a number too)."""
    return {bool: "true or false", int: "a number", float: "a number", str: "a string", list: "a list",
            tuple: "a list", dict: "a mapping"}.get(type(value), type(value).__name__)


def _wrong_type(name: str, value, notebooks_: Sequence[Path]) -> str | None:
    """Why ``value`` cannot be the parameter ``name`` of the notebooks that have it, or None: a seed list is a list
    of integers; otherwise the value has the kind of the notebook's own default (None always passes: "the
    profile's")."""
    if value is None:
        return None
    if name in SEED_LISTS:
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        return None if ok else f"{name} must be a list of integer seeds such as [1, 2] (or null), got {value!r}"
    for notebook in notebooks_:
        default = parameter_defaults(notebook).get(name)
        if default is not None and _kind(default) != _kind(value):
            return (f"{name} must be {_kind(default)} (as {notebook.stem}'s default {json.dumps(default)}), "
                    f"got {json.dumps(value)}")
    return None


def check_parameters(notebooks_: Sequence[Path], parameters: dict) -> None:
    """ValueError, one sentence, for a parameter no selected notebook has, ``PROFILE`` (``--profile`` sets it),
    an empty ``SEEDS`` or one that names a seed twice, or a value of another kind than the notebook's default (before
    any kernel starts)."""
    if "PROFILE" in parameters:
        raise ValueError("set the profile with --profile, not as a parameter (it decides where outputs go)")
    if "SEEDS" in parameters and parameters["SEEDS"] is not None and not parameters["SEEDS"]:
        raise ValueError("SEEDS must name at least one seed")
    if isinstance(parameters.get("SEEDS"), list):
        profiles.check_seeds(parameters["SEEDS"])
    for name, value in parameters.items():
        having = [nb for nb in notebooks_ if name in notebook_parameters(nb)]
        if not having:
            known = sorted(set().union(*(notebook_parameters(nb) for nb in notebooks_)) - {"PROFILE"})
            raise ValueError(f"no selected notebook has a parameter {name!r}; they have: {', '.join(known)}")
        if why := _wrong_type(name, value, having):
            raise ValueError(why)


def _read_json(path: Path) -> dict | None:
    """A stamp or settings file, or None when it is missing or unreadable (said once, naming it)."""
    return atomic.read_json(path, otherwise="it is ignored and the notebook runs again")


def recorded_outputs(notebook: Path, profile: str) -> list[str]:
    """Every output the notebook's runs recorded in the ``settings.json`` beside its results and figures, and
    those ``settings.json`` files."""
    settings = [d / notebook.stem / "settings.json" for d in paths.output_dirs(profile)]
    return [str(p) for s in settings if s.is_file() for p in [s, *(s.parent / name for name in _read_json(s) or {})]]


def outputs_intact(outputs: Sequence[str]) -> bool:
    """Whether each of ``outputs`` exists, is not empty and, for records and JSON, parses."""
    for path in map(Path, outputs):
        if not path.is_file() or path.stat().st_size == 0:
            return False
        if path.suffix in (".json", ".jsonl"):
            text = path.read_bytes().decode("utf-8", errors="replace")
            try:
                [json.loads(part) for part in (text.splitlines() if path.suffix == ".jsonl" else [text]) if part.strip()]
            except json.JSONDecodeError:
                return False
    return True


DEFAULT_THREADS = run_settings.STUDY_THREADS


def threads(requested: int | None = None) -> int:
    """The thread count the notebooks' torch gets: ``requested``, else ``OMP_NUM_THREADS``, else
    :data:`DEFAULT_THREADS`."""
    if requested is not None:
        if requested < 1:
            raise ValueError(f"--threads must be 1 or more, got {requested}")
        return requested
    text = run_settings.read("threads") or str(DEFAULT_THREADS)
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"OMP_NUM_THREADS must be a whole number of 1 or more, got {text!r}: unset it or pass --threads N")
    return int(text)


def committing(commit: bool):
    """While the block runs, this process and the notebooks it starts write the committed ``results/`` and ``figures/``
    (``commit``) or the profile's run folder (:func:`reproq.paths.output_dirs`), whatever the environment said."""
    return run_settings.environment(committed="1" if commit else None)


def thread_environment(n: int):
    """``OMP_NUM_THREADS`` (torch's intra-op threads, read when a kernel starts) and ``MKL_NUM_THREADS`` set to ``n``
    while the block runs, restored after."""
    return run_settings.environment(threads=str(n), mkl_threads=str(n))


def allocator_environment():
    """Huge pages for torch's CPU buffers of 2 MB and more (``THP_MEM_ALLOC_ENABLE=1``, unless the user set it), for
    the processes started inside the block (notebook kernels, their Dask workers, benchmarks): torch reads it once,
    at its first allocation. Without it, first-touch page faults of the RCNN's fresh [B, T, n+1, d] tensors were a
    fifth of its training step; the numbers do not change (``tests/test_allocator.py``; results/bench/README.md)."""
    return run_settings.environment(allocator=run_settings.read("allocator", "1"))


def executor_environment(name: str = "local", *, address: str | None = None, workers: int | None = None):
    """The executor the notebooks' grids run on (:mod:`reproq.train.executors`), for the kernels started inside the
    block; checked here, before any notebook starts."""
    if name == "dask" and address is not None and workers is not None:
        raise ValueError("--workers sizes the local Dask cluster reproq starts; with --address the grids run on that "
                         "scheduler's own workers (leave --workers out)")
    executors.check(name, address=address, workers=workers)
    return run_settings.environment(executor=name, address=address, workers=None if workers is None else str(workers))


FOLDERS = {"REPROQ_DATA": paths.data_dir, "REPROQ_BUILD": paths.build_dir}  # as reproq.paths reads them


@contextlib.contextmanager
def absolute_folders():
    """The data and build folders, and a data mirror that is a folder, given relative (``REPROQ_BUILD=relbuild``) made
    absolute, as this process reads them, for the processes started inside the block: a kernel runs in
    ``notebooks/`` and would read a relative one there (the notebook's records went to ``notebooks/relbuild/``, and
    its stamp listed none of them)."""
    absolute = {variable: str(folder()) for variable, folder in FOLDERS.items() if os.environ.get(variable)}
    mirror = paths.data_mirror()
    if mirror and "://" not in mirror:
        absolute["REPROQ_DATA_MIRROR"] = os.path.abspath(os.path.expanduser(mirror))
    saved = {variable: os.environ[variable] for variable in absolute}
    os.environ.update(absolute)
    try:
        yield
    finally:
        os.environ.update(saved)


def record_cost(profile: str, notebook: str, cost: dict) -> Path:
    """Add (or replace) ``notebook``'s entry in the profile's ``pipeline_cost.json`` (atomically), keeping the
    longest ``seconds`` it was ever recorded at as ``longest_s`` (what :func:`time_limit` allows for)."""
    with atomic.updating(paths.output_dirs(profile)[0] / "pipeline_cost.json") as path:
        entries = atomic.read_json(path, otherwise="started afresh with this notebook") or {}
        before = entries.get(notebook) if isinstance(entries.get(notebook), dict) else {}
        longest = [t for t in (before.get("longest_s"), before.get("seconds"), cost.get("seconds"))
                   if isinstance(t, (int, float))]
        entries[notebook] = {**cost, **({"longest_s": max(longest)} if longest else {})}
        atomic.write_json(path, dict(sorted(entries.items())))
    return path


def _circumstances(load_before: tuple[float, ...]) -> dict:
    """What a cost record says of the run besides its time and memory: threads, executor, the machine, the load
    before (``load_before``) and now, the code version and when it finished."""
    from reproq.results import code_version

    return {"threads": threads(), "executor": run_settings.read("executor") or "local",
            "cpu": cpu_name(), "cores": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()], "code_version": code_version(),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def record_whole_run(profile: str, jobs: int, notebooks: int, seconds: float, notebook_seconds: float,
                     load_before: tuple[float, ...]) -> Path:
    """Add (or replace) the wall time of a run of every notebook, ``jobs`` at a time, and the sum of its notebooks'
    own times, in the profile's ``pipeline_wall.json`` (one entry per ``jobs``: the side-by-side run and the serial
    one stay beside each other)."""
    with atomic.updating(paths.output_dirs(profile)[0] / "pipeline_wall.json") as path:
        entries = atomic.read_json(path, otherwise="started afresh with this run") or {}
        entries[f"jobs={jobs}"] = {"seconds": round(seconds, 1), "jobs": jobs, "notebooks": notebooks,
                                   "notebook_seconds": round(notebook_seconds, 1), **_circumstances(load_before)}
        atomic.write_json(path, dict(sorted(entries.items())))
    return path


def executed_copy(profile: str, notebook: Path) -> Path:
    """Where a run of ``notebook`` leaves its executed copy (``build/notebooks/<profile>/``)."""
    return paths.build_dir() / "notebooks" / profile / notebook.name


def kept_copy(profile: str, notebook: Path) -> Path:
    """Where a finished run of ``notebook`` keeps its executed copy: beside its records (``results/<name>/``), as
    the run that wrote them left it, but for the checkout's own path (:func:`_keep`)."""
    return paths.output_dirs(profile)[0] / notebook.stem / notebook.name


def _keep(executed: Path, kept: Path) -> None:
    """Copy ``executed`` to ``kept`` as a reader should see it: its streams as a terminal leaves them (a progress bar is
    the one line it ended as: :func:`reproq.notebook_json.as_printed`), and no folder of this machine in any path it
    names (:func:`_named_folders`): a figure written to ``/home/me/reproq/figures/…`` reads ``figures/…``, which is
    where it is in any clone."""
    import nbformat

    read = nbformat.reads(executed.read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)  # lines joined
    text = nbformat.writes(nbformat.from_dict(notebook_json.as_printed(read)))
    for folder, said in _named_folders():
        spelled = json.dumps(f"{folder.rstrip('/')}/", ensure_ascii=False)[1:-1]  # as the notebook's JSON spells it
        text = re.sub(r"(?<![\w.~/$-])" + re.escape(spelled), lambda _, said=said: said, text)  # the folder, not one ending so
    kept.parent.mkdir(parents=True, exist_ok=True)
    atomic.replace_atomically(kept, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def refresh_words(profile: str, notebook: Path) -> bool | None:
    """Give ``notebook``'s kept executed copy (:func:`kept_copy`) its source's words (Markdown, comments:
    :func:`reproq.notebook_json.with_words_of`) and its outputs as a reader should see them
    (:func:`reproq.notebook_json.as_printed`), atomically and only where they differ; whether it did, or None where
    the copy is of other code (or there is none): a run, not this, makes that one current."""
    import nbformat

    kept = kept_copy(profile, notebook)
    if not kept.is_file():
        return None
    executed = nbformat.reads(kept.read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
    refreshed = notebook_json.with_words_of(executed, notebook_json.read(notebook))
    if refreshed is None:
        return None
    text = nbformat.writes(nbformat.from_dict(notebook_json.as_printed(refreshed)))
    if text == kept.read_text(encoding="utf-8"):
        return False
    atomic.replace_atomically(kept, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return True


def _named_folders() -> list[tuple[str, str]]:
    """The folders of this machine a notebook's outputs may name, each with what a kept copy says instead: the
    checkout (nothing: paths read from the clone's root), and those its variables put elsewhere (the data mirror, the
    data and build folders, the temporary folder a warning names a cell's file in: the variable's name). The longest first, so that a folder inside another is said as
    itself."""
    folders = [(str(paths.ROOT), ""), (paths.data_mirror(), "$REPROQ_DATA_MIRROR/"),
               (str(paths.data_dir()), "$REPROQ_DATA/"), (str(paths.build_dir()), "$REPROQ_BUILD/"),
               (tempfile.gettempdir(), "$TMPDIR/")]  # a warning's cell: the kernel's file of it
    inside = [f for f, said in folders if f and said and Path(f).is_relative_to(paths.ROOT)]
    named = [(f, said) for f, said in folders if f and f not in inside]
    return sorted(named, key=lambda pair: -len(pair[0]))


def _stamp(profile: str, notebook: Path) -> Path:
    """What the last finished run of ``notebook`` left (its fingerprint, outputs): one per place a run writes, so that
    a run into the run folder is not skipped for a run that wrote the committed study."""
    committed = "committed" if profile != "smoke" and paths.writes_committed() else ""
    return paths.run_dir(profile) / committed / f"{notebook.stem}.json"


def admission(profile: str, notebook: Path) -> tuple[Path, Path]:
    """The lock that admits one run of ``notebook`` in ``profile``, and the file naming its holder's pid: named by the
    results folder the run writes, so that two build folders (``REPROQ_BUILD``) never write one results folder at
    once, and outside it and outside ``build/`` (in the system's temporary folder), so that removing either under a
    running notebook admits no second one (``rm -rf build/smoke`` during a smoke run let a second run in)."""
    results = os.path.abspath(paths.output_dirs(profile)[0] / notebook.stem)
    folder = Path(tempfile.gettempdir()) / "reproq-admission" / hashlib.sha256(results.encode()).hexdigest()[:20]
    return folder / ".run.lock", folder / ".run.pid"


def time_limit(profile: str, notebook: Path) -> float | None:
    """The default time limit of one run of ``notebook``: three times its longest recorded run, at least ten minutes
    (generous: a hung cell is caught, a slow machine is not; the longest, for a run that reused its checkpoints is
    short and the next, after a change that retrains them, is not); None where no run was recorded."""
    last = notebook_schedule.expected_seconds(profile, longest=True).get(notebook.stem)
    return None if last is None else max(600.0, 3 * last)


def run_notebook(notebook: Path, *, profile: str, parameters: dict | None = None, force: bool = False,
                 progress: bool = True, limit: float | None = None) -> Outcome:
    """Run one notebook unless its last successful run had the same inputs; raise NotebookFailed on error, and when
    another process runs the same notebook into the same results folder (:func:`admission`)."""
    from filelock import FileLock, Timeout

    lock_path, holder = admission(profile, notebook)
    try:
        lock = FileLock(atomic.refuse_link(atomic.unlinked(lock_path)))  # nor a folder link on its way
    except ValueError as exc:
        raise NotebookFailed(str(exc)) from None
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        pid = holder.read_text().strip() if holder.is_file() else "unknown"
        raise NotebookFailed(f"{notebook.name} is already running (pid {pid}, profile {profile}) into "
                             f"{lock_path.parent}; wait for it to finish or stop it") from None
    try:
        atomic.write_text(holder, str(os.getpid()))  # a rename: a link at its name is replaced, not written through
        return _run_notebook(notebook, profile=profile, parameters=parameters, force=force, progress=progress,
                             limit=limit)
    finally:
        lock.release()


def _run_notebook(notebook: Path, *, profile: str, parameters: dict | None, force: bool, progress: bool,
                  limit: float | None) -> Outcome:
    import papermill
    from nbclient.exceptions import DeadKernelError
    from papermill.exceptions import PapermillExecutionError

    params = {"PROFILE": profile, **(parameters or {})}
    executed = atomic.unlinked(executed_copy(profile, notebook))  # a folder link: the copy would land outside
    stamp = _stamp(profile, notebook)
    last = None if force else _read_json(stamp)
    inputs = dependencies.parts(notebook, params, threads())
    if last and last.get("inputs") == inputs and outputs_intact(last.get("outputs", [])):
        return Outcome(notebook.stem, "skipped", 0.0, executed, "inputs unchanged since its last run")
    reason = "--force" if force else dependencies.why(last.get("inputs") if last else None, inputs)
    marker = _committing(profile, notebook)
    executed.parent.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    # papermill saves the copy cell by cell: it runs under a name that says so, so that a run killed outright leaves
    # <name>.running.ipynb (never a half-run copy under the finished name); a run that ends, well or not, renames it
    running = executed.with_name(f"{executed.stem}.running.ipynb")
    executed.unlink(missing_ok=True)
    running.unlink(missing_ok=True)  # a link planted at its name goes: papermill writes the copy by name
    start, load_before = time.time(), os.getloadavg()
    # None: no run recorded, or a run with other parameters than its defaults (the last time says nothing of it)
    allowed = limit or (None if set(parameters or {}) & notebook_parameters(notebook) else time_limit(profile, notebook))
    try:
        with PeakMemory() as memory, _renamed_after(running, executed):
            _interruptible(lambda: papermill.execute_notebook(str(notebook), str(running), parameters=params,
                                                              cwd=str(notebook.parent), progress_bar=progress,
                                                              kernel_name="python3",
                                                              kernel_manager_class=_local_kernel_manager()),
                           allowed)
    except _PastTimeLimit:
        said = f"{allowed:.0f} s " + ("(--time-limit)" if limit else "(three times its longest recorded run, at least "
                                                                   "ten minutes; --time-limit SECONDS sets another)")
        raise NotebookFailed(f"{notebook.name}: stopped at its time limit of {said}, its kernel with it; the executed "
                             f"copy so far is {executed}") from None
    except PapermillExecutionError as exc:
        first_line = next((line for line in exc.source.splitlines() if line.strip()), "")
        raise NotebookFailed(f"{notebook.name} failed in the cell starting `{first_line}` (execution count "
                             f"{exc.exec_count}) with {exc.ename}: {exc.evalue}; the executed copy with the "
                             f"traceback is {executed}") from None
    except DeadKernelError:
        raise NotebookFailed(f"{notebook.name}: its kernel died (killed from outside, or out of memory: it had reached "
                             f"{memory.peak_mb:,.0f} MB of this machine's {_total_memory_mb():,.0f} MB); fewer seeds "
                             f"(-p 'SEEDS=[1]') or --profile smoke need less; the executed copy so far is "
                             f"{executed}") from None
    except OSError as exc:  # the executed copy or a kernel file: a read-only or full folder, a missing kernel
        raise NotebookFailed(f"{notebook.name} could not be run: {type(exc).__name__}: {exc}") from None
    finally:
        if marker and marker.exists() and sys.exc_info()[0] is not None:
            print(f"{notebook.stem}: its committed results and figures are half-written ({marker.name} says so): "
                  f"`git checkout -- results/{notebook.stem} figures/{notebook.stem}` rolls them back, a run of it "
                  "with --commit writes them whole", file=sys.stderr)
    seconds = time.time() - start
    written = [_bookkeeping(record_cost, profile, notebook.stem, {
        "seconds": round(seconds, 1), "peak_memory_mb": round(memory.peak_mb), "peak_memory_read": memory.how,
        **_circumstances(load_before)}), _bookkeeping(_keep, executed, kept_copy(profile, notebook))]
    results_dir = paths.output_dirs(profile)[0]
    if results_dir == paths.committed_dirs()[0]:  # the committed results: the notebook carries their words
        written.append(_bookkeeping(readings.write, notebook, results_dir))
    # the fingerprint of the inputs as the run leaves them (a run may have fetched or repaired a data file): only when
    # all of the above was written is the notebook finished; otherwise no stamp, and the next run runs it again
    if all(written):
        if marker:
            marker.unlink(missing_ok=True)  # the committed files of this notebook are whole again
        _bookkeeping(atomic.write_json, stamp, {
            "inputs": dependencies.parts(notebook, params, threads()), "seconds": round(seconds, 1), "parameters": params,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "outputs": recorded_outputs(notebook, profile)})
    return Outcome(notebook.stem, "ran", seconds, executed, reason, _notes(executed))


def _notes(executed: Path) -> str:
    """What the cells of ``executed`` said of the cache, in one clause (the kept copy leaves it out:
    :func:`reproq.notebook_json.as_printed`): ``12 of 14 runs reused from checkpoints``; empty where none were."""
    try:
        reused, of = notebook_json.reused(notebook_json.read(executed))
    except (OSError, ValueError):  # no executed copy to read (a run that wrote none): a note is never a failure
        return ""
    return f"{reused} of {of} runs reused from checkpoints (`reproq run --retrain` trains them again)" if of else ""


COMMITTING = ".committing.json"  # in a committed results folder while a run writes it (not ignored by git)


def _committing(profile: str, notebook: Path) -> Path | None:
    """Where the run writes the committed study, the marker that says its files of ``notebook`` are being written,
    written now (a run killed mid-way leaves it: the folder is half-written until a run with --commit completes it;
    git shows it, a test refuses it); None for a run into its run folder. A marker left by a stopped run is said."""
    results_dir = paths.output_dirs(profile)[0]
    if results_dir != paths.committed_dirs()[0]:
        return None
    marker = results_dir / notebook.stem / COMMITTING
    left = atomic.read_json(marker, otherwise="it is written again")
    if left is not None:  # whatever it holds: a marker is there
        began = left.get("began", "?") if isinstance(left, dict) else "?"
        print(f"{notebook.stem}: a run with --commit that began {began} stopped before it finished writing the "
              "committed results; this run writes them whole", file=sys.stderr)
    atomic.write_json(marker, {"began": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "pid": os.getpid()})
    return marker


def _local_kernel_manager():
    """A kernel manager that talks to its kernel over local sockets (IPC) rather than TCP: nothing listens on a port,
    and the kernel has no unencrypted-TCP warning to print on every run. The sockets live in a scratch folder of
    their own, removed with the kernel."""
    import tempfile
    import uuid

    from jupyter_client.manager import AsyncKernelManager

    class LocalKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.ip = str(Path(tempfile.gettempdir()) / f"reproq-kernel-{uuid.uuid4().hex[:12]}")

    return LocalKernelManager


@contextlib.contextmanager
def _renamed_after(running: Path, executed: Path):
    """``running`` renamed to ``executed`` when the block ends, however it ends (where it was written at all)."""
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.replace(running, executed)


class _PastTimeLimit(Exception):
    """A notebook's run went on past its time limit (:func:`time_limit`); its kernel was stopped."""


def _interruptible(execute, limit_s: float | None = None) -> None:
    """``execute()`` (papermill's run of a notebook) in a thread of its own, so that Ctrl-C stops it: run in the main
    thread, nbclient takes SIGINT for itself (``async_setup_kernel``'s handler only shuts the kernel down) and keeps
    waiting for the cell. On Ctrl-C the kernel and whatever it started (Dask workers) are stopped, and the
    KeyboardInterrupt goes on to the command, which says so in one line (exit 130). After ``limit_s`` seconds (None:
    no limit) the kernel is stopped the same way and :class:`_PastTimeLimit` raised."""
    import threading

    raised: list[BaseException] = []
    deadline = time.monotonic() + (limit_s if limit_s is not None else float("inf"))

    def run() -> None:
        try:
            execute()
        except BaseException as exc:  # handed to the caller below, in its own thread
            raised.append(exc)

    worker = threading.Thread(target=run, name="papermill", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
            if time.monotonic() > deadline:
                _stop_children()
                worker.join(10)
                raise _PastTimeLimit
    except KeyboardInterrupt:
        _stop_children()
        worker.join(10)
        raise
    if raised:
        raise raised[0]


def _stop_children(grace_s: float = 3.0) -> None:
    """Terminate every process this one started (a notebook's kernel and its children), then kill what is left."""
    import psutil

    children = psutil.Process().children(recursive=True)
    for child in children:
        with contextlib.suppress(psutil.Error):
            child.terminate()
    _, alive = psutil.wait_procs(children, timeout=grace_s)
    for child in alive:
        with contextlib.suppress(psutil.Error):
            child.kill()


def _bookkeeping(write, *args) -> bool:
    """``write(*args)`` after a notebook ran (its cost, its kept copy, reading cells, stamp), and whether it wrote: a
    folder that refuses it (read-only, full) costs one warning line and the stamp, never the run's outputs; without a
    stamp the next run runs the notebook again, as the line says."""
    try:
        write(*args)
        return True
    except OSError as exc:
        print(f"reproq: warning: the notebook ran, but {getattr(write, '__name__', write)} could not write "
              f"({type(exc).__name__}: {exc}); it is not stamped finished, and the next run runs it again",
              file=sys.stderr, flush=True)
        return False


def _total_memory_mb() -> float:
    import psutil

    return psutil.virtual_memory().total / 2**20


def run(*, profile: str = "cpu", only: Sequence[str] = (), parameters: dict | None = None, force: bool = False,
        progress: bool = True, n_threads: int | None = None, executor: str = "local", address: str | None = None,
        workers: int | None = None, retrain: bool = False, jobs: int | None = 1,
        limit: float | None = None, commit: bool = False) -> Iterator[Outcome]:
    """Run the notebooks in order with ``threads(n_threads)`` threads each, their grids on ``executor`` (with
    ``address`` and ``workers`` for Dask: :mod:`reproq.train.executors`), yielding each outcome as it finishes; a
    failure raises NotebookFailed. The executor is not part of a notebook's fingerprint: both give the same records.
    ``retrain`` (implies ``force``) trains every run again: checkpoints and run records cached before this call are
    not reused, each naming the batch that wrote it (:mod:`reproq.train.retrain`). ``jobs`` notebooks run side by side
    (None: as many as the cores allow, :func:`reproq.notebook_schedule.default_jobs`; :mod:`reproq.notebook_schedule` says what may
    overlap); with more than one, a failure is raised after the others finished. ``limit``: the seconds one notebook may
    run (default: :func:`time_limit`, from each notebook's longest recorded run). The notebooks write into the profile's
    run folder (:func:`reproq.paths.output_dirs`); with ``commit``, into the committed ``results/`` and ``figures/``
    (a maintainer's run: their reading cells are written from the new records too)."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    chosen = notebooks(only)
    check_parameters(chosen, parameters or {})
    n = threads(n_threads)
    jobs = notebook_schedule.default_jobs(n, executor) if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"--jobs must be 1 or more, got {jobs}")
    # one retraining batch, by id: a side-by-side run's children inherit it (reproq.train.retrain)
    retrained = (run_settings.environment(retrain_batch=uuid.uuid4().hex) if retrain
                 else contextlib.nullcontext())
    start, load_before, ran = time.time(), os.getloadavg(), {}
    given = parameters or {}

    def own(nb: Path) -> dict:  # a notebook gets the parameters it has: another's would enter its fingerprint
        return {k: v for k, v in given.items() if k in notebook_parameters(nb)}

    with thread_environment(n), allocator_environment(), executor_environment(executor, address=address,
                                                                               workers=workers), retrained, \
            committing(commit), absolute_folders():
        if jobs == 1 or len(chosen) == 1:
            expected = notebook_schedule.expected_seconds(profile)
            for k, nb in enumerate(chosen, 1):
                if progress:
                    yield Outcome(nb.stem, "started", 0.0, executed_copy(profile, nb), _eta(k, chosen, expected))
                outcome = run_notebook(nb, profile=profile, parameters=own(nb), force=force or retrain,
                                       progress=progress, limit=limit)
                ran |= {nb.stem: outcome.seconds} if outcome.status == "ran" else {}
                yield outcome
        else:
            for outcome in _side_by_side(chosen, jobs, profile=profile, force=force or retrain, progress=progress,
                                         parameters=own, threads=n,
                                         executor=dict(executor=executor, address=address, workers=workers),
                                         limit=limit):
                ran |= {outcome.notebook: outcome.seconds} if outcome.status == "ran" else {}
                yield outcome
        if not only and set(ran) == {nb.stem for nb in chosen}:  # the whole pipeline, every notebook run, none failed
            _bookkeeping(record_whole_run, profile, min(jobs, len(chosen)), len(chosen), time.time() - start,
                         sum(ran.values()), load_before)


def _eta(k: int, chosen: Sequence[Path], expected: dict[str, float]) -> str:
    """``[k/N] last time 4.2 min; about 31 min left`` for the k-th of ``chosen``, from the recorded times (a
    notebook without one is left out of the sum, and said so)."""
    def minutes(seconds: float) -> str:
        return f"{seconds / 60:.1f} min"

    rest = chosen[k - 1:]
    last = _last_time(chosen[k - 1], expected)
    known = [expected[n.stem] for n in rest if n.stem in expected]
    unknown = len(rest) - len(known)
    left = f"about {minutes(sum(known))} left" + (f" and {unknown} never timed" if unknown else "") if known else ""
    return f"[{k}/{len(chosen)}] {last}" + (f"; {left}" if left else "")


def _last_time(notebook: Path, expected: dict[str, float]) -> str:
    """``last time 4.2 min``, or ``no time recorded``."""
    return f"last time {expected[notebook.stem] / 60:.1f} min" if notebook.stem in expected else "no time recorded"


def _side_by_side(chosen: Sequence[Path], jobs: int, *, progress: bool, **options) -> Iterator[Outcome]:
    """:func:`reproq.notebook_schedule.run_side_by_side` as outcomes: ``started`` when a notebook starts (with ``progress``),
    then ``ran`` or ``skipped``; NotebookFailed at the end naming every notebook that failed (the others finished)."""
    failures, profile, started = [], options["profile"], 0
    expected = notebook_schedule.expected_seconds(profile)
    for event, nb, done in notebook_schedule.run_side_by_side(chosen, jobs, **options):
        if event == "started":
            started += 1
            if progress:
                yield Outcome(nb.stem, "started", 0.0, executed_copy(profile, nb),
                              f"[{started}/{len(chosen)}] {_last_time(nb, expected)}; log "
                              f"{notebook_schedule.log_path(profile, nb)}")
        elif done.returncode == 0:
            yield Outcome(nb.stem, done.said, done.seconds, executed_copy(profile, nb), done.because)
        else:
            failures.append(f"{nb.name}: {done.why} (log: {done.log})")
    if failures:
        later = [nb.name for nb in chosen if notebook_schedule.declared(nb).runs == notebook_schedule.LAST]
        skipped = f"; not run after a failure: {', '.join(later)}" if later else ""
        raise NotebookFailed("; ".join(failures) + skipped)
