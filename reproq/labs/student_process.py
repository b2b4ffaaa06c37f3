"""The process a student's solution cells run in when a lab is graded (:mod:`reproq.labs.apart` starts it as a script,
``python -I -S student_process.py``): it imports nothing of reproq and sees only what the grader sends it.

One JSON object a line on stdin, one answer a line on stdout. The first line holds the folder of the packages the lab
allows, their names and the student's top-level statements (each already read by the grader: a statement the
grader does not run comes as the message it fails with); every later line is one call of a function the statements
defined, its arguments encoded as :func:`decode` reads them, answered by its result as :func:`encode` writes it, or by
the error it raised. What the student prints goes to stderr, which the grader ignores; no file can be written
(a file size limit of 0) and no module outside the allowed ones imported.
"""

import builtins
import json
import sys

# names of the builtins a student's code does not get: running other code, reaching into objects and frames, files
WITHHELD = ("__import__", "breakpoint", "compile", "delattr", "eval", "exec", "getattr", "globals", "help", "input",
            "locals", "memoryview", "open", "setattr", "vars")


def decode(value, numpy=None, torch=None):
    """A JSON value as :func:`encode` wrote it: ``{"ndarray": [...], "dtype": "float64"}`` a NumPy array (of numbers
    only: another dtype reads as float64), a tensor where it was one and torch is given, lists and dicts item by item,
    the rest as it is."""
    if isinstance(value, dict) and {"ndarray", "dtype"} <= set(value) <= {"ndarray", "dtype", "tensor"} and numpy:
        try:
            dtype = numpy.dtype(value["dtype"]) if numpy.dtype(value["dtype"]).kind in "biuf" else float
        except TypeError:
            dtype = float
        array = numpy.asarray(value["ndarray"], dtype=dtype)
        return torch.from_numpy(array) if value.get("tensor") and torch else array
    if isinstance(value, dict):
        return {k: decode(v, numpy, torch) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v, numpy, torch) for v in value]
    return value


def encode(value, depth=0):
    """A value as plain JSON, both ways between the grader and the student's process: a number as a float (an int as
    an int, a bool as a bool), a NumPy array or a tensor as ``{"ndarray": nested lists, "dtype": ...}``, a list,
    tuple or dict item by item; anything else is a TypeError."""
    if depth > 32:
        raise TypeError("nested more than 32 deep")
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    kind = type(value).__module__.split(".")[0]
    tensor = kind == "torch" and hasattr(value, "detach")
    if tensor:
        value, kind = value.detach().cpu().numpy(), "numpy"
    if kind == "numpy" and hasattr(value, "tolist"):
        plain = value.tolist()
        if not isinstance(plain, list):
            return _plain(plain)
        return {"ndarray": _plain(plain), "dtype": str(value.dtype), **({"tensor": True} if tensor else {})}
    if isinstance(value, list | tuple):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v, depth + 1) for k, v in value.items()}
    raise TypeError(f"a {type(value).__name__}, not a number, an array or a list, tuple or dict of them")


def _plain(value):
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value if isinstance(value, bool | int) else float(value)


def _builtins(allowed):
    given = {k: v for k, v in vars(builtins).items() if k not in WITHHELD}

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level or name.split(".")[0] not in allowed:
            raise ImportError(f"the grader runs your code with {', '.join(sorted(allowed))} only, not {name}")
        return builtins.__import__(name, globals, locals, fromlist, level)

    given["__import__"] = guarded_import
    return given


def _differentiated(function, args, wanted, torch):
    """``function(*args)`` and, where it is a scalar tensor, its gradient with respect to each argument whose index is
    in ``wanted`` (a float tensor the grader's autograd follows: :meth:`reproq.labs.apart.StudentProcess.remote`),
    computed by torch's autograd over the student's own operations; a result that autograd cannot follow back (held
    by NumPy, detached) has a gradient of zeros, as it would have in the student's kernel."""
    for i in wanted:
        args[i] = args[i].detach().requires_grad_(True)
    value = function(*args)
    follows = isinstance(value, torch.Tensor) and value.requires_grad and value.numel() == 1
    found = torch.autograd.grad(value.sum(), [args[i] for i in wanted], allow_unused=True) if follows else \
        [None] * len(wanted)
    gradients = [torch.zeros_like(args[i]) if g is None else g for i, g in zip(wanted, found)]
    return {"value": encode(value), "gradients": encode(gradients)}


def _failing(why):
    def failed(*args, **kwargs):
        raise RuntimeError(why)

    return failed


def main():
    answers = sys.stdout
    sys.stdout = sys.stderr  # the student's prints
    request = json.loads(sys.stdin.readline())
    sys.path[:] = [*sys.path, request["packages"]]
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    except (ImportError, ValueError, OSError):  # not on Windows
        pass
    allowed = set(request["allowed"])
    for name in allowed:
        __import__(name)
    numpy, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    namespace = {"__builtins__": _builtins(allowed), "__name__": "__student__"}
    for statement in request["statements"]:
        why = statement.get("refused")
        if why is None:
            try:
                exec(compile(statement["source"], statement["where"], "exec", dont_inherit=True), namespace)
            except BaseException as error:  # noqa: BLE001 - whatever it raised is the student's to read
                why = f"{statement['where']} raised {type(error).__name__}: {error}"
        for name in statement["names"] if why else ():  # what it defines fails wherever it is used, with why
            namespace[name] = _failing(why)
    defined = sorted(k for k, v in namespace.items() if not k.startswith("__") and callable(v))
    answers.write(json.dumps({"defined": defined}) + "\n")
    answers.flush()
    for line in sys.stdin:
        call = json.loads(line)
        try:
            args = decode(call["args"], numpy, torch)
            result = _differentiated(namespace[call["function"]], args, call["gradients"], torch) \
                if call.get("gradients") else {"value": encode(namespace[call["function"]](*args))}
        except BaseException as error:  # noqa: BLE001
            result = {"error": f"{type(error).__name__}: {error}"}
        answers.write(json.dumps(result, allow_nan=True) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
