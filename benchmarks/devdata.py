"""Where the benchmarks find the development data: ``--data DIR``, else the environment variable
``MTDIAG_DEV_DATA``, else ``tests/data/dev`` in the repository (the same sets the tests read, with their provenance
in ``tests/data/README.md``).

The folder holds real test sets (``wmt21/en-de``, ``wmt21/zh-en``, ``wmt21/en-ja``, ``ted/zh-en``,
``terminology/...``): the WMT21 news test sets and the systems' outputs (github.com/wmt-conference/
wmt21-news-systems) and the MQM ratings of WMT21 news and TED talks (github.com/google/wmt-mqm-human-evaluation),
one segment per line. When a folder a benchmark needs is missing it says so in one line and stops.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mtdiag.core.arrow_memory import use_the_system_allocator

use_the_system_allocator()  # the benchmarks measure mtdiag as its own processes run it (docs/scaling.md)

ENV_VAR = "MTDIAG_DEV_DATA"
DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "dev"
SOURCES = ("WMT21 news test sets and system outputs: github.com/wmt-conference/wmt21-news-systems; MQM ratings "
           "(WMT21 news, TED): github.com/google/wmt-mqm-human-evaluation")


def root(given: str | os.PathLike | None = None) -> Path:
    """The development-data folder: ``given``, else ``$MTDIAG_DEV_DATA``, else the repository's ``tests/data/dev``."""
    return Path(given or os.environ.get(ENV_VAR) or DEFAULT)


def folder(name: str, given: str | os.PathLike | None = None) -> Path:
    """The test-set folder ``name`` (e.g. ``wmt21/en-de``) of the development data; if it is missing, one line
    naming it and where the data comes from, and exit status 1."""
    path = root(given) / name
    if not path.is_dir():
        sys.exit(f"missing {path}: the benchmark needs the development data ({name}); set {ENV_VAR} (or --data, "
                 f"where a benchmark takes it) to the folder that holds it (sources: {SOURCES})")
    return path
