// <ph-seed>: "Your seed", the member's own seed that every roll mixes in (`set_client_seed`).
// The server commits to its secret seed before any roll of an epoch; a member who sets a seed
// of their own after that commitment makes every later roll depend on something the server
// could not know when it committed. The page offers a seed it drew itself (16 bytes from the
// browser's CSPRNG, `crypto.getRandomValues`, which needs no secure context), accepted with
// one click, or takes the member's own words.
//
// The seed in force comes from the server's `table` message (`fair.client_seeds`, the log's
// `client_seed_set` events folded by the server), so it is right however little of the log
// the page holds. A typed seed is checked here as the server checks it (events/fair.py
// `ClientSeed`: 1 to 64 characters), in the server's words, before anything is sent; any
// other refusal is the server's, shown beside the control.
/** @import {Refusal} from "../actions.js" */
import {h} from "../dom.js";
import {bindForm} from "../actions.js";

export const SEED_MIN = 1;  // events/fair.py ClientSeed: min_length=1 ...
export const SEED_MAX = 64; // ... max_length=64, counted in characters (code points)
const FRESH_BYTES = 16;
const SHOWN_CHARS = 12;     // the summary shows this much of a long seed

/** A seed drawn by this page: 16 bytes from the browser's CSPRNG, as 32 hex digits. */
export function freshSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(FRESH_BYTES));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Why the server would refuse `seed` (its own words), or null. Counted in characters as
 * msgspec counts them (code points: an emoji is one, not two UTF-16 units). */
export function seedProblem(seed) {
  const length = [...seed].length;
  if (length < SEED_MIN) return "the seed is empty";
  if (length > SEED_MAX) return `the seed holds at most ${SEED_MAX} characters`;
  return null;
}

export class PhSeed extends HTMLElement {
  constructor() {
    super();
    this.me = null;        // {member, role}
    this.current = null;   // the seed in force for this member (null: none yet)
  }

  connectedCallback() {
    if (this.box) return;
    this.summaryNow = h("span", {class: "ph-seed-summary-now"}, "none yet");
    this.now = h("span", {class: "ph-seed-now"});
    this.offered = h("code", {class: "ph-seed-offered"});
    const offer = h("form", {class: "ph-seed-offer", "aria-label": "Use a seed this page drew"},
      h("span", {}, "A fresh one, drawn by this page: "), this.offered, " ",
      h("span", {class: "ph-seed-buttons"},
        h("button", {type: "submit", class: "ph-small"}, "Use this seed"),
        h("button", {type: "button", class: "ph-small ph-quiet", onclick: () => this.draw()},
          "Draw another")));
    const own = h("form", {class: "ph-seed-own", "aria-label": "Set a seed of your own"},
      h("label", {}, "Or your own words ",
        h("input", {name: "seed", autocomplete: "off", spellcheck: false,
                    placeholder: `1 to ${SEED_MAX} characters`})),
      h("button", {type: "submit", class: "ph-small"}, "Set"));
    bindForm(offer, () => ({type: "set_client_seed", seed: this.offered.textContent}),
      () => this.draw());
    bindForm(own, (data) => {
      const seed = String(data.get("seed") ?? "");
      const problem = seedProblem(seed);
      if (problem) { // refused here, in the server's words, beside the field: nothing is sent
        const error = /** @type {Refusal} */ (new Error(problem));
        error.path = "$.seed";
        throw error;
      }
      return {type: "set_client_seed", seed};
    }, () => own.reset());
    this.box = h("details", {class: "ph-seed-box"},
      h("summary", {}, h("strong", {}, "Your seed"), ": ", this.summaryNow),
      h("p", {class: "ph-muted ph-seed-why"},
        "Every roll mixes in the seeds the members set. The server committed to its own ",
        "secret seed before you chose yours, so it cannot know how your dice will fall; ",
        "when it reveals its seed, this page checks every roll (the mark beside it in the log)."),
      h("p", {}, "In force now: ", this.now), offer, own);
    this.box.addEventListener("keydown", (event) => { // Escape closes it, as a menu's would
      if (event.key !== "Escape" || !this.box.open) return;
      event.preventDefault();
      this.box.open = false;
      this.box.querySelector("summary")?.focus(); // the focus was inside what just closed
    });
    this.append(this.box);
    this.draw();
    this.show();
  }

  /** The latest table: the seed in force for this member. */
  set table(table) {
    const seeds = table?.fair?.client_seeds ?? {};
    const mine = this.me && Object.hasOwn(seeds, this.me.member) ? seeds[this.me.member] : null;
    if (mine === this.current && this.shown) return;
    this.current = mine;
    this.show();
  }

  show() {
    if (!this.box) return;
    this.shown = true;
    const seed = this.current;
    const short = seed !== null && [...seed].length > SHOWN_CHARS
      ? `${[...seed].slice(0, SHOWN_CHARS).join("")}…` : seed;
    this.summaryNow.textContent = seed === null ? "none yet" : short;
    this.box.dataset.seed = seed ?? "";
    this.now.replaceChildren(seed === null
      ? "none yet: your rolls mix in only the others' seeds"
      : h("code", {class: "ph-seed-text"}, seed));
  }

  /** Offer a freshly drawn seed. */
  draw() {
    this.offered.textContent = freshSeed();
  }
}

customElements.define("ph-seed", PhSeed);
