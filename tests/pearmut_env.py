"""The real Pearmut for the tests: a Python >= 3.12 with ``pearmut`` installed (the requirement line of
``requirements-dev.txt``, which the project's own environment skips below Python 3.12).

:func:`pearmut_python` returns that interpreter: the test environment's own when it is 3.12 or newer and has
Pearmut; else a virtual environment made once from a Python >= 3.12 found on this machine (``$MTDIAG_PYTHON312``,
``python3.12`` … on ``PATH``, pyenv's versions) in a cache folder (``$MTDIAG_TEST_CACHE``, else
``~/.cache/mtdiag-tests``), named for the requirement, reused by every later run. Where none can be had the tests
are skipped with the reason — except under CI (``CI`` set), where the machine must have one (``make test`` on the
project's image does) and its absence fails the tests.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MINIMUM = (3, 12)


def requirement() -> str:
    """Pearmut's requirement as ``requirements-dev.txt`` pins it (its lower bound), without the marker."""
    for line in (REPO / "requirements-dev.txt").read_text(encoding="utf-8").splitlines():
        if line.strip().lower().startswith("pearmut"):
            return line.split(";")[0].strip()
    raise AssertionError("requirements-dev.txt has no pearmut line")


def _version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or len(out.stdout.split()) != 2:  # a pyenv shim of a version not activated fails
        return None
    return tuple(int(v) for v in out.stdout.split())


def find_python() -> str | None:
    """A Python >= 3.12 of this machine: ``$MTDIAG_PYTHON312``, ``python3.12``/``3.13``/``3.14``/``python3`` on
    ``PATH``, then pyenv's installed versions (newest first)."""
    candidates = [os.environ.get("MTDIAG_PYTHON312")]
    candidates += [shutil.which(name) for name in ("python3.12", "python3.13", "python3.14", "python3")]
    root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    installed = glob.glob(f"{root}/versions/3.*/bin/python3")
    candidates += sorted(installed, key=lambda path: [int(p) for p in re.findall(r"\d+", Path(path).parts[-3])],
                         reverse=True)
    for python in filter(None, candidates):
        version = _version(python)
        if version is not None and version >= MINIMUM:
            return python
    return None


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the Pearmut tests: {reason}", pytrace=False)
    pytest.skip(reason)


@functools.cache
def _prepared() -> str | tuple[str]:
    """The interpreter, or ``(reason,)`` when none can be had (cached for the session)."""
    if sys.version_info >= MINIMUM and _has_pearmut(sys.executable):
        return sys.executable
    wanted = requirement()
    cache = Path(os.environ.get("MTDIAG_TEST_CACHE", Path.home() / ".cache" / "mtdiag-tests"))
    venv = cache / f"pearmut-{hashlib.sha256(wanted.encode()).hexdigest()[:12]}"
    python = venv / "bin" / "python"
    if python.exists() and _has_pearmut(str(python)):
        return str(python)
    base = find_python()
    if base is None:
        return (f"Pearmut needs Python >= 3.12 and none was found (set MTDIAG_PYTHON312, or put python3.12 on "
                "PATH)",)
    cache.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix="pearmut-", dir=cache))
    try:
        steps = [[base, "-m", "venv", str(building)],
                 [str(building / "bin" / "python"), "-m", "pip", "install", "--quiet", wanted]]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                return (f"could not install {wanted} with {base}: {' '.join(step[-3:])}: "
                        f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}",)
        if venv.exists() and not _has_pearmut(str(python)):
            shutil.rmtree(venv, ignore_errors=True)  # a broken one
        try:  # complete or absent: a run stopped half-way leaves no half-made venv (its scripts' first lines name
            building.rename(venv)  # the old folder; only its python is used, which finds its venv)
        except OSError:
            pass  # another run made it meanwhile
    finally:
        shutil.rmtree(building, ignore_errors=True)
    if not _has_pearmut(str(python)):
        return (f"{venv}: Pearmut is not installed there after installing it",)
    return str(python)


def _has_pearmut(python: str) -> bool:
    done = subprocess.run([python, "-c", "import importlib.metadata as m; m.version('pearmut')"],
                          capture_output=True, timeout=120)
    return done.returncode == 0


def pearmut_python() -> str:
    """A Python >= 3.12 with Pearmut installed; skips (or under CI fails) the calling test when none can be had."""
    prepared = _prepared()
    if isinstance(prepared, tuple):
        _unavailable(prepared[0])
    return prepared


def pearmut(root: Path, *args: str, python: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """``pearmut ARGS`` (its command line: ``python -m pearmut.cli`` has no ``__main__`` guard, so its ``main``)
    with ``PEARMUT_ROOT=root``, run in ``root``."""
    python = python or pearmut_python()
    code = "import sys; from pearmut.cli import main; sys.argv = ['pearmut', *sys.argv[1:]]; main()"
    return subprocess.run([python, "-c", code, *args], capture_output=True, text=True, timeout=timeout, cwd=root,
                          env=dict(os.environ, PEARMUT_ROOT=str(root)), stdin=subprocess.DEVNULL)


def small_set():
    """A small set whose outputs hold characters outside the Basic Multilingual Plane (emoji, a CJK Extension B
    character) before and inside predicted spans, a repetition loop (a critical check mark overlapping a phrase),
    and system names Pearmut refuses (``12``: only digits) or would put into its markup unescaped (``x"y``)."""
    from mtdiag.core.evalset import evalset_from_lists

    src = ["Le chat est assis sur le tapis.", "Il pleut beaucoup aujourd'hui.", "Nous aimons les pommes rouges.",
           "Le train part à midi.", "Elle lit un livre ancien.", "Les enfants jouent dehors."]
    ref = ["The cat is sitting on the mat.", "It is raining a lot today.", "We love red apples.",
           "The train leaves at noon.", "She is reading an old book.", "The children are playing outside."]
    hyps = {
        "A": ["😀😀 The dog is sitting on the rug.", "It rains a lot today 🌧.", "We love red apples.",
              "The train leaves at noon.", "She reads an ancient book.", "The kids play outside."],
        "B": ["The cat sits on the mat.", "It is raining heavily today.", "We like green 𠀋 pears.",
              "The bus leaves at midnight.", "She is reading an old book.", "The children are playing outside."],
        "12": ["The cat is sitting on the mat.", "Rain rain rain rain rain rain rain.", "We love red apples.",
               "The train departs at twelve.", "She is reading a book.", "Children play outdoors."],
        'x"y': ["A feline rests upon the carpet.", "It is raining a lot today.", "We love the red apples.",
                "The train leaves at noon 🚆.", "She reads an old novel.", "The children are playing outside."],
    }
    return evalset_from_lists({"A": ref}, hyps, src=src, name="small")
