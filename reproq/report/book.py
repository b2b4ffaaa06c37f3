"""The study as a book: the report's summary, a page per paper, what is beyond the papers, every executed notebook and
the guide, built by Sphinx with MyST-NB in Jupyter Book's theme (sphinx-book-theme), searchable and whole offline.

Why this tool (issue 53): MyST-NB shows the executed notebooks as ``reproq run`` keeps them
(``results/<nb>/<nb>.ipynb``) and never runs them again; it reads the guide's and the papers' Markdown as GitHub shows
it (tables, ``<details>``); the pages it writes are static, with a search index of their own loaded by a script tag
(``searchindex.js``), so search works from ``file://`` and on GitHub Pages alike; and the theme ships its fonts and
scripts. Material for MkDocs' offline search fetches a shim from a CDN at build time, which the machines this study is
built on cannot reach.

:func:`sources` writes the book's pages into a folder, :func:`build` builds them into a site, and :func:`publish`
puts the committed site (``docs/``) in place whole. A link of a page to a file outside the book (the README, the code)
is shown as the path it names in the repository, not as a link a static host would lose (:func:`outward`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from reproq import atomic, notebook_json
from reproq.papers import PAPERS, real_substitute, side_by_side
from reproq.report import guide, pages, verdicts
from reproq.results.tables import inert

NOTEBOOK = "../notebooks/{0}.ipynb"  # from a paper's page to a notebook's page in the book
# the papers' tables are wide (a column per metric and split) and long: the page's text column gives them the room there
# is, and their cells a tighter padding than the theme's
STYLE = (".bd-page-width {max-width: 100%} .bd-main .bd-content .bd-article-container {max-width: 110em}\n"
         "article table.table td, article table.table th {padding: .2rem .45rem}\n")

# Sphinx's settings, given here rather than in a conf.py: the book's sources are generated, and so is its configuration
SETTINGS = {
    "project": "reproq",
    "extensions": ["myst_nb"],
    "html_theme": "sphinx_book_theme",
    "html_title": "reproq: the reproduction study",
    "nb_execution_mode": "off",  # the executed copies as the runs left them
    "nb_ipywidgets_js": {},  # no widget manager from a CDN: the progress bars' widgets are left out (_printed)
    "myst_heading_anchors": 4,  # GitHub's anchors, so that a link to a heading lands as on the repository
    "html_copy_source": False,
    "html_show_sourcelink": False,
    "html_theme_options": {"home_page_in_toc": True, "show_navbar_depth": 1, "show_toc_level": 2,
                           "use_download_button": False},  # the pages' sources are generated: nothing to download
    "html_static_path": ["_static"],
    "html_css_files": ["reproq.css"],
    "suppress_warnings": ["mystnb.unknown_mime_type"],
}


def outward(markdown: str, source: Path, inside: dict[Path, str]) -> str:
    """``markdown`` (a page whose file in the repository is ``source``, relative to its root) with each relative link
    resolved: to the book's page where its target is one (``inside``: repository path -> book path, from the book's
    root), else shown as the path it names in the repository.

    >>> inside = {Path("docs/guide/data.md"): "guide/data.md", Path("docs/guide/running.md"): "guide/running.md"}
    >>> outward("[data](data.md#top) and [the README](../../README.md).", Path("docs/guide/running.md"), inside)
    '[data](data.md#top) and the README (`README.md` in the repository).'
    """
    here = inside.get(source, source.as_posix())

    def link(m: re.Match) -> str:
        text, target, heading = m[1], m[2], m[3] or ""
        named = Path(os.path.normpath(source.parent / target))
        if named in inside:
            return f"[{text}]({os.path.relpath(inside[named], Path(here).parent)}{heading})"
        return f"{text} (`{named.as_posix()}` in the repository)"

    return re.sub(r"(?<!!)\[([^\]]+)\]\((?![a-z]+:|#)([^)#\s]+)(#[^)\s]*)?\)", link, markdown)


def _printed(notebook: Path) -> str:
    """A kept executed notebook as a reader should see it (:func:`reproq.notebook_json.as_printed`: a copy kept
    before its progress bars' widgets were left out has them left out here), its outputs made inert
    (:func:`_inert_outputs`)."""
    nb = notebook_json.as_printed(notebook_json.read(notebook))
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            _inert_outputs(output.get("data", {}))
    return json.dumps(nb, ensure_ascii=False)


def _inert_outputs(data: dict) -> None:
    """A notebook output's representations, with nothing that runs in the book: its HTML cleaned by nh3 (ammonia's
    allow-list: tables and text stay; scripts, styles, event handlers and ``javascript:`` links go), no HTML tag
    opened in its Markdown (:func:`reproq.results.tables.inert`), no SVG (a drawing that can hold a script; matplotlib's
    figures are PNGs)."""
    import nh3

    def joined(value):
        return "".join(value) if isinstance(value, list) else str(value)

    if "text/html" in data:
        data["text/html"] = nh3.clean(joined(data["text/html"]),
                                      attributes={**nh3.ALLOWED_ATTRIBUTES, "*": {"class", "title"}})
    if "text/markdown" in data:
        data["text/markdown"] = inert(joined(data["text/markdown"]))
    data.pop("image/svg+xml", None)


def _book_name(png: Path) -> str:
    """A figure's path in the book: its folder and name with nothing but letters, digits, ``.``, ``_`` and ``-`` (a
    file name is no markup and no other link)."""
    return "/".join(re.sub(r"[^\w.\-]", "_", part) for part in (png.parent.name, png.name))


def _image(png: Path, caption: str) -> list[str]:
    return ["", f"![{inert(caption).replace('[', '(').replace(']', ')')}](figures/{_book_name(png)})"]


def summary(built: verdicts.Report, *, profile: str) -> str:
    """The book's first page: the verdict counts, the rule that gives each verdict, the claims tested on real data, and
    the counts by paper."""
    lines = ["# The reproduction report", ""]
    lines += pages.markdown_table(verdicts.headline(built.counts))
    lines += ["", f"Profile `{profile}`, by `reproq report` from the committed records (each record names the code "
              "version that computed it). Every verdict is computed by one rule (`reproq/report/verdicts.py`), in the "
              "words the kind of number allows: a result of training or fitting is **reproduced** where the 95 % "
              "interval of ours − paper over the seeds lies inside a margin declared before any run (0.01 for ratio "
              "metrics, 1 % of the paper's value otherwise, never below half the paper's last printed digit), **not "
              "reproduced** where it lies wholly outside (the notebook says why), **inconclusive** across an edge or "
              "without an interval (fewer than three distinct seeds), *machine-sensitive* where an edge lies within "
              "the cross-machine spread of the notebook's records; a re-scoring of the authors' shipped scores is one "
              "number, **reproduced** within the margin; **not comparable** where ours cannot meet the paper's (CPU "
              "time against a GPU's); a data count or a model size **matches** or **differs**; a configuration the "
              "paper states is shown **as the paper** and a baseline it quotes from another paper as **quoted**, "
              "never judged; **pipeline only** on the synthetic stand-in; **not built** without a record. A variant "
              "the paper does not claim is shown beside it without a verdict; a number of ours printed under two "
              "tables or papers is counted once. Ratio metrics are shown as each paper prints them."]
    lines += ["", "## The papers' claims, tested on real data", "",
              "Δ = a − b paired by seed, and by question where the records keep each question's value, with its 95 % "
              "interval (what it resamples in brackets).", ""] + [verdicts.claim_markdown(c)
                                                                   for c in built.claims.to_dict("records")]
    lines += ["", "## The counts by kind, verdict and paper", ""] + pages.markdown_table(built.counts)
    return "\n".join(lines) + "\n"


def beyond(built: verdicts.Report, pngs: list[Path], shown: set[str]) -> str:
    """The page of what no paper has: every encoder under one protocol (notebook 12), the AskUbuntu papers on a real
    substitute (notebook 14), and the notebooks' figures no paper's page shows (``shown``)."""
    lines = ["# Beyond the papers"]
    table = side_by_side.table(built.records)
    if len(table):  # no verdict against a paper: each encoder against the floor
        lines += ["", "## Every encoder under one protocol", "",
                  "Each sequence encoder of the five papers in Tay et al.'s pointwise ranker with the same inputs and "
                  "budget (`reproq/papers/side_by_side.py`): MAP with its 95 % interval over questions and seeds, and "
                  "its difference from the best floor of the same split, paired; the zero-shot anchor beside them, in "
                  "no verdict.", ""] + pages.markdown_table(table.round(3))
        lines += [line for p in pngs if p.parent.name == side_by_side.NOTEBOOK for line in _image(p, p.stem)]
    table = real_substitute.table(built.records)
    if len(table):  # notebook 14: the AskUbuntu papers' networks on a real question-retrieval set, no verdict
        lines += ["", "## The AskUbuntu papers on a real substitute: SemEval-2016 3B", "",
                  "The four AskUbuntu papers' networks, each built as its own notebook builds it, on a real "
                  "question-retrieval set of AskUbuntu's shape (`reproq/papers/real_substitute.py`): test MAP over the "
                  "70 queries as the official scorer counts it, with its 95 % interval over queries and seeds, the "
                  "search engine's order, the floors, the anchor and the 2016 teams beside. Their claims are tested on "
                  "the first page; none of this is a reproduction of the papers' AskUbuntu numbers.", ""]
        lines += pages.markdown_table(table[["paper", "method", "setting", "variant", "seeds", "MAP", "MAP 95% low",
                                             "MAP 95% high", "MRR", "P@1"]].round(3))
        lines += [line for p in pngs if p.parent.name == real_substitute.NOTEBOOK for line in _image(p, p.stem)]
    drawn = set(re.findall(r"\]\(figures/([^)]+)\)", "\n".join(lines))) | shown
    others = [p for p in pngs if _book_name(p) not in drawn]
    if others:  # the notebooks' own figures: learning curves, sweeps, ablations
        lines += ["", "## Other figures of the notebooks"]
        lines += [line for p in others for line in _image(p, f"{p.parent.name}: {p.stem}")]
    return "\n".join(lines) + "\n"


def _toctree(caption: str, entries: list[str]) -> list[str]:
    return ["", "```{toctree}", f":caption: {caption}", ":maxdepth: 1", "", *entries, "```"]


def sources(src: Path, built: verdicts.Report, *, guide_pages: list[Path], profile: str = "cpu") -> Path:
    """Write the book's pages into the empty folder ``src``: the summary (``index.md``), a page per paper
    (``papers/``: :func:`reproq.report.pages.paper_page`), what is beyond them (``beyond.md``), the executed
    notebooks kept beside the records (``notebooks/``), the guide (``guide/``: ``guide_pages``) and the figures;
    returns ``src``."""
    src = Path(src)
    pngs = sorted(p for p in Path(built.figures_dir).glob("*/*.png") if p.parent.name != "report")
    for png in pngs:  # the figures travel with the book, in their notebooks' folders
        (src / "figures" / _book_name(png)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, src / "figures" / _book_name(png))
    executed = sorted(Path(built.results_dir).glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
    (src / "notebooks").mkdir(parents=True)
    for notebook in executed:
        atomic.write_text(src / "notebooks" / notebook.name, _printed(notebook))
    inside = {Path("docs/guide") / p.name: f"guide/{p.name}" for p in guide_pages}
    inside |= {Path("results/13_report") / f"{paper}.md": f"papers/{paper}.md" for paper in PAPERS}
    for page in guide_pages:
        atomic.write_text(src / "guide" / page.name, outward(page.read_text(encoding="utf-8"), guide.GUIDE / page.name,
                                                             inside))
    shown = set()
    for paper in PAPERS:
        text = pages.paper_page(built, paper, figures="../figures", notebook=NOTEBOOK)
        shown |= set(re.findall(r"\]\(\.\./figures/([^)]+)\)", text))
        atomic.write_text(src / "papers" / f"{paper}.md", text)
    atomic.write_text(src / "beyond.md", beyond(built, pngs, shown))
    atomic.write_text(src / "_static" / "reproq.css", STYLE)
    index = [summary(built, profile=profile).rstrip("\n")]
    index += _toctree("The papers", [f"papers/{paper}" for paper in PAPERS])
    index += _toctree("Beyond the papers", ["beyond"])
    index += _toctree("The executed notebooks", [f"notebooks/{n.stem}" for n in executed]) if executed else []
    index += _toctree("The guide", [f"guide/{p.stem}" for p in guide_pages]) if guide_pages else []
    atomic.write_text(src / "index.md", "\n".join(index) + "\n")
    return src


def _pruned(out: Path) -> None:
    """What a reader never loads: source maps of the theme's scripts and styles, its translations (compiled
    catalogues, read at build time), the build's own cache, an empty folder of sources it did not copy."""
    for path in [*out.rglob("*.map"), out / "_static" / "locales", out / ".buildinfo", out / ".doctrees",
                 out / "_sources"]:
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)


def build(out_dir: Path, built: verdicts.Report, *, profile: str = "cpu", guide_pages: list[Path] | None = None,
          keep: dict[str, bytes] | None = None) -> Path:
    """Build the book of ``built`` (:func:`sources`), a Sphinx warning being an error (a link to a page the book lacks,
    a figure not found), beside ``out_dir`` in a folder of its own, and put it in ``out_dir``'s place whole, so that no
    page of an earlier build stays; returns its first page. ``guide_pages``: default this checkout's
    (:func:`reproq.report.guide.guide_pages`); ``keep``: files (path in the book -> bytes) written into it."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    pages = guide.guide_pages() if guide_pages is None else guide_pages
    # beside out_dir, so that it replaces out_dir by a rename; removed on any exit, so that none is left behind
    with tempfile.TemporaryDirectory(prefix=f".{out_dir.name}.building-", dir=out_dir.parent) as scratch:
        scratch = Path(scratch)
        # the site in a folder of the scratch: MyST-NB writes its outputs beside the site's folder (jupyter_execute)
        src, site = sources(scratch / "src", built, profile=profile, guide_pages=pages), scratch / "site"
        with docutils_namespace():
            Sphinx(str(src), None, str(site), str(scratch / "doctrees"), "html", confoverrides=dict(SETTINGS),
                   status=None, warning=sys.stderr, freshenv=True, warningiserror=True).build()
        _pruned(site)
        for name, data in (keep or {}).items():
            (site / name).parent.mkdir(parents=True, exist_ok=True)
            (site / name).write_bytes(data)
        if out_dir.exists():
            os.replace(out_dir, scratch / "old")
        os.replace(site, out_dir)
    return out_dir / "index.html"


def publish(built: verdicts.Report, docs_dir: Path) -> Path:
    """The committed site: the book of the committed records (:func:`build`) in ``docs_dir`` as a static host serves it
    (GitHub Pages: ``.nojekyll``), with the guide's hand-written pages (``docs_dir/guide/*.md``,
    :data:`reproq.report.guide.GUIDE`) beside their HTML; returns its first page."""
    written = sorted((Path(docs_dir) / guide.GUIDE.name).glob("*.md"))
    keep = {f"{guide.GUIDE.name}/{page.name}": page.read_bytes() for page in written} | {".nojekyll": b""}
    return build(docs_dir, built, guide_pages=written, keep=keep)
