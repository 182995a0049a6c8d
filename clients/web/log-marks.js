// The log's fairness marks are one stop of the Tab order, not one a roll. A keyboard user
// going past the log pressed Tab once per roll shown (some 30 of them in a long night); now
// Tab stops on one mark (the one last used, else the newest built) and ↑/↓ move from a roll's
// mark to the one before or after it, the "roving tabindex" of WAI-ARIA's composite widgets.
// A mark moved to is scrolled into view by the browser, and <ph-log> builds the lines beyond
// it as the list scrolls, so the arrows walk the whole log.

const MARK = ".ph-log-line .ph-fair";

/** Install the arrows on `list` (a <ph-log>'s list of lines). Marks are built with
 * `tabindex="-1"` (./fair-badge.js); `markStop` gives one of them the Tab stop.
 * @param {HTMLElement} list */
export function roveMarks(list) {
  list.addEventListener("keydown", (event) => {
    const mark = event.target;
    if (!(mark instanceof HTMLElement) || !mark.matches(MARK)) return;
    if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
    event.preventDefault(); // the list does not scroll by a line as well
    const marks = [...list.querySelectorAll(MARK)];
    const next = marks[marks.indexOf(mark) + (event.key === "ArrowUp" ? -1 : 1)];
    if (next instanceof HTMLElement) next.focus();
  });
  list.addEventListener("focusin", (event) => { // the mark last used keeps the Tab stop
    const mark = event.target;
    if (!(mark instanceof HTMLElement) || !mark.matches(MARK) || mark.tabIndex === 0) return;
    for (const other of list.querySelectorAll(MARK)) {
      if (other instanceof HTMLElement && other.tabIndex === 0) other.tabIndex = -1;
    }
    mark.tabIndex = 0;
  });
}

/** After lines were built or dropped: if no mark holds the Tab stop (the one that did
 * scrolled out of the built lines), the newest built one takes it.
 * @param {HTMLElement} list */
export function markStop(list) {
  if (list.querySelector(`${MARK}[tabindex="0"]`)) return;
  const marks = list.querySelectorAll(MARK);
  const newest = marks[marks.length - 1];
  if (newest instanceof HTMLElement) newest.tabIndex = 0;
}
