"""Python's thread switch interval shortened while a thread must get the GIL back quickly (:func:`quick_gil_handoff`).

A thread waiting for the GIL waits up to the switch interval (5 ms by default) for the thread running Python to give
it up. Two of mtdiag's threads pay that wait many times over: language detection (CLD2 gives the GIL back at every
text, :mod:`mtdiag.triage.checks.languages`) and the dashboard's import thread at start (:mod:`mtdiag.ui.serve`:
the server answering the browser's requests waits for it between two of its steps)."""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

HANDOFF_S = 1e-5
"""Python's thread switch interval inside :func:`quick_gil_handoff`."""


class _Handoff:
    """The switch interval shortened while any thread is inside :func:`quick_gil_handoff`, restored when the last
    one is done."""

    def __init__(self):
        self.lock = threading.Lock()
        self.users = 0
        self.saved = sys.getswitchinterval()


_HANDOFF = _Handoff()


@contextmanager
def quick_gil_handoff() -> Iterator[None]:
    """Shorten Python's thread switch interval (to :data:`HANDOFF_S`) for the duration: other threads wait less.

    pycld2 releases the GIL during each detection, and takes it back when the text is read. When another thread runs
    Python code meanwhile (the metrics scoring on the second thread, another session's page), the detecting thread
    waits up to the switch interval (5 ms) for it at every text, which is 30 times the detection itself. Measured
    on the 9,793 distinct outputs of WMT21 en-de: 0.15 s alone, 50 s beside a thread running Python, 0.9 s with this
    interval. ``mtdiag triage`` on that set lost 1.2 s there. The interval is the process's: it is set when the first
    thread enters and restored when the last one leaves."""
    with _HANDOFF.lock:
        if _HANDOFF.users == 0:
            _HANDOFF.saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_HANDOFF.saved, HANDOFF_S))
        _HANDOFF.users += 1
    try:
        yield
    finally:
        with _HANDOFF.lock:
            _HANDOFF.users -= 1
            if _HANDOFF.users == 0:
                sys.setswitchinterval(_HANDOFF.saved)
