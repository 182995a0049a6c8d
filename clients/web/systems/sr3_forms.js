// Forms of the sr3 table whose commands nest (a character's stats, a test's pool draws): a
// refusal's path ("$.stats.skills.pistols.rating", "$.pools.combat") names a control deeper
// than actions.js's first field, so each control carries the path it fills (`data-path`) and
// the control with the longest matching path is marked invalid, next to the message.
import {h} from "../dom.js";
import {act, clearError, showError} from "../actions.js";

/** The control of `form` a server path is about (longest `data-path` or `name` prefix). */
export function controlFor(form, path) {
  if (!path) return null;
  let best = null;
  let bestLength = -1;
  for (const control of form.querySelectorAll("[data-path], [name]")) {
    const own = control.dataset.path ?? `$.${control.getAttribute("name")}`;
    const matches = path === own || path.startsWith(`${own}.`) || path.startsWith(`${own}[`);
    if (matches && own.length > bestLength) {
      best = control;
      bestLength = own.length;
    }
  }
  return best;
}

/**
 * On submit, `build(form, submitter)` returns a command (or throws an Error whose message is
 * shown); the command is sent and `done(ack)` called once it is taken. A refusal is shown in
 * the form's <output class="ph-error"> with the control at fault marked.
 */
export function bindPathForm(form, build, done = () => {}) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const submitter = event.submitter ?? form.querySelector("button[type=submit]");
    clearError(form);
    let command;
    try {
      command = build(form, submitter);
    } catch (error) {
      showError(form, error.message, null);
      return;
    }
    if (!command) return;
    if (submitter) submitter.disabled = true;
    form.setAttribute("aria-busy", "true");
    try {
      done(await act(form, command));
    } catch (error) {
      showError(form, error.message, null);
      const control = controlFor(form, error.path ?? null);
      const output = form.querySelector(":scope > output.ph-error");
      if (control && output) {
        control.setAttribute("aria-invalid", "true");
        if (!output.id) output.id = `err-${Math.random().toString(36).slice(2)}`;
        control.setAttribute("aria-describedby", output.id);
      }
    } finally {
      if (submitter) submitter.disabled = false;
      form.removeAttribute("aria-busy");
    }
  });
}

/** A labelled control: <label>text <control></label>. */
export function labelled(text, control, extra = {}) {
  // named by its text alone (a label holding a <select> would otherwise add the option's text)
  const id = `ph-sr3-${(labelled.count = (labelled.count ?? 0) + 1)}`;
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
