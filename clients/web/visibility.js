// Who sees a roll: the choice beside every roll button, sent as the command's `visibility`.
// The server decides (it refuses a visibility the member may not use, and seals the roll for
// whoever may not see it); the page offers each member only what their role may choose:
//   the GM      public, or secret (`gm`: only the GM sees it until the session ends);
//   a player    public, blind (only the GM sees it, not even the player) or self (the player
//               and the GM), on one-shot rolls only (a free roll, a narrative pool, an SR3
//               test); a check built step by step in front of the table is private only as
//               the GM's;
//   a spectator rolls nothing.
// Every private roll is revealed to the whole table when its session ends.
import {h} from "./dom.js";

const CHOICES = {
  gm: [["public", "public"], ["gm", "secret (GM only)"]],
  player: [["public", "public"], ["blind", "blind (GM only)"], ["self", "self (you + GM)"]],
};

/** What each visibility means, for a title and the docs' words. */
export const MEANINGS = {
  public: "everyone at the table sees the roll",
  gm: "only the GM sees the roll until the session ends; the others see that the GM rolled",
  blind: "only the GM sees the result, not even you, until the session ends",
  self: "only you and the GM see the roll until the session ends",
};

/**
 * A compact <select name="visibility"> for `me` ({member, role}), or null when the member has
 * no choice here (a spectator; a player on a roll that is not one-shot). `oneShot`: the roll
 * is one a player may make private.
 */
export function visibilityChoice(me, {oneShot = false} = {}) {
  const role = me?.role === "admin" ? "gm" : me?.role;
  if (role !== "gm" && !(role === "player" && oneShot)) return null;
  const select = h("select", {name: "visibility", class: "ph-visibility",
                              "aria-label": "who sees this roll", title: MEANINGS.public},
    CHOICES[role].map(([value, words]) => h("option", {value}, words)));
  select.addEventListener("change", () => {
    select.title = MEANINGS[select.value];
    select.toggleAttribute("data-private", select.value !== "public");
  });
  return select;
}

/** The command's `visibility` from form data, only when not public (the default). */
export function visibilityOf(data) {
  const visibility = String(data.get("visibility") ?? "public");
  return visibility === "public" ? {} : {visibility};
}
