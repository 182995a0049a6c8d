// A destructive action asked twice: a quiet button ("Remove", "Retire") opens a small form
// that says what will happen, takes an optional reason, and sends the command only on its
// "Yes, ..." button; Cancel closes it. The focus follows (to "Yes" when asked, back to the
// button when cancelled), for keyboard users. Used for removing a member and retiring a
// character: one that cannot be undone never goes on one click. `askFirst` is the same
// question without a form or a reason (leaving the table, ending a session or an encounter).

import {h} from "./dom.js";
import {bindForm} from "./actions.js";

/** The command type and its target's field, e.g. {type: "remove_member", member: "ana"}.
 * @typedef {{type: string, [field: string]: string}} Target */

let asked = 0; // numbers each question's id

/** The question's words, tied to the button that answers yes (`aria-describedby`): the focus
 * goes to that button, and a screen reader read "Yes, leave, button" without the warning.
 * @param {import("./dom.js").Child} question @param {HTMLElement} yes */
function said(question, yes) {
  const id = `ph-asked-${++asked}`;
  yes.setAttribute("aria-describedby", id);
  return h("span", {id}, question);
}

/**
 * The button and its confirm form, both to be placed by the caller, side by side.
 * @param {{verb: string, name: string, question: string, yes: string, target: Target}} what
 *   `verb` the button's word ("Remove"), `name` whom it acts on (for the labels),
 *   `question` the sentence shown, `yes` the confirming button's words, `target` the command
 *   without its reason
 * @returns {[HTMLButtonElement, HTMLFormElement]}
 */
export function confirmStep({verb, name, question, yes, target}) {
  const ask = /** @type {HTMLButtonElement} */ (
    h("button", {type: "button", class: "ph-quiet ph-small"}, verb));
  ask.setAttribute("aria-label", `${verb} ${name}`);
  const cancel = h("button", {type: "button", class: "ph-quiet ph-small", "data-ph-cancel": ""}, "Cancel");
  const sure = h("button", {type: "submit", class: "ph-danger ph-small"}, yes);
  const confirm = /** @type {HTMLFormElement} */ (
    h("form", {class: "ph-confirm", hidden: true, "aria-label": `${verb} ${name}`},
      said(question, sure),
      h("label", {}, "Reason ", h("input", {name: "reason", maxlength: 120, autocomplete: "off",
                                             placeholder: "optional", size: 12})),
      sure, cancel));
  ask.addEventListener("click", () => {
    ask.hidden = true;
    confirm.hidden = false;
    sure.focus();
  });
  cancel.addEventListener("click", () => {
    confirm.hidden = true;
    ask.hidden = false;
    ask.focus();
  });
  bindForm(confirm, (data) => {
    const reason = String(data.get("reason") ?? "").trim();
    return /** @type {import("./messages.js").Command} */ (
      /** @type {unknown} */ ({...target, ...(reason ? {reason} : {})}));
  });
  return [ask, confirm];
}

/**
 * A question asked before an action that cannot be undone, on a button of the caller's own
 * (`yes`, the one that acts): `ask` opens it, `keep` ("Stay", "Keep playing") closes it, and
 * the focus follows (to `yes` when asked, back to `ask` after), for keyboard users. Leaving
 * the table, ending the game session and ending an encounter each had a copy of this.
 * @param {HTMLButtonElement} ask the quiet button that asks ("End encounter")
 * @param {import("./dom.js").Child} question the sentence shown (read with `yes`)
 * @param {HTMLElement} yes
 * @param {string} keep the closing button's words
 * @returns {[HTMLElement, (asked: boolean, focus?: boolean) => void]} the question, to be
 *   placed by the caller after `ask`, and how to open or close it (`focus` false: the focus
 *   stays where it is, as when the table closes it)
 */
export function askFirst(ask, question, yes, keep) {
  const cancel = h("button", {type: "button", class: "ph-quiet ph-small", "data-ph-cancel": ""}, keep);
  const confirm = h("span", {class: "ph-confirm", hidden: true}, said(question, yes), yes, cancel);
  /** @param {boolean} asked @param {boolean} [focus] */
  const asking = (asked, focus = true) => {
    ask.hidden = asked;
    confirm.hidden = !asked;
    if (focus) (asked ? yes : ask).focus();
  };
  ask.addEventListener("click", () => asking(true));
  cancel.addEventListener("click", () => asking(false));
  return [confirm, asking];
}

/**
 * Escape in a confirm step presses its cancel button (the one marked `data-ph-cancel`:
 * "Cancel", "Stay", "Keep playing"): the question closes and the focus goes back to the
 * button that asked, as a dialog's Escape would. Installed once, by the page.
 * @param {HTMLElement} root
 */
export function escapeCancels(root) {
  root.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !(event.target instanceof Element)) return;
    const cancel = event.target.closest(".ph-confirm")?.querySelector("[data-ph-cancel]");
    if (!(cancel instanceof HTMLButtonElement)) return;
    event.preventDefault();
    cancel.click();
  });
}
