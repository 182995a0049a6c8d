"""Text files of the page go gzipped to browsers that take gzip, plain to any other client,
with ``Vary: Accept-Encoding`` and an ETag per representation (a real server, real sockets)."""

from __future__ import annotations

import gzip

import pytest

from poolhall.server.web import accepts_gzip
from tests.conftest import Table
from tests.server.test_web_http import get

BROWSER = "gzip, deflate, br, zstd"  # what Chromium sends


@pytest.mark.parametrize("path", ["/", "/static/connection.js", "/static/table.css", "/owner"])
async def test_a_browser_that_takes_gzip_gets_the_text_gzipped(table: Table, path: str) -> None:
    """The same file, smaller, with Content-Encoding and its own ETag; unzipped it is the
    plain answer byte for byte."""
    _, plain_headers, plain = await get(table.url, path)
    status, headers, body = await get(table.url, path, {"Accept-Encoding": BROWSER})
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == plain
    assert len(body) < len(plain)
    assert int(headers["content-length"]) == len(body)
    assert headers["vary"] == plain_headers["vary"] == "Accept-Encoding"
    assert "content-encoding" not in plain_headers
    assert headers["etag"] != plain_headers["etag"]


async def test_a_client_without_gzip_gets_the_plain_file(table: Table) -> None:
    """No Accept-Encoding, identity only, or gzip;q=0: the plain body."""
    for accept in ("", "identity", "gzip;q=0, br", "*;q=0"):
        _, headers, body = await get(table.url, "/static/connection.js",
                                     {"Accept-Encoding": accept} if accept else {})
        assert "content-encoding" not in headers, accept
        assert b"export class TableConnection" in body


async def test_either_etag_revalidates_to_a_304_naming_the_chosen_one(table: Table) -> None:
    """A browser holding the gzipped copy revalidates with its tag and gets 304, no body."""
    _, headers, _ = await get(table.url, "/static/connection.js", {"Accept-Encoding": BROWSER})
    status, again, body = await get(table.url, "/static/connection.js", {
        "Accept-Encoding": BROWSER, "If-None-Match": headers["etag"]})
    assert (status, body) == (304, b"")
    assert again["etag"] == headers["etag"]
    assert again["vary"] == "Accept-Encoding"


def test_accept_encoding_is_read_with_its_weights() -> None:
    """gzip taken by name or by *, refused by q=0 on either."""
    assert accepts_gzip("gzip")
    assert accepts_gzip("br, gzip;q=0.5")
    assert accepts_gzip("*")
    assert not accepts_gzip("")
    assert not accepts_gzip("br")
    assert not accepts_gzip("gzip;q=0")
    assert not accepts_gzip("*;q=0")
    assert not accepts_gzip("*, gzip;q=0")


async def test_a_file_is_gzipped_when_first_asked_for_not_at_start(table: Table) -> None:
    """Start compresses nothing (it cost a quarter of the server's start); the first request
    of a file compresses that file alone, and later requests get the same bytes."""
    assets = table.server.web.assets
    assert [name for name, asset in assets.items() if "gzipped" in vars(asset)] == []
    _, _, first = await get(table.url, "/static/connection.js", {"Accept-Encoding": BROWSER})
    assert [name for name, asset in assets.items() if "gzipped" in vars(asset)] == ["connection.js"]
    _, _, again = await get(table.url, "/static/connection.js", {"Accept-Encoding": BROWSER})
    assert again == first == assets["connection.js"].gzipped
