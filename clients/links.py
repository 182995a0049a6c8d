"""Join links: the browser table's address with the campaign and a token in the fragment.

``http://127.0.0.1:8765/#campaign=edge&token=…``: browsers never send a URL's fragment to a
server, so the token stays out of request lines, proxies' logs and the server's logs; the page
moves it to the browser's storage and clears it from the address bar. The link's origin is the
server's (``--url`` turned from ``ws``/``wss`` into ``http``/``https``) unless ``--base-url``
names the address people reach it by (a server behind a proxy, or on a LAN address).
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

__all__ = ["base_url_problem", "join_link", "owner_link", "page_origin", "replay_link"]


def base_url_problem(base_url: str | None) -> str | None:
    """Why ``base_url`` cannot be the address people open the table at (``None``: it can, or
    none was given). A server answers only that address's host name and builds the links it
    prints on it, so a value that names no host (a bare name, a list) would refuse every
    request and print links nobody can open, without a word."""
    if not base_url:
        return None
    parts = urlsplit(base_url)
    if parts.scheme in ("http", "https") and parts.hostname and "@" not in parts.netloc \
            and not any(mark in base_url for mark in ", \t"):
        return None
    return (f"--base-url (or $POOLHALL_BASE_URL) must be one http:// or https:// address with "
            f"a host name, such as https://table.example.org; got {base_url!r}")


def page_origin(url: str, base_url: str | None = None) -> str:
    """The origin people open the table at: ``base_url`` if given, else the server's."""
    if base_url:
        return base_url.rstrip("/")
    parts = urlsplit(url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme or "http")
    return f"{scheme}://{parts.netloc}"


def join_link(url: str, campaign: str, token: str, base_url: str | None = None) -> str:
    """The link that opens ``campaign`` at the table with ``token``."""
    return (f"{page_origin(url, base_url)}/#campaign={quote(campaign, safe='')}"
            f"&token={quote(token, safe='')}")


def replay_link(url: str, campaign: str, token: str, base_url: str | None = None) -> str:
    """The link that opens ``campaign``'s shared replay with a replay link's ``token``."""
    return (f"{page_origin(url, base_url)}/replay#campaign={quote(campaign, safe='')}"
            f"&token={quote(token, safe='')}")


def owner_link(url: str, token: str, base_url: str | None = None) -> str:
    """The link that opens the owner's page (create campaigns, get GMs' links) with the admin
    ``token``: whoever holds it is GM of every campaign on the server."""
    return f"{page_origin(url, base_url)}/owner#token={quote(token, safe='')}"
