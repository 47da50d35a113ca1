"""mtdiag — see where and how machine translation goes wrong.

The public API is one import: ``import mtdiag``. The common jobs take plain Python lists and are one call each
(:mod:`mtdiag.pipeline.from_lists`, the README's "Python"):

- :func:`score` — every metric of every system (corpus and segment scores, signatures): a :class:`Scores`;
- :func:`worst_first` — the worst-first queue of (system, segment) pairs;
- :func:`error_spans` — predicted error spans, where in an output the error is;
- :func:`score_slice` — the scores of the segments an expression selects;
- :func:`html_report` — the self-contained HTML report.

The pieces under them are here too: :class:`EvalSet` and :func:`evalset_from_lists` / :func:`load_folder` /
:func:`load_path` (the data; :class:`InputError` names a bad file and line), :class:`Options`, :func:`evaluate` and
:class:`Report` (scoring), :func:`significance` and :func:`export_comparison` (paired tests and their tables).

Importing the package runs nothing and changes nothing outside it: each name is imported when it is first used
(PEP 562's module ``__getattr__``), so ``import mtdiag`` loads no library, and the environment, the allocator and
the warning filters stay the caller's (Arrow's memory pool is set where mtdiag's own processes start:
:mod:`mtdiag.core.arrow_memory`). The core — everything outside :mod:`mtdiag.ui` — never imports Streamlit.
"""

from importlib import import_module

__version__ = "0.1.0"

_PUBLIC = {
    "score": "mtdiag.pipeline.from_lists",
    "worst_first": "mtdiag.pipeline.from_lists",
    "error_spans": "mtdiag.pipeline.from_lists",
    "score_slice": "mtdiag.pipeline.from_lists",
    "html_report": "mtdiag.pipeline.from_lists",
    "Scores": "mtdiag.pipeline.from_lists",
    "EvalSet": "mtdiag.core.evalset",
    "evalset_from_lists": "mtdiag.core.evalset",
    "InputError": "mtdiag.core.errors",
    "load_folder": "mtdiag.io",
    "load_path": "mtdiag.io",
    "Options": "mtdiag.scoring.evaluate",
    "Report": "mtdiag.scoring.evaluate",
    "evaluate": "mtdiag.scoring.evaluate",
    "significance": "mtdiag.analysis.significance",
    "export_comparison": "mtdiag.report.export",
}
"""Each public name and the module that defines it (the front door hands it on when first asked for)."""

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str):
    """A public name of :data:`_PUBLIC`, imported from its module on first use (PEP 562) and kept."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'mtdiag' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
