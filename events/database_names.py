"""How a database is named: a ``postgresql://`` URL, or else a SQLite file's path; the name
as it is printed or logged, with a URL's password hidden; and the name of the file that keeps
a PostgreSQL deployment's admin token.

Plain functions that import no backend, so the CLI, the server, :mod:`poolhall.events.backends`
and the PostgreSQL backend's own messages share one reading of a name.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import re
import urllib.parse

__all__ = ["deployment_token_file", "is_postgres_url", "safe_name", "schema_named"]

_SCHEMES = ("postgresql://", "postgres://")

_PASSWORD = re.compile(r"(://[^:@/]*):[^@/]*@")
"""A URL's ``user:password@``: the password is what :func:`safe_name` hides."""

_PARAMETER = re.compile(r"(?P<key>[^=&]*)(?P<equals>=?)(?P<value>[^&]*)")
"""One ``key=value`` of a URL's query, which libpq splits at ``&`` alone."""

_SECRET_PARAMETERS = frozenset({"password", "sslpassword"})
"""The query parameters whose values are secrets: libpq's ``password`` and the key's
``sslpassword`` (matched in any case and percent-decoded: libpq decodes the key too, so
``?pass%77ord=...`` is a password)."""

_URL = re.compile(r"(?:[^@/]*@)?(?P<hosts>[^/?]*)(?:/(?P<db>[^?]*))?(?:\?(?P<query>.*))?",
                  re.DOTALL)
"""A URL after its scheme, read as libpq reads it: the user's part ends at the first ``@``
before any ``/``; then the hosts, the database and the query."""

_SEARCH_PATH = re.compile(r"(?:-c\s*|--)search[_-]path=(?P<path>(?:\\.|\S)+)")
"""``-c search_path=...`` in libpq's ``options``: the schema a deployment's tables are in."""

_MAX_FILE_NAME = 200
"""The longest token file name made whole (file systems take 255 bytes): a longer one is cut
and ends with a digest of the whole, so two deployments never share it."""


def is_postgres_url(database: object) -> bool:
    """Whether ``database`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(database, str) and database.startswith(_SCHEMES)


def safe_name(database: str) -> str:
    """A database's name to print or log: a URL's password hidden, both the
    ``user:password@`` one and a ``password`` (or ``sslpassword``) query parameter."""
    hidden = _PASSWORD.sub(r"\1:***@", database)
    if not is_postgres_url(hidden) or "?" not in hidden:
        return hidden
    base, _, query = hidden.partition("?")
    return base + "?" + "&".join(_hide_secret(part) for part in query.split("&"))


def _hide_secret(parameter: str) -> str:
    """One query parameter as printed: a secret's value as ``***``."""
    found = _PARAMETER.fullmatch(parameter)
    if found is None or not found["equals"]:
        return parameter
    if urllib.parse.unquote(found["key"]).strip().lower() in _SECRET_PARAMETERS:
        return f"{found['key']}=***"
    return parameter


def deployment_token_file(url: str) -> str:
    """The name of the file that keeps the admin token of the PostgreSQL deployment at
    ``url``: ``poolhall-DATABASE[+SCHEMA][@HOST[:PORT]].admin-token``.

    Named after the deployment (never after its credentials: the owner and the serving role
    name the same file), so a second deployment started in the same directory (another
    database, another schema, another server) makes a file of its own instead of taking the
    first one's token. Each part is percent-encoded, so ``+``, ``@`` and ``:`` only separate
    them and two deployments never share a name. What the URL leaves out is taken where libpq
    takes it: ``PGHOST``, ``PGPORT``, ``PGDATABASE`` (else the user's name), ``PGOPTIONS``;
    the schema ``public`` and the port 5432 are left out of the name.
    """
    found = _URL.fullmatch(url.split("://", 1)[-1])
    assert found is not None  # every part of the pattern may be empty
    given = {urllib.parse.unquote(key): urllib.parse.unquote(value)
             for key, _, value in (part.partition("=")
                                   for part in (found["query"] or "").split("&") if part)}
    database = (given.get("dbname") or urllib.parse.unquote(found["db"] or "")
                or os.environ.get("PGDATABASE") or _user(url, given))
    name = "poolhall-" + _quoted(database)
    schema = schema_named(url)
    if schema:
        name += "+" + _quoted(schema)
    server = _server(urllib.parse.unquote(found["hosts"] or ""), given)
    if server:
        name += "@" + urllib.parse.quote(server, safe=":,[]")
    if len(name) > _MAX_FILE_NAME:
        name = name[:_MAX_FILE_NAME - 33] + "-" + hashlib.sha256(name.encode()).hexdigest()[:32]
    return name + ".admin-token"


def _quoted(part: str) -> str:
    """A part of a token file's name: letters, digits, ``_.-~`` kept, the rest encoded."""
    return urllib.parse.quote(part, safe="")


def schema_named(url: str) -> str:
    """The schema a URL's ``options=-csearch_path=...`` names first ("" for none, or
    ``public``), as the server will look it up (``PGOPTIONS`` if the URL has no ``options``)."""
    found = _URL.fullmatch(url.split("://", 1)[-1])
    query = (found["query"] if found else None) or ""
    given = {urllib.parse.unquote(key): urllib.parse.unquote(value)
             for key, _, value in (part.partition("=") for part in query.split("&") if part)}
    return _schema(given.get("options") or os.environ.get("PGOPTIONS") or "")


def _user(url: str, given: dict[str, str]) -> str:
    """The user libpq connects as: the database it opens when none is named."""
    userinfo = url.split("://", 1)[-1].partition("/")[0]
    if "@" in userinfo:
        return urllib.parse.unquote(userinfo.partition("@")[0].partition(":")[0])
    return given.get("user") or os.environ.get("PGUSER") or getpass.getuser()


def _schema(options: str) -> str:
    """The schema named first in ``-c search_path=...`` ("" for none, or ``public``):
    unquoted, folded to lower case as PostgreSQL folds an unquoted name."""
    found = _SEARCH_PATH.search(options)
    if found is None:
        return ""
    first = found["path"].replace("\\", "").split(",")[0].strip()
    schema = first[1:-1] if len(first) > 1 and first[0] == first[-1] == '"' else first.lower()
    return "" if schema == "public" else schema


def _server(hosts: str, given: dict[str, str]) -> str:
    """The server(s) of a URL as a token file names them: its hosts (the URL's, else
    ``host``/``hostaddr``, else ``PGHOST``), with their ports but the default 5432."""
    if not hosts:
        hosts = given.get("host") or given.get("hostaddr") or os.environ.get("PGHOST") or ""
        port = given.get("port") or os.environ.get("PGPORT") or ""
        if port:
            hosts = ",".join(f"{host}:{port}" for host in hosts.split(","))
    elif given.get("port"):
        hosts = ",".join(f"{host}:{given['port']}" for host in hosts.split(","))
    return ",".join(entry.removesuffix(":5432") for entry in hosts.lower().split(","))
