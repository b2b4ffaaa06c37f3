"""Builds the RCNN's C++ step loops (``rcnn_kernel.cpp``) at first use, or says why the Python loops run instead.

``torch.utils.cpp_extension.load`` compiles the source once per machine into a folder of the study's own in torch's
extension folder (``~/.cache/torch_extensions/reproq``, or under ``$TORCH_EXTENSIONS_DIR``) and reloads it from there
afterwards, only while the compiled file is the one it built (:func:`trusted`); it needs a C++
compiler and ``ninja``. torch 2.13 guards a build with a ``lock`` file that only a clean exit removes: a process killed
mid-build (Ctrl-C, the OOM killer, a cancelled job) leaves it, and every later ``load`` waits for it forever, silently
(pytorch/pytorch#189245; fixed upstream after 2.13 by an OS lock). So the build runs under an OS lock of our own
(``filelock``: released by the kernel when its holder dies), and whoever holds it removes a ``lock`` file left there,
which no live build can then own. ``REPROQ_RCNN_KERNEL`` chooses: ``cpp`` (a failed build raises), ``python`` (the loops of
:mod:`reproq.models.rcnn`), or unset / ``auto`` (the C++ kernel, else the Python loops with one warning naming why).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType

import torch

from reproq import atomic, run_settings

SOURCE = Path(__file__).with_name("rcnn_kernel.cpp")
CHOICES = ("auto", "cpp", "python")

# The CPU's vector instructions, for gcc to vectorize the fused element-wise passes; the module name carries the
# capability, so that a cached build never runs on a CPU without its instructions.
_TARGET_FLAGS = {"AVX512": ("-mavx512f", "-mavx512dq", "-mavx512bw", "-mavx512vl", "-mavx2", "-mfma"),
                 "AVX2": ("-mavx2", "-mfma")}

# at::parallel_for shares the rows of the kernel's element-wise passes among torch's threads only where the kernel is
# compiled with OpenMP; without it the passes run on one thread whatever torch.get_num_threads() says. The library
# it links (libgomp.so.1) is the one torch has already loaded, so the two share one pool of threads and its count.
_OPENMP_FLAGS = ("-fopenmp",) if torch.backends.openmp.is_available() else ()


BUILD_WAIT_S = 900  # how long to wait for another process's build of the kernel before running the Python loops


BUILT = "built.json"  # beside the compiled kernel: the SHA-256 of the file this study built


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def trusted(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds no compiled kernel yet, or the one this study built there: its file's SHA-256 the one
    recorded in ``built.json`` when it was built (a file planted or changed since is not loaded)."""
    compiled, record = folder / f"{name}.so", folder / BUILT
    if not compiled.exists():
        return True
    try:
        return json.loads(record.read_text()).get("sha256") == _sha256(compiled)
    except (OSError, ValueError, AttributeError):
        return False


def target() -> tuple[str, list[str], Path]:
    """The kernel's module name (its CPU's instructions in it), its compiler flags, and the folder of the study's own
    it is built into: ``reproq/<name>_<key>`` in torch's extension folder, the key hashing the source, the flags and
    torch's version."""
    from torch.utils.cpp_extension import _get_build_directory

    capability = torch.backends.cpu.get_cpu_capability()
    name = f"reproq_rcnn_kernel_{capability.lower()}"
    flags = ["-O3", *_TARGET_FLAGS.get(capability, []), *_OPENMP_FLAGS]
    key = hashlib.sha256(SOURCE.read_bytes() + repr((flags, torch.__version__)).encode()).hexdigest()[:16]
    root = Path(_get_build_directory(name, verbose=False)).parent  # torch's extension folder (private, the one rule)
    return name, flags, root / "reproq" / f"{name}_{key}"


@cache
def _build() -> tuple[ModuleType | None, str | None]:
    """(the compiled module, None), or (None, why it could not be built). It is built into a folder of the study's
    own (``reproq/`` in torch's extension folder, named by the source, its flags and torch's version) and loaded only
    where :func:`trusted`: a compiled file changed since this study built it is removed and built again, in one
    warning."""
    try:
        from filelock import FileLock
        from torch.utils.cpp_extension import load

        name, flags, folder = target()
        folder.mkdir(parents=True, exist_ok=True)
        with FileLock(folder.with_name(f"{folder.name}.reproq-lock"), timeout=BUILD_WAIT_S):
            if not trusted(folder, name):
                warnings.warn(f"{folder / (name + '.so')}: not the file this study built there (its SHA-256 is not "
                              f"the one in {BUILT}); it is removed and the kernel built again", RuntimeWarning,
                              stacklevel=3)
                shutil.rmtree(folder)
                folder.mkdir(parents=True)
            (folder / "lock").unlink(missing_ok=True)  # torch's, left by a killed build: nobody else builds now
            # copies: torch's load appends its own flags to the lists it is given (it had grown _OPENMP_FLAGS, and so
            # the folder's key, for every later build in the process)
            module = load(name=name, sources=[str(SOURCE)], build_directory=str(folder), extra_cflags=list(flags),
                          extra_ldflags=list(_OPENMP_FLAGS))
            atomic.write_json(folder / BUILT, {"sha256": _sha256(folder / f"{name}.so"), "folder": folder.name})
    except Exception as error:  # no compiler, no ninja, a build error, a build elsewhere too long: fall back
        return None, f"{type(error).__name__}: {error}"
    return module, None


@cache
def _warn(reason: str) -> None:
    warnings.warn(f"reproq's RCNN C++ kernel could not be built, using the slower Python loops ({reason}); "
                  f"set REPROQ_RCNN_KERNEL=python to choose them without this warning", RuntimeWarning, stacklevel=4)


def kernel() -> ModuleType | None:
    """The compiled module with ``forward`` and ``backward``, or None where the Python loops are to run."""
    choice = run_settings.read("rcnn_kernel", "auto") or "auto"
    if choice not in CHOICES:
        raise ValueError(f"REPROQ_RCNN_KERNEL must be one of {CHOICES}, got {choice!r}")
    if choice == "python":
        return None
    module, reason = _build()
    if module is None:
        if choice == "cpp":
            raise RuntimeError(f"REPROQ_RCNN_KERNEL=cpp, but the RCNN C++ kernel could not be built: {reason}")
        _warn(reason)
    return module
