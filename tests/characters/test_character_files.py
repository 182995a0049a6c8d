"""Characters in and out: the character file read strictly, imported as an event, exported
and read back the same."""

from __future__ import annotations

import json

import msgspec
import pytest

from poolhall.clients.character_cli import load_character_file
from poolhall.clients.cli_support import CliError
from poolhall.events import core
from poolhall.events.character_io import (
    CharacterFile,
    ImportCharacter,
    character_file,
    read_character_file,
)
from poolhall.events.errors import Rejected
from poolhall.events.narrative_values import NarrativeStats, Skill
from tests.rules_table import RulesTable

HAN = NarrativeStats(agility=3, skills={"Ranged (Light)": Skill(rank=2,
                                                                 characteristic="agility")})


def table(system: str = "narrative") -> RulesTable:
    return RulesTable(system, [("gm", "gm", ()), ("ana", "player", ("han",))], {})


def han_file(**changes: object) -> dict[str, object]:
    data: dict[str, object] = json.loads(character_file("edge", "han", "Han", HAN))
    data.update(changes)
    return data


def test_an_exported_character_reads_back_the_same() -> None:
    """export -> file -> read: the same name, id, stats and origin; the format is versioned."""
    data = character_file("edge", "han", "Han", HAN)
    plain = json.loads(data)
    assert plain["format"] == "poolhall.character"
    assert plain["version"] == 1
    file = read_character_file(data)
    assert (file.name, file.character, file.stats) == ("Han", "han", HAN)
    assert file.exported_from is not None
    assert file.exported_from.campaign == "edge"


@pytest.mark.parametrize(("changes", "path", "words"), [
    ({"format": "something.else"}, "$.format", "poolhall.character"),
    ({"version": 2}, "$.version", "a version this poolhall does not read (it reads version 1)"),
    ({"version": 10**30}, "$.version", "a version this poolhall does not read"),
    ({"version": 1.5}, "$.version", "the version should be a whole number, not 1.5"),
    ({"name": ""}, "$.name", "the name is empty"),
    ({"colour": "red"}, "$.colour", "unknown field"),
    ({"stats": {"system": "narrative", "agility": 11}}, "$.stats.agility", "10"),
    ({"stats": {"system": "chess"}}, "$.stats.system", "chess"),
])
def test_a_bad_file_is_refused_naming_the_field(changes: dict[str, object], path: str,
                                                words: str) -> None:
    """Every fault of a character file names its JSON path and says what is wrong."""
    with pytest.raises(CliError) as refused:
        load_character_file(json.dumps(han_file(**changes)).encode(), "han.json")
    assert f"han.json: {path}: " in refused.value.message
    assert words in refused.value.message


def test_a_file_that_is_not_json_says_so() -> None:
    """Not JSON at all: refused as such, at the root."""
    with pytest.raises(CliError) as refused:
        load_character_file(b"name: Han", "han.yaml")
    assert "han.yaml: $: not valid JSON" in refused.value.message


def test_an_import_is_the_characters_creation_and_an_import_event() -> None:
    """Importing appends character_created (the sheet as create_character makes it) and
    character_imported naming where it came from."""
    game = table()
    file = read_character_file(character_file("edge", "han", "Han", HAN))
    events = game.run("gm", ImportCharacter, file=file)
    assert [type(e) for e in events] == [core.CharacterCreated, core.CharacterImported]
    imported = events[1]
    assert isinstance(imported, core.CharacterImported)
    assert (imported.character, imported.from_campaign, imported.from_character,
            imported.format_version) == ("han", "edge", "han", 1)
    assert game.state.characters["han"].stats == HAN


def test_a_taken_id_gets_a_new_one_unless_the_command_names_it() -> None:
    """The file's id taken: a new id from the name; an id given that is taken: refused."""
    game = table()
    file = read_character_file(character_file("edge", "han", "Han", HAN))
    game.run("gm", ImportCharacter, file=file)
    again = game.run("gm", ImportCharacter, file=file)
    assert isinstance(again[0], core.CharacterCreated)
    assert again[0].character == "han-2"
    with pytest.raises(Rejected) as refused:
        game.decide("gm", ImportCharacter, file=file, character="han")
    assert (refused.value.code, refused.value.path) == ("conflict", "$.character")


def test_only_the_gm_imports_and_only_the_campaigns_system() -> None:
    """A player may not import; a narrative character does not go into an sr3 campaign."""
    file = read_character_file(character_file("edge", "han", "Han", HAN))
    with pytest.raises(Rejected) as refused:
        table().decide("ana", ImportCharacter, file=file)
    assert refused.value.code == "forbidden"
    with pytest.raises(Rejected) as refused:
        table("sr3").decide("gm", ImportCharacter, file=file)
    assert refused.value.path == "$.file.stats.system"
    assert "'narrative'" in refused.value.message


def test_the_file_is_the_commands_file_field() -> None:
    """The command carries the file as it is on disk (one schema for both)."""
    command = msgspec.json.decode(json.dumps({"type": "import_character", "id": "c1",
                                              "file": han_file()}), type=core.ImportCharacter)
    assert isinstance(command.file, CharacterFile)
    assert command.file.name == "Han"


def test_a_typo_deep_in_the_stats_is_refused_not_dropped() -> None:
    """"agilty" inside the stats: refused naming $.stats.agilty (a dropped value would give
    Han agility 2 without a word)."""
    data = han_file()
    data["stats"]["agilty"] = 3  # type: ignore[index]
    with pytest.raises(CliError) as refused:
        load_character_file(json.dumps(data).encode(), "han.json")
    assert "han.json: $.stats.agilty: " in refused.value.message
