"""Builds the RCNN's C++ step loops (``rcnn_kernel.cpp``) at first use, or says why the Python loops run instead.

``torch.utils.cpp_extension.load`` compiles the source once per machine into torch's extension folder
(``~/.cache/torch_extensions``, or ``$TORCH_EXTENSIONS_DIR``) and reloads it from there afterwards; it needs a C++
compiler and ``ninja``. torch 2.13 guards a build with a ``lock`` file that only a clean exit removes: a process killed
mid-build (Ctrl-C, the OOM killer, a cancelled job) leaves it, and every later ``load`` waits for it forever, silently
(pytorch/pytorch#189245; fixed upstream after 2.13 by an OS lock). So the build runs under an OS lock of our own
(``filelock``: released by the kernel when its holder dies), and whoever holds it removes a ``lock`` file left there,
which no live build can then own. ``REPROQ_RCNN_KERNEL`` chooses: ``cpp`` (a failed build raises), ``python`` (the loops of
:mod:`reproq.models.rcnn`), or unset / ``auto`` (the C++ kernel, else the Python loops with one warning naming why).
"""

from __future__ import annotations

import warnings
from functools import cache
from pathlib import Path
from types import ModuleType

import torch

from reproq import run_settings

SOURCE = Path(__file__).with_name("rcnn_kernel.cpp")
CHOICES = ("auto", "cpp", "python")

# The CPU's vector instructions, for gcc to vectorize the fused element-wise passes; the module name carries the
# capability, so that a cached build never runs on a CPU without its instructions.
_TARGET_FLAGS = {"AVX512": ["-mavx512f", "-mavx512dq", "-mavx512bw", "-mavx512vl", "-mavx2", "-mfma"],
                 "AVX2": ["-mavx2", "-mfma"]}

# at::parallel_for shares the rows of the kernel's element-wise passes among torch's threads only where the kernel is
# compiled with OpenMP; without it the passes run on one thread whatever torch.get_num_threads() says. The library
# it links (libgomp.so.1) is the one torch has already loaded, so the two share one pool of threads and its count.
_OPENMP_FLAGS = ["-fopenmp"] if torch.backends.openmp.is_available() else []


BUILD_WAIT_S = 900  # how long to wait for another process's build of the kernel before running the Python loops


@cache
def _build() -> tuple[ModuleType | None, str | None]:
    """(the compiled module, None), or (None, why it could not be built)."""
    capability = torch.backends.cpu.get_cpu_capability()
    name = f"reproq_rcnn_kernel_{capability.lower()}"
    try:
        from filelock import FileLock
        from torch.utils.cpp_extension import _get_build_directory, load

        folder = Path(_get_build_directory(name, verbose=False))  # where load builds it (private, but the one rule)
        with FileLock(folder.with_name(f"{folder.name}.reproq-lock"), timeout=BUILD_WAIT_S):
            (folder / "lock").unlink(missing_ok=True)  # torch's, left by a killed build: nobody else builds now
            module = load(name=name, sources=[str(SOURCE)], build_directory=str(folder),
                          extra_cflags=["-O3", *_TARGET_FLAGS.get(capability, []), *_OPENMP_FLAGS],
                          extra_ldflags=_OPENMP_FLAGS)
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
