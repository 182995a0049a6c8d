// Each game system's part of the page, registered once (like the Python registries):
//   panel:     the custom element's tag that shows the system's table (open checks or tests,
//              their odds, the destiny pool, the combat turn ...); it gets `.table` (the latest
//              `table` message), `.views` (Map about -> view data) and `.me` ({member, role}).
//   sheet:     the tag of the GM's character form for the system (create and edit, no JSON);
//              it gets `.characters` and `.table`.
//   describe:  (frame, names) -> Node | null: one log line's body for the system's events.
import * as narrative from "./narrative.js";
import * as sr3 from "./sr3.js";
import * as d12 from "./d12.js";

export const SYSTEMS = {narrative, sr3, d12};

export function systemOf(id) {
  return SYSTEMS[id] ?? null;
}
