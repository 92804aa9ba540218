"""Formatting helpers the views share: coloured tables, number formatting, the page CSS."""
from __future__ import annotations

import functools
from typing import Callable, Mapping, Optional, Sequence

import gradio as gr
import pandas as pd

# Makes images and tables readable in the Space and in the browser test's screenshots.
CSS = """
.pair-image img { object-fit: contain; }
.symbal-rows table { border-collapse: collapse; width: 100%; }
.symbal-rows td, .symbal-rows th { border-bottom: 1px solid #ddd; padding: 6px; vertical-align: top; text-align: left; }
.symbal-rows mark { background: #ffe08a; padding: 0 2px; border-radius: 3px; }
.symbal-rows .flag { font-size: 0.85em; color: #555; }
.symbal-rows img { width: 112px; border-radius: 4px; }
"""


def shown_to_user(fn: Callable) -> Callable:
    """Turn a bad id or bad input (LookupError, ValueError incl. InputError) into a message in the UI."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (LookupError, ValueError) as e:
            raise gr.Error(str(e).strip("'\"")) from None
    return wrapper


def coloured_table(rows: Sequence[Sequence[object]], headers: Sequence[str],
                   colours: Mapping[str, Mapping[str, str]], italic_when: Optional[tuple[str, str]] = None):
    """A pandas Styler: cells of column ``c`` get the background ``colours[c][value]``.

    ``italic_when=(column, value)`` sets rows where ``column == value`` in grey italics (e.g.
    ambiguous items, which are neither rewarded nor punished).
    """
    frame = pd.DataFrame([list(r) for r in rows], columns=list(headers))
    styler = frame.style
    for column, palette in colours.items():
        styler = styler.map(lambda v, p=palette: _chip(p.get(str(v))), subset=[column])
    if italic_when is not None:
        col, value = italic_when
        styler = styler.apply(lambda r: ["font-style: italic; color: #666" if r[col] == value else "" for _ in r],
                              axis=1, subset=[h for h in headers if h not in colours])
    return styler


def _chip(colour: Optional[str]) -> str:
    return f"background-color: {colour}; color: white; font-weight: 600" if colour else ""


def fmt_number(v: Optional[float], digits: int = 3) -> str:
    """A metric as text: fixed digits, "n/a" for a missing (None/NaN) value.

    >>> fmt_number(0.5), fmt_number(float("nan")), fmt_number(None)
    ('0.500', 'n/a', 'n/a')
    """
    if v is None or v != v:
        return "n/a"
    return f"{v:.{digits}f}"
