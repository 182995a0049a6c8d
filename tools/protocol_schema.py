"""Write ``clients/protocol-schema.json``, what ``poolhall schema`` prints, from the message
types: ``python -m tools.protocol_schema`` after changing a message (the test that holds the
file equal to the types, ``tests/clients/test_schema_file.py``, says so when it is stale)."""

from __future__ import annotations

from pathlib import Path

from poolhall.clients.log_cli import SCHEMA_FILE, schema_text

__all__ = ["main"]


def main() -> None:
    """Write the schema file if it differs from the types' schema; say what was done."""
    path = Path(SCHEMA_FILE).resolve()
    text = schema_text()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        print(f"{path}: up to date")
        return
    path.write_text(text, encoding="utf-8")
    print(f"{path}: written")


if __name__ == "__main__":
    main()
