// Small helpers for the narrative forms: labelled controls named after the command's fields,
// and option lists updated in place (a `table` message arrives after every change at the
// table; a form someone is using keeps its DOM, its focus and what was chosen).
import {h} from "../dom.js";

/** A <label> holding its words and its control (also its aria-label: a wrapping label's name
 * would include a select's chosen option or an input's text). */
export function labelled(words, control, extra = {}) {
  if (!control.hasAttribute("aria-label")) control.setAttribute("aria-label", words);
  return h("label", {class: "ph-nd-field", ...extra}, h("span", {class: "ph-nd-label"}, words), control);
}

/** `[[value, label], ...]` into `select`, rebuilt only when they changed; keeps the choice
 * (or `fallback` when the chosen value is gone). */
export function setOptions(select, options, fallback = null) {
  const key = JSON.stringify(options);
  if (select.dataset.options === key) return;
  const chosen = select.value;
  select.replaceChildren(...options.map(([value, label]) => h("option", {value}, label)));
  select.dataset.options = key;
  const values = options.map(([value]) => value);
  select.value = values.includes(chosen) ? chosen : (fallback ?? values[0] ?? "");
}

/** A count input (1 to 10 dice: the commands' Step). */
export function countInput(name = "count") {
  return h("input", {name, type: "number", min: 1, max: 10, value: "1", required: true,
                     inputmode: "numeric", class: "ph-nd-count"});
}

/** An optional reason ("why, in a few words": at most 120 characters). */
export function reasonInput(placeholder = "reason (optional)") {
  return h("input", {name: "reason", maxlength: 120, placeholder, autocomplete: "off",
                     class: "ph-nd-reason", "aria-label": "reason"});
}

/** The reason from form data, only when given (the command's default is ""). */
export function reasonOf(data) {
  const reason = String(data.get("reason") ?? "").trim();
  return reason ? {reason} : {};
}

/** A whole number from form data, or an Error naming the field and marking it (`path`); an
 * empty one is said to be empty ("must be a whole number" did not say what was wrong). */
export function wholeNumber(data, name, words) {
  const text = String(data.get(name) ?? "").trim();
  if (!/^\d+$/.test(text)) {
    throw Object.assign(new Error(`${words} ${text ? "must be a whole number" : "is empty"}`), {path: `$.${name}`});
  }
  return Number(text);
}

/** A destiny spend button with 0 points of its side: disabled, with the reason beside it in
 * `note` ("no light side points in the pool"); back as soon as the pool has one. The pool's
 * numbers are the table message's; the only rule kept here is "0 points: nothing to spend".
 * `data-ph-unavailable` tells bindForm not to re-enable it after a spend that emptied the pool.
 * @param {HTMLButtonElement} button @param {HTMLElement} note @param {number} points
 * @param {"light" | "dark"} side */
export function offerPoints(button, note, points, side) {
  const none = points <= 0;
  button.disabled = none;
  button.toggleAttribute("data-ph-unavailable", none);
  note.hidden = !none;
  note.textContent = none ? `no ${side} side points in the pool` : "";
}

/** The reason a spend button is off (hidden until offerPoints fills it). */
export function pointsNote() {
  return h("span", {class: "ph-muted ph-nd-none", hidden: true});
}

/** The ids of the characters a member acts for: every one for the GM, their own for a player,
 * none for a spectator. */
export function actsFor(table, me) {
  if (!table || !me) return new Set();
  if (me.role === "gm") return new Set(table.characters.map((c) => c.character));
  if (me.role !== "player") return new Set();
  return new Set(table.members.find((m) => m.member === me.member)?.characters ?? []);
}
