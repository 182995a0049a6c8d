// Each game system's part of the page, registered once (like the Python registries):
//   panel:     the custom element's tag that shows the system's table (open checks or tests,
//              their odds, the destiny pool, the combat turn ...); it gets `.table` (the latest
//              `table` message), `.views` (Map about -> view data) and `.me` ({member, role}).
//   sheet:     the tag of the GM's character form for the system (create and edit, no JSON);
//              it gets `.characters` and `.table`.
//   describe:  (frame, names) -> Node | null: one log line's body for the system's events.
//
// Only the campaign's own system is fetched (its module and its stylesheet), when the page
// learns which it is: a table of one system does not load the other two. What only the GM's
// page shows (the character form, `sheet`; d12's Call for a test) is fetched beside it for the
// GM only.

const MODULES = {
  narrative: () => import("./narrative.js"),
  sr3: () => import("./sr3.js"),
  d12: () => import("./d12.js"),
};

/** The modules of each system's parts only the GM's page shows: its `sheet` element first. */
const GM_PARTS = {
  narrative: () => import("./narrative_sheet.js"),
  sr3: () => import("./sr3_character.js"),
  d12: () => Promise.all([import("./d12_sheet.js"), import("./d12_call.js")]),
};

/** The module of game system `id` (null for one this page does not know), its CSS linked;
 * with `gm`, the modules of its GM's parts too, fetched at the same time.
 * @param {string} id @param {{gm?: boolean}} [options] */
export async function loadSystem(id, {gm = false} = {}) {
  const load = MODULES[id];
  if (!load) return null;
  if (!document.querySelector(`link[data-system="${CSS.escape(id)}"]`)) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = `/static/systems/${id}.css`;
    link.dataset.system = id;
    document.head.append(link);
  }
  const [system] = await Promise.all([load(), gm ? GM_PARTS[id]() : null]);
  return system;
}
