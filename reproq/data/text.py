"""How the readers open their text files, and what they say when a file is not text or holds nothing.

Every line-based reader (AskUbuntu, Android, TrecQA, WikiQA, the SemEval gold files) reads through
:func:`numbered_lines` and ends with :func:`at_least_one`, so that a file that is not what it should be
(latin-1 bytes, a gzip stream cut short, an empty download) is a :class:`FormatError` naming the file and
the line, never a bare ``UnicodeDecodeError`` or ``EOFError``, and never an empty dataset.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator, Sized
from pathlib import Path
from typing import TypeVar

from reproq.data.errors import FormatError

Records = TypeVar("Records", bound=Sized)


def numbered_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for every line of a UTF-8 file, gzipped when its name ends in ``.gz``.

    The text has its line end (``\\n`` or ``\\r\\n``) removed; blank lines are kept (each reader decides
    what they mean). A byte-order mark at the start of the file is dropped: some editors write one, and
    it would otherwise become part of the first id. Undecodable bytes, and a gzip stream that is
    truncated or corrupt, raise :class:`FormatError` at the line reached.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "ids.txt"
    ...     _ = path.write_bytes(b"\\xef\\xbb\\xbf421122\\r\\n\\n7\\n")
    ...     print(list(numbered_lines(path)))
    ...     _ = path.write_bytes(b"421122\\ncaf\\xe9\\n")
    ...     try:
    ...         list(numbered_lines(path))
    ...     except FormatError as exc:
    ...         print(str(exc).split("ids.txt")[1])
    [(1, '421122'), (2, ''), (3, '7')]
    :2: expected UTF-8 text, found undecodable bytes at byte 3
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    number = 0
    try:
        # Bytes split at b"\n" and decoded one line at a time, so that an undecodable byte is blamed on
        # its own line (a text stream decodes in blocks and would fail a few lines early or late).
        with opener(path, "rb") as fh:
            for number, raw in enumerate(fh, start=1):
                yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8").rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise FormatError(path, number, "UTF-8 text", f"undecodable bytes at byte {exc.start}") from None
    except EOFError:
        raise FormatError(path, number + 1, "a complete gzip stream", "one cut short") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise FormatError(path, number + 1, "a complete gzip stream", f"corrupt data ({exc})") from None


def at_least_one(records: Records, path: str | Path, kind: str) -> Records:
    """``records`` unchanged, or a :class:`FormatError` at line 1 when a reader found none of them.

    An empty file, or a page of something else that happens to parse (an HTML error page served in
    place of the data), would otherwise read as a dataset with no questions.

    >>> at_least_one([], "dev.txt", "query")
    Traceback (most recent call last):
    ...
    reproq.data.errors.FormatError: dev.txt:1: expected at least one query, found none
    """
    if len(records) == 0:
        raise FormatError(path, 1, f"at least one {kind}", "none")
    return records
