"""mtdiag — diagnostic evaluation of machine-translation output.

The core (everything outside :mod:`mtdiag.ui`) is pure Python + numpy/pandas and never imports Streamlit.
Entry point: :func:`mtdiag.scoring.evaluate.evaluate`.

Importing mtdiag makes the system allocator Arrow's default memory pool, unless ``ARROW_DEFAULT_MEMORY_POOL`` is
already set: pandas keeps every text in Arrow strings, and Arrow's own default (mimalloc) holds about 20 MB more
from the first texts on and keeps what it freed (``docs/scaling.md``). It must be set before Arrow's first
allocation, which is why it is here.
"""

import os

os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

__version__ = "0.1.0"
