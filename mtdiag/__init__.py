"""mtdiag — diagnostic evaluation of machine-translation output.

The core (everything outside :mod:`mtdiag.ui`) is pure Python + numpy/pandas and never imports Streamlit.
Entry point: :func:`mtdiag.api.evaluate`.
"""

__version__ = "0.1.0"
