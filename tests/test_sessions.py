"""Closed sessions let go (:mod:`mtdiag.ui.sessions`): the sessions Streamlit keeps for a reconnect are shut down once
their time is up, not when another session happens to be stored (their uploaded files stayed in memory until then:
955 MB for 21 minutes after a refused upload). ``benchmarks/bench_closed_sessions.py`` measures a server's RSS."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

from streamlit.runtime import Runtime
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.session_manager import SessionInfo
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

from mtdiag.ui import sessions


class Session:
    def __init__(self, id: str) -> None:
        self.id, self.shut_down = id, False

    def shutdown(self) -> None:
        self.shut_down = True


def test_streamlit_keeps_closed_sessions_where_they_are_reaped():
    """The places :mod:`mtdiag.ui.sessions` reaches (Streamlit 1.67): a later Streamlit that moves them fails here."""
    storage = MemorySessionStorage(ttl_seconds=10)
    manager = WebsocketSessionManager(session_storage=storage, uploaded_file_manager=None, script_cache=None,
                                      message_enqueued_callback=None)
    assert manager._session_storage is storage and callable(storage._cache.expire)
    assert "self._session_mgr =" in inspect.getsource(Runtime.__init__)
    assert "self._async_objs = " in inspect.getsource(Runtime)


def test_expired_closed_sessions_are_shut_down_and_the_others_kept(monkeypatch):
    now = [0.0]
    storage = MemorySessionStorage(ttl_seconds=10)
    storage._cache._timer = lambda: now[0]
    old, recent = Session("old"), Session("recent")
    storage.save(SessionInfo(client=None, session=old))
    now[0] = 5.0
    storage.save(SessionInfo(client=None, session=recent))
    runtime = SimpleNamespace(_session_mgr=SimpleNamespace(_session_storage=storage))
    monkeypatch.setattr(Runtime, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(Runtime, "instance", staticmethod(lambda: runtime))
    released = []
    now[0] = 12.0  # the first is past its 10 s, with no other session stored since (Streamlit kept it)
    assert old.id in storage._cache._data
    assert sessions.reap_now(release=lambda: released.append(True)) == 1
    assert old.shut_down and not recent.shut_down and released == [True]
    assert [info.session.id for info in storage.list()] == ["recent"]
    assert sessions.reap_now(release=lambda: released.append(True)) == 0 and released == [True]


def test_nothing_to_reap_without_a_server():
    assert sessions.reap_closed_sessions() is False and sessions.reap_now() == 0
