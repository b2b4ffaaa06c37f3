"""Notebooks side by side (reproq.notebook_schedule, ``reproq run --jobs``): what may overlap, in what order, and the same
outputs as one after another."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import re
from pathlib import Path

import pytest

from reproq import notebook_schedule, paths, runner
from tests.test_runner import write_notebook


def runs_last(path: Path) -> None:
    """Mark the notebook at ``path`` as the report: it runs after the rest."""
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    notebook.metadata["reproq"] = {"runs": notebook_schedule.LAST}
    nbformat.write(notebook, path)


def named(*stems):
    return [Path(f"{s}.ipynb") for s in stems]


def test_lanes_run_together_the_timer_runs_alone_and_the_report_last():
    nbs = named("00_datasets", "02_a", "03_b", "04_c", "05_runtime", "06_d", "09_e", "12_f", "13_report")
    said = {"02_a": notebook_schedule.Declared("askubuntu"), "03_b": notebook_schedule.Declared("askubuntu"),
            "04_c": notebook_schedule.Declared("answer_ranking"), "06_d": notebook_schedule.Declared("answer_ranking"),
            "12_f": notebook_schedule.Declared("answer_ranking"), "09_e": notebook_schedule.Declared("adaptation"),
            "05_runtime": notebook_schedule.Declared(runs=notebook_schedule.ALONE), "13_report": notebook_schedule.Declared(runs=notebook_schedule.LAST)}

    def declarations(nb):
        return said.get(nb.stem, notebook_schedule.Declared())

    alone, units, last = notebook_schedule.plan(nbs, {"00_datasets": 10, "02_a": 100, "03_b": 300, "04_c": 200, "06_d": 50,
                                            "09_e": 450, "12_f": 100}, declarations)
    assert [nb.stem for nb in alone] == ["05_runtime"] and [nb.stem for nb in last] == ["13_report"]
    assert [[nb.stem for nb in u.notebooks] for u in units] == [["09_e"], ["02_a", "03_b"], ["04_c", "06_d", "12_f"],
                                                                 ["00_datasets"]]  # longest first: 450, 400, 350, 10
    _, units, _ = notebook_schedule.plan(named("00_datasets", "09_e"), {"09_e": 450}, declarations)
    assert units[0].notebooks == tuple(named("00_datasets"))  # never measured: counted as the longest


def _checkpoint_folders(notebook: Path) -> set[str]:
    """The build/checkpoints/ folders a notebook's training runs go to, read from its code: every ``checkpoint_root=``
    (and ``checkpoints=`` of its setup) with the folder setup gives it."""
    source = "\n".join("".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code")
    base = notebook_schedule.declared(notebook).checkpoints or ""
    roots = re.findall(r"checkpoint_root=checkpoints( / \w+)?", source)
    return {base + root for root in roots}


def test_the_notebooks_that_share_training_runs_are_in_one_lane():
    """Every notebook whose runs go to a checkpoint folder names it in its setup; those that share one share a lane."""
    notebooks = runner.notebooks()
    _, units, last = notebook_schedule.plan(notebooks, {})
    lane = {nb: i for i, unit in enumerate(units) for nb in unit.notebooks}
    folders = {nb: _checkpoint_folders(nb) for nb in notebooks}
    assert all(f.startswith(notebook_schedule.declared(nb).checkpoints or "-") for nb in notebooks for f in folders[nb])
    for a in notebooks:
        for b in notebooks:
            if a != b and folders[a] & folders[b]:
                assert lane[a] == lane[b], f"{a.stem} and {b.stem} share {folders[a] & folders[b]} but not a lane"
    assert {tuple(nb.stem[:2] for nb in u.notebooks) for u in units if len(u.notebooks) > 1} == {
        ("02", "03", "07", "08"), ("04", "06", "12")}
    assert [nb.stem for nb in last] == [notebooks[-1].stem] == ["13_report"]


def test_the_report_runs_last_by_its_role_not_its_number(notebook_dir):
    """A notebook numbered after the report runs before it, one after another and side by side (issue 43)."""
    write_notebook(notebook_dir / "00_a.ipynb", "open('order.txt', 'a').write('00 ')")
    write_notebook(notebook_dir / "13_report.ipynb", "open('order.txt', 'a').write('13 ')")
    write_notebook(notebook_dir / "14_new_paper.ipynb", "open('order.txt', 'a').write('14 ')")
    runs_last(notebook_dir / "13_report.ipynb")
    assert [nb.stem for nb in runner.notebooks()] == ["00_a", "14_new_paper", "13_report"]
    list(runner.run(profile="smoke", progress=False, jobs=1))
    assert (notebook_dir / "order.txt").read_text() == "00 14 13 "
    (notebook_dir / "order.txt").unlink()
    list(runner.run(profile="smoke", progress=False, jobs=2, force=True))
    assert (notebook_dir / "order.txt").read_text().endswith("13 ")


def test_side_by_side_gives_the_outputs_of_one_after_another_and_a_failure_lets_the_others_finish(notebook_dir):
    for name, value in (("00_a", 1), ("01_b", 2), ("03_c", 3)):
        write_notebook(notebook_dir / f"{name}.ipynb", "import torch; torch.manual_seed(VALUE)",
                       f"open('{name}.txt', 'w').write(repr(torch.rand(3).tolist()) + ' ' + PROFILE)")
    serial = [o.status for o in runner.run(profile="smoke", parameters={"VALUE": 5}, progress=False, jobs=1)]
    first = {p.name: p.read_text() for p in notebook_dir.glob("*.txt")}
    for p in notebook_dir.glob("*.txt"):
        p.unlink()
    outcomes = list(runner.run(profile="smoke", parameters={"VALUE": 5}, force=True, progress=True, jobs=2))
    side = [(o.notebook, o.status) for o in outcomes]
    assert serial == ["ran"] * 3 and len(first) == 3
    # each start says its place, its last time (the serial run recorded one) and its log
    assert sorted(o.message.split(" last time")[0] for o in outcomes if o.status == "started") == ["[1/3]", "[2/3]",
                                                                                                  "[3/3]"]
    assert all(" min; log " in o.message for o in outcomes if o.status == "started")
    assert {p.name: p.read_text() for p in notebook_dir.glob("*.txt")} == first
    assert sorted(n for n, s in side if s == "started") == ["00_a", "01_b", "03_c"]
    assert sorted(n for n, s in side if s == "ran") == ["00_a", "01_b", "03_c"]
    # each says why it ran, as its child did (it said "inputs unchanged since its last run" of every run)
    assert {o.message for o in outcomes if o.status == "ran"} == {"--force"}
    again = [o for o in runner.run(profile="smoke", parameters={"VALUE": 5}, progress=False, jobs=2)]
    assert {(o.status, o.message) for o in again} == {("skipped", "inputs unchanged since its last run")}
    for p in notebook_dir.glob("*.txt"):
        p.unlink()
    write_notebook(notebook_dir / "02_broken.ipynb", "raise RuntimeError('boom')")
    write_notebook(notebook_dir / "13_report.ipynb", "open('report.txt', 'w').write('made')")
    runs_last(notebook_dir / "13_report.ipynb")
    with pytest.raises(runner.NotebookFailed, match=r"02_broken.ipynb: FAILED .*RuntimeError: boom.*not run after a "
                                                   r"failure: 13_report.ipynb"):
        list(runner.run(profile="smoke", force=True, progress=False, jobs=2))
    assert not (notebook_dir / "report.txt").exists()
    assert all((notebook_dir / f"{n}.txt").exists() for n in ("00_a", "01_b", "03_c"))  # the others finished


@pytest.mark.parametrize("limit", [60.0, float("inf")])  # inf: --time-limit none
def test_a_time_limit_reaches_the_side_by_side_children(limit):
    from reproq import cli

    command = notebook_schedule.command(paths.NOTEBOOKS_DIR / "04_trecqa_ctrn.ipynb", profile="smoke", parameters={},
                               force=False, threads=1, executor={"executor": "local"}, limit=limit)
    assert cli.build_parser().parse_args(command[4:]).time_limit == limit  # [python, -c, bootstrap, notebooks, run ...]
    # each child runs one notebook and does not compare it: the runner compares them all once, at the end (a child
    # of notebook 13, with no record, failed so at the end of a make reproduce)
    assert cli.build_parser().parse_args(command[4:]).no_compare
    assert "--time-limit" not in notebook_schedule.command(paths.NOTEBOOKS_DIR / "04_trecqa_ctrn.ipynb", profile="smoke",
                                                  parameters={}, force=False, threads=1, executor={"executor": "local"})


@pytest.mark.parametrize("how, busy", [("SIGTERM", False), ("SIGKILL", False), ("SIGTERM", True)])
def test_no_process_of_a_side_by_side_run_outlives_its_parent(tmp_path, how, busy):
    """Issue 42: SIGTERM or kill -9 of a ``--jobs`` parent left its ``reproq run`` children and their kernels running
    their notebooks to the end. Issue 55: with both cores busy (``busy``: two processes spinning), one child was still
    alive 8 s after its parent's SIGTERM."""
    import signal

    import nbformat
    import psutil

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for name in ("00_a", "01_b"):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('PROFILE = "smoke"'),
                                             nbformat.v4.new_code_cell("import time; time.sleep(120)")])
        nb.cells[0].metadata["tags"] = ["parameters"]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, notebooks / f"{name}.ipynb")
    script = ("import sys; from pathlib import Path; from reproq import cli, paths; "
              f"paths.NOTEBOOKS_DIR = Path({str(notebooks)!r}); sys.exit(cli.main(['run', '--profile', 'smoke', "
              "'--jobs', '2']))")
    env = {**os.environ, "REPROQ_BUILD": str(tmp_path / "build")}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=paths.ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:  # two children, each with its kernel, running their sleeping cells
            family = psutil.Process(parent.pid).children(recursive=True)
            if sum("ipykernel" in " ".join(p.cmdline()) for p in family if p.is_running()) >= 2:
                break
            time.sleep(0.5)
        else:
            pytest.fail("the two kernels never started")
        spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 if busy else 0)]
        time.sleep(1 if busy else 0)
        sent = time.monotonic()
        os.kill(parent.pid, getattr(signal, how))
        parent.wait(timeout=30)
        _, alive = psutil.wait_procs(family, timeout=max(0.0, 5 - (time.monotonic() - sent)))
        assert not alive, f"left running 5 s after {how} of the parent: {[p.cmdline()[:3] for p in alive]}"
    finally:
        for spinner in locals().get("spinning", []):
            spinner.kill()
        parent.kill()
        for p in psutil.Process().children(recursive=True):
            p.kill()


def test_a_rerun_never_truncates_a_live_runs_log(notebook_dir):
    """Issue 42: a second ``--jobs`` run emptied the log of the run it then found running."""
    from filelock import FileLock

    for name in ("00_a", "01_b"):
        write_notebook(notebook_dir / f"{name}.ipynb", "pass")
    live = notebook_dir / "00_a.ipynb"
    lock, holder = runner.admission("smoke", live)
    lock.parent.mkdir(parents=True)
    holder.write_text("4242")
    log = notebook_schedule.log_path("smoke", live)
    log.parent.mkdir(parents=True)
    log.write_text("the live run's lines\n")
    with FileLock(lock), pytest.raises(runner.NotebookFailed, match=r"00_a.ipynb: .*already running \(pid 4242"):
        list(runner.run(profile="smoke", progress=False, jobs=2))
    assert log.read_text().startswith("the live run's lines\n")


def test_a_killed_child_is_said_killed_with_its_signal_and_its_kernel_goes(notebook_dir):
    """Issue 42: a child killed with kill -9 was reported as a fragment of its progress bar."""
    import signal
    import threading

    import psutil

    write_notebook(notebook_dir / "00_a.ipynb", "import time; time.sleep(120)")
    write_notebook(notebook_dir / "01_b.ipynb", "pass")
    kernels = []

    def kill_the_child_of_00_a():
        deadline = time.time() + 120
        while time.time() < deadline:
            for child in psutil.Process().children():
                with contextlib.suppress(psutil.Error):
                    family = child.children(recursive=True)
                    if "00_a" in child.cmdline() and any("ipykernel" in " ".join(p.cmdline()) for p in family):
                        kernels.extend(family)
                        os.kill(child.pid, signal.SIGKILL)
                        return
            time.sleep(0.5)

    killer = threading.Thread(target=kill_the_child_of_00_a)
    killer.start()
    with pytest.raises(runner.NotebookFailed, match=r"00_a.ipynb: killed by SIGKILL \(signal 9\) \(its log's last line: "):
        list(runner.run(profile="smoke", progress=False, jobs=2))
    killer.join()
    assert kernels, "the child of 00_a never started its kernel"
    _, alive = psutil.wait_procs(kernels, timeout=5)
    assert not alive, f"left running after the child was killed: {[p.cmdline()[:3] for p in alive]}"
