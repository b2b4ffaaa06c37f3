"""The ``reproq`` command.

    reproq data fetch [DATASET ...] [--force]   download and verify (all datasets by default); with datasets
                                                named, exit 1 unless every file of them ends up verified; with
                                                none, exit 0 and a line per dataset that needs a step by hand
    reproq data status [DATASET ...]            a table: dataset, file, verified / missing / corrupt
    reproq data verify [DATASET ...]            re-hash what is present; exit 1 if anything is corrupt or a
                                                file of a dataset named here is missing
    reproq run [--profile cpu] [--only 01 ...] [--param KEY=VALUE ...] [--force | --retrain] [--threads N]
               [--jobs N] [--executor local|dask] [--address tcp://HOST:8786] [--workers N]
               [--time-limit SECONDS] [--commit] [--no-compare]
                                                execute the notebooks headless (papermill) into the run folder
                                                build/runs/<profile>/ and compare every record with the
                                                committed study (build/runs/<profile>/comparison.md); --commit
                                                (maintainers) writes the committed results/ and figures/;
                                                parameters are checked against the notebooks' parameters
                                                cells; one torch thread unless --threads or OMP_NUM_THREADS
                                                says otherwise; notebooks side by side as the cores allow
                                                (--jobs); the grids' runs one after another, or on Dask
    reproq run --rehearse [--profile paper] [--family FAMILY ...] [--threads N] [--commit]
                                                no notebook: each model family built at the profile's largest
                                                configuration, one step and one evaluation on this device, and a
                                                plan of the hours (build/rehearsal/<profile>/plan.md)
    reproq bench [encoders|pretraining|answer-ranking|full-collection|threads ...] [--profile cpu] [--commit]
                                                speed benchmarks; numbers go to build/runs/<profile>/results/bench/
                                                <name>_<threads>thread.json (--commit: results/bench/)
    reproq gpu-check [--out FILE]               every encoder a few steps on the GPU beside the CPU, and timed;
                                                without a GPU one line, exit 0
    reproq scope [--write]                      what the study covers, one line a paper; its tables and what each
                                                notebook cost into build/scope.md (--write: into the README's and
                                                the guide's tables)
    reproq report [--out DIR] [--write]         the reproduction report as a book (build/report/cpu/): every
                                                table and figure with a computed verdict; --write also puts
                                                the verdict counts and the findings into the README and the guide,
                                                the book into docs/ (committed: open docs/index.html), one page per
                                                paper into results/<the report>/<paper>.md, the notebooks' reading
                                                cells and a screenshot (Chromium) into figures/report/
    reproq machines OTHER_RESULTS [--only 04 ...] [--write]
                                                another machine's run of the same notebooks against the committed
                                                records, seed by seed (--write: results/machines/)
    reproq labs [--out DIR] [--only LAB ...]    the course labs: student release (no solutions, no outputs) and
                                                instructor's source under build/labs/ (nbgrader)
    reproq labs --autograde LAB NOTEBOOK [--student ID]
                                                autograde a submitted notebook; prints its points and failed checks
    reproq labs --autograde LAB FOLDER          the same for each <student>/LAB.ipynb in FOLDER; any other file
                                                there is skipped in one line

Errors about data, parameters or notebooks are printed as one message, never as a traceback (exit 2; a
failed notebook 1; Ctrl-C 130).

Longer than most modules here: it is the whole command line, every subcommand's parser, the checks it makes before
any work and the one-line errors, so that what ``reproq`` accepts is read in one place.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import json
import math
import signal
import sys
import time
import threading
from pathlib import Path

from reproq import atomic, notebook_schedule, paths, runner
from reproq.data import sources
from reproq.data.errors import DataError
from reproq.data.registry import DATASETS, DESCRIPTIONS, files_of


def _data_fetch(args) -> int:
    """Fetch every file it can. Named datasets: exit 1 unless every file of them ends up verified (a script that needs
    them stops). No name: every dataset, exit 0 with one line per dataset that needs a step by hand (a file with no
    pinned hash, one no source had), so that ``reproq data fetch && reproq run`` runs."""
    missing: dict[str, list] = {}  # dataset -> its results that failed
    for dataset in args.datasets:  # every name checked before the first download
        files_of(dataset)
    for dataset in args.datasets or DATASETS:
        for result in sources.fetch(dataset, force=args.force):
            if result.state == "failed":
                missing.setdefault(dataset, []).append(result)
            else:
                origin = "" if result.source == "already here" else f"  (from {result.source})"
                print(f"  {result.state:<9} {result.file.key}{origin}")
    for dataset, failed in missing.items():
        causes = list(dict.fromkeys(cause for r in failed for cause in r.causes))
        by_hand = [f"put your copy of {r.file.path} at {sources.local_path(r.file)}" for r in failed
                   if r.file.blob_sha1 is None]
        print(f"  missing   {dataset}: {', '.join(r.file.path for r in failed)} — because: {'; '.join(causes)}"
              + "".join(f"; {step}" for step in by_hand), file=sys.stderr)
    if missing:
        n = sum(len(failed) for failed in missing.values())
        print(f"{n} file(s) of {', '.join(missing)} could not be fetched: one with no pinned hash is put in place by "
              f"hand (the line says where); the others, `reproq data fetch {' '.join(missing)}` again or "
              "REPROQ_DATA_MIRROR. The notebooks fall back to a synthetic stand-in only for the AskUbuntu and Android "
              "corpora (and say so); a notebook that needs any other missing file stops with this message.",
              file=sys.stderr)
    return 1 if missing and args.datasets else 0


def _data_status(args) -> int:
    rows = sources.status(args.datasets or None)
    width = max(len(f"{d}/{p}") for d, p, _ in rows)
    print(f"data dir: {paths.data_dir()}   mirror: {paths.data_mirror() or '-'}")
    print(f"{'file':<{width}}  state")
    current = None
    for dataset, path, state in rows:
        if dataset != current:
            current = dataset
            print(f"# {dataset}: {DESCRIPTIONS.get(dataset, '')}")
        print(f"{dataset + '/' + path:<{width}}  {state}")
    return 0


def _data_verify(args) -> int:
    """Exit 1 if a file is corrupt, or if a file of a dataset named on the command line is missing."""
    rows = sources.status(args.datasets or None)
    corrupt = [f"{d}/{p}" for d, p, s in rows if s == "corrupt"]
    missing = [f"{d}/{p}" for d, p, s in rows if s == "missing"]
    present = sum(s in ("verified", "unverified") for _, _, s in rows)
    print(f"{present} file(s) present and checked in {paths.data_dir()}, {len(corrupt)} corrupt, "
          f"{len(missing)} missing")
    for key in corrupt:
        print(f"  corrupt: {key} — `reproq data fetch {key.split('/')[0]}` replaces it", file=sys.stderr)
    if args.datasets and missing:
        print(f"  missing: {', '.join(missing)} — `reproq data fetch {' '.join(args.datasets)}` fetches them",
              file=sys.stderr)
        return 1
    return 1 if corrupt else 0


def _parse_param(text: str) -> tuple[str, object]:
    """``KEY=VALUE``; the value as JSON where it is JSON, a plain string otherwise, and ValueError where it
    starts like JSON (``[``, ``{``, a quote, a digit or ``-``) but does not parse."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"--param takes KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError as exc:
        if value[:1] in '[{"-' or value[:1].isdigit():
            raise ValueError(f"--param {key}: {value!r} is not valid JSON ({exc.msg} at character {exc.pos})") from None
        return key, value


def _where_outputs_go(profile: str, commit: bool) -> None:
    """One line when ``reproq run`` starts: where its notebooks write (the run folder, or the committed study), and
    that it is another checkout's when it starts outside the checkout it is installed from (an editable install)."""
    with runner.committing(commit):
        results_dir, figures_dir = paths.output_dirs(profile)
    elsewhere = (f" (this reproq is installed from {paths.ROOT}, not {Path.cwd()})"
                 if not Path.cwd().resolve().is_relative_to(paths.ROOT) else "")
    print(f"writing to {results_dir} and {figures_dir}{elsewhere}", flush=True)


NOT_REHEARSED = {"only": "--only", "param": "--param", "force": "--force", "retrain": "--retrain", "jobs": "--jobs",
                 "no_compare": "--no-compare", "time_limit": "--time-limit", "address": "--address",
                 "workers": "--workers"}  # what a notebook run reads and a rehearsal, which runs none, does not


def _check_run_options(args) -> None:
    """ValueError, one line, for options ``reproq run`` would accept and then not act on: a notebook run's options
    with ``--rehearse`` (which runs no notebook), ``--family`` without it, and ``--commit`` with a profile the
    committed study is not (it is the cpu profile's: a paper run's numbers would replace it)."""
    if args.rehearse:
        given = [flag for name, flag in NOT_REHEARSED.items() if getattr(args, name) not in (None, False, [])]
        given += ["--executor"] * (args.executor != "local")
        if given:
            raise ValueError(f"--rehearse runs no notebook, so {', '.join(given)} would do nothing: leave "
                             f"{'it' if len(given) == 1 else 'them'} out, or run without --rehearse")
    elif args.family:
        raise ValueError("--family chooses the model families --rehearse builds; add --rehearse, or leave it out to "
                         "run the notebooks")
    elif args.commit and args.profile != paths.COMMITTED_PROFILE:
        raise ValueError(f"--commit writes the committed results/ and figures/, which are the "
                         f"{paths.COMMITTED_PROFILE} profile's; a {args.profile} run writes "
                         f"{'build/smoke/' if args.profile == 'smoke' else f'build/runs/{args.profile}/'} "
                         "(leave --commit out)")


def _rehearse(args) -> int:
    """``reproq run --rehearse``: every shape of the profile built, stepped and evaluated once
    (:mod:`reproq.rehearsal`), and its plan written."""
    import torch

    from reproq import rehearsal

    torch.set_num_threads(runner.threads(args.threads))
    began = time.time()
    try:
        rows = rehearsal.rehearse(args.profile, families=args.family)
    except rehearsal.RehearsalFailed as exc:
        print(f"FAILED   {exc}", file=sys.stderr)
        return 1
    device = rehearsal.resolve_device("auto").type
    json_path, md_path = rehearsal.plan(args.profile, rows, device=device, seconds=time.time() - began,
                                        families=args.family or (), commit=args.commit)
    planned = json.loads(json_path.read_text())
    print(f"rehearsed {len(rows)} shapes of the {args.profile} profile in {time.time() - began:.0f} s: "
          f"{planned['runs']:,} runs, about {planned['hours']:,.0f} hours on this device ({planned['covers']}); "
          f"the plan: {md_path} (and {json_path.name})")
    return 0


def _run(args) -> int:
    _check_run_options(args)
    if args.rehearse:
        return _rehearse(args)
    covered = []
    try:
        parameters = dict(_parse_param(p) for p in args.param)
        _where_outputs_go(args.profile, args.commit)
        for outcome in runner.run(profile=args.profile, only=args.only, parameters=parameters,
                                  force=args.force, n_threads=args.threads, executor=args.executor,
                                  address=args.address, workers=args.workers, retrain=args.retrain,
                                  jobs=args.jobs, limit=args.time_limit, commit=args.commit):
            if outcome.status == "started":
                print(f"started  {outcome.notebook}  {outcome.message}", flush=True)
                continue
            # what the run folder holds of this run: a notebook run now, or one current there from a run before
            # (a `make reproduce` stopped and started again compares the whole study, not only what ran the 2nd time)
            covered += [outcome.notebook] * (outcome.status in ("ran", "skipped"))
            note = (f"{outcome.seconds:.0f} s" + (f"; run because {outcome.message}" if outcome.message else "")
                    if outcome.status == "ran" else outcome.message) + (f"; {outcome.notes}" if outcome.notes else "")
            print(f"{outcome.status:<8} {outcome.notebook}  ({note}) -> {outcome.executed}", flush=True)
    except runner.NotebookFailed as exc:
        print(f"FAILED   {exc}", file=sys.stderr)
        return 1
    if covered and args.profile != "smoke" and not args.commit and not args.no_compare:
        with runner.committing(False):  # the run folder, whatever REPROQ_WRITE_COMMITTED says outside the run
            _compare_with_the_study(args.profile, covered)
    elif covered:  # say why there is no comparison
        print("\nno comparison with the committed study: " + (
            "a smoke run's sizes are not the committed cpu profile's (`reproq run --only NN` runs and compares one "
            "notebook at the cpu profile)" if args.profile == "smoke" else
            "this run wrote the committed study itself (`git diff results/` shows what moved)" if args.commit else
            "--no-compare"))
    return 0


def _compare_with_the_study(profile: str, notebooks: list[str]) -> None:
    """Every record the run wrote beside the committed one (:mod:`reproq.report.rerun`): a line, a table per
    notebook, and the page."""
    from reproq.report import rerun  # pandas: only after a run

    pairs = rerun.compare(paths.committed_dirs()[0], paths.output_dirs(profile)[0], notebooks)
    print(f"\n{rerun.summary(pairs)}")
    print(rerun.counts(pairs).to_string(index=False, na_rep=""))
    if len(files := rerun.unwritten(pairs)):
        print("files this run did not write (one an opt-in parameter writes is named in its notebook):\n"
              + files.to_string(index=False))
    from reproq.machine import describe
    from reproq.results.records import code_version

    said = rerun.against(paths.committed_dirs()[0], notebooks, machine=describe("cpu"), commit=code_version())
    written = rerun.outputs(paths.committed_dirs(), paths.output_dirs(profile), notebooks)
    print("tables and figures: " + ", ".join(f"{n} {kind}" for kind, n in written["kind"].value_counts().items()))
    md, _ = rerun.page(pairs, paths.run_dir(profile), title=f"This {profile} run beside the committed study", said=said,
                       written=written)
    print(f"the comparison, record by record: {md} (and {md.with_suffix('.html').name})")


BENCHMARKS = {  # name -> module with main(out_path, *, profile) -> dict
    "encoders": "reproq.bench.encoders",  # Lei et al. encoders vs torch.nn.LSTM, questions/s
    "pretraining": "reproq.bench.pretraining",  # Lei et al. encoder-decoders with a full softmax, title words/s
    "answer-ranking": "reproq.bench.answer_ranking",  # Tay et al. Figure 3, seconds per epoch
    "full-collection": "reproq.bench.full_collection",  # dos Santos et al.: queries/s over 167K questions vs bm25s
    "threads": "reproq.bench.threads",  # a training step at each thread count, idle and beside a busy core
}


def _threads() -> int:
    import torch  # only the benchmarks need it; `reproq data` stays light

    return torch.get_num_threads()


def _bench(args) -> int:
    with runner.committing(args.commit):
        results_dir, _ = paths.output_dirs(args.profile)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:  # before the first benchmark, which runs for minutes
        raise ValueError(f"unknown benchmark {unknown[0]!r}; known: {', '.join(BENCHMARKS)}")
    for name in args.names or BENCHMARKS:
        out = results_dir / "bench" / f"{name}_{_threads()}thread.json"  # speed depends on the thread count
        with runner.allocator_environment():  # before the benchmark's first allocation
            result = importlib.import_module(BENCHMARKS[name]).main(out, profile=args.profile)
        print(f"{name}: numbers written to {out}")
        if result.get("load_warning"):
            print(f"WARNING ({name}): {result['load_warning']}", file=sys.stderr)
    return 0


def _gpu_check(args) -> int:
    from reproq.bench import gpu_check

    if args.out is not None and not args.out.strip():
        raise ValueError("--out needs a file name (e.g. --out gpu_check.json)")
    return gpu_check.main([] if args.out is None else [f"--out={args.out}"])  # a name may begin with "-"


def _scope(args) -> int:
    from reproq.report import scope  # pandas: only this command needs it

    table = scope.scope_table()
    tables = {"papers": scope.papers_markdown(table), "scope": scope.scope_markdown(table, scope.beyond_the_papers()),
              "cost": scope.cost_markdown(), "threads": scope.threads_markdown()}
    if not args.write:  # one screen; the tables (80 lines of Markdown) to a file
        page = atomic.write_text(paths.build_dir() / "scope.md", "\n\n".join(tables.values()) + "\n")
        print(scope.summary(table))
        print(f"the tables (papers, scope, cost, threads): {page} (`reproq scope --write` puts them in the README "
              "and docs/guide/)")
        return 0
    for block, markdown in tables.items():
        if updated := scope.update_block(markdown, block=block):
            print(f"updated the {block} table in {updated.relative_to(paths.ROOT)}")
        else:
            print(f"the {block} table is up to date")
    return 0


def _report(args) -> int:
    from filelock import FileLock, Timeout

    if not args.write:
        return _report_built(args)
    lock = paths.ROOT / ".report.lock"  # one writer of the committed pages and site at a time
    try:
        with FileLock(atomic.refuse_link(lock), timeout=0):
            return _report_built(args)
    except Timeout:
        raise ValueError("another `reproq report --write` is writing the committed pages and site of this checkout; "
                         "wait for it to finish, then run again") from None


def _report_built(args) -> int:
    from reproq import results
    from reproq.report import book, browser, pages, readings, scope, verdicts  # pandas: only this command needs them

    out = Path(args.out or paths.build_dir() / "report" / "cpu")
    built = verdicts.build()
    page = book.build(out, built)
    print(built.counts.to_string(index=False))
    print(f"report: {page}")
    if args.write:
        blocks = {"verdicts": verdicts.counts_markdown(built.counts, built.claims, built.rows),
                  "findings": readings.findings_markdown(built.results_dir)}
        for block, markdown in blocks.items():
            if updated := scope.update_block(markdown, block=block):
                print(f"updated the {block} in {updated.relative_to(paths.ROOT)}")
        # the notebooks' words first: the book is built from their kept executed copies
        for notebook in runner.notebooks():
            if readings.write(notebook, built.results_dir):
                print(f"reading cells rewritten: {notebook.relative_to(paths.ROOT)}")
            with runner.committing(True):  # the committed run's kept copy
                refreshed = runner.refresh_words(paths.COMMITTED_PROFILE, notebook)
            if refreshed is None:
                print(f"{notebook.stem}: its kept executed copy is missing or of other code; `reproq run --only "
                      f"{notebook.stem[:2]} --commit` makes it current")
            elif refreshed:
                print(f"words of its kept executed copy refreshed: {notebook.relative_to(paths.ROOT)}")
        with runner.committing(True):  # --write: the committed study's pages
            report_outputs = results.Outputs(notebook_schedule.report_notebook().stem, profile=paths.COMMITTED_PROFILE)
        for written in pages.write_report(built, report_outputs):
            print(f"written: {written.relative_to(paths.ROOT)}")
        print(f"the committed site: {book.publish(built, paths.ROOT / 'docs').relative_to(paths.ROOT)}")
        if browser.chromium() is None:
            print("no screenshot: Chromium is not installed (Debian: apt-get install chromium)", file=sys.stderr)
            return 1
        shot = browser.screenshot(page, paths.ROOT / "figures" / "report" / "report.png", out / ".scratch")
        print(f"screenshot: {shot}")
    return 0


def _machines(args) -> int:

    from reproq import results
    from reproq.report import machines  # pandas: only this command needs it

    other, here = Path(args.other), paths.committed_dirs()[0]
    if not other.is_dir():
        raise ValueError(f"{other} is not a folder: give the results/ folder of a run on the other machine")
    folders = [p.stem for p in runner.notebooks(args.only)] if args.only else \
        sorted(p.name for p in other.iterdir() if p.is_dir() and (here / p.name).is_dir())
    table = machines.spread(machines.compare(here, other, folders))
    if table.empty:
        raise ValueError(f"{other} and {here} share no record of {', '.join(folders) or 'any notebook'}")
    print(table.to_string(index=False))
    if args.write:
        sides = "; ".join(f"{f}: a = {machines.machine_of(here, f)}, b = {machines.machine_of(other, f)}"
                          for f in folders)
        # all notebooks: cross_machine; some (--only): a file of their own beside it, the others' rows kept
        name = "cross_machine" + "".join(f"__{f}" for f in folders) * bool(args.only)
        with runner.committing(True):  # --write: the comparison is the committed study's (results/machines/)
            out = results.Outputs("machines", profile="cpu")
        written = out.save_table(
            table, name, synthetic=False,
            caption=f"The same seeds and code on two machines: a = the committed results/, b = {other}. {sides}. "
                    "b - a per record both hold; a mean of several seeds beside the seeds' own sd (a's).")
        print(f"written: {written}")
    return 0


def _labs(args) -> int:

    from reproq.labs import course  # nbgrader: only this command needs it

    out = Path(args.out or paths.build_dir() / "labs")
    if args.autograde:
        lab, given = course.known(args.autograde[0]), Path(args.autograde[1])
        if args.student is not None and given.is_dir():
            raise ValueError(f"--student names the student of one notebook; in a folder each <student>/{lab}.ipynb "
                             "is graded as its folder's student")
        if args.student is not None and (Path(args.student).name != args.student or args.student in ("", ".", "..")):
            raise ValueError(f"--student {args.student!r} is not a plain id (no folders): the graded copy goes to "
                             "<course>/submitted/<id>/")
        if given.is_dir():
            found, skipped = course.submissions(lab, given)
            for line in skipped:
                print(line, file=sys.stderr)
        else:
            found, skipped = {args.student or given.stem: given}, []
        if given.is_dir() and not found:
            print(f"no <student>/{lab}.ipynb in {given}: nothing graded", file=sys.stderr)
            return 1
        for student, submission in found.items():
            try:
                grade = course.autograde(out, lab, submission, student=student)
            except course.NotASubmission as refused:
                print(refused, file=sys.stderr)
                skipped.append(str(refused))
                continue
            print(f"{student}, {lab}: {grade.score:g} of {grade.max_score:g} points")
            for check, message in grade.failures.items():
                print(f"  {check}: {message}")
        return 1 if skipped and not given.is_dir() else 0
    for lab, notebook in course.release(out, args.only or None).items():
        print(f"{lab}: student release {notebook}, instructor's source {out / 'source' / lab}")
    return 0


def _seconds(text: str) -> float:
    """``--time-limit``: a positive, finite number of seconds, or ``none`` (no limit)."""
    if text.strip().lower() == "none":
        return float("inf")
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0 (or 'none' for no limit)")
    return seconds


class _Help(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Each option's default shown once — not where its help says it already, nor a default of nothing (None, off, an
    empty list) — and the command table kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if "default" in (action.help or "") or action.default in (None, False, [], ()):
            return action.help or ""
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """A parser (and, being its class, each subcommand's) that formats its help with :class:`_Help`, and names the
    option a mistyped one was meant to be (``--versoin``: ``--version``) before anything else it finds wrong."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        known = {o for parser in _parsers(self) for action in parser._actions for o in action.option_strings}
        typed = [a.split("=")[0] for a in getattr(self, "argv", []) if a.startswith("--") and a != "--"]
        # a prefix of a known option is argparse's abbreviation (--thr: --threads), or ambiguous, which it says itself
        for unknown in (a for a in typed if not any(o.startswith(a) for o in known)):
            close = difflib.get_close_matches(unknown, sorted(known), n=1)
            message = f"unknown option {unknown}" + (f": did you mean {close[0]}?" if close else "")
            break
        super().error(message)


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every subcommand's parser below it."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [parser, *(p for s in subs for child in dict.fromkeys(s.choices.values()) for p in _parsers(child))]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("reproq")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="reproq", description="reproq: a reproduction study of neural question retrieval and answer "
                                                "ranking.\n\n" + __doc__.split("\n\n", 1)[1].replace("``", "`"))
    parser.add_argument("--version", action="version", version=f"reproq {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    data = commands.add_parser("data", help="fetch, inspect and verify the datasets")
    data_commands = data.add_subparsers(dest="data_command", required=True)
    for name, func, help_text in [("fetch", _data_fetch, "download and verify"),
                                  ("status", _data_status, "what is present, missing or corrupt"),
                                  ("verify", _data_verify, "re-hash what is present")]:
        sub = data_commands.add_parser(name, help=help_text)
        sub.add_argument("datasets", nargs="*", metavar="DATASET",
                         help=f"one of {', '.join(DATASETS)} (default: all)")
        if name == "fetch":
            sub.add_argument("--force", action="store_true", help="download again even if verified")
        sub.set_defaults(func=func)

    run = commands.add_parser("run", help="execute the notebooks headless with papermill")
    run.add_argument("--profile", choices=runner.PROFILES, default="cpu",
                     help="smoke: every code path in minutes (outputs under build/smoke/); cpu: the committed "
                          "results' profile; paper: the papers' sizes and grids")
    run.add_argument("--only", nargs="+", default=[], metavar="NOTEBOOK", help="e.g. 01 or 01_lexical_baselines")
    run.add_argument("--param", "-p", action="append", default=[], metavar="KEY=VALUE",
                     help="override a notebook parameter (JSON values), e.g. -p 'SEEDS=[1,2]'")
    run.add_argument("--force", action="store_true", help="run even if the inputs are unchanged (cached runs are reused)")
    run.add_argument("--retrain", action="store_true",
                     help="--force, and train every run again: checkpoints and run records cached before are not reused")
    run.add_argument("--threads", type=int, default=None, metavar="N",
                     help="torch threads per notebook (default: OMP_NUM_THREADS, else 1, as the committed results)")
    run.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                     help="notebooks side by side, each in its own process at --threads each (default: cores / "
                          "threads; 1 with --executor dask); the same records as one after another")
    run.add_argument("--commit", action="store_true",
                     help="for maintainers, at the cpu profile (the committed study's): write the committed "
                          "results/ and figures/ (and the notebooks' reading cells) instead of the run folder "
                          "build/runs/<profile>/")
    run.add_argument("--no-compare", action="store_true",
                     help="end without the comparison with the committed study (a side-by-side run's notebooks are "
                          "each run so: their runner compares them all once, at the end)")
    run.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                     help="the seconds a notebook may run before it is stopped, its kernel with it, in one line, or "
                          "'none' for no limit (default: three times its longest recorded run, at least ten minutes; "
                          "none for a notebook never timed, or given one of its own parameters)")
    run.add_argument("--executor", choices=runner.EXECUTORS, default="local",
                     help="where the grids' training runs execute: in the notebook, one after another (default), or "
                          "on a Dask cluster (same records, same order)")
    run.add_argument("--address", default=None, metavar="tcp://HOST:8786",
                     help="a running Dask scheduler (default with --executor dask: a local cluster)")
    run.add_argument("--workers", type=int, default=None, metavar="N",
                     help="worker processes of the local Dask cluster (default: cores / threads)")
    run.add_argument("--rehearse", action="store_true",
                     help="run no notebook: build each model family at the largest configuration of the profile's "
                          "grid, take one training step and one evaluation on real-size batches on this device, and "
                          "write a plan of the hours (build/rehearsal/<profile>/plan.md; with --commit, "
                          "results/machines/rehearsal/<profile>/); stops at the first failure")
    run.add_argument("--family", nargs="+", default=[], metavar="FAMILY",
                     help="with --rehearse: only these model families (question encoder, pre-training, domain "
                          "adaptation, full collection, SemEval-2016 3B, answer ranker)")
    run.set_defaults(func=_run)

    bench = commands.add_parser("bench", help="speed benchmarks, written to a file (never timed tests)")
    bench.add_argument("names", nargs="*", metavar="NAME", help=f"one of {', '.join(BENCHMARKS)} (default: all)")
    bench.add_argument("--profile", choices=runner.PROFILES, default="cpu")
    bench.add_argument("--commit", action="store_true",
                       help="for maintainers: write results/bench/ instead of the run folder build/runs/<profile>/")
    bench.set_defaults(func=_bench)

    gpu = commands.add_parser("gpu-check", help="every encoder trained a few steps on the GPU beside the CPU, and "
                                               "timed (results/machines/gpu_check.json); without a GPU, one line")
    gpu.add_argument("--out", default=None, metavar="FILE", help="where the numbers go")
    gpu.set_defaults(func=_gpu_check)
    scope_command = commands.add_parser("scope", help="every table and figure of the papers, and what covers it")
    scope_command.add_argument("--write", action="store_true", help="replace the generated tables in the README and docs/guide/")
    scope_command.set_defaults(func=_scope)

    report_command = commands.add_parser("report",
                                         help="the reproduction report: every table and figure, a verdict each")
    report_command.add_argument("--out", default=None, metavar="DIR",
                                help="where the book goes (default build/report/cpu)")
    report_command.add_argument("--write", action="store_true",
                                help="also the verdict counts and the findings into the README and docs/guide/, the book into docs/, the papers' pages into "
                                     "the report notebook's results folder and a screenshot into figures/report/")
    report_command.set_defaults(func=_report)

    machines_command = commands.add_parser("machines", help="how far the same seeds move on another machine: "
                                                             "another run's results/ against the committed one")
    machines_command.add_argument("other", metavar="OTHER_RESULTS", help="a results folder of the same notebooks")
    machines_command.add_argument("--only", nargs="+", default=[], metavar="NOTEBOOK", help="e.g. 04 06")
    machines_command.add_argument("--write", action="store_true",
                                  help="also write the table to results/machines/cross_machine.{csv,md} (with "
                                       "--only, cross_machine__<notebook>.{csv,md}, beside it)")
    machines_command.set_defaults(func=_machines)

    labs_command = commands.add_parser("labs", help="the course labs: nbgrader's student release, or autograding")
    labs_command.add_argument("--out", default=None, metavar="DIR", help="the course directory (default build/labs)")
    labs_command.add_argument("--only", nargs="+", default=[], metavar="LAB", help="e.g. lab1_metrics")
    labs_command.add_argument("--autograde", nargs=2, metavar=("LAB", "NOTEBOOK"),
                              help="grade a student's notebook of LAB in a course released before, or each "
                                   "<student>/LAB.ipynb of a folder (any other file is skipped, in one line)")
    labs_command.add_argument("--student", default=None,
                              help="the student's id for --autograde (default: the notebook's file name, alice.ipynb: "
                                   "alice)")
    labs_command.set_defaults(func=_labs)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):  # a bare `reproq`: what it can do, not an error
        parser.print_help()
        return 0
    for each in _parsers(parser):  # what _Parser.error reads a mistyped option from
        each.argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    main_thread = threading.current_thread() is threading.main_thread()  # only there can a handler be set
    terminate = signal.signal(signal.SIGTERM, _as_interrupt) if main_thread else None  # SIGTERM as Ctrl-C
    try:
        return args.func(args)
    except (DataError, ValueError) as exc:
        print(f"reproq: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a folder it cannot make or write (read-only, full, a loop of links): one line naming it
        fix = "free some space there" if exc.errno == errno.ENOSPC else "fix the path (or REPROQ_BUILD)"
        print(f"reproq: {f'{exc.filename}: ' if exc.filename else ''}{exc.strerror or exc}; {fix} and run again",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # every file is written atomically: what finished is whole, the rest was not written
        print("reproq: interrupted; finished notebooks and downloads are kept, run the same command to resume",
              file=sys.stderr)
        return 130
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, terminate)


def _as_interrupt(signum, frame) -> None:
    """SIGTERM (a ``kill``, or a ``--jobs`` parent that died: :func:`reproq.notebook_schedule._die_with`) as Ctrl-C."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
