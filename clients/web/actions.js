// Actions go up as DOM events to the one place that sends commands (ph-app), and come back
// as the server's answer: an element never talks to the socket itself.
//
//   const ack = await act(this, {type: "roll", expression: "2d6"});
//
// `bindForm` wires a form: its submit builds a command, the button is disabled while it is in
// flight, and a refusal is shown in plain words in the form's own <output class="ph-error">,
// next to the control that caused it (the field the server's path names gets aria-invalid).
//
// Forms are not validated by the browser (`noValidate`): its bubble ("Value must be less than
// or equal to 5") would stand in for the rule's own words, which the server's refusal quotes
// beside the control. An error goes when it no longer applies: when the form is edited or
// sent again (a success leaves none), and when the part of the table it was about changes
// (`clearWhenChanged`, called by each part with a key of what it shows: a check, the destiny
// pool and the open checks, the encounter; and by ph-app with the game session, for every
// form of the page at once: a session started or ended changes what any refusal said). ph-app hands a command's answer over only once the
// table sent before it is drawn, so a refusal is never cleared by the very change it reports.
// The control that acted keeps the focus (a disabled button drops it to the page's body), for
// keyboard users.

/** @import {Command} from "./messages.js" */

export const COMMAND_EVENT = "ph-command";
/** A free roll was made from a form (its ack's `seqs` in `detail`): ph-app shows its line by
 * the roll form on a phone's Table view, where the log is out of sight. */
export const ROLLED_EVENT = "ph-rolled";

/** Say that `element`'s roll was made (`ack`: the server's answer). @param {Element} element
 * @param {{seqs: number[]}} ack */
export function rolled(element, ack) {
  element.dispatchEvent(new CustomEvent(ROLLED_EVENT, {bubbles: true, detail: ack.seqs}));
}

/**
 * The `detail` of a `ph-command` event: the command, and how to answer it; `taken` is set by
 * the one that sends it (ph-app).
 * @typedef {object} CommandRequest
 * @property {Command} command
 * @property {(reply: any) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {boolean} [taken]
 */

/** A refusal as the forms show it: its words, and the field it is about when it names one.
 * @typedef {Error & {path?: string | null}} Refusal */

/**
 * Send `command` from `element`; resolves with the ack, rejects with the refusal.
 * @param {Element} element @param {Command} command @returns {Promise<any>}
 */
export function act(element, command) {
  return new Promise((resolve, reject) => {
    /** @type {CustomEvent<CommandRequest>} */
    const event = new CustomEvent(COMMAND_EVENT, {
      bubbles: true, composed: true, detail: {command, resolve, reject},
    });
    if (element.dispatchEvent(event) && !event.defaultPrevented && !event.detail.taken) {
      reject(new Error("not connected to a table"));
    }
  });
}

/**
 * On submit, `build(formData, form)` returns a command, or a promise of one when it must wait
 * for something first (a file still being read), or throws an Error whose message is shown;
 * the command is sent and `done(ack)` called on success. A form that may be gone by
 * the time its answer comes (a claim form, once the slot is taken) names in `errorsIn` where
 * its refusals are shown instead, and `words(message)` may say which form it was;
 * `failed(error)` hears of each refusal (the page's own or the server's, whose `code` it
 * carries) before its words are shown.
 * @param {HTMLFormElement} form
 * @param {(data: FormData, form: HTMLFormElement, submitter: HTMLButtonElement | null) => Command | null | undefined | false | void | Promise<Command>} build
 * @param {(ack: any) => void} [done]
 * @param {{errorsIn?: Element, words?: (message: string) => string, failed?: (error: Refusal & {code?: string}) => void}} [options]
 */
export function bindForm(form, build, done = () => {}, {errorsIn, words = (message) => message, failed} = {}) {
  const output = errorOutput(form);
  /** @param {Refusal} error */
  const refused = (error) => {
    failed?.(error);
    if (errorsIn) showError(errorsIn, words(error.message), null);
    else showError(form, error.message, error.path ?? null);
  };
  form.noValidate = true;
  form.addEventListener("input", () => clearError(form));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const submitter = /** @type {HTMLButtonElement | null} */ (event.submitter
      ?? form.querySelector("button[type=submit], button:not([type])"));
    clearError(form);
    if (errorsIn) clearError(errorsIn);
    let command;
    try {
      command = await build(new FormData(form, submitter ?? undefined), form, submitter);
    } catch (thrown) { // the page's own check: its error may name the field (`path`)
      refused(/** @type {Refusal} */ (thrown));
      return;
    }
    if (!command) return;
    const focused = keepFocus(submitter ?? form, form);
    if (submitter) submitter.disabled = true;
    form.setAttribute("aria-busy", "true");
    try {
      done(await act(form, command));
    } catch (thrown) {
      refused(/** @type {Refusal} */ (thrown));
    } finally {
      // a button its part turned off meanwhile (a spend that emptied the pool) stays off
      if (submitter) submitter.disabled = submitter.hasAttribute("data-ph-unavailable");
      form.removeAttribute("aria-busy");
      focused();
    }
  });
  return output;
}

/** A whole number from the form field `name`, or the page's own refusal naming the field
 * (`words`, as its label says) and marking it: `Number("")` is 0, so an empty field was sent
 * as 0 and refused in the server's words for another thing ("the dice is between 1 and 100").
 * @param {FormData} data @param {string} name @param {string} words @returns {number} */
export function wholeField(data, name, words) {
  const text = String(data.get(name) ?? "").trim();
  if (/^-?\d+$/.test(text)) return Number(text);
  throw Object.assign(new Error(`${words} ${text ? "must be a whole number" : "is empty"}`), {path: `$.${name}`});
}

/** A button that sends one command; its refusal is shown beside it.
 * @param {HTMLButtonElement} button @param {() => Command | null | undefined | false | void} build */
export function bindButton(button, build) {
  button.addEventListener("click", async () => {
    const holder = /** @type {Element} */ (button.closest("[data-ph-errors]") ?? button.parentElement);
    clearError(holder);
    const command = build();
    if (!command) return;
    const focused = keepFocus(button);
    button.disabled = true;
    try {
      await act(button, command);
    } catch (thrown) {
      const error = /** @type {Refusal} */ (thrown);
      showError(holder, error.message, error.path ?? null);
    } finally {
      button.disabled = false;
      focused();
    }
  });
}

/**
 * Call before an action: returns a function that, after it, puts the focus back where it was
 * (the control, if it is still on the page; else the nearest part of the page that still
 * is, such as the check's results once the check it rolled has closed). Only if the focus
 * has fallen to the body: a person who moved on meanwhile keeps their place.
 * @param {HTMLElement} control @param {Element} [container] @returns {() => void}
 */
export function keepFocus(control, container = control) {
  const had = /** @type {HTMLElement | null} */ (document.activeElement);
  const start = had && had !== document.body && container.contains(had) ? had : control;
  /** @type {HTMLElement[]} */
  const ancestors = [];
  for (let node = /** @type {HTMLElement | null} */ (start); node; node = node.parentElement) {
    ancestors.push(node);
  }
  return () => {
    const now = document.activeElement;
    if (now && now !== document.body) return;
    const target = ancestors.find((node) => node.isConnected
      && !(/** @type {HTMLButtonElement} */ (node)).disabled && node !== document.body);
    if (!target) return;
    if (target !== start && !target.hasAttribute("tabindex") && target.tabIndex < 0) {
      target.setAttribute("tabindex", "-1");
    }
    target.focus({preventScroll: true});
  };
}

/**
 * Clear the errors shown inside `element` when the table state they were about (`key`, any
 * string the element derives from that state) is no longer the same: a refusal such as "the
 * GM has not set the difficulty" goes once the GM has set it.
 * @param {HTMLElement} element @param {string} key
 */
export function clearWhenChanged(element, key) {
  const before = element.dataset.phStateKey;
  if (before === key) return;
  element.dataset.phStateKey = key;
  // the first state seen: an error shown before it (a roll sent as the page connected, before
  // its first table) is about this state, not an older one, and stays
  if (before === undefined) return;
  for (const output of element.querySelectorAll("output.ph-error")) output.textContent = "";
  for (const field of element.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
}

/** @param {Element} holder @returns {HTMLOutputElement} */
function errorOutput(holder) {
  let output = /** @type {HTMLOutputElement | null} */ (holder.querySelector(":scope > output.ph-error"));
  if (!output) {
    output = document.createElement("output");
    output.className = "ph-error";
    output.setAttribute("role", "alert");
    holder.append(output);
  }
  return output;
}

/** @param {Element} holder @param {string} message @param {string | null} path */
export function showError(holder, message, path) {
  const output = errorOutput(holder);
  output.textContent = message;
  const field = path ? fieldFor(holder, path) : null;
  if (field) {
    if (!field.checkVisibility()) unfold(field);
    field.setAttribute("aria-invalid", "true");
    if (!output.id) output.id = `err-${Math.random().toString(36).slice(2)}`;
    field.setAttribute("aria-describedby", output.id);
  }
}

/** Show a field the error names that is folded away, and put the focus on it: marked unseen,
 * it said nothing (the phone's roll form folds "as character" and who sees the roll under
 * More, and "say whose test it is" named the hidden select). Each folded part around it opens:
 * a closed <details>, and a part whose button says it is collapsed (`aria-expanded="false"`
 * with `aria-controls` naming the part) is opened by that button, as a tap would (so the
 * button says "Less" after). A private roll's choice is never folded (table.css `:has`).
 * @param {HTMLElement} field */
function unfold(field) {
  for (let node = /** @type {HTMLElement | null} */ (field); node; node = node.parentElement) {
    if (node instanceof HTMLDetailsElement) node.open = true;
    if (node.id) /** @type {HTMLElement | null} */ (document.querySelector(
      `[aria-expanded=false][aria-controls="${node.id}"]`))?.click();
  }
  field.focus();
}

/** @param {Element} holder */
export function clearError(holder) {
  const output = holder.querySelector(":scope > output.ph-error");
  if (output) output.textContent = "";
  for (const field of holder.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
}

/** The control a server path ("$.expression", "$.stats.skills.x.rating") is about: the one
 * whose own path — its `data-path`, else "$." and its name (forms name their controls after
 * the command's fields) — is the longest the server's path starts with.
 * @param {Element} holder @param {string} path */
function fieldFor(holder, path) {
  let best = null;
  let bestLength = -1;
  const controls = /** @type {NodeListOf<HTMLElement>} */ (holder.querySelectorAll("[data-path], [name]"));
  for (const control of controls) {
    const own = control.dataset.path ?? `$.${control.getAttribute("name")}`;
    const matches = path === own || path.startsWith(`${own}.`) || path.startsWith(`${own}[`);
    // a control shown that claims the path (`data-path`) wins over one merely named so: the
    // untrained skill typed beside the skill picker is the skill the server refused
    const length = own.length + (control.dataset.path && control.checkVisibility() ? 0.5 : 0);
    if (matches && length > bestLength) {
      best = control;
      bestLength = length;
    }
  }
  return best;
}
