"""Every connection to PostgreSQL gives a silent database up in seconds, not the kernel's
quarter of an hour: libpq's TCP keepalives and ``tcp_user_timeout``
(:data:`poolhall.events.postgres_backend.database.TCP_DEFAULTS`), unless the URL sets its own.

A partition (packets dropped, no reset) cannot be made here without root on the network, so
the tests check what reaches libpq on a real connection, and that no connection of the
backend is made around :func:`~poolhall.events.postgres_backend.database.connect`."""

from __future__ import annotations

import ast
from pathlib import Path

from psycopg.conninfo import conninfo_to_dict

from poolhall.events.postgres_backend import database
from poolhall.events.postgres_backend.database import TCP_DEFAULTS, connect, conninfo

BACKEND = Path(database.__file__).resolve().parent


def _as_text(settings: dict[str, int]) -> dict[str, str]:
    return {key: str(value) for key, value in settings.items()}


def test_a_url_gets_the_tcp_defaults_it_does_not_set_and_keeps_its_own() -> None:
    """No setting in the URL: all the defaults; one in the URL: the URL's, the rest default;
    nothing else of the URL changes."""
    plain = conninfo_to_dict(conninfo("postgresql://ana@db.example.org:6432/tables"))
    assert plain == {"user": "ana", "host": "db.example.org", "port": "6432",
                     "dbname": "tables", **_as_text(TCP_DEFAULTS)}
    own = conninfo_to_dict(conninfo(
        "postgresql://ana@db.example.org/tables?keepalives_idle=60&application_name=x"))
    assert own["keepalives_idle"] == "60"
    assert own["application_name"] == "x"
    assert own["tcp_user_timeout"] == str(TCP_DEFAULTS["tcp_user_timeout"])


def test_a_real_connection_carries_the_settings(postgres_url: str) -> None:
    """The settings reach libpq on a connection to the tests' database."""
    with connect(postgres_url) as connection:
        given = {option.keyword.decode(): (option.val or b"").decode()
                 for option in connection.pgconn.info}
    assert {key: given[key] for key in TCP_DEFAULTS} == _as_text(TCP_DEFAULTS)


def test_no_connection_of_the_backend_is_made_around_connect() -> None:
    """In ``events/postgres_backend``, ``psycopg.connect`` is called only by ``connect``, and a
    pool is given a URL only through ``conninfo``: a connection made around them would wait
    the kernel's quarter of an hour on a cut network."""
    around = []
    for path in sorted(BACKEND.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            called = ast.unparse(node.func)
            if called == "psycopg.connect" and path.name != "database.py":
                around.append(f"{path.name}:{node.lineno} psycopg.connect")
            if called.endswith("ConnectionPool") and not (
                    node.args and isinstance(node.args[0], ast.Call)
                    and ast.unparse(node.args[0].func) == "conninfo"):
                around.append(f"{path.name}:{node.lineno} {called} without conninfo")
    assert around == []
