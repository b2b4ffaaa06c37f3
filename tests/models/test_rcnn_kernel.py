"""The RCNN's C++ step loops (reproq/models/rcnn_kernel.cpp) against its Python loops and the slow twin.

Tolerances: float64 agrees to rtol 1e-10 (the kernel's σ and tanh are libm's, only the order of a few additions
differs); float32 to rtol 1e-4, atol 1e-5, since the kernel's σ and tanh are its own polynomials (~1e-7 relative
error) and its fused passes round differently from torch's separate ops.
"""

from __future__ import annotations

import os
import shutil
import warnings

import pytest
import torch

from reproq.data.batching import pad_batch
from reproq.models import build_encoder, rcnn, rcnn_kernel
from reproq.models.rcnn import RCNNFunction, rcnn_reference

HAS_COMPILER = shutil.which(os.environ.get("CXX", "c++")) is not None  # what torch's cpp_extension calls
TOLERANCES = {torch.float64: dict(rtol=1e-10, atol=1e-12), torch.float32: dict(rtol=1e-4, atol=1e-5)}
VARIANTS = [{}, dict(order=1), dict(order=3), dict(scalar_gate=True)]
LENGTHS = [9, 4, 1, 0, 7]  # padding, and a row without a token
needs_compiler = pytest.mark.skipif(not HAS_COMPILER, reason="no C++ compiler: the C++ kernel cannot be built")


@pytest.fixture(params=["python", "cpp"])
def kernel(request, monkeypatch):
    """Runs a test with the Python step loops, then with the C++ kernel (where a failed build raises)."""
    if request.param == "cpp" and not HAS_COMPILER:
        pytest.skip("no C++ compiler: the C++ kernel cannot be built")
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", request.param)
    return request.param


def _model_and_batch(extra, dtype, d=40):
    """d = 40: the kernel's loops over d run both their vector body and their remainder (16 floats a vector)."""
    torch.manual_seed(1)
    model = build_encoder("rcnn", input_dim=5, hidden_dim=d, **extra).to(dtype)
    for p in model.parameters():  # larger weights than the init, so that every term matters
        torch.nn.init.uniform_(p, -0.6, 0.6)
    g = torch.Generator().manual_seed(2)
    _, mask = pad_batch([[1] * n for n in LENGTHS])
    x = torch.randn(len(LENGTHS), mask.shape[1], 5, generator=g, dtype=dtype, requires_grad=True)
    state = torch.randn(len(LENGTHS), model.config.order + 1, d, generator=g, dtype=dtype, requires_grad=True)
    return model, x, mask, state


def _values_and_gradients(run, model, x, state=None):
    """h, the final state, and the gradients of a fixed weighted sum of both w.r.t. x, every weight and the
    given state."""
    h, final = run()
    g = torch.Generator().manual_seed(3)
    loss = (h * torch.randn(h.shape, generator=g, dtype=h.dtype)).sum() + \
        (final * torch.randn(final.shape, generator=g, dtype=h.dtype)).sum()
    return [h, final, *torch.autograd.grad(loss, [x, *model.parameters(), *([] if state is None else [state])])]


@needs_compiler
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("extra", VARIANTS)
@pytest.mark.parametrize("rows_per_block", [2, 128])  # several blocks (and threads), or one
@pytest.mark.parametrize("with_state", [False, True])
def test_cpp_kernel_agrees_with_python_loops(monkeypatch, dtype, extra, rows_per_block, with_state):
    monkeypatch.setattr(rcnn, "ROWS_PER_BLOCK", rows_per_block)
    model, x, mask, state = _model_and_batch(extra, dtype)
    state = state if with_state else None
    results = {}
    for choice in ("python", "cpp"):
        monkeypatch.setenv("REPROQ_RCNN_KERNEL", choice)
        results[choice] = _values_and_gradients(lambda: model.run(x, mask, state), model, x, state)
    for ours, theirs in zip(results["cpp"], results["python"]):
        torch.testing.assert_close(ours, theirs, **TOLERANCES[dtype])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("extra", VARIANTS)
def test_each_kernel_agrees_with_slow_twin(kernel, dtype, extra):
    model, x, mask, state = _model_and_batch(extra, dtype)
    fast = _values_and_gradients(lambda: model.run(x, mask, state), model, x, state)
    slow = _values_and_gradients(lambda: rcnn_reference(model, x, mask, state=state, final_state=True),
                                 model, x, state)
    fast[0] = fast[0] * mask.unsqueeze(-1)  # the twin's h is zero at padding, as RCNN.run's
    for ours, theirs in zip(fast, slow):
        torch.testing.assert_close(ours, theirs, **TOLERANCES[dtype])


@pytest.mark.parametrize("with_state", [False, True])
def test_each_kernel_passes_gradcheck(kernel, with_state):
    g = torch.Generator().manual_seed(0)
    B, T, E, n, d = 3, 5, 4, 2, 4
    inputs = [torch.randn(*s, generator=g, dtype=torch.float64, requires_grad=True)
              for s in [(B, T, E), ((n + 1) * d, E), ((n + 1) * d,), (d, d), (B, n, d), (B, d)]]
    if not with_state:
        inputs[-1] = None
    pad = ~pad_batch([[1] * 5, [1] * 2, []])[1]  # a full row, a short one, an empty one
    assert torch.autograd.gradcheck(lambda *a: RCNNFunction.apply(*a, pad), inputs)


@needs_compiler
def test_cpp_kernel_gives_the_same_numbers_twice(monkeypatch):
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "cpp")
    monkeypatch.setattr(rcnn, "ROWS_PER_BLOCK", 2)  # several blocks, split over the threads
    model, x, mask, state = _model_and_batch({}, torch.float32)
    first, second = (_values_and_gradients(lambda: model.run(x, mask, state), model, x, state) for _ in range(2))
    assert all(torch.equal(a, b) for a, b in zip(first, second))


@needs_compiler
@pytest.mark.parametrize("inference", [False, True])  # in inference mode a view does not keep its base tensor
def test_pooled_buffers_are_handed_out_again_only_when_nothing_holds_them(inference):
    with torch.inference_mode(inference):
        _hand_out_buffers(rcnn_kernel.kernel(), 100_003 + 10 * inference)  # sizes no other test's buffers have


def _hand_out_buffers(k, columns):
    like, size = torch.empty(0), [3, columns]
    first = k.empty(size, like).fill_(1.0)
    second = k.empty(size, like)  # first is held: a buffer of its own
    assert second.data_ptr() != first.data_ptr()
    view, pointer = first[1], first.data_ptr()
    del first
    assert k.empty(size, like).data_ptr() != pointer  # a view still holds its storage
    assert torch.equal(view, torch.ones(columns))
    del view
    again = k.empty([3 * columns - 1], like)
    assert again.data_ptr() == pointer  # free now, and the smallest that fits


@needs_compiler
def test_the_outputs_of_one_call_survive_the_next_and_inference_mode_leaves_no_trap(monkeypatch):
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "cpp")
    g = torch.Generator().manual_seed(0)
    B, T, E, n, d = 3, 5, 4, 2, 4
    inputs = [torch.randn(*s, generator=g, requires_grad=True)
              for s in [(B, T, E), ((n + 1) * d, E), ((n + 1) * d,), (d, d), (B, n, d)]]
    with torch.inference_mode():  # buffers made there cannot be written outside it: they are not handed out there
        RCNNFunction.apply(*inputs)
    h, _ = RCNNFunction.apply(*inputs)  # h is a pooled buffer
    kept = h.clone()
    RCNNFunction.apply(inputs[0] * 2, *inputs[1:])[0].sum().backward()  # h and dP of a second call, h held
    assert torch.equal(h, kept)


@needs_compiler
@pytest.mark.skipif(not torch.backends.openmp.is_available(), reason="torch without OpenMP runs the passes on one thread")
def test_the_passes_run_on_torchs_threads_and_agree_there_with_the_python_loops(monkeypatch, one_thread):
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "cpp")
    k = rcnn_kernel.kernel()
    assert k.threads() == 1
    torch.set_num_threads(2)
    assert k.threads() == 2  # 1 where the kernel is built without OpenMP, whatever torch's count
    torch.manual_seed(1)
    model = build_encoder("rcnn", input_dim=5, hidden_dim=40).double()
    _, mask = pad_batch([[1] * (1 + i % 9) for i in range(70)])  # 70 rows: several tasks of 16 for each thread
    x = torch.randn(70, mask.shape[1], 5, dtype=torch.float64, requires_grad=True)
    cpp = _values_and_gradients(lambda: model.run(x, mask), model, x)
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "python")
    python = _values_and_gradients(lambda: model.run(x, mask), model, x)
    for a, b in zip(cpp, python):
        torch.testing.assert_close(a, b, **TOLERANCES[torch.float64])


@needs_compiler
def test_the_environment_chooses_the_kernel(monkeypatch):
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "cpp")
    assert rcnn_kernel.kernel() is not None  # built, not silently replaced by the Python loops
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "python")
    assert rcnn_kernel.kernel() is None
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "fortran")
    with pytest.raises(ValueError, match="fortran"):
        rcnn_kernel.kernel()


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@needs_compiler
def test_auto_takes_the_kernel_on_any_thread_count(monkeypatch, one_thread):
    monkeypatch.delenv("REPROQ_RCNN_KERNEL", raising=False)
    assert rcnn_kernel.kernel() is not None
    torch.set_num_threads(2)
    assert rcnn_kernel.kernel() is not None


def test_a_failed_build_falls_back_with_one_warning_or_raises_when_cpp_is_asked_for(monkeypatch, one_thread):
    monkeypatch.setattr(rcnn_kernel, "_build", lambda: (None, "RuntimeError: Ninja is required"))
    rcnn_kernel._warn.cache_clear()
    monkeypatch.delenv("REPROQ_RCNN_KERNEL", raising=False)
    with pytest.warns(RuntimeWarning, match="Ninja is required"):
        assert rcnn_kernel.kernel() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rcnn_kernel.kernel() is None  # once is enough
    monkeypatch.setenv("REPROQ_RCNN_KERNEL", "cpp")
    with pytest.raises(RuntimeError, match="Ninja is required"):
        rcnn_kernel.kernel()
    rcnn_kernel._warn.cache_clear()


def test_a_lock_left_by_a_killed_build_does_not_hang_the_next(monkeypatch, tmp_path):
    # torch 2.13 waits forever on the 'lock' file of a build that was killed (pytorch/pytorch#189245): whoever holds
    # our OS lock removes it before building
    from torch.utils import cpp_extension

    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    name, _, folder = rcnn_kernel.target()
    folder.mkdir(parents=True)
    (folder / "lock").touch()  # what a build killed mid-way leaves behind
    seen = {}

    def load(**options):
        seen.update(stale_lock=(folder / "lock").exists(), folder=options["build_directory"])
        (folder / f"{name}.so").write_bytes(b"compiled")
        return "built"

    monkeypatch.setattr(cpp_extension, "load", load)
    assert rcnn_kernel._build.__wrapped__() == ("built", None)
    assert seen == {"stale_lock": False, "folder": str(folder)}


@pytest.mark.slow
def test_a_first_use_build_killed_mid_way_does_not_hang_the_next_use(tmp_path):
    """A process killed while it compiles the kernel at first use (its whole process group, as Ctrl-C or a cancelled
    job kills it) leaves torch's lock file behind; the next first use still builds and loads the kernel."""
    import os
    import signal
    import subprocess
    import sys
    import time


    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp_path), "REPROQ_RCNN_KERNEL": "cpp"}
    use = [sys.executable, "-c", "from reproq.models import rcnn_kernel; assert rcnn_kernel.kernel() is not None"]
    os.environ["TORCH_EXTENSIONS_DIR"], saved = str(tmp_path), os.environ.get("TORCH_EXTENSIONS_DIR")
    try:
        folder = rcnn_kernel.target()[2]
    finally:
        os.environ.pop("TORCH_EXTENSIONS_DIR") if saved is None else os.environ.update(TORCH_EXTENSIONS_DIR=saved)
    first = subprocess.Popen(use, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300  # a loaded machine starts the compiler late
    while not (folder / "lock").exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (folder / "lock").exists() and first.poll() is None, "the first use never started building"
    time.sleep(2)  # well into the compiler
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert (folder / "lock").exists()  # what torch 2.13 then waits on for ever
    second = subprocess.run(use, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]


def test_a_compiled_kernel_changed_since_it_was_built_is_not_loaded(monkeypatch, tmp_path):
    """Issue 55: a .so planted in the extension folder ran its code, and the user saw only 'could not be built'. The
    kernel is loaded only where its file is the one this study built (its SHA-256 recorded then); another is removed
    and built again, in one warning."""
    from torch.utils import cpp_extension

    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    name, _, folder = rcnn_kernel.target()
    assert folder.is_relative_to(tmp_path) and folder.parent.name == "reproq"
    builds = []

    def load(**options):
        builds.append((folder / f"{name}.so").exists())  # what was there when the build began
        options["extra_ldflags"].append("-ltorch")  # as torch's own load does to the lists it is given
        (folder / f"{name}.so").write_bytes(b"compiled by the study")
        return "built"

    monkeypatch.setattr(cpp_extension, "load", load)
    assert rcnn_kernel._build.__wrapped__() == ("built", None) and rcnn_kernel.trusted(folder, name)
    assert rcnn_kernel._build.__wrapped__() == ("built", None)  # reloaded: the file is the one built
    (folder / f"{name}.so").write_bytes(b"planted")
    assert not rcnn_kernel.trusted(folder, name)
    with pytest.warns(RuntimeWarning, match="not the file this study built there"):
        assert rcnn_kernel._build.__wrapped__() == ("built", None)
    assert builds == [False, True, False]  # the planted file was removed before the build, never loaded
    assert rcnn_kernel.target()[2] == folder  # a build leaves the folder's key as it was (torch's load had grown it)
    assert (folder / f"{name}.so").read_bytes() == b"compiled by the study"
