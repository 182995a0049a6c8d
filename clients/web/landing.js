// The landing page: the page opened without a join link's token (a bare address, or a
// campaign this browser has no token for). It takes a pasted join link and lists the tables
// this browser joined. Fetched only then: a table's first load does without it.
import {h, replace} from "./dom.js";
import {SEATS, TRAILING, knownCampaigns, read} from "./session.js";
import {linkProblem, linkToken} from "./damaged-link.js";

/** Draw the landing page in `app` (the <ph-app>); `campaign`: the one the address names, if any.
 * @param {HTMLElement} app @param {string | null} campaign */
export function landing(app, campaign) {
  const form = h("form", {class: "ph-landing", "aria-label": "Open a table"},
    h("h1", {}, "poolhall"),
    h("p", {}, "Open the join link your GM gave you, or paste it here."),
    h("label", {}, "Join link ", h("input", {name: "link", required: true, autocomplete: "off",
      placeholder: "http://…/#campaign=…&token=…", "aria-describedby": "ph-landing-error"})),
    h("button", {type: "submit"}, "Open the table"),
    h("output", {class: "ph-error", role: "alert", id: "ph-landing-error"}));
  const field = /** @type {HTMLInputElement} */ (form.querySelector("input[name=link]"));
  const error = /** @type {HTMLOutputElement} */ (form.querySelector("output"));
  field.addEventListener("input", () => { // a refusal goes once the link is edited
    field.removeAttribute("aria-invalid");
    error.textContent = "";
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // a link copied from chat or mail may bring a space, a full stop or a bracket after it
    const link = String(new FormData(form).get("link")).trim().replace(TRAILING, "");
    const fragment = new URLSearchParams(link.split("#")[1] ?? "");
    const linked = fragment.get("campaign");
    const given = fragment.get("token");
    const token = given ? linkToken(given) : given;
    const damaged = linked && token ? linkProblem(linked, token) : null;
    if (!linked || !token || damaged) { // said beside the field, which is marked as the one at fault
      error.textContent = damaged ? `That join link is damaged: ${damaged}.`
        : "That is not a join link: it has no #campaign=…&token=… part.";
      field.setAttribute("aria-invalid", "true");
      field.focus();
      return;
    }
    // opened as the link itself would be (session.js followJoinLinks): a token over another
    // seat here is kept only once welcomed, and asked about first
    location.hash = `campaign=${encodeURIComponent(linked)}&token=${encodeURIComponent(token)}`;
  });
  const known = knownCampaigns();
  // each table by its title, as the table page last saw it ("Cloud City", not "cloud-city-2"),
  // with its id beside the title only when two share it; a seat from before titles were kept
  // shows its id
  const seats = read(SEATS);
  const titles = new Map(known.map((slug) => [slug, seats[slug]?.title ?? slug]));
  const shared = (/** @type {string} */ title) => [...titles.values()].filter((t) => t === title).length > 1;
  replace(app, form, known.length ? h("nav", {"aria-label": "Tables you joined"},
    h("h2", {}, "Your tables"),
    // a click changes only the fragment: the page opens the table on `hashchange` (session.js)
    h("ul", {}, known.map((slug) => {
      const title = /** @type {string} */ (titles.get(slug));
      return h("li", {}, h("a", {href: `/#campaign=${encodeURIComponent(slug)}`}, title,
        title !== slug && shared(title) ? h("span", {class: "ph-muted"}, ` (${slug})`) : null));
    }))) : null,
  campaign ? h("p", {class: "ph-error"}, `This browser has no token for “${campaign}”.`) : null);
}
