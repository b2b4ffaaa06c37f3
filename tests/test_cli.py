"""The reproq command: one clear message and an exit code, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from reproq import cli, paths


def test_status_lists_every_file_with_its_state(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path))
    (tmp_path / "askubuntu").mkdir()
    (tmp_path / "askubuntu" / "dev.txt").write_text("not the real file\n")
    assert cli.main(["data", "status", "askubuntu"]) == 0
    out = capsys.readouterr().out
    assert "askubuntu/dev.txt" in out and "corrupt" in out and "askubuntu/test.txt" in out and "missing" in out


def test_verify_fails_on_a_corrupt_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path))
    (tmp_path / "askubuntu").mkdir()
    (tmp_path / "askubuntu" / "dev.txt").write_text("not the real file\n")
    assert cli.main(["data", "verify", "askubuntu"]) == 1
    assert "reproq data fetch askubuntu" in capsys.readouterr().err


def test_fetch_from_the_mirror_then_verify(tmp_path, monkeypatch, capsys, real_data):
    real_data("trecqa", "TrecQA/data/DEV.xml")  # the mirror is here (or the test is skipped / fails in CI)
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path))
    assert cli.main(["data", "fetch", "wikiqa"]) == 0
    assert cli.main(["data", "verify", "wikiqa"]) == 0
    assert "12 file(s) present and checked in" in (out := capsys.readouterr().out) and "0 corrupt, 0 missing" in out
    # TrecQA: every file the notebooks read (TRAIN-ALL is rebuilt from the jacana files, never downloaded)
    assert cli.main(["data", "fetch", "trecqa"]) == 0
    assert cli.main(["data", "verify", "trecqa"]) == 0


@pytest.mark.parametrize("argv, message", [
    (["data", "fetch", "nope"], "unknown dataset 'nope'"),
    (["labs", "--only", "lab9"], "no lab 'lab9'; the labs are: lab1_metrics"),
    (["labs", "--autograde", "lab1_metric", "alice.ipynb"], "no lab 'lab1_metric'"),
    (["labs", "--autograde", "lab1_metrics", "no-such.ipynb"], "no-such.ipynb: no such notebook to grade"),
    (["run", "--only", "99"], "no notebook matches 99"),
    (["bench", "nope"], "unknown benchmark 'nope'"),
    (["gpu-check", "--out="], "--out needs a file name"),
    (["run", "--only", "\u00b2"], "no notebook matches \u00b2"),  # a digit to str.isdigit, not to int()
    (["run", "--executor", "dask", "--address", "tcp://127.0.0.1:1", "--workers", "2"], "leave --workers out"),
    (["labs", "--autograde", "lab1_metrics", "alice.ipynb", "--student", "../x"], "'../x' is not a plain id"),
])
def test_bad_arguments_get_one_line_and_exit_2(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["run", "--only", "01", "--family", "answer ranker"], "--family chooses the model families --rehearse builds"),
    (["run", "--rehearse", "--only", "01", "-p", "SEEDS=[1]"], "so --only, --param would do nothing"),
    (["run", "--rehearse", "--executor", "dask"], "so --executor would do nothing"),
    (["run", "--profile", "paper", "--commit", "--only", "01"], "a paper run writes build/runs/paper/"),
    (["run", "--profile", "smoke", "--commit", "--only", "01"], "a smoke run writes build/smoke/"),
])
def test_run_options_it_would_not_act_on_are_refused_before_anything_runs(argv, message, monkeypatch, capsys):
    """`--family` without `--rehearse` started a full run of the notebooks; `--rehearse` ignored a notebook run's
    options; `--profile paper --commit` wrote paper-profile numbers over the committed cpu study."""
    def started(*args, **kwargs):
        raise AssertionError("it started")

    monkeypatch.setattr(cli.runner, "run", started)
    monkeypatch.setattr(cli, "_rehearse", started)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["data", "fetch", "wikiqa", "nope"], ["bench", "encoders", "nope"]])
def test_every_name_is_checked_before_any_work_starts(argv, monkeypatch, capsys):
    """`reproq data fetch wikiqa bogus` fetched all of WikiQA before it said 'bogus' was no dataset."""
    began = []
    monkeypatch.setattr(cli.sources, "fetch", lambda *a, **k: began.append(a) or iter(()))
    monkeypatch.setattr(cli.importlib, "import_module", lambda name: began.append(name))
    assert cli.main(argv) == 2 and "unknown" in capsys.readouterr().err
    assert began == []


def test_a_folder_is_graded_as_its_students_and_one_with_none_grades_nothing_in_one_line(tmp_path, capsys):
    assert cli.main(["labs", "--autograde", "lab1_metrics", str(tmp_path), "--student", "ada"]) == 2
    assert "in a folder each <student>/lab1_metrics.ipynb is graded as its folder's student" in capsys.readouterr().err
    assert cli.main(["labs", "--autograde", "lab1_metrics", str(tmp_path)]) == 1
    assert f"no <student>/lab1_metrics.ipynb in {tmp_path}: nothing graded" in capsys.readouterr().err


def test_a_run_compares_its_own_folder_whatever_the_environment_says_of_the_committed_one(monkeypatch, capsys):
    from reproq.runner import Outcome

    monkeypatch.setenv("REPROQ_WRITE_COMMITTED", "1")  # set by hand: the run itself writes its run folder
    monkeypatch.setattr(cli.runner, "run", lambda **options: iter([Outcome("01_lexical_baselines", "ran", 1.0,
                                                                           Path("01.ipynb"))]))
    compared = []
    monkeypatch.setattr(cli, "_compare_with_the_study",
                        lambda profile, notebooks: compared.append(paths.output_dirs(profile)[0]))
    assert cli.main(["run", "--only", "01"]) == 0
    assert compared == [paths.run_dir("cpu") / "results"] != [paths.committed_dirs()[0]]


def test_param_values_are_json_when_they_can_be():
    parser = cli.build_parser()
    args = parser.parse_args(["run", "-p", "SEEDS=[1,2]", "-p", "NAME=cnn"])
    assert dict(cli._parse_param(p) for p in args.param) == {"SEEDS": [1, 2], "NAME": "cnn"}


def offline(monkeypatch, tmp_path):
    """An empty data dir, an empty mirror and no network."""
    import urllib.error
    import urllib.request

    def refuse(*args, **kwargs):
        raise urllib.error.URLError("offline in tests")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("REPROQ_DATA_MIRROR", str(tmp_path / "empty-mirror"))


def test_fetch_that_gets_nothing_fails_and_says_each_cause_once(tmp_path, monkeypatch, capsys):
    offline(monkeypatch, tmp_path)
    assert cli.main(["data", "fetch", "wikiqa"]) == 1
    err = capsys.readouterr().err
    assert err.count("because:") == 1 and err.count("offline in tests") == 1  # 12 files, one cause
    assert "12 file(s) of wikiqa could not be fetched" in err and "only for the AskUbuntu and Android" in err


def test_fetch_of_everything_fetches_what_it_can_and_exits_0_with_a_line_per_dataset(tmp_path, monkeypatch, capsys):
    """Issue 44: `reproq data fetch` with no argument always exited 1 (YahooQA is never downloaded, by design), so
    `reproq data fetch && reproq run` never ran a notebook."""
    offline(monkeypatch, tmp_path)
    assert cli.main(["data", "fetch"]) == 0
    err = capsys.readouterr().err.splitlines()
    missing = [line for line in err if line.startswith("  missing")]
    assert len(missing) == len({line.split()[1] for line in missing}) >= 2  # one line per dataset
    assert any(line.startswith("  missing   yahooqa: data/env.pkl.zip — because: no pinned hash") for line in missing)


def test_verify_fails_when_the_data_folder_is_a_file_or_named_files_are_missing(tmp_path, monkeypatch, capsys):
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path / "a-file"))
    assert cli.main(["data", "verify"]) == 2
    assert "REPROQ_DATA points at" in capsys.readouterr().err
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path / "empty"))
    assert cli.main(["data", "verify", "wikiqa"]) == 1
    assert "missing: wikiqa/" in capsys.readouterr().err


@pytest.mark.parametrize("param, message", [
    ("PROFILE=cpu", "set the profile with --profile"),
    ("SEEDS=[1,2", "not valid JSON"),
    ("SEEDS=[]", "SEEDS must name at least one seed"),
    ("SEEDS=[1,1]", "SEEDS names seed 1 more than once"),
    ("NO_SUCH_KEY=1", "no selected notebook has a parameter 'NO_SUCH_KEY'"),
    ("SEEDS=1", "SEEDS must be a list of integer seeds such as [1, 2] (or null), got 1"),
    ("SEEDS=[1.5]", "SEEDS must be a list of integer seeds"),
    ("CORPUS_SOURCE=3", 'CORPUS_SOURCE must be a string (as 00_datasets\'s default "auto"), got 3'),
])
def test_run_parameters_are_checked_before_anything_runs(param, message, monkeypatch, capsys):
    monkeypatch.setattr(cli.runner, "run_notebook", lambda *a, **k: pytest.fail("a notebook ran"))
    assert cli.main(["run", "--profile", "smoke", "--only", "00", "-p", param]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(**kwargs):
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(cli.runner, "run", interrupted)
    assert cli.main(["run", "--profile", "smoke"]) == 130
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_build_folder_that_is_a_file_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "build").write_text("oops")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    assert cli.main(["run", "--profile", "smoke", "--only", "00"]) == 2
    assert "REPROQ_BUILD points at" in capsys.readouterr().err


@pytest.mark.parametrize("threads, environment, message", [
    ("0", None, "--threads must be 1 or more, got 0"),
    (None, "abc", "OMP_NUM_THREADS must be a whole number of 1 or more, got 'abc'"),
])
def test_a_bad_thread_count_is_one_line_naming_where_it_came_from(threads, environment, message, monkeypatch, capsys):
    monkeypatch.setattr(cli.runner, "run_notebook", lambda *a, **k: pytest.fail("a notebook ran"))
    if environment is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", environment)
    argv = ["run", "--profile", "smoke", "--only", "00"] + (["--threads", threads] if threads else [])
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_python_dash_m_reproq_is_the_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "reproq", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "reproq" in done.stdout and "run" in done.stdout


def test_retrain_is_passed_to_the_runner(monkeypatch):
    seen = {}
    monkeypatch.setattr(cli.runner, "run", lambda **options: seen.update(options) or iter(()))
    assert cli.main(["run", "--profile", "smoke", "--only", "00", "--retrain"]) == 0
    assert seen["retrain"] is True and seen["force"] is False  # --retrain implies --force inside the runner


def test_a_run_started_outside_the_checkout_says_where_its_outputs_go(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli.runner, "run", lambda **kwargs: iter(()))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "--profile", "smoke", "--only", "00"]) == 0
    assert f"installed from {paths.ROOT}" in capsys.readouterr().out
    monkeypatch.chdir(paths.ROOT)
    assert cli.main(["run", "--profile", "smoke", "--only", "00"]) == 0
    assert "installed from" not in capsys.readouterr().out


def test_a_bare_command_shows_the_command_table_and_the_version_is_there(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "reproq run [--profile cpu]" in out and "``" not in out and "exit 2" in out
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("reproq ")
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    assert "(default: cpu)" in capsys.readouterr().out  # every option's default is shown


def test_a_build_folder_that_is_a_loop_of_links_is_one_line(notebook_dir, tmp_path, monkeypatch, capsys):
    """Issue 42: a ``build`` that is a symbolic link to itself was a traceback."""
    import nbformat

    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), notebook_dir / "00_a.ipynb")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    monkeypatch.setenv("REPROQ_BUILD", str(loop))
    assert cli.main(["run", "--profile", "smoke", "--only", "00"]) == 2
    err = capsys.readouterr().err
    assert "is a loop of symbolic links" in err and str(loop) in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_folder_it_cannot_write_is_one_line_naming_it(monkeypatch, capsys):
    """A read-only or full folder (root ignores permissions, so the error is raised here as the system would)."""
    def refused(**kwargs):
        raise PermissionError(13, "Permission denied", "/checkout/build/runs/smoke")
        yield

    monkeypatch.setattr(cli.runner, "run", refused)
    assert cli.main(["run", "--profile", "smoke"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "reproq: /checkout/build/runs/smoke: Permission denied; fix the path (or REPROQ_BUILD) and " \
                          "run again"


@pytest.mark.parametrize("folder, how, said", [
    ("build", "read-only", "reproq: {build}/notebooks: Read-only file system; fix the path (or REPROQ_BUILD)"),
    ("results", "read-only", "reproq: {results}/00_ok: Read-only file system; fix the path (or REPROQ_BUILD)"),
    ("build", "full", "FAILED   00_ok.ipynb could not be run: OSError: [Errno 28] No space left on device"),
    ("results", "full", "reproq: {results}/00_ok/.committing.json: No space left on device; free some space there"),
], ids=["build read-only", "results read-only", "build full", "results full"])
def test_a_read_only_or_full_folder_met_by_a_real_run_is_one_line(folder, how, said, tmp_path):
    """Issue 55 (held since 6c072d8): a read-only results or build folder, and a full disk (ENOSPC), met by a real
    ``reproq run`` (the test above raises the error by hand), are one line and no traceback. Root ignores permissions:
    the folder is made read-only by a bind mount, or full by a filled 64 KiB tmpfs, in a mount namespace of the
    run's own."""
    import os
    import re
    import shlex
    import subprocess
    import sys

    from tests.test_runner import write_notebook

    if subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False).returncode:
        pytest.skip("no mount namespace to be had here (unshare -rm)")
    notebooks, repo, build = tmp_path / "notebooks", tmp_path / "repo", tmp_path / "build"
    for made in (notebooks, repo / "results", build):
        made.mkdir(parents=True)
    write_notebook(notebooks / "00_ok.ipynb", "x = 1")
    there = shlex.quote(str(build if folder == "build" else repo / "results"))
    confine = (f"mount --bind {there} {there} && mount -o remount,ro,bind {there}" if how == "read-only" else
               f"mount -t tmpfs -o size=64k tmpfs {there} && (dd if=/dev/zero of={there}/fill bs=4k 2>/dev/null; true)")
    script = ("import sys; from pathlib import Path; from reproq import cli, paths; "
              f"paths.NOTEBOOKS_DIR, paths.ROOT = Path({str(notebooks)!r}), Path({str(repo)!r}); "
              "sys.exit(cli.main(sys.argv[1:]))")
    argv = ["run", "--commit", "--only", "00"] if folder == "results" else ["run", "--profile", "smoke", "--only", "00"]
    done = subprocess.run(["unshare", "-rm", "sh", "-c", f'{confine} && exec "$@"', "sh", sys.executable, "-c", script,
                           *argv], cwd=paths.ROOT, env={**os.environ, "REPROQ_BUILD": str(build)}, capture_output=True,
                          text=True, timeout=120, check=False)
    shown = re.sub(r"Executing: [^\n]*?cell/s\]", "", done.stderr)  # papermill's progress bar is no line of reproq's
    lines = [line for line in shown.splitlines() if line.strip()]
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr and len(lines) == 1, done.stderr
    assert said.format(build=build, results=repo / "results") in lines[0], lines[0]


@pytest.mark.parametrize("argv, said", [(["--versoin"], "unknown option --versoin: did you mean --version?"),
                                        (["run", "--onyl", "04"], "unknown option --onyl: did you mean --only?"),
                                        # argparse's own word where it knows better: an ambiguous abbreviation, and
                                        # a wrong value after an abbreviation it took (--thr: --threads)
                                        (["run", "--re", "--only", "04"], "ambiguous option: --re could match"),
                                        (["run", "--thr", "2", "--jobs", "x"], "--jobs/-j: invalid int value: 'x'")])
def test_a_mistyped_option_is_named_with_the_one_meant(argv, said, capsys):
    """Issue 54: `reproq --versoin` said only that a command was required."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2 and said in capsys.readouterr().err


def test_a_notebook_is_chosen_by_its_number_without_the_zero():
    from reproq import runner

    assert runner.notebooks(["4"]) == runner.notebooks(["04"]) and runner.notebooks(["4"])[0].stem == "04_trecqa_ctrn"


def test_the_help_says_each_default_once_and_no_default_of_nothing():
    """Issue 54: "(default: all) (default: None)"."""
    formatter = cli._Help("reproq")
    actions = [a for parser in cli._parsers(cli.build_parser()) for a in parser._actions if a.help]
    helps = [formatter._get_help_string(a) % {"default": a.default, "prog": "reproq"} for a in actions]
    assert len(helps) > 40
    assert [h for h in helps if h.count("(default") > 1] == []
    assert [h for h in helps if any(f"(default: {nothing})" in h for nothing in ("None", "False", "[]"))] == []


def test_scope_prints_one_screen_and_writes_the_tables_to_a_file(tmp_path, monkeypatch, capsys):
    """Issue 54: `reproq scope` printed 80 lines of raw Markdown."""
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path))
    assert cli.main(["scope"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) <= 12 and not any(line.startswith("|") for line in lines), lines
    assert lines[0].startswith("lei2016: ") and "synthetic stand-in only" in lines[0]
    written = (tmp_path / "scope.md").read_text()
    assert str(tmp_path / "scope.md") in lines[-1] and written.count("\n|") > 40


@pytest.mark.parametrize("given", ["-5", "0", "nan", "inf", "ten"])
def test_a_time_limit_is_a_positive_number_of_seconds_or_none(given, capsys, monkeypatch):
    """Issue 55: --time-limit -5 ran and said "stopped at its time limit of -5 s"; nan, inf and 0 meant no limit."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(["run", "--time-limit", given])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "is not a number of seconds above 0" in err.strip().splitlines()[-1]
    given_limits = []
    monkeypatch.setattr(cli.runner, "run", lambda **options: given_limits.append(options["limit"]) or iter(()))
    assert cli.main(["run", "--time-limit", "none", "--no-compare"]) == 0
    assert cli.main(["run", "--time-limit", "90", "--no-compare"]) == 0
    assert given_limits == [float("inf"), 90.0]


def test_two_report_writes_at_once_are_refused_in_one_line(capsys):
    """Issue 55: two `reproq report --write` at once shared a scratch folder; one exited 2 with the wrong advice."""
    from filelock import FileLock

    from reproq import paths

    with FileLock(paths.ROOT / ".report.lock"):
        assert cli.main(["report", "--write"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "another `reproq report --write` is writing" in line and "wait for it to finish" in line


@pytest.mark.parametrize("reader", ["the comparison a run ends with", "reproq report", "reproq machines",
                                    "reproq scope"])
def test_a_fifo_in_a_results_folder_hangs_no_reader_and_is_one_line(reader, tmp_path, monkeypatch, capsys):
    """Issue 55 (b12489a, Why 2): a FIFO named x.jsonl in a results folder hung the comparison a run ends with,
    `reproq report` and `reproq machines` (tests/test_runner.py holds the reader they share), and `reproq scope` too
    (it read the records itself); each is one line naming
    it, at once. A reader that opens it all the same is let go after 10 s (a writer opens and closes it), so that a
    hang fails the test instead of hanging it."""
    import contextlib
    import os
    import shutil
    import threading
    import time

    from reproq.report import book, machines, rerun, verdicts  # noqa: F401  (imported before the clock starts)

    committed = paths.ROOT / "results" / "04_trecqa_ctrn" / "tay2018_table6.jsonl"
    monkeypatch.setattr(paths, "ROOT", tmp_path / "repo")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    folders = {"reproq report": paths.committed_dirs()[0], "reproq scope": paths.committed_dirs()[0],
               "reproq machines": tmp_path / "other",
               "the comparison a run ends with": paths.output_dirs("cpu")[0]}
    for results in set(folders.values()):
        (results / committed.parent.name).mkdir(parents=True)
        shutil.copy(committed, results / committed.parent.name)
    fifo = folders[reader] / committed.parent.name / "x.jsonl"
    os.mkfifo(fifo)
    ran = cli.runner.Outcome(committed.parent.name, "ran", 1.0, tmp_path / "x.ipynb")
    monkeypatch.setattr(cli.runner, "run", lambda **options: iter([ran]))
    argv = {"reproq report": ["report"], "reproq scope": ["scope"], "the comparison a run ends with": ["run"],
            "reproq machines": ["machines", str(tmp_path / "other")]}[reader]
    done = threading.Event()

    def let_go():
        done.wait(10)
        while not done.is_set():
            with contextlib.suppress(OSError):  # ENXIO: no reader has it open
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            done.wait(0.2)

    threading.Thread(target=let_go, daemon=True).start()
    start = time.monotonic()
    try:
        code = cli.main(argv)
    finally:
        took = time.monotonic() - start
        done.set()
    err = capsys.readouterr().err
    assert code == 2 and took < 10, (code, took, err)  # a hang: a code past 10 s, whatever the reader made of nothing
    (line,) = err.strip().splitlines()
    assert line == f"reproq: {fifo} is not a regular file (a folder, a FIFO or a device); reproq reads only files: " \
                   "remove it and run again"
