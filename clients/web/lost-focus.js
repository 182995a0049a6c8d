// Focus that the table took away, given back nearby. A control often goes away once it has
// done its work: "Set difficulty" hides its form, "Roll" closes the check whose card held it,
// a spend empties what it spent. The browser then drops the focus to the page's body, and a
// keyboard user's next Tab starts again from the top of the page; a screen reader says
// nothing. Here the focus goes instead to the nearest part of the page around the control that
// is still shown and has a name (the check's card, the "Open checks" section), so the next
// Tab goes on from there and a screen reader names where the person is. A part with no name
// of its own but a heading (the encounter once "Start encounter" hid) gives the focus to its
// heading, which a screen reader reads ("Encounter 1, heading"). A part hidden whole, still
// on the page (the SR3 declared tests once the last is rolled), gives it to the part right
// after it, when that has a name or a heading (the Latest tests, where the roll went): the
// part around them all was the whole table, its top off the screen.
//
// Only a control that went away (removed, or no longer shown) is followed: a disabled button
// is put back by `keepFocus` (actions.js) once its command is answered, and a click on the
// page's background leaves the focus on the body as the browser does.

/** Whether `element` is laid out (not `display: none` itself or by an ancestor).
 * @param {Element} element */
function shown(element) {
  return element.isConnected && element.getClientRects().length > 0;
}

/** A part of the page a screen reader names when the focus lands on it.
 * @param {Element} element */
function named(element) {
  return element.hasAttribute("role") || element.hasAttribute("aria-label")
    || element.hasAttribute("aria-labelledby") || /^(MAIN|SECTION|ARTICLE|FORM|FIELDSET|LI)$/.test(element.tagName);
}

/**
 * Watch `root` (the page's element): when the focused control inside it goes away, put the
 * focus on its nearest named ancestor still shown (given `tabindex="-1"` if it had none).
 * @param {HTMLElement} root
 */
export function catchLostFocus(root) {
  root.addEventListener("focusout", (event) => {
    const lost = event.target;
    if (event.relatedTarget || !(lost instanceof Element)) return; // the focus went somewhere
    /** @type {HTMLElement[]} */
    const around = [];
    for (let node = lost.parentElement; node && node !== root.parentElement; node = node.parentElement) {
      around.push(node);
    }
    setTimeout(() => { // once the change that removed or hid the control is done
      const now = document.activeElement;
      if ((now && now !== document.body) || shown(lost)) return;
      /** Where in `node` the focus may go (itself, or its heading), if anywhere.
       * @param {Element | null | undefined} node @returns {HTMLElement | null} */
      const spot = (node) => {
        if (!node || !shown(node)) return null;
        const heading = node.querySelector(":scope > :is(h2, h3), :scope > header > :is(h2, h3)");
        return /** @type {HTMLElement | null} */ (named(node) ? node : heading && shown(heading) ? heading : null);
      };
      let place = null;
      let hidden = null;
      for (const node of around) {
        if (!shown(node)) {
          hidden = node;
          continue;
        }
        place = spot(hidden?.nextElementSibling) ?? spot(node);
        if (place) break;
        hidden = null;
      }
      if (!place) return;
      if (place.tabIndex < 0 && !place.hasAttribute("tabindex")) place.setAttribute("tabindex", "-1");
      place.focus({preventScroll: true});
    });
  });
}

/**
 * Call before `container` builds its lines (`lineSelector`, each with its `data-seq`) again:
 * returns a function that, once they are built, puts the focus back on the same control of
 * the same line, if it was in one. A roll's fairness mark is built again when its seed is
 * revealed; the reader who had pressed it keeps their place instead of falling to the page.
 * @param {Element} container @param {string} lineSelector @returns {() => void}
 */
export function keepLineFocus(container, lineSelector) {
  const focused = document.activeElement;
  const line = focused && container.contains(focused) ? focused.closest(lineSelector) : null;
  const part = focused?.classList[0];
  if (!(line instanceof HTMLElement) || !part) return () => {};
  const again = `${lineSelector}[data-seq="${line.dataset.seq}"] .${CSS.escape(part)}`;
  return () => {
    const control = container.querySelector(again);
    if (control instanceof HTMLElement && document.activeElement !== control) {
      control.focus({preventScroll: true});
    }
  };
}
