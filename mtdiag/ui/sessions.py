"""Closed sessions let go: what Streamlit keeps of a session whose browser went away, shut down once its time for a
reconnect is up.

Streamlit keeps a closed session — its session state and the files its uploaders hold — for a reconnect, for
``server.disconnectedSessionTTL`` seconds (120 by default), in a cache that drops an expired entry only when another
session is stored there, and then without shutting the session down: the bytes of its uploads stay in Streamlit's
uploaded-file manager (streamlit/streamlit#12506). On a quiet server a refused upload's bytes thus stayed until
another session closed (955 MB for 21 minutes). :func:`reap_closed_sessions` (the dashboard's sweeper calls it,
:mod:`mtdiag.ui.state`) drops the expired entries on Streamlit's event loop — where the cache is used — and shuts
each of those sessions down as Streamlit shuts a session it closes itself (its uploaded files removed, its media
released), then hands the freed memory back to the system.

It reads Streamlit's runtime where it keeps them (``Runtime._session_mgr._session_storage._cache``, Streamlit 1.67):
if a later Streamlit keeps them elsewhere it does nothing, and ``tests/test_sessions.py`` says so.
"""

from __future__ import annotations

import gc
from typing import Callable


def _expired_sessions_cache():
    """Streamlit's cache of closed sessions (a TTL cache with ``expire()``), None when there is none to reach."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    storage = getattr(getattr(Runtime.instance(), "_session_mgr", None), "_session_storage", None)
    cache = getattr(storage, "_cache", None)
    return cache if callable(getattr(cache, "expire", None)) else None


def reap_now(release: Callable[[], None] | None = None) -> int:
    """Drop the closed sessions whose time for a reconnect is up and shut each down; returns how many.

    To run on Streamlit's event loop (the cache is not shared between threads); ``release`` runs after any were shut
    down."""
    cache = _expired_sessions_cache()
    if cache is None:
        return 0
    expired = cache.expire()
    for _, info in expired:
        info.session.shutdown()
    if expired:
        gc.collect()
        if release is not None:
            release()
    return len(expired)


def reap_closed_sessions(release: Callable[[], None] | None = None) -> bool:
    """Have Streamlit's event loop run :func:`reap_now` (from any thread); False when there is no running server."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return False
    objects = getattr(Runtime.instance(), "_async_objs", None)
    loop = getattr(objects, "eventloop", None)
    if loop is None or loop.is_closed():
        return False
    loop.call_soon_threadsafe(reap_now, release)
    return True
