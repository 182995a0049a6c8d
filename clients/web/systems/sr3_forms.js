// Forms of the sr3 table whose commands nest (a character's stats, a test's pool draws): a
// refusal's path ("$.stats.skills.pistols.rating", "$.pools.combat") names a control deep in
// the form, so each control carries the path it fills (`data-path`); actions.js marks the one
// with the longest matching path invalid, next to the message.
import {h} from "../dom.js";
import {bindForm} from "../actions.js";

/**
 * On submit, `build(form, submitter)` returns a command (or throws an Error whose message is
 * shown); actions.js's bindForm sends it, calls `done(ack)`, and marks the control a refusal's
 * path names (the longest `data-path`, or `name`, it starts with); `options` are bindForm's.
 * @param {HTMLFormElement} form
 * @param {(form: any, submitter: HTMLButtonElement | null) => any} build
 * @param {(ack: any) => void} [done]
 * @param {Parameters<typeof bindForm>[3]} [options]
 */
export function bindPathForm(form, build, done = () => {}, options = {}) {
  return bindForm(form, (_data, target, submitter) => build(target, submitter), done, options);
}

let labels = 0; // ids given to labels' text so far

/** A labelled control: <label>text <control></label>. */
export function labelled(text, control, extra = {}) {
  // named by its text alone (a label holding a <select> would otherwise add the option's text)
  const id = `ph-sr3-${(labels += 1)}`;
  if (!control.hasAttribute("aria-label")) control.setAttribute("aria-labelledby", id);
  return h("label", {class: "ph-sr3-field", ...extra}, h("span", {id}, text), control);
}

/** A whole number from a form control; `fallback` when it is empty. */
export function whole(control, fallback = null) {
  const text = String(control.value ?? "").trim();
  if (text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value)) {
    const label = control.closest("label")?.querySelector("span")?.textContent
      ?? control.getAttribute("aria-label") ?? control.name;
    throw new Error(`${label}: give a whole number, not “${text}”`);
  }
  return value;
}

/** Replace a <select>'s options in place, keeping the choice when it is still offered. */
export function setOptions(select, options, fallback = "") {
  const chosen = select.value;
  const same = select.options.length === options.length
    && options.every(([value, text], i) => select.options[i].value === value
      && select.options[i].textContent === text);
  if (!same) {
    select.replaceChildren(...options.map(([value, text]) => h("option", {value}, text)));
  }
  const values = options.map(([value]) => value);
  select.value = values.includes(chosen) ? chosen : (values.includes(fallback) ? fallback : values[0] ?? "");
}
