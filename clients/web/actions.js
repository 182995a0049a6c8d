// Actions go up as DOM events to the one place that sends commands (ph-app), and come back
// as the server's answer: an element never talks to the socket itself.
//
//   const ack = await act(this, {type: "roll", expression: "2d6"});
//
// `bindForm` wires a form: its submit builds a command, the button is disabled while it is in
// flight, and a refusal is shown in plain words in the form's own <output class="ph-error">,
// next to the control that caused it (the field the server's path names gets aria-invalid).

export const COMMAND_EVENT = "ph-command";

/** Send `command` from `element`; resolves with the ack, rejects with the refusal. */
export function act(element, command) {
  return new Promise((resolve, reject) => {
    const event = new CustomEvent(COMMAND_EVENT, {
      bubbles: true, composed: true, detail: {command, resolve, reject},
    });
    if (element.dispatchEvent(event) && !event.defaultPrevented && !event.detail.taken) {
      reject(new Error("not connected to a table"));
    }
  });
}

/**
 * On submit, `build(formData, form)` returns a command (or throws an Error whose message is
 * shown); the command is sent and `done(ack)` called on success.
 */
export function bindForm(form, build, done = () => {}) {
  const output = errorOutput(form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const submitter = event.submitter ?? form.querySelector("button[type=submit], button:not([type])");
    clearError(form);
    let command;
    try {
      command = build(new FormData(form, submitter ?? undefined), form, submitter);
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
      showError(form, error.message, error.path ?? null);
    } finally {
      if (submitter) submitter.disabled = false;
      form.removeAttribute("aria-busy");
    }
  });
  return output;
}

/** A button that sends one command; its refusal is shown beside it. */
export function bindButton(button, build) {
  button.addEventListener("click", async () => {
    const holder = button.closest("[data-ph-errors]") ?? button.parentElement;
    clearError(holder);
    const command = build();
    if (!command) return;
    button.disabled = true;
    try {
      await act(button, command);
    } catch (error) {
      showError(holder, error.message, error.path ?? null);
    } finally {
      button.disabled = false;
    }
  });
}

function errorOutput(holder) {
  let output = holder.querySelector(":scope > output.ph-error");
  if (!output) {
    output = document.createElement("output");
    output.className = "ph-error";
    output.setAttribute("role", "alert");
    holder.append(output);
  }
  return output;
}

export function showError(holder, message, path) {
  const output = errorOutput(holder);
  output.textContent = message;
  const field = path ? fieldFor(holder, path) : null;
  if (field) {
    field.setAttribute("aria-invalid", "true");
    if (!output.id) output.id = `err-${Math.random().toString(36).slice(2)}`;
    field.setAttribute("aria-describedby", output.id);
  }
}

export function clearError(holder) {
  const output = holder.querySelector(":scope > output.ph-error");
  if (output) output.textContent = "";
  for (const field of holder.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
}

/** The control a server path ("$.expression", "$.stats.skills.x.rating") is about: the one
 * whose own path — its `data-path`, else "$." and its name (forms name their controls after
 * the command's fields) — is the longest the server's path starts with. */
function fieldFor(holder, path) {
  let best = null;
  let bestLength = -1;
  for (const control of holder.querySelectorAll("[data-path], [name]")) {
    const own = control.dataset.path ?? `$.${control.getAttribute("name")}`;
    const matches = path === own || path.startsWith(`${own}.`) || path.startsWith(`${own}[`);
    if (matches && own.length > bestLength) {
      best = control;
      bestLength = own.length;
    }
  }
  return best;
}
