"""Browser tests: real Chromium (Debian's ``chromium``) driven by Playwright for Python against a
real ``poolhall serve`` on a loopback port with a real SQLite file.

Playwright cannot download browsers here; it launches the system's Chromium through
``executable_path`` (``$POOLHALL_CHROMIUM``, else ``/usr/bin/chromium``). A missing Chromium
fails these tests with the command that installs it: they are never skipped.

Each scene reads like the table: :class:`Served` is the server with its admin, ``gm_link`` /
``invite`` make join links with the real CLI, and ``open_page(link)`` is one person's browser
(its own context: its own storage, as on another machine).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Callable, Coroutine, Generator, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    WebSocket,
)

from poolhall.clients.client import Client
from poolhall.clients.links import join_link
from poolhall.events.codec import AnyCommand
from poolhall.events.messages import Ack
from poolhall.events.strict import StrictDecoder
from tests.serve_process import free_port, poolhall, start_serve
from tests.web.chromium import KEY, Chromium
from tests.web.silent_relay import SilentRelay

CHROMIUM = os.environ.get("POOLHALL_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("POOLHALL_SCREENSHOTS", "test-screenshots"))
"""Where the tests write screenshots (not committed; .gitignore'd)."""

@pytest.fixture
def browser(request: pytest.FixtureRequest) -> Browser:
    """The worker's Chromium (:mod:`tests.web.chromium`): each person gets a fresh context of
    it (:class:`PageOpener`)."""
    return request.config.stash.setdefault(KEY, Chromium(CHROMIUM)).browser()


@pytest.fixture(scope="session")
def client_message_schema(tmp_path_factory: pytest.TempPathFactory) -> jsonschema.Validator:
    """A validator of ``ClientMessage`` from what ``poolhall schema`` prints (the real CLI)."""
    printed = poolhall("schema", cwd=tmp_path_factory.mktemp("schema")).stdout
    schema = json.loads(printed)
    wanted = {"$ref": "#/$defs/ClientMessage", "$defs": schema["$defs"]}
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(wanted)
    validator: jsonschema.Validator = validator_class(wanted)
    return validator


def invalid_frames(validator: jsonschema.Validator, sent: list[str | bytes]) -> list[str]:
    """Why each of ``sent`` (frames a page sent) is not a ``ClientMessage``, if any is not."""
    problems = []
    for frame in sent:
        try:
            message = json.loads(frame)
        except ValueError:
            problems.append(f"not JSON: {frame[:200]!r}")
            continue
        for error in validator.iter_errors(message):
            problems.append(f"{str(frame)[:200]}: {error.message[:300]}")
            break
    return problems


ONE_ADDRESS_FOR_EVERYONE = ("--request-rate", "200", "--request-burst", "400")
"""Every browser of a test loads the page (about 25 files) from 127.0.0.1: at the default
request rate, for one address (10 a second after a burst of 30), the fourth page of a scene
waited seconds for its files. People at a table load it from their own addresses."""

_COMMANDS: StrictDecoder[object] = StrictDecoder(AnyCommand)


class Served:
    """A running ``poolhall serve`` and the admin's CLI against it."""

    def __init__(self, directory: Path, port: int, process: subprocess.Popen[bytes]) -> None:
        self.directory = directory
        self.port = port
        self.process = process
        self.origin = f"http://127.0.0.1:{port}"
        self.url = f"ws://127.0.0.1:{port}"

    def cli(self, *args: str) -> dict[str, object]:
        """Run one ``poolhall`` command against this server; its ``--json`` answer."""
        result = poolhall(*args, "--url", self.url, "--db", "table.db", "--json",
                          cwd=self.directory)
        answer: dict[str, object] = json.loads(result.stdout)
        return answer

    def create_campaign(self, name: str, system: str) -> tuple[str, str]:
        """A new campaign: its id and the GM's join link (made with the admin token over the
        Python client, as :meth:`invite`: a CLI process each cost 0.3-1 s, some 50 times a
        run; ``tests/clients`` test ``poolhall campaign create``)."""
        admin = (self.directory / "table.db.admin-token").read_text().strip()
        ack, = self._run(self._send(None, admin, ({"type": "create_campaign", "name": name,
                                                     "system": system},)))
        assert ack.campaign is not None
        assert ack.token is not None
        return ack.campaign, join_link(self.url, ack.campaign, ack.token)

    def gm_token_file(self, link: str) -> Path:
        """The GM's token (from their link) in a file, for CLI commands as the GM."""
        token = link.split("token=", 1)[1]
        path = self.directory / f"gm-{abs(hash(link))}.token"
        path.write_text(token)
        path.chmod(0o600)
        return path

    def invite(self, campaign: str, gm_link: str, role: str, name: str,
               *characters: str) -> str:
        """Invite a member as the GM would; their join link (sent with the Python client:
        a CLI process per invite cost seconds on a busy machine; the CLI's own tests cover
        ``poolhall invite``)."""
        ack, = self.send(gm_link, {"type": "invite", "role": role, "name": name,
                                   "characters": list(characters)})
        assert ack.token is not None
        return join_link(self.url, campaign, ack.token)

    def send(self, link: str, *commands: Mapping[str, object]) -> list[Ack]:
        """Send ``commands`` (protocol dicts; ids are filled in) as the member whose join link
        is ``link``, in order, over one connection of the Python client; their acks."""
        fragment = dict(part.split("=", 1) for part in link.split("#", 1)[1].split("&"))
        return self._run(self._send(fragment["campaign"], fragment["token"], commands))

    @staticmethod
    def _run(work: Coroutine[object, object, list[Ack]]) -> list[Ack]:
        """``work`` run to its end on a loop of its own thread: Playwright's sync API holds
        this thread's loop."""
        with ThreadPoolExecutor(1) as thread:
            return thread.submit(asyncio.run, work).result()

    async def _send(self, campaign: str | None, token: str,
                    commands: tuple[Mapping[str, object], ...]) -> list[Ack]:
        client = Client(self.url, token, campaign)
        await client.connect()
        try:
            return [await client.send(_COMMANDS.decode(json.dumps(
                {"id": f"test-{index}-{os.urandom(6).hex()}", **command})))
                for index, command in enumerate(commands)]
        finally:
            await client.close()

    def as_gm(self, gm_link: str, *args: str) -> dict[str, object]:
        """Any CLI command with the GM's token."""
        return self.cli(*args, "--token-file", str(self.gm_token_file(gm_link)))


def serving(tmp_path: Path, *flags: str) -> Generator[Served, None, None]:
    """A real ``poolhall serve`` on a free port and a SQLite file in ``tmp_path``, with the
    page's flags and ``flags``; stopped when the generator is closed (a fixture's body)."""
    port = free_port()
    process = start_serve(tmp_path / "table.db", port, *ONE_ADDRESS_FOR_EVERYONE, *flags,
                          log=tmp_path / "serve.log")
    served = Served(tmp_path, port, process)
    try:
        yield served
    finally:  # also when a test closes the generator (close() raises at the yield)
        process = served.process  # a test may have restarted it (a restore): stop that one
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from serving(tmp_path)


@pytest.fixture
def relay(served: Served, open_page: PageOpener) -> Iterator[SilentRelay]:
    """A relay to the server whose WebSockets go silent on request (a link that dies without
    a word): pages opened ``through`` it. The pages are closed before it: closing, it ends
    their links, and a page that tried again before it was closed logged the refused try as
    a console error, failing a test that passed (seen under load)."""
    relay = SilentRelay(served.port)
    yield relay
    open_page.close()
    relay.close()


class PageOpener:
    """``open_page(link, width=1280)``: one person's browser (a fresh context) at ``link``,
    with the table connected (``live=False``: not waiting for it, e.g. the landing page;
    ``prepare``: called with the page before it loads).

    Every frame any of its pages sends over a WebSocket is kept in ``sent`` (and each page's
    in :meth:`sent_from`): at the end of the test each must be a ``ClientMessage`` of
    ``poolhall schema``. Each page's frames received are kept too (:meth:`received_from`)."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.problems: list[str] = []
        self.sent: list[str | bytes] = []
        self._sent_by: dict[Page, list[str]] = {}
        self._received_by: dict[Page, list[str]] = {}

    def __call__(self, link: str, width: int = 1280, height: int = 900,
                 live: bool = True, prepare: Callable[[Page], None] | None = None) -> Page:
        context = self.browser.new_context(viewport={"width": width, "height": height})
        self.contexts.append(context)
        page = context.new_page()
        if prepare is not None:  # before the page loads: routes that hold a file, say
            prepare(page)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self._sent_by[page] = []
        self._received_by[page] = []
        page.on("websocket", lambda socket: self._record(page, socket))
        page.goto(link)
        if live:
            page.wait_for_selector(".ph-connection[data-state=live]", timeout=10_000)
        return page

    def _console(self, message: ConsoleMessage) -> None:
        """Keep an error; a failed load names its resource (Chromium's text does not)."""
        if message.type != "error":
            return
        where = message.location.get("url", "")
        failed_load = message.text.startswith("Failed to load resource") and where
        self.problems.append(f"console: {message.text}" + (f" ({where})" if failed_load else ""))

    def sent_from(self, page: Page) -> list[str]:
        """Every frame ``page`` has sent since it was opened, as text, in order."""
        return list(self._sent_by[page])

    def received_from(self, page: Page) -> list[str]:
        """Every frame ``page`` has received since it was opened, as text, in order. (Chromium
        reports a frame as its page's socket hands it on, and the page handles a message
        event in the same task: one listed here was seen by the page's code.)"""
        return list(self._received_by[page])

    def _record(self, page: Page, socket: WebSocket) -> None:
        socket.on("framesent", lambda payload: self._keep(page, payload))
        socket.on("framereceived",
                  lambda payload: self._received_by[page].append(str(payload)))

    def _keep(self, page: Page, payload: str | bytes) -> None:
        self.sent.append(payload)
        self._sent_by[page].append(str(payload))

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def open_page(browser: Browser, client_message_schema: jsonschema.Validator
              ) -> Iterator[PageOpener]:
    """People's browsers; console errors, page errors and any frame a page sent that is not a
    ``ClientMessage`` of ``poolhall schema`` fail the test."""
    opener = PageOpener(browser)
    yield opener
    opener.close()
    problems = opener.problems + invalid_frames(client_message_schema, opener.sent)
    assert not problems, "\n".join(problems)


def screenshot(page: Page, name: str) -> Path:
    """Write a screenshot for people to look at (not compared: the tests check the DOM).

    Chromium's full-page capture resets the windowed log's scroll position to its top (seen
    only with the windowed log, cause not found): the log's position is put back after it, so
    a picture changes nothing the rest of the test sees."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    log = page.locator("ph-log .ph-log-lines")
    kept = log.evaluate("(list) => list.scrollTop") if log.count() else None
    page.screenshot(path=str(path), full_page=True)
    if kept is not None:
        log.evaluate("""async (list, top) => {
          await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
          list.scrollTop = top;
        }""", kept)
    return path


READ_LOG_BY_SCROLLING = """async (list) => {
  // the log is windowed: read it as a person does, from the top, half a view at a time
  const frame = () => new Promise((done) => requestAnimationFrame(
    () => requestAnimationFrame(done)));
  const lines = [];
  let inOrder = true;
  list.scrollTop = 0;
  for (let step = 0; step < 10000; step += 1) {
    await frame();
    const shown = [...list.querySelectorAll("li[data-seq]")].map(
      (line) => [Number(line.dataset.seq), line.dataset.type]);
    shown.forEach(([seq], i) => { if (i > 0 && seq <= shown[i - 1][0]) inOrder = false; });
    for (const line of shown) {
      if (lines.length === 0 || line[0] > lines[lines.length - 1][0]) lines.push(line);
    }
    if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1) break;
    list.scrollTop += Math.max(20, list.clientHeight / 2);
  }
  return {lines, inOrder};
}"""


def logs_lines_read_through(*pages: Page) -> list[list[tuple[int, str]]]:
    """Every line of each page's log as (seq, event type), in order, as read by scrolling it
    from the top to the bottom (the log keeps only the lines near its view in the DOM); a line
    twice, or out of order, in what is shown at any moment fails.

    The pages read at the same time, each its own log: a read waits two frames a step, some
    seconds for a long log, and one page's frames need not wait for another's read."""
    logs = [page.locator("ph-log .ph-log-lines") for page in pages]
    for log in logs:
        log.evaluate(f"(list) => {{ list.phReadThrough = ({READ_LOG_BY_SCROLLING})(list); }}")
    reads = [log.evaluate("""async (list) => {
      const read = await list.phReadThrough;
      delete list.phReadThrough;
      return read;
    }""") for log in logs]
    for page, read in zip(pages, reads, strict=True):
        assert read["inOrder"], f"the log showed a line twice or out of order ({page.url})"
    return [[(int(seq), str(kind)) for seq, kind in read["lines"]] for read in reads]


def logs_read_through(*pages: Page) -> list[list[int]]:
    """The seq of every line of each page's log, the pages read at once
    (:func:`logs_lines_read_through`)."""
    return [[seq for seq, _ in lines] for lines in logs_lines_read_through(*pages)]


def log_read_through(page: Page) -> list[int]:
    """The seq of every line of the page's log, read through (:func:`logs_lines_read_through`)."""
    return logs_read_through(page)[0]


LISTEN = """() => {
  // what a screen reader is given to say: each text put into a live region (aria-live other
  // than off, or a role that is one: log, status, alert), one entry per change
  window.__heard = [];
  const live = '[aria-live]:not([aria-live=off]), [role=log], [role=status], [role=alert]';
  new MutationObserver((changes) => {
    for (const change of changes) {
      const node = change.target.nodeType === 1 ? change.target : change.target.parentElement;
      const region = node?.closest(live);
      if (!region) continue;
      const words = change.type === 'characterData' ? change.target.textContent
        : [...change.addedNodes].map((added) => added.textContent).join(' ');
      if (words.trim()) window.__heard.push(words.trim());
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def listen(page: Page) -> None:
    """From now on, keep what the page puts into its live regions (:func:`heard`)."""
    page.evaluate(LISTEN)


def heard(page: Page) -> list[str]:
    """What the page put into its live regions since :func:`listen` or the last call, in
    order: what a screen reader would have said."""
    said: list[str] = page.evaluate("() => window.__heard.splice(0)")
    return said
