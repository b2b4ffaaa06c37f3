"""The reproduction report as a static HTML site, and a real browser that reads it back.

:func:`build_site` writes ``index.html`` (the summary, then per paper every table and figure in the paper's order,
from :mod:`reproq.report.verdicts`), copies the figures beside it, and converts the executed notebooks it finds
(kept beside the records by ``reproq run``: ``results/<notebook>/<notebook>.ipynb``) to HTML with nbconvert,
linked from each item.
:func:`browse` opens the page in headless Chromium (Debian's ``chromium``), which counts the tables, the figures
and the images that failed to load; :func:`screenshot` saves what it shows.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd

from reproq import atomic, paths
from reproq.papers import PAPERS, side_by_side
from reproq.report import verdicts
from reproq.results.records import code_version
from reproq.report.scope import scope_table

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--allow-file-access-from-files"]

STYLE = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:13px;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f0f0f0}img{max-width:100%;border:1px solid #ddd}figcaption{font-size:13px;color:#555}
.v-reproduced{background:#d8f3d8}.v-not-reproduced{background:#f8d7d7}.v-pipeline-only{background:#fff3cd}
.v-not-built{color:#999}.v-not-comparable{background:#ece4f4}.v-beside-the-paper{color:#777}.v-drawn-on-real-data{background:#d8e8f8}.v-confirmed{background:#d8f3d8}
.v-contradicted{background:#f8d7d7}blockquote.why{border-left:4px solid #e0a0a0;margin:0 0 1.5em;padding:0 1em;
font-size:14px}"""

# Counts what a reader's browser shows once the page has loaded; the test reads them back through --dump-dom.
CHECK = """<script>window.addEventListener("load", () => {
  const images = [...document.images];
  document.body.dataset.images = images.length;
  document.body.dataset.broken = images.filter(i => !(i.complete && i.naturalWidth > 0)).length;
  document.body.dataset.tables = document.querySelectorAll("table.item").length;
  document.body.dataset.figures = document.querySelectorAll("figure.item").length;
});</script>"""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _short(paper: str) -> str:
    return PAPERS[paper].short


def _verdict_cell(verdict: str) -> str:
    return f'<span class="v-{_slug(verdict.split(" (")[0])}">{html.escape(verdict)}</span>'


def _rows_html(rows: pd.DataFrame, notebook_links: dict[str, str]) -> str:
    shown = verdicts.shown_rows(rows)
    shown["notebook"] = [notebook_links.get(w, w) for w in shown["where"]]
    reasons = [r for r in dict.fromkeys(shown["why"]) if r]
    note = f"<p><i>Why not on real data: {html.escape(reasons[0])}.</i></p>" if len(reasons) == 1 else ""
    always = ("paper", "ours", "data", "verdict") + (("why",) if len(reasons) > 1 else ())
    shown = shown[[c for c in shown if c not in ("where", "file")
                   and (c in always or (c != "why" and shown[c].astype(str).nunique() > 1))]]
    table = shown.to_html(index=False, escape=True, classes="item", border=0)
    for verdict in (*verdicts.VERDICTS, verdicts.BESIDE):  # colour the verdicts (the cell text is escaped already)
        table = table.replace(f"<td>{verdict}</td>", f"<td>{_verdict_cell(verdict)}</td>")
    return note + re.sub(r"&lt;a href=&quot;(.*?)&quot;&gt;(.*?)&lt;/a&gt;", r'<a href="\1">\2</a>', table)


def commentary(notebook: str, file: str) -> str:
    """What notebook ``notebook`` says right after the cell that writes ``file`` (its Markdown up to the next code cell
    or heading), as HTML; empty where no cell names the file."""
    path = paths.NOTEBOOKS_DIR / f"{notebook}.ipynb"
    if not file or not path.is_file():
        return ""
    from nbconvert.filters.markdown import markdown2html

    cells, said = json.loads(path.read_text())["cells"], []
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "code" and f'"{file}"' in "".join(cell["source"]):
            for after in cells[i + 1:]:  # up to the next code cell or the next heading
                text = "".join(after["source"]) if after["cell_type"] == "markdown" else "#"
                body = re.split(r"^#", text, maxsplit=1, flags=re.M)[0]
                if body.strip():
                    said.append(markdown2html(body))
                if body != text:
                    break
            break
    return "".join(said)


def _notebook_pages(out_dir: Path, profile: str) -> dict[str, str]:
    """The executed notebooks kept beside the profile's records (:func:`reproq.batch.kept_copy`) as HTML under
    ``out_dir/notebooks``: folder -> link."""
    executed = sorted(paths.output_dirs(profile)[0].glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
    if not executed:
        return {}
    from nbconvert import HTMLExporter

    exporter, links = HTMLExporter(template_name="lab"), {}
    for notebook in executed:
        body, _ = exporter.from_filename(str(notebook))
        atomic.write_text(out_dir / "notebooks" / f"{notebook.stem}.html", body)
        links[notebook.stem] = f'<a href="notebooks/{notebook.stem}.html">{notebook.stem}</a>'
    return links


def build_site(out_dir: Path, built: verdicts.Report, *, profile: str = "cpu") -> Path:
    """Write the report ``built`` (:func:`reproq.report.verdicts.build`) to ``out_dir/index.html``, its figures beside
    it; returns the page."""
    out_dir = Path(out_dir)
    rows, figures, counts, claims = built.rows, built.figures, built.counts, built.claims
    links = _notebook_pages(out_dir, profile)
    pngs = sorted(p for p in built.figures_dir.glob("*/*.png") if p.parent.name != "report")  # not its own screenshot
    for png in pngs:  # the figures travel with the page, in their notebook folders
        (out_dir / "figures" / png.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, out_dir / "figures" / png.parent.name / png.name)

    def image(png: str, caption: str) -> str:
        src = f"figures/{Path(png).parent.name}/{Path(png).name}"
        return (f'<figure class="item"><img src="{html.escape(src)}" alt="{html.escape(caption)}">'
                f"<figcaption>{caption}</figcaption></figure>")

    claims_shown = claims.assign(**{c: claims[c].map(lambda v: "" if v != v else f"{v:+.3f}")
                                    for c in ("delta", "low", "high")})
    parts = [f"<h1>reproq: the reproduction report</h1><p>Profile <code>{profile}</code>, code "
             f"<code>{html.escape(code_version())}</code>, built {time.strftime('%Y-%m-%d %H:%M %Z')} by "
             "<code>reproq report</code> from the committed records. Every verdict is computed by one rule "
             "(<code>reproq/report/verdicts.py</code>): <b>reproduced</b> within the seeds' spread (2 sd), the paper's "
             "printed precision or a stated tolerance (1 point for ratio metrics, 1 % otherwise); <b>not "
             "reproduced</b> beyond it (the notebook says why); <b>not comparable</b> where ours cannot meet the "
             "paper's (CPU time against a GPU's); <b>pipeline only</b> on the synthetic stand-in; <b>not built</b> "
             "without a record. A variant the paper does not claim is shown beside it without a verdict; a table "
             "that prints another's runs again is counted once. Ratio metrics are shown as each paper prints "
             "them.</p>",
             "<h2 id='summary'>Summary</h2>", counts.to_html(index=False, border=0),
             "<h3>The papers' claims, tested on real data (Δ = a − b, seed by seed, 95 % interval)</h3>",
             claims_shown.to_html(index=False, border=0)]
    scope = scope_table(built.results_dir)
    for paper, title in ((key, p.title) for key, p in PAPERS.items()):
        parts.append(f"<h2 id='{paper}'>{html.escape(title)}</h2>")
        for item in scope[scope.paper == paper].item:
            anchor, mine = f"{paper}-{_slug(item)}", rows[(rows.paper == paper) & (rows.table == item)]
            if item.startswith("Figure"):
                figure = figures[(figures.paper == paper) & (figures.figure == item)].iloc[0]
                parts.append(f"<h3 id='{anchor}'>{item}: {html.escape(figure.shows)}</h3>"
                             f"<p>{_verdict_cell(figure.verdict)} ({figure.data})</p>")
                parts += [image(png, f"{_short(paper)} {item} ({figure.data})") for png in figure.files]
            else:
                parts.append(f"<h3 id='{anchor}'>{item}</h3>")
            if len(mine):  # the paper's numbers of the item, ours beside them
                tally = ", ".join(f"{n} {v}" for v, n in mine.verdict.value_counts().items())
                parts.append(f"<p>{tally}</p>" + _rows_html(mine, links))
                missed = mine[mine.verdict == "not reproduced"][["where", "file"]].drop_duplicates()
                for where, file in missed.itertuples(index=False):  # the notebook's own explanation of its gaps
                    if said := commentary(where, file):
                        parts.append(f"<blockquote class='why'><p><b>Notebook {html.escape(where)} on these numbers "
                                     f"(<code>{html.escape(file)}</code>):</b></p>{said}</blockquote>")
            stem = f"{paper}_{item.lower().replace(' ', '')}_"  # a table's own plots (tay2018_table6_seeds.png)
            parts += [image(str(p), f"{_short(paper)} {item}: {p.stem}") for p in pngs if p.stem.startswith(stem)]
    beyond = side_by_side.table(built.records)
    if len(beyond):  # the table no paper has (notebook 12): no verdict against a paper, each encoder against the floor
        parts.append("<h2 id='side-by-side'>Beyond the papers: every encoder under one protocol</h2><p>Each sequence "
                     "encoder of the five papers in Tay et al.'s pointwise ranker with the same inputs and budget "
                     "(<code>reproq/papers/side_by_side.py</code>): MAP with its 95 % interval over questions and "
                     "seeds, and its difference from the best floor of the same split, paired; the zero-shot anchor "
                     "beside them, in no verdict.</p>" + beyond.round(3).to_html(index=False, border=0, na_rep=""))
        parts += [image(str(p), f"{p.parent.name}: {p.stem}") for p in pngs
                  if p.parent.name == side_by_side.NOTEBOOK]
    shown = set(re.findall(r'<img src="figures/([^"]+)"', "".join(parts)))
    others = [p for p in pngs if f"{p.parent.name}/{p.name}" not in shown]
    if others:  # the notebooks' own figures: learning curves, sweeps, ablations
        parts.append("<h2 id='other-figures'>Other figures of the notebooks</h2>")
        parts += [image(str(p), f"{p.parent.name}: {p.stem}") for p in others]
    if links:
        parts.append("<h2 id='notebooks'>Executed notebooks</h2><ul>"
                     + "".join(f"<li>{link}</li>" for link in links.values()) + "</ul>")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>reproq report</title><style>{STYLE}</style>"
            f"</head><body>{''.join(parts)}{CHECK}</body></html>")
    return atomic.write_text(out_dir / "index.html", page)


def chromium() -> str | None:
    """The Chromium on this machine (Debian's ``chromium``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run_chromium(*arguments: str, profile_dir: Path) -> str:
    binary = chromium()
    if binary is None:
        raise FileNotFoundError("no chromium on PATH: install Debian's package (apt-get install chromium)")
    done = subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}", *arguments],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def browse(page: Path, scratch: Path) -> dict[str, int]:
    """Open ``page`` in headless Chromium and return what the page's own script counted once loaded: images,
    broken images, tables and figures."""
    dom = _run_chromium("--virtual-time-budget=10000", "--dump-dom", Path(page).resolve().as_uri(),
                        profile_dir=Path(scratch) / "chromium-profile")
    body = re.search(r"<body([^>]*)>", dom)
    counted = dict(re.findall(r'data-(\w+)="(\d+)"', body[1] if body else ""))
    if not counted:
        raise RuntimeError(f"{page}: the page's check did not run in Chromium (no data-* counts on <body>)")
    return {k: int(v) for k, v in counted.items()}


def screenshot(page: Path, png: Path, scratch: Path, *, width: int = 1280, height: int = 2400) -> Path:
    """What Chromium shows of the top of ``page`` (``width`` × ``height`` pixels), saved to ``png``."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    target = Path(scratch) / "screenshot.png"
    _run_chromium(f"--screenshot={target}", f"--window-size={width},{height}", "--hide-scrollbars",
                  Path(page).resolve().as_uri(), profile_dir=Path(scratch) / "chromium-profile")
    return atomic.replace_atomically(png, lambda tmp: shutil.copyfile(target, tmp))
