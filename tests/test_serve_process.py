"""The test helpers that start real servers: the ports they hand out."""

from __future__ import annotations

import itertools
import socket

import pytest

from tests import serve_process


def test_each_worker_hands_out_ports_no_other_worker_nor_the_kernel_hands_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers' whole blocks are disjoint and below the ephemeral range, where ``bind(0)``
    and outgoing connections take theirs (two workers once got the same port from
    ``bind(0)``)."""
    def block(worker: str) -> set[int]:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        return set(itertools.islice(serve_process._worker_ports(),
                                    serve_process.PORTS_PER_WORKER))

    first, second = block("gw0"), block("gw1")
    assert len(first) == len(second) == serve_process.PORTS_PER_WORKER
    assert not first & second
    assert max(first | second) < 32768


def test_a_port_something_holds_is_not_handed_out() -> None:
    """The probe refuses a bound port, and accepts it once it is let go."""
    port = serve_process.free_port()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        assert not serve_process._nobody_holds(port)
    assert serve_process._nobody_holds(port)
