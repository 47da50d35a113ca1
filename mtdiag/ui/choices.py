"""A page's choices, drawn from the options its view declares (:class:`mtdiag.views.ViewOption`): the choices offered
and the default come from the declaration, as for ``mtdiag view NAME``, and every choice follows the data it is
shown with (:func:`mtdiag.ui.widgets.follow`)."""

from __future__ import annotations

from typing import Any, Mapping

import streamlit as st

from mtdiag.core.highlight import escape_markdown
from mtdiag.ui import state, widgets
from mtdiag.views import View, ViewOption


def view_option(option: ViewOption, current: state.Current, chosen: Mapping[str, Any], *, key: str, where=st,
                widget: str = "select", label: str | None = None, **kwargs) -> Any:
    """The widget of one option a view declares, on this run's report after the options ``chosen`` before it.

    A select box (``widget="segmented"``: a segmented control, ``"radio"``: radio buttons) for a choice, a
    multiselect for several, a toggle for yes/no, a number box for a number (``widget="slider"``: a slider, for a
    number with both bounds, in a hundred steps). Its value follows the data (:func:`mtdiag.ui.widgets.follow`); None
    when the option does not apply to this data. ``label``: another label than the declared one (a page that offers
    one option in two places)."""
    report = current.report
    label = label or option.label
    if not option.applies(report):
        return None
    offered = option.offered(report, chosen)
    default = option.default_for(report, chosen)
    if option.help:
        kwargs.setdefault("help", option.help)
    if option.of == "metric":
        kwargs.setdefault("format_func", widgets.metric_label)
    elif isinstance(option.describe, Mapping):
        kwargs.setdefault("format_func", option.describe.__getitem__)
    elif option.describe is not None:
        kwargs.setdefault("format_func", option.describe)
    if option.many:
        return widgets.multiselect(label, offered, default=default, key=key, where=where, **kwargs)
    if offered is not None:
        if widget == "segmented":
            return widgets.segmented(label, offered, default=default, key=key, where=where, required=True,
                                     **kwargs)
        draw = widgets.radio if widget == "radio" else widgets.select
        return draw(label, offered, default=default, key=key, where=where, **kwargs)
    if option.type is bool:
        return where.toggle(label, value=default, key=key, **kwargs)
    if option.type is str:
        if option.upper(report) is not None and option.check is None:
            kwargs.setdefault("max_chars", int(option.upper(report)))
        # An option with a check is not capped in the browser: Streamlit drops a paste longer than ``max_chars``
        # without a word, while the check names the limit (e.g. "the search pattern has 2,001 characters; at most
        # 2,000") and the page goes on with the default.
        value = where.text_input(label, value=default or "", key=key, **kwargs)
        if option.check is not None and value:
            try:
                option.check(value)
            except ValueError as error:  # said once, and the page goes on with the default
                st.error(escape_markdown(str(error)), icon=":material/error:")
                return default
        return value
    upper = option.upper(report)
    if option.type is int:
        return int(where.number_input(label, min_value=None if option.minimum is None else int(option.minimum),
                                      max_value=None if upper is None else int(upper), value=int(default), step=1,
                                      key=key, **kwargs))
    if widget == "slider" and option.minimum is not None and upper is not None:
        return float(where.slider(label, min_value=float(option.minimum), max_value=float(upper),
                                  value=float(default), step=(upper - option.minimum) / 100, key=key, **kwargs))
    return float(where.number_input(label, min_value=option.minimum, max_value=upper, value=float(default),
                                    key=key, **kwargs))


def choose(view: View, name: str, current: state.Current, chosen: dict, **kwargs) -> Any:
    """:func:`view_option` of ``view``'s option ``name``, its value also put into ``chosen``.

    For the options declared after it, and the view's tables."""
    chosen[name] = view_option(view.option(name), current, chosen, **kwargs)
    return chosen[name]
