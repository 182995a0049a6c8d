"""Two editors of one character (``update_character``'s ``based_on``), decided and folded
without a server: a save made from an older read of the sheet is refused in words naming who
changed it and when, and appends nothing; a client that sends no ``based_on`` is not checked."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from poolhall.events import core
from poolhall.events import narrative as n
from poolhall.events.errors import Rejected
from poolhall.projections.snapshot import SERVER_DECODER, snapshot_of, state_from
from poolhall.server.protocol import read_frame
from tests.narrative.narrative_support import HAN
from tests.rules_table import RulesTable


def two_gms() -> RulesTable:
    """A narrative campaign with two GMs ("GM" and "GM 2") and Han's player."""
    table = RulesTable("narrative", (), {})
    for member, name, role, plays in (("gm", "GM", "gm", ()), ("gm-2", "GM 2", "gm", ()),
                                      ("han-player", "Ana", "player", ("han",))):
        table.fold(core.MemberInvited(member=member, name=name, role=role, characters=plays,
                                      token_hash="0" * 64))
    table.fold(core.CharacterCreated(character="han", name="Han Solo", stats=HAN))
    return table


def refused(table: RulesTable, by: str, **fields: Any) -> Rejected:
    """The refusal of an ``update_character`` sent by ``by``; nothing is appended."""
    head = table.seq
    with pytest.raises(Rejected) as error:
        table.decide(by, core.UpdateCharacter, character="han", **fields)
    assert table.seq == head
    return error.value


def test_the_sheet_records_which_event_last_changed_it_and_whose_command_it_was() -> None:
    """Created at event 5 by the GM; GM 2's rename at event 6 makes it 6, GM 2's; a
    condition (no form sends one) leaves it alone."""
    table = two_gms()
    han = table.state.characters["han"]
    assert (han.changed, han.changed_by) == (5, "gm")
    table.run("gm-2", core.UpdateCharacter, character="han", name="Han", based_on=5)
    assert (han.changed, han.changed_by) == (6, "gm-2")
    table.run("gm", core.SetCondition, character="han", condition="wounds", value=2)
    assert (han.changed, han.changed_by) == (6, "gm-2")


def test_a_save_based_on_an_older_sheet_is_refused_naming_who_changed_it_and_when() -> None:
    """Both GMs open Han Solo at event 5; GM 2 saves Agility 4 (event 6); the GM's save of
    the old sheet with a new name would put Agility back to 3: it is refused, nothing is
    appended, and Agility stays 4."""
    table = two_gms()
    quicker = msgspec.structs.replace(HAN, agility=4)
    table.run("gm-2", core.UpdateCharacter, character="han", name="Han Solo", stats=quicker,
              based_on=5)
    error = refused(table, "gm", name="Han Solo (Captain)", stats=HAN, based_on=5)
    assert (error.code, error.path) == ("conflict", "$.based_on")
    assert error.message == (
        "Han Solo was changed by GM 2 (event #6) after you opened the sheet (at event #5): "
        "reload it to see that change, then save again")
    han = table.state.characters["han"]
    assert (han.name, han.stats) == ("Han Solo", quicker)
    # reloaded, the form is based on event 6: the save goes through
    table.run("gm", core.UpdateCharacter, character="han", name="Han Solo (Captain)",
              stats=quicker, based_on=6)
    assert table.state.characters["han"].name == "Han Solo (Captain)"


def test_the_same_member_in_another_tab_is_told_it_was_them() -> None:
    """One GM, two tabs: the refusal says the change was theirs, from elsewhere, and the
    player's own sheet is guarded the same way."""
    table = two_gms()
    table.run("gm", core.UpdateCharacter, character="han", name="Han", based_on=5)
    assert refused(table, "gm", name="Solo", based_on=5).message.startswith(
        "Han was changed by you, elsewhere (another tab or window) (event #6)")
    assert refused(table, "han-player", name="Solo", based_on=5).message.startswith(
        "Han was changed by GM (event #6)")


def test_a_client_that_sends_no_based_on_saves_as_before() -> None:
    """An older client (or ``poolhall send`` without the field) is not checked: its update
    is applied to the sheet as it is now, as it always was."""
    table = two_gms()
    table.run("gm-2", core.UpdateCharacter, character="han", stats=HAN)
    events = table.run("gm", core.UpdateCharacter, character="han", name="Solo")
    assert events == [core.CharacterUpdated(character="han", name="Solo")]
    decoded = read_frame('{"type": "update_character", "id": "1", "character": "han",'
                         ' "name": "Solo"}')
    assert isinstance(decoded, core.UpdateCharacter)
    assert decoded.based_on is None


def test_a_based_on_that_is_not_a_seq_is_refused_naming_the_field() -> None:
    """A negative ``based_on`` is no event of the log: refused by the protocol, at its path."""
    with pytest.raises(Rejected) as error:
        read_frame('{"type": "update_character", "id": "1", "character": "han",'
                   ' "name": "Solo", "based_on": -1}')
    assert (error.value.code, error.value.path) == ("invalid", "$.based_on")


def test_the_snapshot_carries_the_last_change_to_a_client() -> None:
    """A client that joins from a snapshot (the page's table, the Python client) reads
    ``changed`` and ``changed_by`` of each character, and its folds go on updating them."""
    table = two_gms()
    table.run("gm-2", core.UpdateCharacter, character="han",
              stats=msgspec.structs.replace(HAN, skills={}))
    encoded = msgspec.json.encode(snapshot_of(table.state, "h" * 64, []))
    entry = msgspec.json.decode(encoded)["characters"][0]
    assert (entry["changed"], entry["changed_by"]) == (6, "gm-2")
    state = state_from(SERVER_DECODER.decode(encoded))
    assert (state.characters["han"].changed, state.characters["han"].changed_by) == (6, "gm-2")
    assert isinstance(state.characters["han"].stats, n.NarrativeStats)
