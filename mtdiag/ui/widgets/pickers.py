"""The choice controls of a page (select boxes, multiselects, segmented controls, radio buttons): each value
follows the data (:func:`follow`), and the options Streamlit renders as Markdown are escaped (:func:`as_text`).

A widget's ``format_func`` stays in the session's widget state for the life of the session (Streamlit keeps it
with the widget): pages pass a dict's ``__getitem__`` or a function of this package, never a lambda defined in the
page — its globals are the page's, with the report, which a closed session would then keep alive.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import streamlit as st

from mtdiag.core import highlight
from mtdiag.ui import state

FOLLOWED = "_mtdiag_followed"  # session key: {control key: the data key its value was chosen on}
_UNSET = object()


def follow(key: str, options: Sequence, default) -> None:
    """Make the choice control ``key`` (drawn right after, without a default of its own) hold a value among ``options``.

    The value: the user's choice while it is among them and the data is the data it was made on, else ``default``
    (a list for a multiselect: the choices still among ``options`` are kept, ``default`` when none is).

    The value is *assigned* in ``st.session_state`` — Streamlit then sends it to the browser with the
    widget. Deleting the key, or leaving a value that is no longer an option, is not enough: a keyed widget keeps
    its identity when its options change, so the browser went on showing the old set's choice (a Baseline of a
    sample system after an upload) while the script used another. :func:`select`, :func:`multiselect`,
    :func:`segmented` and :func:`radio` call this; pages draw every choice through them."""
    data = state.current().data.data_key
    followed = st.session_state.setdefault(FOLLOWED, {})
    value = st.session_state.get(key, _UNSET)
    if value is _UNSET or followed.get(key) != data:
        st.session_state[key] = default
    elif isinstance(default, list):
        kept = [v for v in value if v in options]
        if kept != list(value):
            st.session_state[key] = kept or default
    elif value not in options:
        st.session_state[key] = default
    followed[key] = data


def _or_first(default, options: list):
    """``default``, or the first option when it is None (None when there is no option)."""
    return default if default is not None else (options[0] if options else None)


def select(label: str, options: Sequence, *, key: str, default=None, where=st, **kwargs):
    """A select box whose value follows the data (:func:`follow`).

    ``default``: the value on new data (None: the first option). Other keyword arguments go to ``st.selectbox``. No
    option may be None: a select box shows the value None as an empty box (use 0 or a position, as the Segments
    page's "off" and "all documents" do)."""
    options = list(options)
    follow(key, options, _or_first(default, options))
    return where.selectbox(label, options, key=key, **kwargs)


def multiselect(label: str, options: Sequence, *, key: str, default: Sequence = (), where=st, **kwargs) -> list:
    """A multiselect whose value follows the data (:func:`follow`), its label counting the choices.

    ``default``: the choices on new data. The label counts them (``Systems (10 of 10)``): in a column Streamlit keeps
    the chips on one line that scrolls, so most of them were out of sight with nothing saying so (2 of 10 systems
    shown, no "+8"). A multiselect keeps its identity by its key, so the changing label never resets it."""
    options = list(options)
    follow(key, options, [o for o in default if o in options])
    chosen = len(st.session_state.get(key) or ())
    if chosen:
        label = f"{label} ({chosen} of {len(options)})"
    return where.multiselect(label, options, key=key, **kwargs)


def _as_text(format_func: Callable, option) -> str:
    """``format_func(option)`` escaped for Markdown (:func:`mtdiag.core.highlight.escape_markdown`)."""
    return highlight.escape_markdown(format_func(option))


def as_text(format_func: Callable = str) -> Callable:
    """A ``format_func`` for options that Streamlit renders as Markdown: the text ``format_func`` gives, escaped.

    For radio buttons and segmented controls: an option may name a system (``only [login](http://…)`` was a live
    link on the N-grams page). A :func:`functools.partial` of a module function, never a closure of the page (module
    doc)."""
    return functools.partial(_as_text, format_func)


def segmented(label: str, options: Sequence, *, key: str, default=None, where=st, format_func: Callable = str,
              **kwargs):
    """A segmented control (one choice) whose value follows the data (:func:`follow`).

    ``default`` as in :func:`select`. Its options are shown as text (:func:`as_text`): they may hold names."""
    options = list(options)
    follow(key, options, _or_first(default, options))
    return where.segmented_control(label, options, key=key, format_func=as_text(format_func), **kwargs)


def radio(label: str, options: Sequence, *, key: str, default=None, where=st, format_func: Callable = str, **kwargs):
    """Radio buttons whose value follows the data (:func:`follow`).

    ``default`` as in :func:`select`. Its options are shown as text (:func:`as_text`): they may hold names."""
    options = list(options)
    follow(key, options, _or_first(default, options))
    return where.radio(label, options, key=key, format_func=as_text(format_func), **kwargs)
