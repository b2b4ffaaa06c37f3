"""Errors that reach users as one clear sentence instead of a traceback.

``reproq`` catches :class:`DataError` at the command line and prints only its message; in a notebook
the message is the exception's text, written to be read there too.
"""

from __future__ import annotations

from pathlib import Path


class DataError(Exception):
    """Anything wrong with data: missing, unreachable, corrupt or malformed."""


class MissingDataError(DataError):
    """A file the study needs is not on disk (the message names the command that fetches it)."""


class FormatError(DataError):
    """A line of a data file is not in the format its reader expects.

    When the whole file is wrong (empty, or another kind of document in its place) the line is 1, or the
    line where the reader could tell (the end of a gzip stream cut short).

    >>> str(FormatError("dev.txt", 3, "4 tab-separated fields", "2 fields"))
    'dev.txt:3: expected 4 tab-separated fields, found 2 fields'
    """

    def __init__(self, path: str | Path, line: int, expected: str, found: str):
        self.path, self.line, self.expected, self.found = str(path), line, expected, found
        super().__init__(f"{path}:{line}: expected {expected}, found {found}")
