// The owner's page (/owner#token=...): create campaigns, list them, hand each GM a link.
//
// The link `poolhall serve` printed on its first start carries the admin token in the fragment
// (never sent to a server); it is moved at once to this tab's session storage and cleared from
// the address bar. Everything goes through the protocol as any client speaks it: `join` with no
// campaign opens the owner's session, where `create_campaign` (its ack carries the new GM's
// token) and `list_campaigns` are answered; a new GM link for an existing campaign is an
// `invite` sent after joining that campaign with the same token (the owner is GM everywhere).
import {h, replace} from "./dom.js";
import {defaultUrl, newId} from "./connection.js";
import {joinLink} from "./session.js";
/** @import {Command} from "./messages.js" */
/** @import {NamedControls} from "./dom.js" */

/** A campaign as `list_campaigns` answers it. @typedef {{campaign: string, name: string, system: string}} CampaignEntry */

const KEY = "poolhall.owner";
/** @type {Record<string, string>} */
const SYSTEMS = {narrative: "narrative dice", sr3: "Shadowrun 3", d12: "d12 pools"};

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

/** One WebSocket session: join, then requests answered by id (ack, error, campaign_list). */
class Session {
  /** @param {string} token @param {string | null} [campaign] */
  constructor(token, campaign = null) {
    this.token = token;
    this.campaign = campaign;
    /** @type {Map<string, {done: (answer: any) => void, fail: (error: Error) => void}>} */
    this.waiting = new Map();
    /** @type {WebSocket | undefined} */
    this.socket = undefined;
  }

  open() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(defaultUrl());
      this.socket = socket;
      socket.addEventListener("open", () => socket.send(JSON.stringify(
        this.campaign ? {type: "join", token: this.token, campaign: this.campaign}
          : {type: "join", token: this.token})));
      socket.addEventListener("message", (event) => {
        const message = JSON.parse(event.data);
        if (message.type === "welcome") resolve(message);
        else if (message.type === "error" && !message.id) reject(new Error(message.message));
        else if (message.id && this.waiting.has(message.id)) {
          const {done, fail} = /** @type {{done: (answer: any) => void, fail: (error: Error) => void}} */ (
            this.waiting.get(message.id));
          this.waiting.delete(message.id);
          if (message.type === "error") fail(Object.assign(new Error(message.message),
                                                           {path: message.path}));
          else done(message);
        }
      });
      socket.addEventListener("close", () => {
        reject(new Error("the server closed the connection"));
        for (const {fail} of this.waiting.values()) fail(new Error("the connection closed"));
        this.waiting.clear();
      });
    });
  }

  /** A request once open(): resolves with its answer. @param {Command} message @returns {Promise<any>} */
  ask(message) {
    const id = newId();
    return new Promise((done, fail) => {
      this.waiting.set(id, {done, fail});
      /** @type {WebSocket} */ (this.socket).send(JSON.stringify({...message, id}));
    });
  }

  close() {
    this.socket?.close(1000);
  }
}

function retryKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

/** @param {string} link @param {string} label */
function linkBox(link, label) {
  const field = h("input", {class: "ph-link", readonly: true, value: link, "aria-label": label});
  const said = h("span", {class: "ph-muted", role: "status"});
  const copy = h("button", {type: "button", class: "ph-quiet"}, "Copy");
  copy.addEventListener("click", async () => {
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
           h("a", {href: link, target: "_blank", rel: "noopener"}, "Open the table"), said);
}

class OwnerPage {
  /** @type {Session} made and opened by start() */ session;

  /** @param {string} token */
  constructor(token) {
    this.token = token;
    // owner.html's parts
    this.status = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-status"));
    this.form = /** @type {HTMLFormElement} */ (document.querySelector(".ph-owner-create"));
    this.section = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-campaigns"));
    this.list = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-list"));
    this.empty = /** @type {HTMLElement} */ (document.querySelector(".ph-owner-empty"));
    this.output = /** @type {HTMLOutputElement} */ (this.form.querySelector("output"));
    /** @type {Map<string, string>} */
    this.links = new Map(); // campaign -> the GM link shown in this tab
  }

  async start() {
    this.session = new Session(this.token);
    try {
      await this.session.open();
    } catch (error) {
      this.status.textContent = `this link does not open the owner's page: ${/** @type {Error} */ (error).message}`;
      return;
    }
    this.status.textContent = "connected: create a campaign, then send its GM the link.";
    this.form.hidden = false;
    this.form.noValidate = true; // the browser's bubble would stand in for the page's own words
    this.section.hidden = false;
    this.form.addEventListener("submit", (event) => this.create(event));
    const title = /** @type {NamedControls} */ (this.form.elements).name;
    title.addEventListener("input", () => {
      this.output.textContent = "";
      title.removeAttribute("aria-invalid");
    });
    await this.refresh();
  }

  async refresh() {
    const answer = await this.session.ask({type: "list_campaigns"});
    this.empty.hidden = answer.campaigns.length > 0;
    replace(this.list, answer.campaigns.map((/** @type {CampaignEntry} */ c) => this.row(c)));
  }

  /** @param {CampaignEntry} campaign */
  row(campaign) {
    const holder = h("div", {class: "ph-owner-gm"});
    const known = this.links.get(campaign.campaign);
    if (known) holder.append(linkBox(known, `GM link for ${campaign.name}`));
    const error = h("output", {class: "ph-error", role: "alert"});
    const button = h("button", {type: "button", class: "ph-quiet"},
                     known ? "Another GM link" : "New GM link");
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
    try {
      const ack = await this.session.ask({
        type: "create_campaign", name, system: String(data.get("system")), retry_key: retryKey(),
      });
      this.links.set(ack.campaign, joinLink(ack.campaign, ack.token));
      this.form.reset();
      await this.refresh();
      /** @type {HTMLInputElement | null} */ (
        this.list.querySelector(`li[data-campaign="${CSS.escape(ack.campaign)}"] input`))?.focus();
    } catch (error) {
      this.output.textContent = /** @type {Error} */ (error).message;
    } finally {
      button.disabled = false;
    }
  }

  /** @param {CampaignEntry} campaign @param {HTMLElement} holder @param {HTMLButtonElement} button
   * @param {HTMLOutputElement} error */
  async newGmLink(campaign, holder, button, error) {
    error.textContent = "";
    button.disabled = true;
    const session = new Session(this.token, campaign.campaign);
    try {
      await session.open();
      const ack = await session.ask({type: "invite", role: "gm", name: "GM", retry_key: retryKey()});
      const link = joinLink(campaign.campaign, ack.token);
      this.links.set(campaign.campaign, link);
      replace(holder, linkBox(link, `GM link for ${campaign.name}`));
      button.textContent = "Another GM link";
      /** @type {HTMLInputElement} */ (holder.querySelector("input")).focus();
    } catch (failure) {
      error.textContent = /** @type {Error} */ (failure).message;
    } finally {
      session.close();
      button.disabled = false;
    }
  }
}

const token = ownerToken();
if (token) new OwnerPage(token).start();
else /** @type {HTMLElement} */ (document.querySelector(".ph-owner-status")).textContent =
  "open this page with the owner's link `poolhall serve` printed on its first start.";
