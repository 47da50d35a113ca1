"""The frames behind the dashboard's pages: one module per page (``docs/architecture.md``, "Views mirror pages").

Every function takes a :class:`~mtdiag.api.Report` — the whole test set's, or a slice's
(:func:`mtdiag.slices.slice_report`: a slice is a report of its own) — and returns pandas frames; nothing here
scores anything and nothing imports Streamlit. A page draws what its view returns.
"""
