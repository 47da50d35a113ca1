"""Arrow's default memory pool for mtdiag's own processes: the system allocator.

pandas keeps every text in Arrow strings, and Arrow's own default pool (mimalloc) held about 20 MB more from the
first texts on and kept what it freed (``docs/scaling.md``). Arrow reads ``ARROW_DEFAULT_MEMORY_POOL`` once, when
it first allocates, so the variable is set where a process of mtdiag's starts — the ``mtdiag`` command
(:func:`mtdiag.cli.run`), the dashboard's process (``mtdiag serve`` and :mod:`mtdiag.ui.dashboard`), the benchmarks
and the test session — and never by ``import mtdiag``: a program that imports the package keeps its own
environment and its own allocator.
"""

from __future__ import annotations

import os

VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"


def use_the_system_allocator() -> None:
    """Make the system allocator Arrow's default memory pool in this process (and the processes it starts).

    Nothing changes when :data:`VARIABLE` is set already (a value set wins). Call it before the process's first Arrow
    allocation."""
    os.environ.setdefault(VARIABLE, "system")
