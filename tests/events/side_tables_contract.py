"""The contracts of the small interfaces beside the log, written once: issued tokens, sealed
tokens, stored snapshots, the seed vault, and what a server asks of its log beside the
events (:class:`poolhall.events.log_contract.ServerLog`).

Each backend's test module subclasses each class here with its
:class:`~tests.events.store_contract.Backend` hooks, as it does
:class:`~tests.events.store_contract.LogContract`: a new test added here runs on every backend.
"""

from __future__ import annotations

import msgspec
import pytest

from poolhall.events import core
from poolhall.events.errors import StoreError
from poolhall.events.log_contract import CommandRecord, ServerLog
from tests.events.store_contract import Backend, opened, request, rolled

__all__ = ["IssuedTokensContract", "SealedTokensContract", "SeedVaultContract",
           "ServerLogContract", "SnapshotRowsContract"]


def _invited(token_hash: str) -> core.MemberInvited:
    return core.MemberInvited(member="m1", name="Mira", role="player", token_hash=token_hash)


class IssuedTokensContract(Backend):
    """:class:`~poolhall.events.log_contract.IssuedTokens`."""

    def test_a_token_is_known_for_its_campaign_once_its_event_is_appended(
            self, log: ServerLog) -> None:
        """An invite's and a replay link's token hash name their campaign, from the append
        on."""
        assert log.token_campaign("a" * 64) is None
        log.append_batch([request("c", 0, opened("c"), _invited("a" * 64), command="c1")])
        log.append_batch([request("c", 2, core.ReplayShared(member="r", name="R", last=2,
                                                            token_hash="b" * 64),
                                  command="c2")])
        assert log.token_campaign("a" * 64) == "c"
        assert log.token_campaign("b" * 64) == "c"
        assert log.token_campaign("c" * 64) is None

    def test_a_token_of_a_refused_or_failed_append_is_not_known(self, log: ServerLog) -> None:
        """Tokens are written in the events' transaction: none for a conflict, none for a
        batch the database refused (here a second event at a seq, written past the log)."""
        log.append_batch([request("c", 0, opened("c"))])
        (stale,) = log.append_batch([request("c", 0, _invited("a" * 64), command="late")])
        assert isinstance(stale, StoreError)
        self.execute(log, "INSERT INTO events (campaign, seq, type, version, payload,"
                          " recorded_at, actor, command_id, hash) VALUES ('d', 1,"
                          " 'campaign_created', 1, '{}', 'now', 'gm', 'other', 'x')")
        results = log.append_batch([request("c", 1, _invited("b" * 64), command="c2"),
                                    request("d", 0, opened("d"), command="d1")])
        assert isinstance(results[1], StoreError)
        assert log.token_campaign("a" * 64) is None
        if not isinstance(results[0], StoreError):  # a backend may commit the others
            assert log.token_campaign("b" * 64) == "c"
        else:
            assert log.token_campaign("b" * 64) is None
            assert log.head("c") == 1


class SealedTokensContract(Backend):
    """:class:`~poolhall.events.log_contract.SealedTokens`, and that the database never
    lets a sealed token change."""

    def test_a_sealed_token_is_stored_with_its_command(self, log: ServerLog) -> None:
        """The sealed token comes back for its command only."""
        sealed = msgspec.structs.replace(request("c", 0, opened("c"), _invited("a" * 64),
                                                 command="c1"), sealed_token="00ff")
        log.append_batch([sealed, request("d", 0, opened("d"), command="d1")])
        assert log.sealed_token("c", "c1") == "00ff"
        assert log.sealed_token("d", "d1") is None
        assert log.sealed_token("c", "zz") is None

    def test_a_sealed_token_is_never_changed_removed_or_replaced(self, log: ServerLog) -> None:
        """UPDATE, DELETE and every form that writes over a row are refused."""
        sealed = msgspec.structs.replace(request("c", 0, opened("c"), command="c1"),
                                         sealed_token="00ff")
        log.append_batch([sealed])
        self.append_only(log, "sealed_tokens", ("campaign", "command_id"),
                         ("campaign", "command_id", "sealed"), ("sealed", "'forged'"))
        assert log.sealed_token("c", "c1") == "00ff"


class SnapshotRowsContract(Backend):
    """:class:`~poolhall.events.log_contract.SnapshotRows` (derived rows: not append-only)."""

    def test_snapshot_rows_are_found_by_fingerprint_and_seq(self, log: ServerLog) -> None:
        """The latest row at or before a seq, of this code's fingerprint; a row at a seq is
        replaced, a discarded one gone; the log is not touched."""
        log.append_batch([request("c", 0, opened("c"), rolled(1), rolled(2))])
        rows = log.snapshots()
        rows.save("c", "new", [(1, "h1", b"one", "s1"), (3, "h3", b"three", "s3")])
        rows.save("c", "old", [(2, "h2", b"two", "s2")])
        assert rows.latest("c", "new", 10) == (3, "h3", b"three", "s3")
        assert rows.latest("c", "new", 2) == (1, "h1", b"one", "s1")
        assert rows.latest("c", "old", 10) == (2, "h2", b"two", "s2")
        assert rows.latest("c", "new", 0) is None
        assert rows.latest("x", "new", 9) is None
        rows.save("c", "new", [(3, "h3", b"again", "s3")])
        assert rows.latest("c", "new", 3) == (3, "h3", b"again", "s3")
        rows.discard("c", 3)
        assert rows.latest("c", "new", 3) == (1, "h1", b"one", "s1")
        rows.discard("c", 3)  # a row already gone: nothing to do
        rows.discard("c", 1)
        assert rows.latest("c", "new", 3) is None
        assert rows.latest("c", "old", 3) == (2, "h2", b"two", "s2")
        assert log.verify() == (3, [])


class SeedVaultContract(Backend):
    """:class:`~poolhall.events.log_contract.SeedVault`, and that the database never lets a
    seed change: the fair rolls' commitments are only as good as that."""

    def test_the_vault_keeps_the_first_seed_of_an_epoch(self, log: ServerLog) -> None:
        """A second seed for the same epoch (another process opening it at once) gets the
        first back; epochs and campaigns are apart; a seed survives the vault's close."""
        vault = log.seed_vault()
        assert vault.get("c", 1) is None
        assert vault.put("c", 1, b"\x01" * 32) == b"\x01" * 32
        assert vault.put("c", 1, b"\x02" * 32) == b"\x01" * 32
        assert vault.put("c", 2, b"\x03" * 32) == b"\x03" * 32
        assert vault.get("d", 1) is None
        assert vault.get("c", 1) == b"\x01" * 32
        vault.close()
        again = log.seed_vault()
        try:
            assert again.get("c", 2) == b"\x03" * 32
        finally:
            again.close()

    def test_a_seed_the_table_refuses_is_a_store_error(self, log: ServerLog) -> None:
        """A seed that is not 32 bytes is refused by the table's CHECK, in the store's words,
        and nothing is stored."""
        vault = log.seed_vault()
        try:
            with pytest.raises(StoreError, match="the seed vault"):
                vault.put("c", 3, b"short")
            assert vault.get("c", 3) is None
        finally:
            vault.close()

    def test_a_seed_is_never_changed_removed_or_replaced(self, log: ServerLog) -> None:
        """UPDATE, DELETE (SQLite let it through) and every form that writes over a row
        (SQLite's REPLACE got through its no-update trigger) are refused."""
        vault = log.seed_vault()
        try:
            vault.put("c", 1, b"\x01" * 32)
            self.append_only(log, "fair_seeds", ("campaign", "epoch"),
                             ("campaign", "epoch", "seed"), ("seed", "seed"))
            assert vault.get("c", 1) == b"\x01" * 32
        finally:
            vault.close()


class ServerLogContract(Backend):
    """What a server asks of its log beside the events
    (:class:`~poolhall.events.log_contract.ServerLog`)."""

    def test_creation_finds_the_campaign_a_command_created(self, log: ServerLog) -> None:
        """A create's command id names its campaign and what it appended; a command that
        appended later events, or none, created nothing."""
        log.append_batch([request("a", 0, opened("a"), rolled(1), command="make-a"),
                          request("b", 0, opened("b"), command="make-b")])
        log.append_batch([request("a", 2, rolled(3), command="later")])
        assert log.creation("make-a") == ("a", CommandRecord("gm", 1, 2))
        assert log.creation("make-b") == ("b", CommandRecord("gm", 1, 1))
        assert log.creation("later") is None
        assert log.creation("nothing") is None
