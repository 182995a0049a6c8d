// Building DOM without innerHTML: every text goes in as a text node, so nothing a member typed
// (a character's name, a reason) can ever become markup.

/**
 * What h() and s() take as children: strings, numbers, nodes, arrays of those, or
 * null/undefined/false (skipped).
 * @typedef {Node | string | number | boolean | null | undefined | Child[]} Child
 */

/** Attributes and listeners for h() and s(). @typedef {Record<string, unknown>} Attributes */

/**
 * A form's controls by name (`form.elements.reason`), for the forms whose names are theirs to
 * know: an <input>, a <select> or a <textarea> by the name it was given.
 * @typedef {HTMLFormControlsCollection & Record<string, HTMLInputElement>} NamedControls
 */

/**
 * h("p", {class: "x", onclick: f}, "text", child) -> HTMLParagraphElement
 * Attributes starting with "on" become listeners; `null`/`false` attributes are left out;
 * children may be strings, numbers, nodes, arrays of those, or null (skipped).
 * @template {string} K
 * @param {K} tag
 * @param {Attributes | null} [attributes]
 * @param {...Child} children
 * @returns {K extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[K] : HTMLElement}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (name in element && !name.includes("-") && typeof value !== "string") {
      /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (element))[name] = value; // properties such as .value, .checked, .disabled
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return /** @type {K extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[K] : HTMLElement} */ (element);
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * The same for SVG elements (the dice).
 * @param {string} tag
 * @param {Attributes | null} [attributes]
 * @param {...Child} children
 * @returns {SVGElement}
 */
export function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/** @param {Element} element @param {Child[]} children */
function append(element, children) {
  for (const child of /** @type {unknown[]} */ (children).flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace every child of `element` with `children`. @param {Element} element @param {...Child} children */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/**
 * A number in words for a count: plural("success", 2) -> "2 successes".
 * @param {string} word @param {number} count @param {string | null} [many] the plural, when not word + "s"/"es"
 */
export function plural(word, count, many = null) {
  const plain = many ?? (word.endsWith("s") ? `${word}es` : `${word}s`);
  return `${count} ${count === 1 ? word : plain}`;
}

/** "12:04" on the reader's clock (the log keeps UTC). @param {unknown} at @returns {string} */
export function clock(at) {
  return typeof at === "string" ? new Date(at).toTimeString().slice(0, 5) : "";
}

/** A percentage for people: 0.4567 -> "45.7%". @param {number | null | undefined} p */
export function percent(p) {
  if (p === null || p === undefined) return "—";
  return `${(p * 100).toFixed(p >= 0.995 || p <= 0.005 ? 2 : 1)}%`;
}

/** Run `task` once the next frame is painted: work that can wait a frame (panels after a log
 * line, a screen reader's copy of the line) stays out of the frame that shows what came.
 * A hidden tab paints nothing: there it runs after 250 ms.
 * @param {() => void} task */
export function afterPaint(task) {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    task();
  };
  requestAnimationFrame(() => setTimeout(once));
  setTimeout(once, 250);
}

/** Put `words` in a live region, only when they are not already there: a screen reader says
 * a live region again each time its text is set, even to the same words (every table message
 * set "No encounter is running." again, and it was read out after every roll).
 * @param {Element} region @param {string} words */
export function say(region, words) {
  if (region.textContent !== words) region.textContent = words;
}
