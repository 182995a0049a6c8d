"""``poolhall schema`` prints a shipped file (``clients/protocol-schema.json``) rather than
generating the schema at each run: the file must be exactly what the message types generate,
or a protocol change would print a stale schema."""

from __future__ import annotations

from pathlib import Path

from poolhall.clients.log_cli import SCHEMA_FILE, schema_text
from tests.serve_process import poolhall


def test_the_shipped_schema_is_the_one_the_types_generate() -> None:
    """The file equals the schema generated now from the types, byte for byte."""
    shipped = Path(SCHEMA_FILE).read_text(encoding="utf-8")
    assert shipped == schema_text(), (
        "clients/protocol-schema.json is stale: a message type changed; write it again with "
        "`python -m tools.protocol_schema` and commit it with the change")


def test_poolhall_schema_prints_the_shipped_file(tmp_path: Path) -> None:
    """What the command prints is the file, from any working directory."""
    printed = poolhall("schema", cwd=tmp_path).stdout
    assert printed == Path(SCHEMA_FILE).read_text(encoding="utf-8")
