// One WebSocket to the server this page came from: join, resume, commands and their answers.
//
// A resume sends the last event the page has (`since`, `since_hash`): the server sends exactly
// the events missed (or a snapshot if too far behind), so the log shows no gap and no
// duplicate. Commands carry an id; one still unanswered when the connection drops is sent
// again, with the same id, after the resume: the server answers a retry with its first answer,
// so a command is never applied twice.
//
// A browser that says it went offline (a phone leaving Wi-Fi) is believed at once: the socket
// is closed and no reconnect is tried until it says it is online again (an open WebSocket
// would otherwise look alive for minutes). Commands made meanwhile wait in `pending`.

/** @import {Store} from "./store.js" */
/** @import {Command, ErrorReply, ServerMessage} from "./messages.js" */

/**
 * A command sent and not yet answered.
 * @typedef {object} Waiting
 * @property {Command & {id: string}} message
 * @property {(reply: any) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {boolean} [retried]
 */

const RETRY_DELAYS = [250, 500, 1000, 2000, 4000, 8000];
const BACK_SHOWN_MS = 2500;
const FOR_GOOD = new Set(["unauthorized", "forbidden", "not_found", "diverged"]);

export class CommandRefused extends Error {
  /** @param {ErrorReply} reply */
  constructor(reply) {
    super(reply.message);
    this.code = reply.code;
    this.path = reply.path;
  }
}

export class TableConnection {
  /** @param {Store} store @param {{campaign: string, token: string, url?: string}} where */
  constructor(store, {campaign, token, url = defaultUrl()}) {
    this.store = store;
    this.campaign = campaign;
    this.token = token;
    this.url = url;
    /** @type {Map<string, Waiting>} */
    this.pending = new Map(); // id -> {message, resolve, reject, sent}
    this.attempt = 0;
    /** @type {WebSocket | null} */
    this.socket = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retry = undefined;
    this.offline = () => this.wentOffline();
    this.online = () => this.cameOnline();
    this.stopped = false;
    this.everJoined = false;
  }

  start() {
    window.addEventListener("offline", this.offline);
    window.addEventListener("online", this.online);
    this.open();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("offline", this.offline);
    window.removeEventListener("online", this.online);
    this.socket?.close(1000);
  }

  wentOffline() {
    if (this.stopped) return;
    this.store.set({connection: "reconnecting"});
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
    socket.addEventListener("open", () => this.join(socket));
    socket.addEventListener("message", (event) => this.receive(socket, event.data));
    socket.addEventListener("close", (event) => this.closed(socket, event));
  }

  /** @param {WebSocket} socket */
  join(socket) {
    const [since, sinceHash] = this.store.last;
    /** @type {Command} */
    const join = {type: "join", token: this.token, campaign: this.campaign, since, table: true};
    if (since > 0 && sinceHash) join.since_hash = sinceHash;
    socket.send(JSON.stringify(join));
  }

  /** @param {WebSocket} socket @param {string} data */
  receive(socket, data) {
    if (socket !== this.socket) return;
    /** @type {ServerMessage} */
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    const store = this.store;
    switch (message.type) {
      case "welcome":
        this.attempt = 0;
        store.welcome(message);
        store.set({connection: this.everJoined ? "back" : "live", problem: null});
        if (this.everJoined) setTimeout(() => {
          if (store.state.connection === "back") store.set({connection: "live"});
        }, BACK_SHOWN_MS);
        this.everJoined = true;
        this.resend();
        break;
      case "snapshot":
        if (message.id) this.answer(message.id, message, null); // a `state_at` answer
        else store.snapshot(message);
        break;
      case "event":
        if (!store.event(message)) socket.close(4000, "gap"); // resume from what we have
        break;
      case "revealed": // private rolls, whole at the session's end, for the sealed lines
        store.revealed(message.events ?? []);
        break;
      case "table":
        store.table(message);
        break;
      case "view":
        store.view(message);
        break;
      case "views_at": // the odds of a past table (replay), after its snapshot
        store.dispatchEvent(new CustomEvent("views_at", {detail: message}));
        break;
      case "ack":
      case "history":
      case "report":
        this.answer(message.id, message, null);
        break;
      case "error":
        if (message.id) {
          this.answer(message.id, null, message);
        } else {
          this.refusedJoin(message);
        }
        break;
      default:
        break; // a newer server's message: not for this page
    }
  }

  /** @param {ErrorReply} message */
  refusedJoin(message) {
    if (FOR_GOOD.has(message.code)) {
      this.stopped = true;
      this.store.set({connection: "closed", problem: message.message});
    } else {
      this.store.set({problem: message.message});
    }
  }

  /** @param {string} id @param {ServerMessage | null} reply @param {ErrorReply | null} error */
  answer(id, reply, error) {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    if (error && error.code === "rate_limited" && error.retry_after && !waiting.retried) {
      waiting.retried = true; // the server said when: try once more then
      setTimeout(() => this.transmit(waiting.message), error.retry_after * 1000);
      return;
    }
    this.pending.delete(id);
    if (error) waiting.reject(new CommandRefused(error));
    else waiting.resolve(reply);
  }

  /** Send a command (or a history request); resolves with the answer, rejects with the
   * server's refusal (CommandRefused: code, message in plain words, path of the field).
   * @param {Command} fields @returns {Promise<any>} */
  request(fields) {
    const message = {...fields, id: fields.id ?? newId()};
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, {message, resolve, reject});
      this.transmit(message);
    });
  }

  /** @param {Command} message */
  transmit(message) {
    if (this.socket?.readyState === WebSocket.OPEN && this.store.state.welcome
        && this.store.state.connection !== "reconnecting") {
      this.socket.send(JSON.stringify(message));
    } // else: sent by resend() once joined again
  }

  resend() {
    const socket = /** @type {WebSocket} */ (this.socket); // called on its `welcome`
    for (const waiting of this.pending.values()) socket.send(JSON.stringify(waiting.message));
  }

  /** @param {WebSocket} socket @param {CloseEvent} event */
  closed(socket, event) {
    if (socket !== this.socket || this.stopped) return;
    const store = this.store;
    if (event.code === 1008 && store.state.connection !== "reconnecting" && this.everJoined) {
      // removed from the campaign, or no join in time
      store.set({connection: "reconnecting", problem: event.reason || null});
    } else {
      store.set({connection: "reconnecting"});
    }
    if (!navigator.onLine) return; // cameOnline() opens again
    const delay = RETRY_DELAYS[Math.min(this.attempt, RETRY_DELAYS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.open(), delay * (0.75 + Math.random() / 2));
  }
}

export function defaultUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
}

export function newId() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`.slice(0, 60);
}
