"""The presence board's contract tests, written once: each board's test class subclasses
:class:`PresenceContract` and gives a ``deployment`` fixture (a :class:`Deployment`: boards
of several processes on one shared space, and the campaigns it notified), in the manner of
the log's contract (``tests/events/store_contract.py``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Protocol

import pytest

from poolhall.server.presence_board import PresenceBoard
from tests.serve_process import until

__all__ = ["Deployment", "PresenceContract", "until"]

SHORT = 0.4
"""The expiry of the tests that wait for a process to be forgotten (seconds)."""

OPENED = [f"2026-11-27T20:0{n}:00.000Z" for n in range(6)]
"""When the processes of the tests open the log, in order (the events' clock)."""


class Deployment(Protocol):
    """Several processes' boards on one space (a database, or memory)."""

    heard: list[str]
    """Every campaign notified since the deployment was made, in order."""

    def board(self, process: str, expiry: float = 30.0) -> PresenceBoard:
        """A new process's board (closed with the deployment)."""

    def quiet(self) -> list[str]:
        """Wait until every notification sent so far is heard; forget them, and return them."""


class PresenceContract:
    """Every promise of a presence board; subclassed once per board."""

    @pytest.fixture
    def deployment(self) -> Iterator[Deployment]:
        raise NotImplementedError

    def test_a_process_sees_the_members_of_the_others_not_its_own(
            self, deployment: Deployment) -> None:
        """What one process publishes shows to the others, for that campaign only; a
        process's own members are its own business (it counts them in memory)."""
        a, b = deployment.board("a"), deployment.board("b")
        a.publish("c1", {"alice": 2, "bob": 1})
        assert b.elsewhere("c1") == {"alice", "bob"}
        assert b.elsewhere("c2") == frozenset()
        assert a.elsewhere("c1") == frozenset()

    def test_a_publish_replaces_the_process_s_members_of_that_campaign(
            self, deployment: Deployment) -> None:
        """The latest set counts: a member gone from it is gone, an empty set withdraws the
        process from the campaign, and its other campaigns are untouched."""
        a, b = deployment.board("a"), deployment.board("b")
        a.publish("c1", {"alice": 1, "bob": 1})
        a.publish("c2", {"carol": 1})
        a.publish("c1", {"bob": 1, "dave": 0})
        assert b.elsewhere("c1") == {"bob"}
        a.publish("c1", {})
        assert b.elsewhere("c1") == frozenset()
        assert b.elsewhere("c2") == {"carol"}

    def test_members_connected_through_several_processes_are_all_shown(
            self, deployment: Deployment) -> None:
        """A third process sees the union; one member through two processes stays shown
        until both let go."""
        a, b, c = (deployment.board(name) for name in "abc")
        a.publish("c1", {"alice": 1, "gm": 1})
        b.publish("c1", {"bob": 1, "gm": 1})
        assert c.elsewhere("c1") == {"alice", "bob", "gm"}
        assert a.elsewhere("c1") == {"bob", "gm"}
        a.publish("c1", {"alice": 1})
        assert c.elsewhere("c1") == {"alice", "bob", "gm"}
        b.publish("c1", {"bob": 1})
        assert c.elsewhere("c1") == {"alice", "bob"}

    def test_every_change_of_members_notifies_its_campaign(
            self, deployment: Deployment) -> None:
        """Each publish that changes who is connected tells every process which campaign
        changed (and nothing else), so that they read it again; one that changes only how
        many connections a member has tells nobody (the pages show no count)."""
        a, b = deployment.board("a"), deployment.board("b")
        a.publish("c1", {"alice": 1})
        a.publish("c2", {"bob": 1})
        assert deployment.quiet() == ["c1", "c2"]
        a.publish("c1", {"alice": 3})
        b.publish("c2", {})  # b had no one there either
        assert deployment.quiet() == []
        a.publish("c1", {})
        assert deployment.quiet() == ["c1"]
        assert b.elsewhere("c2") == {"bob"}

    def test_a_process_that_stops_beating_is_forgotten_after_the_expiry(
            self, deployment: Deployment) -> None:
        """A process killed (it never withdraws) shows for the expiry at most: then its
        members are ignored, and the next heartbeat of a live process deletes them and
        notifies their campaigns."""
        a, b = deployment.board("a", SHORT), deployment.board("b", SHORT)
        a.publish("c1", {"alice": 1})
        a.publish("c2", {"bob": 1})
        b.beat()
        assert b.elsewhere("c1") == {"alice"}
        time.sleep(SHORT + 0.1)  # a is silent from now on
        assert b.elsewhere("c1") == frozenset()  # ignored before anyone cleans up
        deployment.quiet()
        assert b.beat() == ["c1", "c2"]
        until(lambda: sorted(deployment.heard) == ["c1", "c2"])
        assert b.beat() == []  # forgotten once

    def test_a_live_process_that_was_forgotten_publishes_everything_again(
            self, deployment: Deployment) -> None:
        """A process cut off from the board longer than the expiry is forgotten by the
        others; at its next heartbeat it writes every campaign's members again, notified."""
        a, b = deployment.board("a", SHORT), deployment.board("b", SHORT)
        a.publish("c1", {"alice": 1})
        a.publish("c2", {"bob": 1})
        a.publish("c3", {})
        time.sleep(SHORT + 0.1)
        assert b.beat() == ["c1", "c2"]
        assert b.elsewhere("c1") == frozenset()
        deployment.quiet()
        assert a.beat() == ["c1", "c2"]
        until(lambda: sorted(deployment.heard) == ["c1", "c2"])
        assert b.elsewhere("c1") == {"alice"}
        assert b.elsewhere("c2") == {"bob"}

    def test_a_heartbeat_keeps_a_quiet_process_shown(self, deployment: Deployment) -> None:
        """A process whose members do not change stays shown as long as it beats."""
        a, b = deployment.board("a", SHORT), deployment.board("b", SHORT)
        a.publish("c1", {"alice": 1})
        for _ in range(4):
            time.sleep(SHORT / 2)
            a.beat()
            assert b.beat() == []
        assert b.elsewhere("c1") == {"alice"}

    def test_closing_withdraws_the_process_at_once(self, deployment: Deployment) -> None:
        """A process stopped cleanly takes its members with it, and says so."""
        a, b = deployment.board("a"), deployment.board("b")
        a.publish("c1", {"alice": 1})
        b.publish("c1", {"bob": 1})
        deployment.quiet()
        a.close()
        assert b.elsewhere("c1") == frozenset()
        until(lambda: deployment.heard == ["c1"])
        assert deployment.board("c").elsewhere("c1") == {"bob"}

    def test_each_process_is_judged_by_its_own_expiry(self, deployment: Deployment) -> None:
        """Processes started with different expiries agree on who is live: a process is
        forgotten after its own expiry, whoever looks (a process with a shorter one does
        not forget the others between their heartbeats, one with a longer one does not keep
        a dead process longer)."""
        slow, quick = deployment.board("slow", 30.0), deployment.board("quick", SHORT)
        patient, hasty = deployment.board("patient", 30.0), deployment.board("hasty", SHORT)
        slow.publish("c1", {"alice": 1})
        quick.publish("c1", {"bob": 1})
        time.sleep(SHORT + 0.1)  # neither beats meanwhile
        assert hasty.elsewhere("c1") == {"alice"}
        assert patient.beat() == ["c1"]  # quick forgotten
        assert patient.elsewhere("c1") == {"alice"}
        assert hasty.beat() == []
        assert hasty.elsewhere("c1") == {"alice"}

    def test_a_process_entering_alone_serves_since_it_opened_the_log(
            self, deployment: Deployment) -> None:
        """The first process of a deployment, and one started after every process stopped
        cleanly, says the deployment serves since it opened the log."""
        a = deployment.board("a")
        assert a.enter(OPENED[0]) == OPENED[0]
        a.close()
        assert deployment.board("b").enter(OPENED[1]) == OPENED[1]

    def test_processes_restarted_one_at_a_time_keep_the_first_ones_time(
            self, deployment: Deployment) -> None:
        """A process entering beside live ones takes the earliest time they say (not its own,
        even when its clock says earlier), and says it in turn: the time lives on as long as
        one process is live, however many restarts."""
        a = deployment.board("a")
        assert a.enter(OPENED[1]) == OPENED[1]
        assert deployment.board("b").enter(OPENED[2]) == OPENED[1]
        a.close()
        assert deployment.board("c").enter(OPENED[0]) == OPENED[1]  # b is live

    def test_a_process_silent_for_its_expiry_keeps_no_time_alive(
            self, deployment: Deployment) -> None:
        """A killed process (it never withdraws) stops counting once its expiry passed, even
        before anyone deleted its row: the deployment stopped."""
        a = deployment.board("a", SHORT)
        a.enter(OPENED[0])
        time.sleep(SHORT + 0.1)
        assert deployment.board("b").enter(OPENED[1]) == OPENED[1]

    def test_a_live_process_that_was_forgotten_says_its_time_again(
            self, deployment: Deployment) -> None:
        """A process cut off from the board longer than the expiry is forgotten; at its next
        heartbeat it says the time it entered with again (it never stopped serving)."""
        a, b = deployment.board("a", SHORT), deployment.board("b", SHORT)
        a.enter(OPENED[0])
        time.sleep(SHORT + 0.1)
        b.beat()  # a forgotten
        b.close()
        a.beat()
        assert deployment.board("c").enter(OPENED[1]) == OPENED[0]
