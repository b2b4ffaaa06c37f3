"""The notebook runner: order, resume, and failures that name the notebook and the cell."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from reproq import notebook_schedule, paths, runner


def write_notebook(path, *cells, parameters='PROFILE = "cpu"  # smoke | cpu | paper\nVALUE = 1'):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_notebooks_are_ordered_and_selectable(notebook_dir):
    for name in ["01_b", "00_a", "10_c", "scratch"]:
        write_notebook(notebook_dir / f"{name}.ipynb", "pass")
    assert [p.stem for p in runner.notebooks()] == ["00_a", "01_b", "10_c"]
    assert [p.stem for p in runner.notebooks(["01"])] == ["01_b"]
    with pytest.raises(ValueError, match="no notebook matches 99"):
        runner.notebooks(["99"])


def test_run_skips_unchanged_inputs_and_reruns_on_change(notebook_dir, tmp_path):
    write_notebook(notebook_dir / "00_ok.ipynb", "open('out.txt', 'a').write(f'{PROFILE} {VALUE}\\n')")
    first = list(runner.run(profile="smoke", progress=False))
    assert [o.status for o in first] == ["ran"] and first[0].executed.is_file()
    assert first[0].executed.is_relative_to(tmp_path / "build")
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["skipped"]
    assert [o.status for o in runner.run(profile="smoke", parameters={"VALUE": 2}, progress=False)] == ["ran"]
    assert [o.status for o in runner.run(profile="smoke", parameters={"VALUE": 2}, force=True,
                                         progress=False)] == ["ran"]
    assert (notebook_dir / "out.txt").read_text().splitlines() == ["smoke 1", "smoke 2", "smoke 2"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_notebook_is_given_only_its_own_parameters_and_is_not_rerun_for_anothers(notebook_dir, jobs):
    write_notebook(notebook_dir / "00_ok.ipynb", "open('out_00.txt', 'a').write(f'{sorted(dir())}\\n')")
    write_notebook(notebook_dir / "01_other.ipynb", "open('out_01.txt', 'a').write(f'{OTHER}\\n')",
                   parameters='PROFILE = "cpu"\nOTHER = 1')
    list(runner.run(profile="smoke", progress=False, jobs=jobs))
    outcomes = list(runner.run(profile="smoke", progress=False, jobs=jobs, parameters={"OTHER": 2}))
    assert {o.notebook: o.status for o in outcomes} == {"00_ok": "skipped", "01_other": "ran"}
    assert (notebook_dir / "out_01.txt").read_text().splitlines() == ["1", "2"]
    assert "OTHER" not in (notebook_dir / "out_00.txt").read_text()


def test_relative_data_and_build_folders_are_the_same_folders_to_the_kernels(notebook_dir, tmp_path, monkeypatch):
    """A kernel runs in notebooks/: a relative REPROQ_BUILD read there was another folder (its records went to
    notebooks/relbuild/ and its stamp listed none)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REPROQ_BUILD", "relbuild")
    monkeypatch.setenv("REPROQ_DATA", "mydata")
    monkeypatch.setenv("REPROQ_DATA_MIRROR", "mirror")
    write_notebook(notebook_dir / "00_where.ipynb",
                   "import json, os\n"
                   "from reproq import paths\n"
                   "json.dump({v: os.environ[v] for v in ('REPROQ_BUILD', 'REPROQ_DATA', 'REPROQ_DATA_MIRROR')} | "
                   "{'results': str(paths.output_dirs('smoke')[0])}, open('where.json', 'w'))")
    list(runner.run(profile="smoke", progress=False))
    seen = json.loads((notebook_dir / "where.json").read_text())
    assert seen == {"REPROQ_BUILD": str(tmp_path / "relbuild"), "REPROQ_DATA": str(tmp_path / "mydata"),
                    "REPROQ_DATA_MIRROR": str(tmp_path / "mirror"),
                    "results": str(tmp_path / "relbuild" / "smoke" / "results")}
    assert os.environ["REPROQ_BUILD"] == "relbuild"  # restored after the batch
    monkeypatch.setenv("REPROQ_DATA_MIRROR", "https://example.org/mirror")  # an address stays as it is
    list(runner.run(profile="smoke", progress=False, force=True))
    assert json.loads((notebook_dir / "where.json").read_text())["REPROQ_DATA_MIRROR"] == "https://example.org/mirror"


def test_a_run_of_every_notebook_records_its_wall_time_by_jobs_and_a_partial_run_does_not(notebook_dir):
    for name in ("00_a", "01_b"):
        write_notebook(notebook_dir / f"{name}.ipynb", "x = 1")
    walls = paths.output_dirs("smoke")[0] / "pipeline_wall.json"
    list(runner.run(profile="smoke", progress=False, jobs=1))
    list(runner.run(profile="smoke", progress=False, jobs=2, force=True))
    recorded = json.loads(walls.read_text())
    assert sorted(recorded) == ["jobs=1", "jobs=2"] and recorded["jobs=2"]["notebooks"] == 2
    assert all(w["seconds"] > 0 and w["threads"] == 1 and w["code_version"] for w in recorded.values())
    assert 0 < recorded["jobs=1"]["notebook_seconds"] <= recorded["jobs=1"]["seconds"]  # one after another: the sum
    list(runner.run(profile="smoke", only=["00"], progress=False, jobs=1, force=True))  # one notebook: not the whole
    list(runner.run(profile="smoke", progress=False, jobs=1))  # both skipped: nothing ran
    assert json.loads(walls.read_text()) == recorded


def test_a_finished_run_keeps_its_executed_copy_beside_its_records_and_a_failed_one_does_not(notebook_dir):
    write_notebook(notebook_dir / "00_ok.ipynb", "print(f'ran with {VALUE}')")
    write_notebook(notebook_dir / "01_bad.ipynb", "raise RuntimeError('broken')")
    (outcome,) = runner.run(profile="smoke", only=["00"], progress=False)
    kept = runner.kept_copy("smoke", notebook_dir / "00_ok.ipynb")
    assert kept == paths.output_dirs("smoke")[0] / "00_ok" / "00_ok.ipynb"
    # the same notebook, but for the folder it ran in (papermill's metadata names it), here outside the checkout
    # (and the temporary folder, where pytest's own folders are: the notebook's input path)
    expected = outcome.executed.read_text().replace(f"{paths.build_dir()}/", "$REPROQ_BUILD/")
    assert kept.read_text() == expected.replace(f"{tempfile.gettempdir()}/", "$TMPDIR/")
    assert "ran with 1" in kept.read_text() and str(paths.build_dir()) not in kept.read_text()
    write_notebook(notebook_dir / "00_ok.ipynb", "from reproq import paths; print(paths.ROOT / 'figures' / 'f.png'); "
                                                 "print(f'/elsewhere{paths.ROOT}/g.png')")
    list(runner.run(profile="smoke", only=["00"], progress=False))
    assert str(paths.ROOT) in outcome.executed.read_text()  # the run's own copy names the checkout
    text = kept.read_text()
    assert "figures/f.png" in text and str(paths.ROOT) + "/figures" not in text  # the kept one does not
    assert f"/elsewhere{paths.ROOT}/g.png" in text  # another folder that ends with the checkout's path is left alone
    with pytest.raises(runner.NotebookFailed):
        list(runner.run(profile="smoke", only=["01"], progress=False))
    assert not runner.kept_copy("smoke", notebook_dir / "01_bad.ipynb").exists()


def test_the_kept_copy_shows_a_progress_bar_as_the_line_it_ended_as_and_names_no_folder_of_this_machine(
        notebook_dir, tmp_path, monkeypatch):
    """Issue 44: notebook 04's executed copy held 564 chunks of one progress bar's redraws, and 06's a warning with
    the run's absolute data mirror."""
    mirror = tmp_path / "mirror"
    monkeypatch.setenv("REPROQ_DATA_MIRROR", str(mirror))
    write_notebook(notebook_dir / "00_bars.ipynb", "import sys, time\nfrom tqdm import tqdm\n"
                   "for epoch in tqdm(range(30), desc='QRNN seed 1', mininterval=0, file=sys.stderr):\n"
                   "    sys.stderr.flush(); time.sleep(0.01)\n"
                   "print('second bar ends')\n"
                   "for step in tqdm(range(5), desc='CTRN seed 1', mininterval=0, file=sys.stderr): pass\n"
                   "import os, warnings; warnings.warn('tried ' + os.environ['REPROQ_DATA_MIRROR'] + '/semeval2016/x.xml')")
    (outcome,) = runner.run(profile="smoke", only=["00"], progress=False)
    def outputs(path):
        return next(c.outputs for c in nbformat.read(path, as_version=4).cells if "tqdm" in c.source)

    executed = outputs(outcome.executed)
    assert sum(o.get("name") == "stderr" for o in executed) > 10  # the run's own copy: a chunk per redraw
    kept = outputs(runner.kept_copy("smoke", notebook_dir / "00_bars.ipynb"))
    stderr = [line for o in kept if o.get("name") == "stderr" for line in o.text.splitlines()]
    bars = [line for line in stderr if "seed 1" in line]
    assert len(bars) == 2 and "30/30" in bars[0] and "5/5" in bars[1] and "\r" not in "".join(stderr)
    assert [o.text for o in kept if o.get("name") == "stdout"] == ["second bar ends\n"]  # stdout its own, between
    assert "$REPROQ_DATA_MIRROR/semeval2016/x.xml" in "".join(stderr) and str(mirror) not in "".join(stderr)


def test_each_notebook_starts_with_its_place_its_last_time_and_the_time_left(notebook_dir):
    for name in ("00_a", "01_b", "02_c"):
        write_notebook(notebook_dir / f"{name}.ipynb", "x = 1")
    cost = paths.output_dirs("smoke")[0] / "pipeline_cost.json"
    cost.parent.mkdir(parents=True, exist_ok=True)
    cost.write_text(json.dumps({"00_a": {"seconds": 60}, "02_c": {"seconds": 120}}))
    started = [o.message for o in runner.run(profile="smoke", only=["00", "01", "02"]) if o.status == "started"]
    assert started == ["[1/3] last time 1.0 min; about 3.0 min left and 1 never timed",
                       "[2/3] no time recorded; about 2.0 min left and 1 never timed",
                       "[3/3] last time 2.0 min; about 2.0 min left"]


def test_failure_names_notebook_and_cell_and_keeps_earlier_results(notebook_dir):
    write_notebook(notebook_dir / "00_fine.ipynb", "x = 1")
    write_notebook(notebook_dir / "01_broken.ipynb", "y = 2", "raise RuntimeError('boom')")
    write_notebook(notebook_dir / "02_never.ipynb", "z = 3")
    outcomes = []
    with pytest.raises(runner.NotebookFailed, match=r"01_broken.ipynb failed in the cell starting `raise RuntimeError\('boom'\)` "
                       r"\(execution count 4\) with RuntimeError: boom"):
        for outcome in runner.run(profile="smoke", progress=False):
            outcomes.append(outcome)
    assert [o.notebook for o in outcomes] == ["00_fine"]
    # the finished notebook is not run again when the batch resumes
    with pytest.raises(runner.NotebookFailed):
        list(runner.run(profile="smoke", progress=False))
    assert runner._stamp("smoke", notebook_dir / "00_fine.ipynb").is_file()
    assert not runner._stamp("smoke", notebook_dir / "01_broken.ipynb").is_file()
    assert next(runner.run(profile="smoke", progress=False)).status == "skipped"


def test_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="profile must be one of"):
        list(runner.run(profile="gpu"))


def test_a_torn_stamp_is_dropped_with_a_warning_and_the_notebook_runs(notebook_dir):
    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1")
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    stamp = runner._stamp("smoke", notebook_dir / "00_ok.ipynb")
    stamp.write_text('{"fingerprint": "abc')  # a kill in the middle of a write
    with pytest.warns(UserWarning, match=r"00_ok.json: unreadable"):
        assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["skipped"]


def test_a_notebook_whose_outputs_are_gone_or_torn_runs_again(notebook_dir, tmp_path):
    write_notebook(notebook_dir / "00_writes.ipynb",
                   "from reproq.results import Outputs, Record\n"
                   "Outputs('00_writes', profile=PROFILE).save_records([Record('p', 't', 'd', 's', 'm', '-', 'MAP', 0.5)], 'r')")
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    records = paths.output_dirs("smoke")[0] / "00_writes" / "r.jsonl"
    assert records.is_file() and [o.status for o in runner.run(profile="smoke", progress=False)] == ["skipped"]
    records.write_text('{"paper": "p", "tab')  # torn
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    records.unlink()
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]


def test_the_fingerprint_depends_on_the_thread_count(notebook_dir, monkeypatch):
    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    one = runner.fingerprint(notebook_dir / "00_ok.ipynb", {})
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert runner.fingerprint(notebook_dir / "00_ok.ipynb", {}) != one


def test_a_run_records_its_cost(notebook_dir, tmp_path):
    write_notebook(notebook_dir / "00_memory.ipynb", "block = bytearray(300 * 2**20)  # 300 MB held a moment",
                   "import time; time.sleep(1.5)")
    list(runner.run(profile="smoke", progress=False))
    cost = json.loads((paths.output_dirs("smoke")[0] / "pipeline_cost.json").read_text())["00_memory"]
    assert cost["seconds"] > 1.5 and cost["peak_memory_mb"] > 300 and cost["threads"] >= 1
    assert {"cpu", "cores", "load_average_before", "load_average_after", "code_version", "finished",
            "peak_memory_read"} <= set(cost)


def test_notebooks_get_one_thread_unless_asked(notebook_dir, monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    write_notebook(notebook_dir / "00_threads.ipynb",
                   "import os; open('threads.txt', 'a').write(os.environ['OMP_NUM_THREADS'] + '\\n')")
    list(runner.run(profile="smoke", progress=False))
    list(runner.run(profile="smoke", progress=False, n_threads=2))  # another count: another fingerprint, a rerun
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    list(runner.run(profile="smoke", progress=False))
    assert (notebook_dir / "threads.txt").read_text().splitlines() == ["1", "2", "3"]
    assert os.environ["OMP_NUM_THREADS"] == "3"  # restored after the batch
    cost = json.loads((paths.output_dirs("smoke")[0] / "pipeline_cost.json").read_text())["00_threads"]
    assert cost["threads"] == 3
    with pytest.raises(ValueError, match="threads must be"):
        runner.threads(-1)


def test_the_kernels_learn_the_executor_from_the_runner(notebook_dir, monkeypatch):
    for variable in ("REPROQ_EXECUTOR", "REPROQ_DASK_ADDRESS", "REPROQ_WORKERS"):
        monkeypatch.delenv(variable, raising=False)
    write_notebook(notebook_dir / "00_executor.ipynb",
                   "from reproq.train.executors import from_environment\n"
                   "executor = from_environment()\n"
                   "open('executor.txt', 'a').write(f'{executor.name} {getattr(executor, \"workers\", None)}\\n')")
    list(runner.run(profile="smoke", progress=False))
    list(runner.run(profile="smoke", progress=False, executor="dask", workers=3, force=True))
    assert (notebook_dir / "executor.txt").read_text().splitlines() == ["local None", "dask 3"]
    assert "REPROQ_EXECUTOR" not in os.environ  # restored after the batch
    cost = json.loads((paths.output_dirs("smoke")[0] / "pipeline_cost.json").read_text())["00_executor"]
    assert cost["executor"] == "dask"
    with pytest.raises(ValueError, match="for the dask executor"):
        list(runner.run(profile="smoke", progress=False, workers=2))
    with pytest.raises(ValueError, match="unknown executor 'ray'"):
        list(runner.run(profile="smoke", progress=False, executor="ray"))


def test_recording_a_cost_needs_no_torch():
    """The runner's parent process names the CPU and the code version for each cost record without importing torch
    (a second copy of it beside every notebook's kernel)."""
    code = ("import sys; from reproq import runner; from reproq.machine import cpu_name; "
            "from reproq.results import code_version; cpu_name(); code_version(); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=paths.ROOT)
    assert out.stdout.strip() == "False"


def test_retrain_reaches_the_kernels_and_forces_the_run(notebook_dir, monkeypatch):
    monkeypatch.delenv("REPROQ_RETRAIN_BATCH", raising=False)
    write_notebook(notebook_dir / "00_retrain.ipynb",
                   "import os; open('retrain.txt', 'a').write(os.environ.get('REPROQ_RETRAIN_BATCH', '-') + '\\n')")
    list(runner.run(profile="smoke", progress=False))
    list(runner.run(profile="smoke", progress=False))  # unchanged inputs: skipped
    list(runner.run(profile="smoke", progress=False, retrain=True))  # runs again, told to retrain
    list(runner.run(profile="smoke", progress=False, retrain=True))  # another retraining batch: another id
    lines = (notebook_dir / "retrain.txt").read_text().splitlines()
    assert lines[0] == "-" and len(lines) == 3 and len(set(lines)) == 3 and all(len(b) == 32 for b in lines[1:])
    assert "REPROQ_RETRAIN_BATCH" not in os.environ  # restored after the batch


def test_a_killed_kernel_is_one_line_naming_the_notebook_and_memory(notebook_dir):
    write_notebook(notebook_dir / "00_killed.ipynb", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    with pytest.raises(runner.NotebookFailed, match=r"00_killed.ipynb: its kernel died \(killed from outside, or out "
                                                   r"of memory: it had reached [\d,]+ MB of this machine's"):
        list(runner.run(profile="smoke", progress=False))


def test_a_running_copy_is_named_so_until_the_run_ends(notebook_dir):
    """A run killed outright (SIGKILL of the runner) leaves <name>.running.ipynb, never a half-run copy under the
    finished name: while a notebook runs, only its .running copy is there (an earlier run's finished copy is gone)."""
    write_notebook(notebook_dir / "00_seen.ipynb", "import os, pathlib",
                   "folder = pathlib.Path(os.environ['REPROQ_BUILD']) / 'notebooks' / 'smoke'",
                   "open('seen.txt', 'a').write(' '.join(sorted(p.name for p in folder.iterdir())) + '\\n')")
    for _ in range(2):
        [outcome] = runner.run(profile="smoke", force=True, progress=False)
        assert sorted(p.name for p in outcome.executed.parent.iterdir()) == ["00_seen.ipynb"]
    assert (notebook_dir / "seen.txt").read_text().splitlines() == ["00_seen.running.ipynb"] * 2


def test_a_folder_that_refuses_the_cost_record_does_not_fail_a_finished_notebook(notebook_dir, monkeypatch, capsys):
    write_notebook(notebook_dir / "00_fine.ipynb", "x = 1")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", "pipeline_cost.json")

    monkeypatch.setattr(runner, "record_cost", refuse)
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    err = capsys.readouterr().err
    assert "the notebook ran, but refuse could not write (PermissionError" in err and "Traceback" not in err
    assert "the next run runs it again" in err


@pytest.mark.parametrize("refused", ["_keep", "record_cost"])
def test_a_notebook_whose_kept_copy_or_cost_could_not_be_written_runs_again_as_the_line_says(
        notebook_dir, monkeypatch, capsys, refused):
    """Issue 42: disk full while writing the kept copy said "it will run again next time", and the next run said
    "skipped", the kept copy the previous run's beside the new records."""
    write_notebook(notebook_dir / "00_fine.ipynb", "x = 1")
    written = getattr(runner, refused)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device", "results/00_fine/00_fine.ipynb")

    monkeypatch.setattr(runner, refused, full)
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    assert "the next run runs it again" in capsys.readouterr().err
    monkeypatch.setattr(runner, refused, written)  # the disk has room again
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]  # as said, not "skipped"
    assert runner.kept_copy("smoke", notebook_dir / "00_fine.ipynb").is_file()
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["skipped"]


def test_a_second_run_of_the_same_notebook_says_who_runs_it(notebook_dir):
    write_notebook(notebook_dir / "00_busy.ipynb", "x = 1")
    lock, pid = runner.admission("smoke", notebook_dir / "00_busy.ipynb")
    lock.parent.mkdir(parents=True, exist_ok=True)
    pid.write_text("424242")
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from filelock import FileLock; "
                               f"l = FileLock({str(lock)!r}); l.acquire(); print('held', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(runner.NotebookFailed, match=r"00_busy.ipynb is already running \(pid 424242, profile smoke\)"):
            list(runner.run(profile="smoke", progress=False))
    finally:
        holder.kill()
        holder.wait()
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]  # its holder gone: runs


def test_processes_updating_one_settings_file_keep_every_entry(tmp_path):
    script = ("import sys; from reproq.results import Outputs; from reproq import paths\n"
              "out = Outputs('00_race', profile='smoke')\n"
              "for i in range(60):\n"
              "    out.save_markdown('x', f'{sys.argv[1]}_{i}')\n")
    env = {**os.environ, "REPROQ_BUILD": str(tmp_path / "build")}
    writers = [subprocess.Popen([sys.executable, "-c", script, name], env=env) for name in ("a", "b")]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    settings = json.loads((tmp_path / "build" / "smoke" / "results" / "00_race" / "settings.json").read_text())
    assert len(settings) == 120


def test_processes_recording_costs_keep_every_entry(tmp_path):
    """pipeline_cost.json is read, changed and written by each notebook's runner: two runners side by side, 300
    entries each, keep all 600 (and the 2 already there)."""
    env = {**os.environ, "REPROQ_BUILD": str(tmp_path / "build")}
    cost = tmp_path / "build" / "smoke" / "results" / "pipeline_cost.json"
    cost.parent.mkdir(parents=True)
    cost.write_text(json.dumps({"earlier_1": {}, "earlier_2": {}}))
    script = ("import sys; from reproq import runner\n"
              "for i in range(300):\n"
              "    runner.record_cost('smoke', f'{sys.argv[1]}_{i}', {'seconds': i})\n")
    writers = [subprocess.Popen([sys.executable, "-c", script, name], env=env) for name in ("a", "b")]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    assert len(json.loads(cost.read_text())) == 602


def test_ctrl_c_stops_a_running_notebook_with_one_line_and_its_kernel_gone(notebook_dir, tmp_path):
    import signal
    import time

    import psutil

    write_notebook(notebook_dir / "00_long.ipynb", "open('started', 'w').close()\nimport time\ntime.sleep(120)")
    script = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler)\n"  # as in a terminal
              "from pathlib import Path; from reproq import cli, paths\n"
              f"paths.NOTEBOOKS_DIR = Path({str(notebook_dir)!r})\n"
              "sys.exit(cli.main(['run', '--profile', 'smoke']))\n")
    runner = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "REPROQ_BUILD": str(tmp_path / "build")})
    deadline = time.time() + 120
    while not (notebook_dir / "started").exists() and time.time() < deadline:
        time.sleep(0.2)
    kernels = psutil.Process(runner.pid).children(recursive=True)
    runner.send_signal(signal.SIGINT)
    assert runner.wait(timeout=30) == 130
    err = runner.stderr.read()
    assert "reproq: interrupted" in err and "Traceback" not in err
    assert kernels and not any(k.is_running() and k.status() != psutil.STATUS_ZOMBIE for k in kernels)


def test_a_run_prints_no_kernel_transport_warning_and_leaves_no_socket(notebook_dir, capfd, monkeypatch):
    import tempfile

    # a temporary folder of this test's own (short: a socket's path has a length limit), so that the kernels of
    # another suite or notebook run on the same machine are not counted
    scratch = Path(tempfile.mkdtemp(prefix="rk", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    write_notebook(notebook_dir / "00_quiet.ipynb", "x = 1")
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    assert "without encryption" not in capfd.readouterr().err
    assert list(scratch.glob("reproq-kernel-*")) == []
    monkeypatch.undo()  # the temporary folder the capture and pytest use again, before this one goes
    shutil.rmtree(scratch)


def _plant(link: Path, victim: Path) -> None:
    """A symbolic link at ``link`` to ``victim``, a file outside the checkout that nothing may write."""
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim)


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "outside" / "victim.txt"
    path.parent.mkdir()
    path.write_text("untouched\n")
    return path


def test_no_write_of_a_run_follows_a_link_planted_in_build(notebook_dir, victim):
    """Issue 42: the pid file, the running copy and a scratch file are written beside links planted at their names
    to a file outside the checkout, which stays as it was; the links are replaced, never written through."""
    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1")
    nb = notebook_dir / "00_ok.ipynb"
    stamp, executed = runner._stamp("smoke", nb), runner.executed_copy("smoke", nb)
    planted = [runner.admission("smoke", nb)[1], executed.with_name(f"{executed.stem}.running.ipynb"),
               stamp.with_name(f".{stamp.name}.{os.getpid()}.tmp")]
    for link in planted:
        _plant(link, victim)
    assert [o.status for o in runner.run(profile="smoke", progress=False)] == ["ran"]
    assert victim.read_text() == "untouched\n"
    assert not any(p.is_symlink() for p in planted)


def test_a_lock_that_is_a_link_is_refused_in_one_line(notebook_dir, victim):
    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1")
    lock, _ = runner.admission("smoke", notebook_dir / "00_ok.ipynb")
    _plant(lock, victim)
    with pytest.raises(runner.NotebookFailed, match=f"{lock} is a symbolic link"):
        list(runner.run(profile="smoke", progress=False))
    assert victim.read_text() == "untouched\n"


def test_a_side_by_side_log_that_is_a_link_is_not_written_through(notebook_dir, victim):
    from reproq import notebook_schedule

    for name in ("00_a", "01_b"):
        write_notebook(notebook_dir / f"{name}.ipynb", "x = 1")
    _plant(notebook_schedule.log_path("smoke", notebook_dir / "01_b.ipynb"), victim)
    with pytest.raises(ValueError, match="01_b.log is a symbolic link .* remove it and run again"):
        list(runner.run(profile="smoke", progress=False, jobs=2))  # before any child starts: none left running
    assert victim.read_text() == "untouched\n" and not notebook_schedule.log_path("smoke", notebook_dir / "00_a.ipynb").exists()


def test_the_lock_that_admits_a_run_is_named_by_the_results_it_writes_and_lives_outside_them(tmp_path, monkeypatch):
    """Issue 42: two `cpu` runs with different REPROQ_BUILD wrote one results/ folder side by side (the lock was in
    each build folder); now both ask the same lock, named by the results they write. Issue 55: the lock lived in
    build/smoke, and `rm -rf build/smoke` during a smoke run let a second run of the notebook in."""
    nb = paths.NOTEBOOKS_DIR / "00_datasets.ipynb"
    locks = []
    for build in ("one", "two"):
        monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / build))
        with runner.committing(True):  # both write the committed study
            locks.append(runner.admission("cpu", nb))
    assert locks[0] == locks[1]
    for profile in ("smoke", "cpu"):  # a run into a run folder: its build's, a lock of its own
        lock = runner.admission(profile, nb)[0]
        assert lock != locks[0] and not lock.is_relative_to(tmp_path) and not lock.is_relative_to(paths.ROOT)
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "one"))
    assert runner.admission("smoke", nb) != runner.admission("smoke", paths.NOTEBOOKS_DIR / "01_lexical_baselines.ipynb")



def test_a_hung_cell_fails_in_one_line_at_the_time_limit(notebook_dir):
    """Issue 42: no notebook had a time limit, so a hung cell hung the batch for ever."""
    import psutil

    write_notebook(notebook_dir / "00_hung.ipynb", "import time; time.sleep(120)")
    began = time.time()
    with pytest.raises(runner.NotebookFailed, match=r"00_hung.ipynb: stopped at its time limit of 3 s "
                                                   r"\(--time-limit\), its kernel with it; the executed copy so far is"):
        list(runner.run(profile="smoke", progress=False, limit=3))
    assert time.time() - began < 60
    assert not [p for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]


def test_the_time_limit_is_the_whole_notebooks_not_one_cells(notebook_dir):
    """Four cells of 2 s each, none past 5 s alone: the notebook is stopped at 5 s all the same."""
    write_notebook(notebook_dir / "00_slow.ipynb", *["import time; time.sleep(2)"] * 4)
    with pytest.raises(runner.NotebookFailed, match="00_slow.ipynb: stopped at its time limit of 5 s"):
        list(runner.run(profile="smoke", progress=False, limit=5))


def test_no_default_time_limit_for_parameters_its_last_run_did_not_have(notebook_dir, monkeypatch):
    nb = notebook_dir / "00_timed.ipynb"
    write_notebook(nb, "pass")
    limits = []
    monkeypatch.setattr(runner, "_interruptible", lambda execute, limit_s=None: limits.append(limit_s))
    runner.record_cost("smoke", "00_timed", {"seconds": 30.0})
    runner.run_notebook(nb, profile="smoke", progress=False, force=True)
    runner.run_notebook(nb, profile="smoke", progress=False, force=True, parameters={"VALUE": 2})
    assert limits == [600.0, None]


def test_the_default_time_limit_is_generous_and_follows_the_longest_recorded_run(notebook_dir):
    nb = notebook_dir / "00_timed.ipynb"
    assert runner.time_limit("smoke", nb) is None  # never run: no limit
    runner.record_cost("smoke", "00_timed", {"seconds": 30.0})
    assert runner.time_limit("smoke", nb) == 600.0  # at least ten minutes
    runner.record_cost("smoke", "00_timed", {"seconds": 1200.0})
    assert runner.time_limit("smoke", nb) == 3600.0
    # a rerun that reused its checkpoints is short; the limit stays the longest run's, for the next may retrain (a
    # --commit run of notebook 06 was stopped so at 1,316 s, three times a 439 s run that had trained nothing)
    runner.record_cost("smoke", "00_timed", {"seconds": 240.0})
    assert runner.time_limit("smoke", nb) == 3600.0
    assert notebook_schedule.expected_seconds("smoke")["00_timed"] == 240.0  # the schedule's last time is the last


def test_every_record_says_the_settings_it_ran_under(notebook_dir):
    """Issue 43: threads, executor and retraining batch reached the kernels unseen; now each record carries them."""
    write_notebook(notebook_dir / "00_rec.ipynb",
                   "from reproq.results import Outputs\n"
                   "out = Outputs('00_rec', profile=PROFILE)\n"
                   "out.save_records(out.provenance().records({'MAP': 0.5}, paper='p', table='t', dataset='d',\n"
                   "                                          split='s', method='m'), 'rec')")
    list(runner.run(profile="smoke", progress=False, n_threads=1, retrain=True))
    record = json.loads((paths.output_dirs("smoke")[0] / "00_rec" / "rec.jsonl").read_text().splitlines()[0])
    assert record["run"]["threads"] == "1" and record["run"]["executor"] == "local"
    assert len(record["run"]["retrain_batch"]) == 32  # this batch's id
    assert set(record["run"]) == {"threads", "executor", "address", "workers", "retrain_batch", "rcnn_kernel",
                                  "committed", "mkl_threads", "allocator"}


def test_a_broken_notebook_is_one_line_naming_it_and_stops_no_run_of_another(notebook_dir, capsys):
    """Issue 55: a broken notebooks/05 stopped `run --only 00` with a JSON error naming no file; a notebook without
    metadata was a traceback."""
    from reproq import cli

    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1")
    (notebook_dir / "05_broken.ipynb").write_text('{"cells": [ <<<<<<< HEAD')
    bare = json.loads((notebook_dir / "00_ok.ipynb").read_text())
    del bare["metadata"]
    (notebook_dir / "06_bare.ipynb").write_text(json.dumps(bare))
    assert cli.main(["run", "--profile", "smoke", "--only", "00"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert cli.main(["run", "--profile", "smoke", "--only", "06"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "06_bare.ipynb: not a notebook nbformat runs (no metadata object)" in line
    assert cli.main(["run", "--profile", "smoke", "--only", "05"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "05_broken.ipynb: not a notebook Jupyter can open" in line and "git checkout" in line


def _through_links(notebook_dir, outside, plant):
    """A smoke run of a notebook that writes a table, with ``plant(notebook)`` done first: the outcome, or the
    one-line error, and whether anything outside changed."""
    write_notebook(notebook_dir / "00_ok.ipynb",
                   "from reproq.results import Outputs\nimport pandas as pd\n"
                   "Outputs('00_ok', profile=PROFILE).save_table(pd.DataFrame({'a': [1]}), 't', synthetic=False)")
    before = sorted((p.name, p.read_bytes()) for p in outside.rglob("*") if p.is_file())
    plant(notebook_dir / "00_ok.ipynb")
    try:
        said = [o.status for o in runner.run(profile="smoke", progress=False)]
    except (ValueError, runner.NotebookFailed) as error:
        said = str(error)
    return said, before == sorted((p.name, p.read_bytes()) for p in outside.rglob("*") if p.is_file())


@pytest.mark.parametrize("place", ["pipeline_cost.json", "settings.json", "results folder", "notebooks folder",
                                   "a FIFO"])
def test_nothing_is_read_or_written_through_a_link_planted_in_build(place, notebook_dir, tmp_path):
    """Issue 55: pipeline_cost.json and settings.json were read through planted links (their contents copied into
    what the run wrote), a folder link in build/smoke/results made a smoke run rewrite committed files, a linked
    build/notebooks/smoke received the executed copy, a FIFO named x.jsonl hung every reader."""
    outside = tmp_path / "outside"
    (outside / "00_ok").mkdir(parents=True)
    (outside / "planted.json").write_text('{"00_ok": {"seconds": 1, "note": "SECRET"}}')
    (outside / "00_ok" / "t.csv").write_text("committed\n")
    results = paths.output_dirs("smoke")[0]

    def plant(notebook):
        if place == "pipeline_cost.json":
            _plant(results / "pipeline_cost.json", outside / "planted.json")
        elif place == "settings.json":
            _plant(results / "00_ok" / "settings.json", outside / "planted.json")
        elif place == "results folder":
            _plant(results / "00_ok", outside / "00_ok")
        elif place == "notebooks folder":
            _plant(runner.executed_copy("smoke", notebook).parent, outside / "00_ok")
        else:
            (results / "00_ok").mkdir(parents=True)
            os.mkfifo(results / "00_ok" / "x.jsonl")

    said, untouched = _through_links(notebook_dir, outside, plant)
    assert untouched, f"{place}: a file outside changed"
    if place == "a FIFO":  # nothing of this run reads it: the run goes on; a reader of the folder is one line
        from reproq.report import verdicts

        assert said == ["ran"]
        with pytest.raises(ValueError, match="x.jsonl is not a regular file"):
            verdicts.load_records(results, "00_ok")
    else:
        assert isinstance(said, str) and "is a symbolic link" in said and "remove it and run again" in said, said
        assert "SECRET" not in said


def test_a_commit_run_stopped_mid_way_leaves_a_marker_the_next_run_completes(notebook_dir, tmp_path, monkeypatch,
                                                                             capsys):
    """Issue 55: a kill during --commit left the committed tree half-updated with nothing marking it."""
    monkeypatch.setattr(paths, "ROOT", tmp_path / "repo")  # the runner's committed study (the kernel writes nothing)
    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1", "raise RuntimeError('stopped mid-way')")
    marker = tmp_path / "repo" / "results" / "00_ok" / runner.COMMITTING
    with pytest.raises(runner.NotebookFailed):
        list(runner.run(profile="cpu", progress=False, commit=True))
    assert marker.is_file()  # what it wrote of the committed study so far is marked
    assert "half-written" in capsys.readouterr().err
    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1")
    assert [o.status for o in runner.run(profile="cpu", progress=False, commit=True)] == ["ran"]
    assert not marker.exists() and "stopped before it finished" in capsys.readouterr().err


def test_a_commit_run_killed_outright_leaves_its_marker_and_says_nothing(notebook_dir, tmp_path, monkeypatch, capsys):
    """Issue 55 (b12489a, Why 5): kill -9 during --commit runs no handler of the run's (the test above stops it with a
    failing cell, which does): the marker, written before the notebook starts, is all that says the committed files
    are half-written, and the next --commit run completes them."""
    import psutil

    repo, started = tmp_path / "repo", tmp_path / "started"
    write_notebook(notebook_dir / "00_ok.ipynb", f"open({str(started)!r}, 'w').close()", "import time; time.sleep(120)")
    script = ("import sys; from pathlib import Path; from reproq import cli, paths; "
              f"paths.NOTEBOOKS_DIR, paths.ROOT = Path({str(notebook_dir)!r}), Path({str(repo)!r}); "
              "sys.exit(cli.main(['run', '--commit', '--only', '00']))")
    run = subprocess.Popen([sys.executable, "-c", script], cwd=paths.ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    family = []
    try:
        deadline = time.time() + 120
        while not started.exists():  # its kernel is in the notebook's cells: the committed files are being written
            assert run.poll() is None and time.time() < deadline, "the run ended or never reached its cells"
            time.sleep(0.2)
        family = psutil.Process(run.pid).children(recursive=True)
        run.kill()
        said = run.communicate(timeout=30)[1]
    finally:
        run.kill()
        for process in family:  # its kernel, left by the kill as by any kill -9
            with contextlib.suppress(psutil.Error):
                process.kill()
    marker = repo / "results" / "00_ok" / runner.COMMITTING
    assert marker.is_file() and "half-written" not in said  # nothing ran to say so: the marker says it
    monkeypatch.setattr(paths, "ROOT", repo)
    write_notebook(notebook_dir / "00_ok.ipynb", "x = 1")
    assert [o.status for o in runner.run(profile="cpu", progress=False, commit=True)] == ["ran"]
    assert not marker.exists() and "stopped before it finished" in capsys.readouterr().err


def test_no_committed_results_folder_is_half_written():
    marked = sorted(str(p.parent) for p in (paths.ROOT / "results").glob(f"*/{runner.COMMITTING}"))
    assert not marked, f"half-written by a --commit run that stopped: {marked}; run them again with --commit"


def test_a_grids_reused_runs_are_said_in_the_runners_line_not_on_the_kept_page(notebook_dir):
    # the note as reproq.train.grid.run_grid prints it (tests/train/test_executors.py holds the two together)
    write_notebook(notebook_dir / "00_notes.ipynb",
                   "import sys\n"
                   "note = ('{} of {} runs reused from build/checkpoints/{} '\n"
                   "        '(`reproq run --retrain` trains them again)')\n"
                   "print(note.format(5, 5, 'a'), file=sys.stderr, flush=True)\n"
                   "print('epoch 1', file=sys.stderr, flush=True)\n"
                   "print(note.format(2, 3, 'b'), file=sys.stderr, flush=True)")
    [outcome] = list(runner.run(profile="smoke", progress=False))
    assert outcome.notes == "7 of 8 runs reused from checkpoints (`reproq run --retrain` trains them again)"
    kept = nbformat.read(runner.kept_copy("smoke", notebook_dir / "00_notes.ipynb"), as_version=4)
    assert [output.get("text") for cell in kept.cells for output in cell.get("outputs", [])] == ["epoch 1\n"]
