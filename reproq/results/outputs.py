"""The :class:`Outputs` through which a notebook writes its tables, records and figures, and the synthetic banner.

Every file is written atomically (:mod:`reproq.atomic`), with the run's settings recorded beside it in ``settings.json``; synthetic and smoke outputs are kept away from the committed real results.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from reproq import paths, run_settings
from reproq.atomic import read_json, replace_atomically, updating, write_json, write_text
from reproq.machine import describe
from reproq.results.records import Provenance, Record, code_version, read_records
from reproq.results.tables import compare, format_table, paper_layout, seeds_note, side_by_side
from reproq.results.tables import markdown as as_markdown  # save_table has a parameter of that name


class Outputs:
    """Where a notebook writes its deliverables; writes the run's settings beside each of them.

    In a notebook (:func:`reproq.notebook.setup` makes it)::

        out = Outputs("01_lexical_baselines", profile=PROFILE, parameters={"SEEDS": SEEDS})
        out.report(records, "lei2016_table2_bm25", scale=100, caption="Lei et al. 2016 Table 2, BM25 row.")

    Outputs land in ``results/<notebook>/`` and ``figures/<notebook>/`` with a ``settings.json`` that
    says, per file, which parameters, code version, device and data produced it. Outputs of synthetic
    data get ``__synthetic`` in their names; smoke runs write under ``build/smoke/`` (see
    :func:`reproq.paths.output_dirs`). Neither can overwrite committed real results.
    """

    def __init__(self, notebook: str, *, profile: str, parameters: dict | None = None, device: str = "cpu"):
        from reproq.train.runtime import device_name, resolve_device

        self.notebook, self.profile, self.device = notebook, profile, device_name(resolve_device(device))
        self.parameters = dict(parameters or {})
        results_dir, figures_dir = paths.output_dirs(profile)
        self.results_dir, self.figures_dir = results_dir / notebook, figures_dir / notebook
        self.started = time.time()

    def provenance(self, data: Mapping[str, str] | None = None, *, synthetic: bool = False,
                   word_vectors: str | None = None) -> Provenance:
        """The :class:`~reproq.results.records.Provenance` of numbers this run computes on ``data``."""
        return Provenance(dict(data or {}), synthetic, self.device, word_vectors, machine=describe(self.device),
                          run=run_settings.current())

    def _stem(self, name: str, synthetic: bool) -> str:
        return f"{name}__synthetic" if synthetic and not name.endswith("__synthetic") else name

    def settings(self, **extra) -> dict:
        return {
            "notebook": self.notebook, "profile": self.profile, "parameters": self.parameters,
            "code_version": code_version(), "device": self.device, "python": platform.python_version(),
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "elapsed_s": round(time.time() - self.started, 1),
            **extra,
        }

    def _write_settings(self, path: Path, **extra) -> None:
        """Record the settings behind ``path`` in ``settings.json`` beside it (one entry per output)."""
        with updating(path.parent / "settings.json") as index:
            entries = read_json(index, otherwise="started afresh with this output") or {}
            entries[path.name] = self.settings(**extra)
            write_json(index, dict(sorted(entries.items())))

    def save_records(self, records: Sequence[Record], name: str) -> Path:
        """Write records as JSON lines (``<name>.jsonl``)."""
        synthetic = any(r.synthetic for r in records)
        path = self.results_dir / f"{self._stem(name, synthetic)}.jsonl"
        write_text(path, "".join(json.dumps(asdict(r), default=str) + "\n" for r in records))
        self._write_settings(path, synthetic=synthetic)
        return path

    def read_records(self, name: str) -> list[Record]:
        """The records an earlier run saved as ``name`` (:meth:`save_records`) in this notebook's folder; none where it
        never did."""
        path = self.results_dir / f"{name}.jsonl"
        return read_records(path) if path.exists() else []

    def save_table(self, table: pd.DataFrame, name: str, *, synthetic: bool, caption: str = "",
                   markdown: pd.DataFrame | None = None) -> Path:
        """Write a table as CSV (``<name>.csv``, long form) and Markdown (``<name>.md``, with its caption; the
        ``markdown`` layout when given, e.g. the paper's shape). A column of containers (each query's values, a
        configuration) is refused: a table's cell is one value."""
        nested = [c for c in table.columns if table[c].map(lambda v: isinstance(v, dict | list | tuple | set)).any()]
        if nested:
            raise ValueError(f"table {name!r}: column(s) {nested} hold containers, not one value a cell: drop them "
                             "from the table (records keep each query's values) or summarise them")
        stem = self._stem(name, synthetic)
        path = self.results_dir / f"{stem}.csv"
        write_text(path, table.to_csv(index=False))
        caption = ("SYNTHETIC DATA, not a reproduction. " if synthetic else "") + caption
        shown = table if markdown is None else markdown
        write_text(path.with_suffix(".md"), f"{caption}\n\n{as_markdown(shown)}\n")
        self._write_settings(path, synthetic=synthetic, caption=caption)
        return path

    def save_markdown(self, text: str, name: str) -> Path:
        """Write a page of Markdown (``<name>.md``), e.g. a paper's page of the report."""
        path = self.results_dir / f"{name}.md"
        write_text(path, text)
        self._write_settings(path, synthetic=False)
        return path

    def report(self, records: Sequence[Record], name: str, *, caption: str, scale: float = 1.0,
               decimals: int = 1) -> pd.DataFrame:
        """Save ``records`` and their side-by-side table with the paper (see :func:`compare`); return a
        compact copy for display (key columns that are the same on every row are left out). The caption ends with
        what the table's ``±`` is (:func:`seeds_note`), from the records themselves."""
        synthetic = any(r.synthetic for r in records)
        self.save_records(records, name)
        table = format_table(compare(records, scale=scale), decimals=decimals)
        self.save_table(table, name, synthetic=synthetic, caption=f"{caption} {seeds_note(records)}",
                        markdown=paper_layout(table))
        return side_by_side(table)

    def save_figure(self, fig, name: str, *, synthetic: bool) -> Path:
        """Save a matplotlib figure as PNG; a synthetic figure must say so in its title, no two of its series may
        look alike (:func:`series_clashes`) and none may be hidden under the others (:func:`hidden_series`)."""
        if synthetic and "synthetic" not in _figure_titles(fig).lower():
            raise ValueError(f"figure {name!r} shows synthetic data but its title does not say 'synthetic data'")
        clashes = series_clashes(fig) or hidden_series(fig, dpi=DPI)
        if clashes:
            raise ValueError(f"figure {name!r}: {clashes[0]}"
                             + (f" (and {len(clashes) - 1} more)" if clashes[1:] else ""))
        path = self.figures_dir / f"{self._stem(name, synthetic)}.png"
        replace_atomically(path, lambda scratch: fig.savefig(scratch, format="png", dpi=DPI, bbox_inches="tight"))
        self._write_settings(path, synthetic=synthetic)
        return path


def series_clashes(fig) -> list[str]:
    """Where a reader could not tell two series of one panel apart: two lines drawn alike (one colour, one kind of line
    (:func:`_line_kind`) and one marker), or a line drawn exactly over another (the same points, the same kind of
    line, the same width: only the top one is seen). A line here has two points or more and is drawn (a line or
    markers); error bars, caps and all, are not series (:func:`_error_bar`)."""
    from matplotlib.colors import to_hex

    said = []
    for ax in fig.axes:
        lines = _series(ax)
        panel = f"panel {ax.get_title()!r}" if ax.get_title() else "a panel"
        for i, line in enumerate(lines):
            for other in lines[:i]:
                alike = (to_hex(line.get_color(), keep_alpha=True) == to_hex(other.get_color(), keep_alpha=True)
                         and _line_kind(line) == _line_kind(other) and str(line.get_marker()) == str(other.get_marker()))
                over = (_line_kind(line) == _line_kind(other) and abs(line.get_linewidth() - other.get_linewidth()) < 0.5
                        and _same_points(line, other))
                if alike or over:
                    said.append(f"in {panel}, {_label(other)} and {_label(line)} are "
                                + ("drawn alike (colour, kind of line, marker)" if alike else "drawn one over the other"))
    return said


DPI = 120  # the committed figures' resolution
SEEN = 30  # the fewest pixels of a saved figure a series must change to count as seen


def _series(ax) -> list:
    """The lines of a panel that are series (:func:`series_clashes`)."""
    caps = {id(cap) for container in ax.containers if hasattr(container, "has_xerr") for cap in container.lines[1]}
    return [line for line in ax.get_lines() if line.get_visible() and id(line) not in caps
            and len(line.get_xdata()) >= 2 and not _error_bar(line, ax)
            and (line.get_linestyle() not in ("None", "") or line.get_marker() not in ("None", "", None))]


def hidden_series(fig, *, dpi: int = DPI) -> list[str]:
    """The series a reader cannot see in the figure as saved: those whose removal changes fewer than :data:`SEEN`
    of its pixels at ``dpi`` (drawn under others, or covered by them). The check renders the figure once, then once
    without each series."""
    import io

    import numpy as np

    def pixels():
        buffer = io.BytesIO()
        fig.savefig(buffer, format="rgba", dpi=dpi)
        return np.frombuffer(buffer.getvalue(), dtype=np.uint8).reshape(-1, 4)

    said, whole = [], pixels()
    for ax in fig.axes:
        panel = f"panel {ax.get_title()!r}" if ax.get_title() else "a panel"
        for line in _series(ax):
            line.set_visible(False)
            try:
                changed = int((pixels() != whole).any(axis=1).sum())
            finally:
                line.set_visible(True)
            if changed < SEEN:
                said.append(f"in {panel}, {_label(line)} cannot be seen at {dpi} dpi (it changes {changed} pixels): "
                            "draw it apart from the series over it (another marker, an offset, a panel of its own)")
    return said


def _error_bar(line, ax) -> bool:
    """Whether ``line`` is an error bar as seaborn draws one: a level or upright segment of two points in data
    coordinates, without a marker (a reference line, ``axhline``, spans the panel in its coordinates: a series)."""
    x, y = line.get_xdata(), line.get_ydata()
    return (len(x) == 2 and line.get_transform() is ax.transData and line.get_marker() in ("None", "", None)
            and (x[0] == x[1] or y[0] == y[1]))


def _line_kind(line) -> str:
    """What a reader sees of a line's dashes: solid, dotted (every dash about a dot long), dash-dot or dashed."""
    _, dashes = line._unscaled_dash_pattern  # (offset, on/off lengths), in line widths; None: solid
    if line.get_linestyle() in ("None", ""):
        return "none"
    if not dashes:
        return "solid"
    on = dashes[0::2]
    if all(d <= 1.5 for d in on):
        return "dotted"
    return "dash-dot" if any(d <= 1.5 for d in on) else "dashed"


def _same_points(line, other) -> bool:
    import numpy as np

    a, b = line.get_xydata(), other.get_xydata()
    return a.shape == b.shape and bool(np.allclose(a, b, equal_nan=True))


def _label(line) -> str:
    label = line.get_label()
    return repr(label) if label and not label.startswith("_") else "an unlabelled line"


def _figure_titles(fig) -> str:
    titles = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) else []
    return " ".join(titles + [ax.get_title() for ax in fig.axes])


def banner(synthetic: bool, what: str):
    """A loud notice for the notebook, shown above results that come from a synthetic stand-in."""
    from IPython.display import Markdown

    if not synthetic:
        return Markdown(f"Real data: {what}.")
    return Markdown(f"> **⚠ SYNTHETIC DATA — {what}.** The real files are not available here, so this section "
                    "runs on the deterministic synthetic stand-in. Its numbers show that the code runs and "
                    "learns; they are **not** a reproduction of any paper and are never compared with one.")
