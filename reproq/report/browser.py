"""A real browser that reads the book back (Debian's headless ``chromium``), for the tests and the report's screenshot.

:func:`browse` opens a page as a reader's first screen and returns what it shows once loaded: its images and those that
failed to load, its tables (and where the first ends on the first screen), its links within the page whose target is
missing, and every resource it names on another host. The counting script goes into a copy of the page beside it for
the visit, never into the book. :func:`search` asks the book's own search page and returns the pages it lists;
:func:`screenshot` saves what the top of a page shows.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

from reproq import atomic

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--allow-file-access-from-files"]

# Counts what a reader's browser shows once the page has loaded, as data-* attributes of <body> (read back through
# --dump-dom): resources from another host are those the page names by http(s), whether or not they could be fetched
CHECK = """<script>window.addEventListener("load", () => setTimeout(() => {
  const shown = document.body.dataset, images = [...document.images];
  const ids = new Set([...document.querySelectorAll("[id]")].map(e => e.id));
  const local = [...document.querySelectorAll("a[href^='#']")].map(a => decodeURIComponent(a.getAttribute("href")
    .slice(1))).filter(id => id);
  const named = [...document.querySelectorAll("script[src], link[href][rel~='stylesheet'], link[href][rel~='preload'], \
img[src], iframe[src]")].map(e => e.getAttribute("src") || e.getAttribute("href"));
  shown.images = images.length;
  shown.broken = images.filter(i => !(i.complete && i.naturalWidth > 0)).length;
  const tables = [...document.querySelectorAll("article table")];
  shown.tables = tables.length;
  shown.firstTableBottom = tables.length ? Math.ceil(tables[0].getBoundingClientRect().bottom) : -1;
  shown.screenHeight = window.innerHeight;
  shown.dangling = local.filter(id => !ids.has(id)).join(" ");
  shown.external = named.filter(u => /^(https?:)?\\/\\//.test(u)).join(" ");
  shown.searchResults = document.querySelectorAll("#search-results ul.search li").length;
  shown.searchPages = [...document.querySelectorAll("#search-results ul.search li a")].map(a => a.getAttribute("href")
    .split(/[?#]/)[0]).join(" ");
  shown.checked = "yes";
}, 2000));</script>"""


def chromium() -> str | None:
    """The Chromium on this machine (Debian's ``chromium``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run(*arguments: str, profile_dir: Path) -> str:
    binary = chromium()
    if binary is None:
        raise FileNotFoundError("no chromium on PATH: install Debian's package (apt-get install chromium)")
    done = subprocess.run([binary, *FLAGS, f"--user-data-dir={profile_dir}", *arguments],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def browse(page: Path, scratch: Path, *, query: str = "", width: int = 1280, height: int = 800) -> dict[str, int | str]:
    """Open ``page`` (with ``?q=query`` for the search page) in headless Chromium at ``width`` × ``height`` and return
    what :data:`CHECK` counted once it loaded, by name (``search_results`` for ``data-search-results``): numbers as
    ints, lists (``dangling``, ``external``, ``search_pages``) as space-separated strings."""
    page = Path(page)
    visit = page.with_name(f".visit-{page.name}")  # beside it, so that its relative links hold
    text = page.read_text(encoding="utf-8")
    atomic.write_text(visit, text.replace("</body>", f"{CHECK}</body>", 1) if "</body>" in text else text + CHECK)
    try:
        address = visit.resolve().as_uri() + (f"?q={query}" if query else "")
        dom = _run("--virtual-time-budget=15000", f"--window-size={width},{height}", "--dump-dom", address,
                   profile_dir=Path(scratch) / "chromium-profile")
    finally:
        visit.unlink(missing_ok=True)
    body = re.search(r"<body([^>]*)>", dom)
    found = dict(re.findall(r'data-([\w-]+)="([^"]*)"', body[1] if body else ""))
    if found.get("checked") != "yes":
        raise RuntimeError(f"{page}: the check did not run in Chromium (no data-checked on <body>)")
    return {k.replace("-", "_"): int(v) if re.fullmatch(r"-?\d+", v) else html.unescape(v) for k, v in found.items()}


def search(book: Path, query: str, scratch: Path) -> list[str]:
    """The pages the book's own search page (``search.html``) lists for ``query``, as it links them."""
    return browse(Path(book) / "search.html", scratch, query=query)["search_pages"].split()


def screenshot(page: Path, png: Path, scratch: Path, *, width: int = 1280, height: int = 2400) -> Path:
    """What Chromium shows of the top of ``page`` (``width`` × ``height`` pixels), saved to ``png``."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    target = Path(scratch) / "screenshot.png"
    _run(f"--screenshot={target}", f"--window-size={width},{height}", "--hide-scrollbars",
         Path(page).resolve().as_uri(), profile_dir=Path(scratch) / "chromium-profile")
    return atomic.replace_atomically(png, lambda tmp: shutil.copyfile(target, tmp))
