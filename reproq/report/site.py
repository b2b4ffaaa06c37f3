"""The reproduction report as a static HTML site, and a real browser that reads it back.

:func:`build_site` writes ``index.html``: a sidebar that links the summary, each paper's tables and figures and what is
beyond the papers; the summary; then per paper every table and figure in the paper's order (from
:mod:`reproq.report.verdicts`), each first in the paper's shape (the tables its notebooks wrote, ours beside theirs,
or the figure itself, each PNG once), with its verdicts and why rows do not reproduce, and its every row, one verdict
each, behind a disclosure. It copies the figures beside the page, and converts the executed notebooks it finds (kept
beside the records by ``reproq run``: ``results/<notebook>/<notebook>.ipynb``) to HTML with nbconvert, linked from
each item. One file, no script or style from elsewhere.
:func:`browse` opens the page in headless Chromium (Debian's ``chromium``) at a reader's first screen, which counts
the tables, the figures, the images that failed to load and the sidebar's links without a target, and measures where
the summary lies; :func:`screenshot` saves what it shows.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd

from reproq import atomic, paths
from reproq.papers import PAPERS, real_substitute, side_by_side
from reproq.report import guide, items, verdicts
from reproq.results.records import code_version
from reproq.report.scope import scope_table

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--allow-file-access-from-files"]

STYLE = """body{font-family:system-ui,sans-serif;margin:0;color:#222}
main{margin-left:240px;max-width:1100px;padding:1em 2em 3em}
nav{position:fixed;top:0;bottom:0;left:0;width:200px;overflow-y:auto;padding:1em 12px;background:#f6f6f6;
border-right:1px solid #ddd;font-size:13px;line-height:1.7}nav p{margin:.7em 0 0;font-weight:600}
nav a{text-decoration:none;color:#035}nav a.s-not-built{color:#999}nav span{color:#666}
h2,h3{scroll-margin-top:.5em}table{border-collapse:collapse;font-size:13px;margin:.5em 0 1em}
td,th{border:1px solid #ccc;padding:2px 6px}th{background:#f0f0f0}img{max-width:100%;border:1px solid #ddd}
figcaption,p.source{font-size:13px;color:#555}div.shaped{overflow-x:auto;margin-bottom:1em}div.shaped p{font-size:14px}
details{margin:.5em 0 2em}summary{cursor:pointer;color:#035}
.v-reproduced{background:#d8f3d8}.v-not-reproduced{background:#f8d7d7}.v-inconclusive{background:#e4e4f6}.v-pipeline-only{background:#fff3cd}
.v-not-built{color:#999}.v-not-comparable{background:#ece4f4}.v-beside-the-paper{color:#777}.v-drawn-on-real-data{background:#d8e8f8}.v-matches{background:#d8f3d8}.v-differs{background:#f8d7d7}
.v-partial-data,.v-fitted{background:#fff3cd}.v-as-the-paper,.v-set-otherwise,.v-quoted,.v-as-specified{color:#777}.v-confirmed{background:#d8f3d8}
.v-contradicted{background:#f8d7d7}blockquote.why{border-left:4px solid #e0a0a0;margin:0 0 1.5em;padding:0 1em;
font-size:14px}"""

# Counts what a reader's browser shows once the page has loaded, and where the summary lies on the first screen; the
# tests read them back through --dump-dom (:func:`browse`).
CHECK = """<script>window.addEventListener("load", () => {
  const shown = document.body.dataset, images = [...document.images];
  const sidebar = [...document.querySelectorAll("nav a")].map(a => a.getAttribute("href").slice(1));
  const targets = sidebar.filter(id => document.getElementById(id));
  const counts = document.getElementById("verdict-counts").getBoundingClientRect();
  shown.images = images.length;
  shown.broken = images.filter(i => !(i.complete && i.naturalWidth > 0)).length;
  shown.tables = document.querySelectorAll("table.item").length;
  shown.tablesVisible = [...document.querySelectorAll("table.item")].filter(t => t.checkVisibility()).length;
  shown.shaped = document.querySelectorAll("table.shaped").length;
  shown.figures = document.querySelectorAll("figure.item").length;
  shown.sidebarLinks = sidebar.length;
  shown.sidebarDangling = sidebar.length - targets.length;
  shown.sidebarTargets = targets.join(" ");
  shown.sidebarRight = Math.ceil(document.querySelector("nav").getBoundingClientRect().right);
  [shown.summaryLeft, shown.summaryBottom] = [Math.floor(counts.left), Math.ceil(counts.bottom)];
  [shown.screenWidth, shown.screenHeight] = [window.innerWidth, window.innerHeight];
});</script>"""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _anchor(paper: str, item: str) -> str:
    """The id of ``paper``'s ``item`` on the page, on its heading and in the sidebar's link: ``tay2018-table-6``."""
    return f"{paper}-{_slug(item)}"


def _short(paper: str) -> str:
    return PAPERS[paper].short


def _verdict_cell(verdict: str) -> str:
    return f'<span class="v-{_slug(verdict.split(" (")[0])}">{html.escape(verdict)}</span>'


def _image(png: str | Path, caption: str) -> str:
    src = f"figures/{Path(png).parent.name}/{Path(png).name}"
    return (f'<figure class="item"><img src="{html.escape(src)}" alt="{html.escape(caption)}">'
            f"<figcaption>{caption}</figcaption></figure>")


def _rows_html(rows: pd.DataFrame, notebook_links: dict[str, str], *, kind: str = "item") -> str:
    """Rows of :func:`reproq.report.verdicts.table_rows` as a table of class ``kind``, the verdicts coloured; a column
    that is the same on every row is left out, and so is one reason why, which the item says above it."""
    shown = verdicts.shown_rows(rows)
    shown["notebook"] = [notebook_links.get(w, w) for w in shown["where"]]
    always = ("paper", "ours", "data", "verdict") + (("why",) if len({r for r in shown["why"] if r}) > 1 else ())
    shown = shown[[c for c in shown if c not in ("where", "file")
                   and (c in always or (c != "why" and shown[c].astype(str).nunique() > 1))]]
    table = shown.to_html(index=False, escape=True, classes=kind, border=0)
    for verdict in (*verdicts.VERDICTS, verdicts.BESIDE):  # colour the verdicts (the cell text is escaped already)
        for said in (verdict, f"{verdict} (machine-sensitive)"):
            table = table.replace(f"<td>{said}</td>", f"<td>{_verdict_cell(said)}</td>")
    return re.sub(r'&lt;a href=(?:&quot;|")(.*?)(?:&quot;|")&gt;(.*?)&lt;/a&gt;', r'<a href="\1">\2</a>', table)


def _shaped_html(table: Path, notebook_links: dict[str, str]) -> str:
    """A notebook's paper-shaped Markdown table (:func:`reproq.report.items.shaped_table`), its caption with it, as
    HTML, and the file it is in."""
    from nbconvert.filters.markdown import markdown2html

    where = table.parent.name
    path = table.relative_to(paths.ROOT) if table.is_relative_to(paths.ROOT) else table  # results/<where>/<file>.md
    body = markdown2html(table.read_text()).replace("<table>", "<table class='shaped'>")
    return (f"<div class='shaped'>{body}<p class='source'>Written by notebook {notebook_links.get(where, where)} "
            f"to <code>{html.escape(str(path))}</code>.</p></div>")


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


STYLE_BLOCK = re.compile(r"<style[^>]*>(.*?)</style>\s*", re.DOTALL)
NOTEBOOK_CSS = "notebook.css"
WIDGET_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def _notebook_pages(out_dir: Path, results_dir: Path) -> dict[str, str]:
    """The executed notebooks kept beside the report's records (``results_dir``; :func:`reproq.runner.kept_copy`) as
    HTML under ``out_dir/notebooks``: folder -> link."""
    executed = sorted(Path(results_dir).glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
    if not executed:
        return {}
    from nbconvert import HTMLExporter

    exporter, links, shared = HTMLExporter(template_name="lab"), {}, None
    for notebook in executed:
        page, _ = exporter.from_filename(str(notebook))
        head, body = page.split("</head>", 1)
        styles = "".join(STYLE_BLOCK.findall(head))
        shared = styles if shared is None else shared
        if styles == shared:  # JupyterLab's stylesheet, a quarter MB, once for every notebook
            head = STYLE_BLOCK.sub("", head) + f'<link rel="stylesheet" href="{NOTEBOOK_CSS}">\n'
        ids = dict.fromkeys(WIDGET_ID.findall(body))  # nbconvert draws each widget's id at random: numbered instead
        body = WIDGET_ID.sub(lambda m, ids=list(ids): f"widget-{ids.index(m.group(0)) + 1}", body)
        atomic.write_text(out_dir / "notebooks" / f"{notebook.stem}.html", f"{head}</head>{body}")
        links[notebook.stem] = f'<a href="notebooks/{notebook.stem}.html">{notebook.stem}</a>'
    atomic.write_text(out_dir / "notebooks" / NOTEBOOK_CSS, shared)
    return links


HEADING = re.compile(r'<h([1-6]) id="[^"]*">(.*?)<a class="anchor-link" href="#[^"]*">&#182;</a></h\1>')
LINK = re.compile(r'<a href="([^"#:]*)(#[^"]*)?">(.*?)</a>')
TAG = re.compile(r"<[^>]+>")


def _guide_pages(out_dir: Path, sources: list[Path]) -> dict[str, str]:
    """The guide's Markdown pages ``sources`` as HTML pages in ``out_dir/guide/``, in the report's style under a line
    back to it: each heading with the anchor GitHub gives it, so a link between the pages goes to its page and
    heading as on the repository; a link out of the site (the README, the code) is shown as the path it names in the
    repository. Returns page -> its title."""
    from nbconvert.filters.markdown import markdown2html

    def link(m: re.Match, source: Path) -> str:
        target, heading, text = m[1], m[2] or "", m[3]
        if not target:
            return m[0]
        if "/" not in target and target.endswith(".md") and (source.parent / target).is_file():
            return f'<a href="{Path(target).stem}.html{heading}">{text}</a>'
        named, root = (source.parent / target).resolve(), source.resolve().parents[len(guide.GUIDE.parts)]
        where = named.relative_to(root) if named.is_relative_to(root) else Path(target)  # its path in the checkout
        return f"{text} (<code>{html.escape(str(where))}</code> in the repository)"

    titles = {}
    for source in sources:
        text = source.read_text(encoding="utf-8")
        first = re.search(r"^#\s+(.+)$", text, flags=re.MULTILINE)
        title = first[1] if first else source.stem
        body = markdown2html(text)
        body = HEADING.sub(lambda m: f'<h{m[1]} id="{guide.anchor(html.unescape(TAG.sub("", m[2])))}">{m[2]}</h{m[1]}>',
                           body)
        body = LINK.sub(lambda m, source=source: link(m, source), body)
        titles[f"guide/{source.stem}.html"] = title
        atomic.write_text(out_dir / "guide" / f"{source.stem}.html",
                          f"<!doctype html><html><head><meta charset='utf-8'><title>reproq: {html.escape(title)}"
                          f"</title><style>{STYLE}main{{margin-left:0}}</style></head><body><main><p><a "
                          f"href='../index.html'>← the reproduction report</a></p>{body}</main></body></html>")
    return titles


def _item(built: verdicts.Report, scoped: pd.Series, links: dict[str, str], pngs: list[Path],
          first: dict[str, str]) -> list[str]:
    """One table or figure of a paper (``scoped``: its row of the scope table) as the page shows it: its heading; the
    figure, or the paper-shaped tables its notebooks wrote and the table's own plots; the sentence of its verdicts and
    its notes (:mod:`reproq.report.items`); the rows that do not reproduce, with the notebook's words on them; then
    every row, one verdict each, behind a disclosure closed by default. ``first``: each PNG's first figure
    (:func:`reproq.report.items.first_shown`), where it is shown."""
    paper, item = scoped["paper"], scoped["item"]
    mine = built.rows[(built.rows.paper == paper) & (built.rows.table == item)]
    if item.startswith("Figure"):
        figure = built.figures[(built.figures.paper == paper) & (built.figures.figure == item)].iloc[0]
        parts = [f"<h3 id='{_anchor(paper, item)}'>{item}: {html.escape(figure.shows)}</h3>"
                 f"<p>{_verdict_cell(figure.verdict)} ({figure.data})</p>"]
        for png in figure.files:  # a file that draws several of the paper's figures is shown with the first of them
            parts.append(_image(png, f"{_short(paper)} {item} ({figure.data})") if first[png] == item else
                         f"<p>Drawn with <a href='#{_anchor(paper, first[png])}'>{first[png]}</a> above.</p>")
        plots = []
    else:
        parts = [f"<h3 id='{_anchor(paper, item)}'>{item}</h3>"]
        # a table's own plots (tay2018_table6_seeds.png); a figure's own file (lei2016_figure3__synthetic.png) has
        # the same shape of name, which is why figures are never looked up this way
        plots = [p for p in pngs if p.stem.startswith(f"{paper}_{item.lower().replace(' ', '')}_")]
    if len(mine):
        parts.append(f"<p><b>{html.escape(items.tally(mine, scoped['paper rows']))}</b></p>")
    parts += [_shaped_html(table, links) for table in items.shaped_tables(built, paper, item)]
    parts += [_image(p, f"{_short(paper)} {item}: {p.stem}") for p in plots]
    parts += [f"<p>{html.escape(note)}</p>" for note in items.notes(mine)]
    missed = mine[mine.verdict == "not reproduced"]
    if len(missed):
        parts.append(f"<p>The {len(missed)} that do not reproduce:</p>" + _rows_html(missed, links, kind="missed"))
        for where, file in missed[["where", "file"]].drop_duplicates().itertuples(index=False):
            if said := commentary(where, file):  # the notebook's own explanation of its gaps
                parts.append(f"<blockquote class='why'><p><b>Notebook {html.escape(where)} on these numbers "
                             f"(<code>{html.escape(file)}</code>):</b></p>{said}</blockquote>")
    if len(mine):
        parts.append(f"<details><summary>All {len(mine)} rows: the paper's numbers beside ours, one verdict "
                     f"each</summary>{_rows_html(mine, links)}</details>")
    return parts


def _rounded(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` at 3 decimals, a number that rounds to 0 without its minus sign (``-0.000`` reads as a direction)."""
    rounded = table.round(3)
    numeric = rounded.select_dtypes("number").columns
    rounded[numeric] = rounded[numeric] + 0.0
    return rounded


def _sidebar(scope: pd.DataFrame, sections: dict[str, str]) -> str:
    """The sidebar: the summary, each paper with its tables and figures (grey where not built, the scope's status on
    hover), then ``sections`` (id -> title: what is beyond the papers)."""
    parts = ["<nav><a href='#summary'>Summary</a>"]
    for key, paper in PAPERS.items():
        parts.append(f"<p><a href='#{key}'>{html.escape(paper.short)}</a></p>")
        for kind in ("Table", "Figure"):
            mine = scope[(scope.paper == key) & scope.item.str.startswith(kind)]
            links = [f"<a href='#{_anchor(key, item)}' class='s-{_slug(status)}' title='{item}: {status}'>"
                     f"{item.split()[1]}</a>" for item, status in zip(mine.item, mine.status)]
            if links:
                parts.append(f"<div><span>{kind}{'s' if len(links) > 1 else ''}</span> {' · '.join(links)}</div>")
    parts += [f"<p><a href='#{section}'>{html.escape(title)}</a></p>" for section, title in sections.items()]
    return "".join(parts) + "</nav>"


def build_site(out_dir: Path, built: verdicts.Report, *, profile: str = "cpu", stamped: bool = True,
               guide_pages: list[Path] | None = None) -> Path:
    """Write the report ``built`` (:func:`reproq.report.verdicts.build`) to ``out_dir/index.html``, its figures beside
    it and the guide's pages (``guide_pages``, default this checkout's: :func:`reproq.report.guide.guide_pages`) as
    HTML; returns the page. ``stamped``: the page names the code version and the time it was built
    (the committed site, ``docs/``, does not: it is the same page whenever it is built from the same records)."""
    out_dir = Path(out_dir)
    links = _notebook_pages(out_dir, built.results_dir)
    guide_titles = _guide_pages(out_dir, guide.guide_pages() if guide_pages is None else guide_pages)
    pngs = sorted(p for p in built.figures_dir.glob("*/*.png") if p.parent.name != "report")  # not its own screenshot
    for png in pngs:  # the figures travel with the page, in their notebook folders
        (out_dir / "figures" / png.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, out_dir / "figures" / png.parent.name / png.name)

    claims = built.claims.drop(columns="p").assign(**{c: built.claims[c].map(lambda v: "" if v != v else f"{v:+.3f}")
                                                      for c in ("delta", "low", "high")})
    stamp = (f", code <code>{html.escape(code_version())}</code>, built {time.strftime('%Y-%m-%d %H:%M %Z')}"
             if stamped else " (each record names the code version that computed it)")
    parts = [f"<h1>reproq: the reproduction report</h1><p>Profile <code>{profile}</code>{stamp}, by "
             "<code>reproq report</code> from the committed records. Every verdict is computed by one rule "
             "(<code>reproq/report/verdicts.py</code>), in the words the kind of number allows: a result of "
             "training or fitting is <b>reproduced</b> where the 95 % interval of ours − paper over the seeds lies "
             "inside a margin declared before any run (0.01 for ratio metrics, 1 % of the paper's value otherwise, "
             "never below half the paper's last printed digit), <b>not reproduced</b> where it lies wholly outside "
             "(the notebook says why), <b>inconclusive</b> across an edge or without an interval (fewer than three "
             "distinct seeds), <i>machine-sensitive</i> where an edge lies within the cross-machine spread of the "
             "notebook's records; a re-scoring of the authors' shipped scores is one number, <b>reproduced</b> "
             "within the margin; <b>not comparable</b> where ours cannot meet the paper's (CPU time against a "
             "GPU's); a data count or a model size <b>matches</b> "
             "or <b>differs</b>; a configuration the paper states is shown <b>as the paper</b> and a baseline it "
             "quotes from another paper as <b>quoted</b>, never judged; <b>pipeline only</b> on the synthetic "
             "stand-in; <b>not built</b> without a record. A variant the paper does not claim is shown beside it "
             "without a verdict; a number of ours printed under two tables or papers is counted once. Ratio metrics "
             "are shown as each paper prints them.</p>",
             "<h2 id='summary'>Summary</h2>",
             verdicts.headline(built.counts).to_html(index=False, border=0, table_id="verdict-counts"),
             "<h3>The papers' claims, tested on real data (Δ = a − b, seed by seed, 95 % interval)</h3>",
             claims.to_html(index=False, border=0),
             "<h3>The counts by kind, verdict and paper</h3>", built.counts.to_html(index=False, border=0)]
    scope, first = scope_table(built.results_dir), items.first_shown(built.figures)
    for key, paper in PAPERS.items():
        parts.append(f"<h2 id='{key}'>{html.escape(paper.title)}</h2>")
        for _, scoped in scope[scope.paper == key].iterrows():
            parts += _item(built, scoped, links, pngs, first)
    sections = {}  # id -> title in the sidebar: what follows the papers
    beyond = side_by_side.table(built.records)
    if len(beyond):  # the table no paper has (notebook 12): no verdict against a paper, each encoder against the floor
        sections["side-by-side"] = "Beyond the papers"
        parts.append("<h2 id='side-by-side'>Beyond the papers: every encoder under one protocol</h2><p>Each sequence "
                     "encoder of the five papers in Tay et al.'s pointwise ranker with the same inputs and budget "
                     "(<code>reproq/papers/side_by_side.py</code>): MAP with its 95 % interval over questions and "
                     "seeds, and its difference from the best floor of the same split, paired; the zero-shot anchor "
                     "beside them, in no verdict.</p>" + _rounded(beyond).to_html(index=False, border=0, na_rep=""))
        parts += [_image(p, f"{p.parent.name}: {p.stem}") for p in pngs if p.parent.name == side_by_side.NOTEBOOK]
    substitute = real_substitute.table(built.records)
    if len(substitute):  # notebook 14: the AskUbuntu papers' networks on a real question-retrieval set, no verdict
        sections["real-substitute"] = "A real substitute: SemEval-2016 3B"
        parts.append("<h2 id='real-substitute'>The AskUbuntu papers on a real substitute: SemEval-2016 3B</h2><p>The "
                     "four AskUbuntu papers' networks, each built as its own notebook builds it, on a real "
                     "question-retrieval set of AskUbuntu's shape (<code>reproq/papers/real_substitute.py</code>): "
                     "test MAP over the 70 queries as the official scorer counts it, with its 95 % interval over "
                     "queries and seeds, the search engine's order, the floors, the anchor and the 2016 teams beside. "
                     "Their claims are tested in the summary above; none of this is a reproduction of the papers' "
                     "AskUbuntu numbers.</p>" + _rounded(substitute[["paper", "method", "setting", "variant", "seeds",
                                                                     "MAP", "MAP 95% low", "MAP 95% high", "MRR",
                                                                     "P@1"]]).to_html(index=False, border=0,
                                                                                       na_rep=""))
        parts += [_image(p, f"{p.parent.name}: {p.stem}") for p in pngs if p.parent.name == real_substitute.NOTEBOOK]
    shown = set(re.findall(r'<img src="figures/([^"]+)"', "".join(parts)))
    others = [p for p in pngs if f"{p.parent.name}/{p.name}" not in shown]
    if others:  # the notebooks' own figures: learning curves, sweeps, ablations
        sections["other-figures"] = "Other figures"
        parts.append("<h2 id='other-figures'>Other figures of the notebooks</h2>")
        parts += [_image(p, f"{p.parent.name}: {p.stem}") for p in others]
    if links:
        sections["notebooks"] = "Executed notebooks"
        parts.append("<h2 id='notebooks'>Executed notebooks</h2><ul>"
                     + "".join(f"<li>{link}</li>" for link in links.values()) + "</ul>")
    if guide_titles:
        sections["guide"] = "The guide"
        parts.append("<h2 id='guide'>The guide</h2><p>How the study runs and what it costs, how each number is "
                     "judged, what it found, the data, the labs, the library and the tests (the repository's "
                     "<code>docs/guide/</code> pages):</p><ul>" + "".join(
                         f"<li><a href='{page}'>{html.escape(title)}</a></li>" for page, title in guide_titles.items())
                     + "</ul>")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>reproq report</title><style>{STYLE}</style>"
            f"</head><body>{_sidebar(scope, sections)}<main>{''.join(parts)}</main>{CHECK}</body></html>")
    return atomic.write_text(out_dir / "index.html", page)


def publish(built: verdicts.Report, docs_dir: Path) -> Path:
    """The committed site: the report of the committed records (:func:`build_site`, unstamped, so that the same
    records give the same files) in ``docs_dir`` as a static host serves it (GitHub Pages: ``.nojekyll``), built
    beside it and put in its place whole, so no file of an earlier build stays but the guide's hand-written pages
    (``docs_dir/guide/*.md``, :data:`reproq.report.guide.GUIDE`), carried into the new build beside their HTML;
    returns its page."""
    docs_dir = Path(docs_dir)
    scratch = docs_dir.with_name(f".{docs_dir.name}.building")
    shutil.rmtree(scratch, ignore_errors=True)
    written = sorted((docs_dir / guide.GUIDE.name).glob("*.md"))
    build_site(scratch, built, stamped=False, guide_pages=written)
    (scratch / ".nojekyll").write_text("")
    for page in written:  # the guide's sources beside their HTML (an HTML page of an earlier build is not kept)
        shutil.copyfile(page, scratch / guide.GUIDE.name / page.name)
    old = docs_dir.with_name(f".{docs_dir.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if docs_dir.exists():
        os.replace(docs_dir, old)
    os.replace(scratch, docs_dir)
    shutil.rmtree(old, ignore_errors=True)
    return docs_dir / "index.html"


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


def browse(page: Path, scratch: Path, *, width: int = 1280, height: int = 800) -> dict[str, int | str]:
    """Open ``page`` in headless Chromium at a first screen of ``width`` × ``height`` pixels and return what the page's
    own script (:data:`CHECK`) found once loaded, by name (``sidebar_dangling`` for ``data-sidebar-dangling``):
    counts and pixels as ints (images, broken images, tables, visible ones, figures, the summary's edges), the
    sidebar's link targets that exist as a space-separated string."""
    dom = _run_chromium("--virtual-time-budget=10000", f"--window-size={width},{height}", "--dump-dom",
                        Path(page).resolve().as_uri(), profile_dir=Path(scratch) / "chromium-profile")
    body = re.search(r"<body([^>]*)>", dom)
    found = dict(re.findall(r'data-([\w-]+)="([^"]*)"', body[1] if body else ""))
    if not found:
        raise RuntimeError(f"{page}: the page's check did not run in Chromium (no data-* counts on <body>)")
    return {k.replace("-", "_"): int(v) if re.fullmatch(r"-?\d+", v) else html.unescape(v) for k, v in found.items()}


def screenshot(page: Path, png: Path, scratch: Path, *, width: int = 1280, height: int = 2400) -> Path:
    """What Chromium shows of the top of ``page`` (``width`` × ``height`` pixels), saved to ``png``."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    target = Path(scratch) / "screenshot.png"
    _run_chromium(f"--screenshot={target}", f"--window-size={width},{height}", "--hide-scrollbars",
                  Path(page).resolve().as_uri(), profile_dir=Path(scratch) / "chromium-profile")
    return atomic.replace_atomically(png, lambda tmp: shutil.copyfile(target, tmp))
