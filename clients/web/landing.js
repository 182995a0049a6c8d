// The landing page: the page opened without a join link's token (a bare address, or a
// campaign this browser has no token for). It takes a pasted join link and lists the tables
// this browser joined. Fetched only then: a table's first load does without it.
import {h, replace} from "./dom.js";
import {knownCampaigns, remember} from "./session.js";

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
    const fragment = new URLSearchParams(String(new FormData(form).get("link")).split("#")[1] ?? "");
    const linked = fragment.get("campaign");
    const token = fragment.get("token");
    if (!linked || !token) { // said beside the field, which is marked as the one at fault
      error.textContent = "That is not a join link: it has no #campaign=…&token=… part.";
      field.setAttribute("aria-invalid", "true");
      field.focus();
      return;
    }
    remember(linked, token);
    location.hash = `campaign=${encodeURIComponent(linked)}`;
    location.reload();
  });
  const known = knownCampaigns();
  replace(app, form, known.length ? h("nav", {"aria-label": "Tables you joined"},
    h("h2", {}, "Your tables"),
    // a click changes only the fragment: the page opens the table on `hashchange` (session.js)
    h("ul", {}, known.map((slug) => h("li", {}, h("a", {href: `/#campaign=${encodeURIComponent(slug)}`},
      slug))))) : null,
  campaign ? h("p", {class: "ph-error"}, `This browser has no token for “${campaign}”.`) : null);
}
