// The socket the table's page (connection.js) and the owner's (owner.js) build on.
//
// A browser that says it went offline (a phone leaving Wi-Fi) is believed at once: the socket
// is closed, and no reconnect is tried until it says it is online again (an open WebSocket
// would otherwise look alive for minutes).
//
// A connection can also die without a word: a phone that slept and woke on another network, a
// NAT mapping dropped. Its socket then stays "open" in the browser for minutes, and the
// server's pings, which would notice, are not seen by a page, which cannot send its own. So a
// page checks the link itself (`LinkCheck`): when a request goes unanswered, when the page is
// shown again after being hidden, and when a shown page heard nothing for half a minute, it
// asks the server for an empty history page (the cheapest request answered with its id) and,
// if nothing at all comes back in a few seconds, gives the socket up and joins again (the
// table's page then resumes: connection.js).
//
// A new connection can hang too (a captive portal that takes the connection and never answers,
// a path that died between the handshake and the welcome): the browser gives its handshake up
// only after minutes, and a welcome that never comes not at all. So an attempt not welcomed
// within JOIN_DUE_MS is given up and the next one tried, after the usual delay.

/** @import {Command} from "./messages.js" */

const RETRY_DELAYS = [250, 500, 1000, 2000, 4000, 8000];
/** A command unanswered this long makes the page check the link. The server answers a command
 * in milliseconds and a busy one in well under a second; past 5 s a person has been looking at
 * a disabled Roll button for long enough that the page should find out why. */
export const ANSWER_DUE_MS = 5000;
/** After asking, how long the page waits for any frame at all before it gives the socket up.
 * The answer is an empty page read from nothing (no database, no campaign queue): a live link
 * brings it back in one round trip, which is under a second even on a slow mobile network;
 * 4 s leaves room for a phone's radio waking up, while a dead link is found 9 s after a
 * command at most (ANSWER_DUE_MS + this). */
export const SILENCE_MS = 4000;
/** A page that is shown and heard nothing (no event, no answer) for this long checks the link
 * once; it looks every quarter of it, so a link that died without a word is given up 30 to
 * 41.5 s after the last frame (this, a quarter of it, SILENCE_MS), not minutes later while the
 * table rolls on. The browser answers the server's pings (every 20 s) without telling the page,
 * so a quiet table hears nothing else: an idle shown page sends one empty history page,
 * answered without a read, every 30 to 37.5 s (its cost: docs/explanation/load-and-limits.md).
 * A hidden page sends none: it checks when shown. */
export const IDLE_CHECK_MS = 30_000;
/** An attempt to connect that has not been welcomed this long after it started is given up
 * and the next one tried: a handshake and a join take a few round trips (well under a second,
 * a few seconds on a poor mobile link), and the server itself gives a new connection 10 s to
 * join (`--join-timeout`). Without it a hung attempt waited for Chromium's 240 s handshake
 * limit, or for ever when the welcome was lost, with a roll queued meanwhile never sent. */
export const JOIN_DUE_MS = 10_000;
/** How long "back" is shown after a join again, before "connected". */
export const BACK_SHOWN_MS = 2500;
/** Join refusals that another try would get again: the page stops trying. (`invalid`: a
 * token or a campaign the join may not carry, from a damaged link; tried again every 10 s,
 * its failed joins got the next member at the same address refused `rate_limited`.) */
export const FOR_GOOD = new Set(["unauthorized", "forbidden", "not_found", "diverged", "invalid"]);
/**
 * One WebSocket to the server that opens again by itself: after a close, with a growing,
 * jittered delay (RETRY_DELAYS); at once when the browser says it is online again; never while
 * it says it is offline; when an attempt is not welcomed within JOIN_DUE_MS; and when its
 * `link` check finds it silent (a subclass calls `link.due(waiting)` for each request it
 * sends). What is said on it is the subclass's:
 * `join(socket)` once it opens, `receive(socket, data)` for each frame of the current socket,
 * `dropped(event)` when that socket closed (`null`: the browser went offline), and
 * `welcomed()` on each `welcome`.
 */
export class Reconnecting {
  /** @param {string} url */
  constructor(url) {
    this.url = url;
    this.attempt = 0;
    /** @type {WebSocket | null} */
    this.socket = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retry = undefined;
    this.offline = () => this.wentOffline();
    this.online = () => this.cameOnline();
    this.stopped = false;
    this.everJoined = false;
    /** @type {WebSocket | null} the socket the last `welcome` came on */
    this.joinedOn = null;
    this.link = new LinkCheck((shown) => this.probe(shown), () => this.abandon());
  }

  start() {
    this.link.start();
    window.addEventListener("offline", this.offline);
    window.addEventListener("online", this.online);
    this.open();
  }

  stop() {
    this.link.stop();
    this.stopped = true;
    clearTimeout(this.retry);
    window.removeEventListener("offline", this.offline);
    window.removeEventListener("online", this.online);
    this.socket?.close(1000);
  }

  wentOffline() {
    if (this.stopped) return;
    this.link.forget();
    this.dropped(null);
    this.socket?.close(1000, "offline");
  }

  cameOnline() {
    if (this.stopped || this.socket?.readyState === WebSocket.OPEN) return;
    clearTimeout(this.retry);
    this.attempt = 0;
    this.open();
  }

  open() {
    if (this.stopped) return;
    this.socket?.close(1000);
    const socket = new WebSocket(this.url);
    this.socket = socket;
    setTimeout(() => { // not welcomed in time: give it up (JOIN_DUE_MS)
      if (socket === this.socket && this.joinedOn !== socket) this.abandon();
    }, JOIN_DUE_MS);
    socket.addEventListener("open", () => this.join(socket));
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.link.heard();
      this.receive(socket, event.data);
    });
    socket.addEventListener("close", (event) => this.closed(socket, event));
  }

  /** Send the link's check, an empty history page (nothing before event 1), if joined: a
   * campaign's session reads it from nothing, and the owner's (no campaign) refuses it in the
   * dispatch itself, unread (cheaper than its one other read, the list of campaigns); both
   * answer at once with its id, and any frame is proof enough. Not joined, a page just shown
   * again (`shown`) opens at once instead of waiting out its retry delay (someone looks at it
   * now). @param {boolean} shown */
  probe(shown) {
    if (!this.joined) {
      const socket = this.socket;
      if (shown && navigator.onLine && (!socket || socket.readyState >= WebSocket.CLOSING)) {
        this.cameOnline();
      }
      return false;
    }
    /** @type {Command} */
    const check = {type: "history", id: `link-${newId()}`, before: 1, limit: 1};
    /** @type {WebSocket} */ (this.socket).send(JSON.stringify(check));
    return true;
  }

  /** The join to send on a socket just opened. @param {WebSocket} socket */
  join(socket) {}

  /** A frame of the current socket. @param {WebSocket} socket @param {string} data */
  receive(socket, data) {}

  /** The connection is gone (`event`: the socket's close; null: the browser went offline, or
   * the page gave up a socket that no longer answered);
   * a new one is opened by itself after this returns, unless stopped.
   * @param {CloseEvent | null} event */
  dropped(event) {}

  /** Call on each `welcome`: true when it is a join again (after a drop), not the first. */
  welcomed() {
    const again = this.everJoined;
    this.attempt = 0;
    this.everJoined = true;
    this.joinedOn = this.socket;
    return again;
  }

  /** True while joined: the current socket is open and was welcomed. */
  get joined() {
    return this.joinedOn === this.socket && this.socket?.readyState === WebSocket.OPEN;
  }

  /** @param {WebSocket} socket @param {CloseEvent} event */
  closed(socket, event) {
    if (socket !== this.socket || this.stopped) return;
    this.reopen(event);
  }

  /** Give the current socket up as dead without waiting for its close: on a link that went
   * silent the browser's closing handshake waits for an answer that never comes (up to a
   * minute). Its frames and its close, if they ever arrive, are no longer this page's. */
  abandon() {
    const socket = this.socket;
    if (!socket || this.stopped) return;
    this.socket = null;
    socket.close(4001, "no answer");
    this.reopen(null);
  }

  /** The current socket is gone (its close, or null: given up): say so and open again, after
   * a delay, unless the browser is offline. @param {CloseEvent | null} event */
  reopen(event) {
    this.link.forget();
    this.dropped(event);
    if (this.stopped || !navigator.onLine) return; // cameOnline() opens again
    const delay = RETRY_DELAYS[Math.min(this.attempt, RETRY_DELAYS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.open(), delay * (0.75 + Math.random() / 2));
  }
}

/**
 * Whether the joined socket still answers (see the top of this file). `ask()` sends the cheap
 * request on the current socket (false: no socket to ask on); `lost()` gives the socket up.
 * Any frame received (`heard()`) shows the link alive, so a page receiving a long catch-up is
 * never cut off for an answer that waits behind it.
 */
export class LinkCheck {
  /** @param {(shown: boolean) => boolean} ask @param {() => void} lost */
  constructor(ask, lost) {
    this.ask = ask;
    this.lost = lost;
    /** @type {ReturnType<typeof setTimeout> | undefined} the give-up time of the check out */
    this.deadline = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.idle = undefined;
    this.lastHeard = Date.now();
    this.shown = () => { if (document.visibilityState === "visible") this.check(true); };
    // a page put back from the back-forward cache (not its first load, which has just joined)
    this.restored = (/** @type {PageTransitionEvent} */ event) => {
      if (event.persisted) this.check(true);
    };
  }

  /** Watch for the page being shown again and for long silences. */
  start() {
    document.addEventListener("visibilitychange", this.shown);
    window.addEventListener("pageshow", this.restored);
    this.idle = setInterval(() => {
      if (document.visibilityState === "visible" && Date.now() - this.lastHeard >= IDLE_CHECK_MS) {
        this.check();
      }
    }, IDLE_CHECK_MS / 4);
  }

  stop() {
    document.removeEventListener("visibilitychange", this.shown);
    window.removeEventListener("pageshow", this.restored);
    clearInterval(this.idle);
    this.forget();
  }

  /** A frame came: the link is alive. */
  heard() {
    this.lastHeard = Date.now();
    this.forget();
  }

  /** The socket is gone anyway: no check is out any more. */
  forget() {
    clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  /** Ask, unless a check is already out, and give the socket up if nothing comes back.
   * @param {boolean} [shown] the page was just shown again */
  check(shown = false) {
    if (this.deadline !== undefined || !this.ask(shown)) return;
    this.deadline = setTimeout(() => {
      this.deadline = undefined;
      this.lost();
    }, SILENCE_MS);
  }

  /** Check the link if `waiting()` still holds ANSWER_DUE_MS from now (a command unanswered).
   * @param {() => boolean} waiting */
  due(waiting) {
    setTimeout(() => { if (waiting()) this.check(); }, ANSWER_DUE_MS);
  }
}

export function defaultUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
}

export function newId() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`.slice(0, 60);
}
