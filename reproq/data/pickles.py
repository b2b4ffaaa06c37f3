"""Reading a pickle without letting it run code: an unpickler that resolves only the globals it is given.

A pickle is a small program. Each global it names (opcodes ``GLOBAL``, ``STACK_GLOBAL``) is looked up by
``Unpickler.find_class`` and can then be called (``REDUCE``, ``NEWOBJ``, ``OBJ``) or handed state (``BUILD``):
that is how a crafted file calls ``os.system``. :class:`AllowListUnpickler` looks a global up only in the
mapping its reader gives, which names what each admitted global becomes (a real numpy function, an inert
stand-in for a Theano class), and refuses every other global before anything is called. With no mapping it
reads plain data only: dicts, lists, tuples, sets, strings, bytes and numbers need no global.

>>> import io, os, pickle
>>> AllowListUnpickler(io.BytesIO(pickle.dumps({"a": [1, 2.5, "x"]}))).load()
{'a': [1, 2.5, 'x']}
>>> AllowListUnpickler(io.BytesIO(pickle.dumps(os.getcwd))).load()
Traceback (most recent call last):
...
_pickle.UnpicklingError: it refers to posix.getcwd; only plain containers, numbers and strings are read
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import BinaryIO


class AllowListUnpickler(pickle.Unpickler):
    """``pickle.Unpickler`` whose globals are ``admitted[module, name]`` and nothing else.

    ``admitted`` maps the ``(module, name)`` the file names to the object it gets (the pickle's own names:
    a Python 2 pickle says ``numpy.core.multiarray``, whatever numpy now calls it). ``kwargs`` go to
    ``pickle.Unpickler`` (``encoding="latin1"`` for Python 2 pickles that hold numpy arrays).
    """

    def __init__(self, file: BinaryIO, admitted: Mapping[tuple[str, str], object] | None = None, **kwargs):
        super().__init__(file, **kwargs)
        self.admitted = dict(admitted or {})

    def find_class(self, module: str, name: str):
        if (module, name) in self.admitted:
            return self.admitted[module, name]
        allowed = (f"only plain data and the {len(self.admitted)} globals its reader admits are read" if self.admitted
                   else "only plain containers, numbers and strings are read")
        raise pickle.UnpicklingError(f"it refers to {module}.{name}; {allowed}")
