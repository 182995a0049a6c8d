// The owner's page (/owner#token=...): create campaigns, list them, hand each GM a link.
//
// The link `poolhall serve` printed on its first start carries the admin token in the fragment
// (never sent to a server); it is moved at once to this tab's session storage and cleared from
// the address bar. Everything goes through the protocol as any client speaks it: `join` with no
// campaign opens the owner's session, where `create_campaign` (its ack carries the new GM's
// token) and `list_campaigns` are answered; a new GM link for an existing campaign is an
// `invite` sent after joining that campaign with the same token (the owner is GM everywhere).
// The connection is the table page's (`Reconnecting`, reconnecting.js): when it drops the status
// line says so and it opens again by itself; joined again, the status says "back" and the
// campaign list is read anew. Its link is checked as the table page's is (a request
// unanswered for 5 s, the page shown again, 30 s of silence): a link that died without
// a word (a laptop that slept) is given up and opened again instead of looking connected. A request made while not connected is refused at once, beside
// its button, and nothing is sent; one sent just before the drop fails when it drops, beside
// its button too. Pressing again sends the same command id and `retry_key` (until the server
// has answered it), so a try that did reach the server gets its first answer, with the GM's
// token, and never makes a second campaign or GM.
import {h, replace} from "./dom.js";
import {BACK_SHOWN_MS, FOR_GOOD, Reconnecting, defaultUrl, newId} from "./reconnecting.js";
import {joinLink} from "./session.js";
/** @import {Command} from "./messages.js" */
/** @import {NamedControls} from "./dom.js" */

/** A campaign as `list_campaigns` answers it. @typedef {{campaign: string, name: string, system: string}} CampaignEntry */
/** @typedef {{done: (answer: any) => void, fail: (error: Error) => void}} Asked */
/** @typedef {"connecting" | "live" | "reconnecting" | "back" | "refused"} OwnerState */

const KEY = "poolhall.owner";
/** @type {Record<string, string>} */
const SYSTEMS = {narrative: "narrative dice", sr3: "Shadowrun 3", d12: "d12 pools"};
const NOT_CONNECTED = "Not connected to the server, so nothing was sent: try again once this"
  + " page says it is connected.";
const LOST_ANSWER = "The connection was lost before the server answered. Try again once this"
  + " page says it is connected: if the first try reached the server, you get what it did,"
  + " not a second one.";
const NO_TOKEN = "Done, but the server can no longer show the link it made: press New GM"
  + " link beside the campaign for another.";

function ownerToken() {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = fragment.get("token");
  if (token) {
    sessionStorage.setItem(KEY, token);
    history.replaceState(null, "", location.pathname);
    return token;
  }
  return sessionStorage.getItem(KEY);
}

/** The server's refusal of a request (not a lost connection). */
class Refused extends Error {
  /** @param {string} message @param {string | undefined} path */
  constructor(message, path) {
    super(message);
    this.path = path;
  }
}

/** The owner's WebSocket: joins with the admin token (and a campaign, for a GM link), then
 * requests answered by id (ack, error, campaign_list). It opens again by itself after a drop;
 * `once`: it does not (a GM link's short session), and `ready` fails instead. */
class OwnerSession extends Reconnecting {
  /** @param {string} token @param {{campaign?: string | null, once?: boolean}} [options] */
  constructor(token, {campaign = null, once = false} = {}) {
    super(defaultUrl());
    this.token = token;
    this.campaign = campaign;
    this.once = once;
    /** @type {Map<string, Asked>} */
    this.waiting = new Map();
    /** @type {OwnerState} */
    this.state = "connecting";
    this.problem = ""; // the server's words on a refused join
    /** Each member's name, from the campaign's `member_invited` events (a GM link's session
     * reads the log from its start): the name the table shows a new GM by. @type {Map<string, string>} */
    this.invited = new Map();
    /** Told each change of `state` (or of `problem`). @type {(state: OwnerState) => void} */
    this.changed = () => {};
    /** @type {Asked} */
    let settle = {done: () => {}, fail: () => {}};
    /** The first join: resolves on its `welcome`, fails when refused (or, `once`, dropped). */
    this.ready = new Promise((done, fail) => { settle = {done, fail}; });
    this.ready.catch(() => {}); // a page that waits on `changed` instead never reads it
    this.settleReady = settle;
  }

  /** @param {OwnerState} state */
  set(state) {
    this.state = state;
    this.changed(state);
  }

  /** @param {WebSocket} socket */
  join(socket) {
    socket.send(JSON.stringify(this.campaign ? {type: "join", token: this.token, campaign: this.campaign}
      : {type: "join", token: this.token}));
  }

  /** @param {WebSocket} socket @param {string} data */
  receive(socket, data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "welcome") {
      const again = this.welcomed();
      this.problem = "";
      this.set(again ? "back" : "live");
      this.settleReady.done(message);
      if (again) setTimeout(() => { if (this.state === "back") this.set("live"); }, BACK_SHOWN_MS);
    } else if (message.type === "error" && !message.id) { // the join was refused
      this.problem = message.message;
      if (FOR_GOOD.has(message.code) || this.once) {
        this.stop();
        this.set("refused");
        this.settleReady.fail(new Refused(message.message, message.path));
      } else this.set(this.state); // said; tried again after the server closes
    } else if (message.type === "event" && message.event?.type === "member_invited") {
      this.invited.set(message.event.member, message.event.name);
    } else if (message.id && this.waiting.has(message.id)) {
      const {done, fail} = /** @type {Asked} */ (this.waiting.get(message.id));
      this.waiting.delete(message.id);
      if (message.type === "error") fail(new Refused(message.message, message.path));
      else done(message);
    }
  }

  /** @param {CloseEvent | null} event */
  dropped(event) {
    for (const {fail} of this.waiting.values()) fail(new Error(LOST_ANSWER));
    this.waiting.clear();
    if (this.once) {
      this.stop();
      this.settleReady.fail(new Error(event?.reason || "the server could not be reached"));
    }
    if (this.state !== "reconnecting") this.set("reconnecting");
  }

  /** A request, sent only while joined: resolves with its answer; fails with `Refused` (the
   * server's words) or, at once, with an Error when not connected or when the connection is
   * lost before the answer. @param {Command} message @returns {Promise<any>} */
  ask(message) {
    if (!this.joined) return Promise.reject(new Error(NOT_CONNECTED));
    const socket = /** @type {WebSocket} */ (this.socket);
    const id = message.id ?? newId();
    return new Promise((done, fail) => {
      this.waiting.set(id, {done, fail});
      socket.send(JSON.stringify({...message, id}));
      this.link.due(() => this.waiting.has(id));
    });
  }
}

/** A command's id and retry_key, kept from its first try until the server has answered it:
 * a try again after a lost connection sends the same ones, so the server answers with what the
 * first try did (a command id stands for its command), never doing it twice. */
class Tries {
  constructor() {
    /** @type {Map<string, {id: string, retry_key: string}>} */
    this.kept = new Map();
  }

  /** The id and retry_key for `command` (the same body, to the same campaign: the same ones).
   * @param {Command} command @param {string} [campaign] */
  of(command, campaign = "") {
    const key = campaign + JSON.stringify(command);
    let kept = this.kept.get(key);
    if (!kept) {
      kept = {id: newId(), retry_key: retryKey()};
      this.kept.set(key, kept);
    }
    return kept;
  }

  /** The server answered `command` (done or refused): a next one is a new command.
   * @param {Command} command @param {string} [campaign] */
  answered(command, campaign = "") {
    this.kept.delete(campaign + JSON.stringify(command));
  }
}

function retryKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

/** A GM link shown in this tab: its member's name once known; `copied`: Copy pressed (or the
 * field copied from). @typedef {{link: string, name: string | null, copied: boolean}} GmLink */

/** @param {GmLink} shown @param {string} label */
function linkBox(shown, label) {
  const link = shown.link;
  const field = h("input", {class: "ph-link", readonly: true, value: link, "aria-label": label});
  const said = h("span", {class: "ph-muted", role: "status"});
  const copy = h("button", {type: "button", class: "ph-quiet"}, "Copy");
  field.addEventListener("copy", () => { shown.copied = true; });
  copy.addEventListener("click", async () => {
    shown.copied = true;
    try {
      await navigator.clipboard.writeText(link);
      said.textContent = "copied";
    } catch {
      field.focus();
      field.select();
      said.textContent = "selected: press Ctrl+C (⌘C) to copy";
    }
  });
  return h("div", {class: "ph-owner-link"}, field, copy,
           h("a", {href: link, target: "_blank", rel: "noopener"}, "Open the table"), said,
           shown.name ? h("p", {class: "ph-owner-gm-name"}, `At the table this link is the GM “${shown.name}”:`
             + " if it is ever lost, remove that member there.") : null);
}

/** @type {Record<OwnerState, string>} */
const STATUS_WORDS = {
  connecting: "connecting…",
  live: "connected: create a campaign, then send its GM the link.",
  reconnecting: "connection lost: reconnecting…",
  back: "back: connected again.",
  refused: "this link does not open the owner's page",
};

class OwnerPage {
  /** @param {string} token */
  constructor(token) {
    this.token = token;
    this.session = new OwnerSession(token);
    this.tries = new Tries();
    // owner.html's parts
    this.status = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-status"));
    this.form = /** @type {HTMLFormElement} */ (document.querySelector(".ph-owner-create"));
    this.section = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-campaigns"));
    this.list = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-list"));
    this.empty = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-empty"));
    this.output = /** @type {HTMLOutputElement} */ (this.form.querySelector("output"));
    /** Each campaign's GM links made in this tab, every one listed until the page is left
     * (another GM link replaced the last, shown once). @type {Map<string, GmLink[]>} */
    this.links = new Map();
    this.listed = false; // the list was read once
  }

  start() {
    this.form.noValidate = true; // the browser's bubble would stand in for the page's own words
    this.form.addEventListener("submit", (event) => this.create(event));
    const title = /** @type {NamedControls} */ (this.form.elements).name;
    title.addEventListener("input", () => {
      this.output.textContent = "";
      title.removeAttribute("aria-invalid");
    });
    this.session.changed = (state) => this.connection(state);
    addEventListener("beforeunload", (event) => { // a GM link never copied is lost on leaving
      if (![...this.links.values()].flat().some((shown) => !shown.copied)) return;
      event.preventDefault();
      event.returnValue = "";
    });
    this.session.start();
  }

  /** The status line says where the connection is; each join (the first, or again after a
   * drop) reads the campaign list anew. @param {OwnerState} state */
  connection(state) {
    const session = this.session;
    let words = STATUS_WORDS[state];
    if (state === "reconnecting" && !session.everJoined) words = "cannot reach the server: trying again…";
    if (state === "refused") words = `${words}: ${session.problem}`;
    else if (session.problem) words = `${words} (the server said: ${session.problem})`;
    this.status.textContent = words;
    this.status.dataset.state = state;
    if (state === "live" || state === "back") {
      this.form.hidden = false;
      this.section.hidden = false;
      if (state === "back" || !this.listed) this.refresh();
    }
  }

  /** Read the campaign list; a drop meanwhile leaves the list as it was (the next join
   * reads it again). */
  async refresh() {
    let answer;
    try {
      answer = await this.session.ask({type: "list_campaigns"});
    } catch {
      return;
    }
    this.listed = true;
    this.empty.hidden = answer.campaigns.length > 0;
    replace(this.list, answer.campaigns.map((/** @type {CampaignEntry} */ c) => this.row(c)));
  }

  /** @param {CampaignEntry} campaign */
  row(campaign) {
    const holder = h("div", {class: "ph-owner-gm"});
    const known = this.links.get(campaign.campaign) ?? [];
    for (const shown of known) holder.append(linkBox(shown, `GM link for ${campaign.name}`));
    const error = h("output", {class: "ph-error", role: "alert"});
    // each row's button says whose link it makes: a screen reader listing the buttons heard
    // "New GM link" once per campaign, the same words for every one
    const button = h("button", {type: "button", class: "ph-quiet"},
                     known.length ? "Another GM link" : "New GM link",
                     h("span", {class: "ph-sr-only"}, ` for ${campaign.name}`));
    button.addEventListener("click", () => this.newGmLink(campaign, holder, button, error));
    return h("li", {"data-campaign": campaign.campaign},
      h("strong", {}, campaign.name), " ",
      h("span", {class: "ph-muted"}, `${SYSTEMS[campaign.system] ?? campaign.system} · ${campaign.campaign}`),
      holder, h("div", {}, button), error);
  }

  /** @param {SubmitEvent} event */
  async create(event) {
    event.preventDefault();
    const data = new FormData(this.form);
    const button = /** @type {HTMLButtonElement} */ (this.form.querySelector("button[type=submit]"));
    const title = /** @type {NamedControls} */ (this.form.elements).name;
    const name = String(data.get("name")).trim();
    const command = {type: "create_campaign", name, system: String(data.get("system"))};
    this.output.textContent = "";
    if (!name) { // the page's own check, in the words of its own label: the server's refusal
      // names its field ("the name is empty"), which this form calls "Title"
      this.output.id ||= "ph-owner-error";
      title.setAttribute("aria-invalid", "true");
      title.setAttribute("aria-describedby", this.output.id);
      this.output.textContent = "give the campaign a title";
      title.focus();
      return;
    }
    button.disabled = true;
    let ack;
    try {
      ack = await this.session.ask({...command, ...this.tries.of(command)});
      this.tries.answered(command);
    } catch (error) {
      if (error instanceof Refused) this.tries.answered(command);
      this.output.textContent = /** @type {Error} */ (error).message;
      return;
    } finally {
      button.disabled = false;
    }
    if (ack.token) this.gmLink(ack.campaign, {link: joinLink(ack.campaign, ack.token), name: null, copied: false});
    this.form.reset();
    if (!ack.token) this.output.textContent = NO_TOKEN;
    await this.refresh();
    /** @type {HTMLInputElement | null} */ (
      this.list.querySelector(`li[data-campaign="${CSS.escape(ack.campaign)}"] input`))?.focus();
  }

  /** @param {string} campaign @param {GmLink} shown */
  gmLink(campaign, shown) {
    this.links.set(campaign, [...this.links.get(campaign) ?? [], shown]);
  }

  /** A new GM for the campaign, on a short session of its own (a join is to one campaign).
   * @param {CampaignEntry} campaign @param {HTMLElement} holder @param {HTMLButtonElement} button
   * @param {HTMLOutputElement} error */
  async newGmLink(campaign, holder, button, error) {
    error.textContent = "";
    if (!this.session.joined) {
      error.textContent = NOT_CONNECTED;
      return;
    }
    button.disabled = true;
    const command = {type: "invite", role: "gm", name: "GM"};
    const session = new OwnerSession(this.token, {campaign: campaign.campaign, once: true});
    try {
      session.start();
      await session.ready;
      const ack = await session.ask({...command, ...this.tries.of(command, campaign.campaign)});
      this.tries.answered(command, campaign.campaign);
      if (!ack.token) throw new Error(NO_TOKEN);
      // each GM link is a member of its own name ("GM 2"): the one to remove if it is lost
      const name = session.invited.get(ack.member) ?? ack.member;
      const shown = {link: joinLink(campaign.campaign, ack.token), name, copied: false};
      this.gmLink(campaign.campaign, shown);
      const box = linkBox(shown, `GM link for ${campaign.name} (${name})`);
      holder.append(box); // below the links made before, which stay
      button.firstChild.textContent = "Another GM link"; // the words, not the campaign's name
      /** @type {HTMLInputElement} */ (box.querySelector("input")).focus();
    } catch (failure) {
      if (failure instanceof Refused) this.tries.answered(command, campaign.campaign);
      error.textContent = /** @type {Error} */ (failure).message;
    } finally {
      session.stop();
      button.disabled = false;
    }
  }
}

const token = ownerToken();
if (token) new OwnerPage(token).start();
else /** @type {HTMLElement} */ (document.querySelector(".ph-owner-status")).textContent =
  "open this page with the owner's link `poolhall serve` printed on its first start.";
