// <ph-d12-test>: one threshold test on the table: who, the stats and pool, the DT and where it
// came from, the odds of the next roll, every round (dice, result in words, failed dice that
// left, refresh dice that joined, the GM's reading) and, for who may use them, its controls.
// The card is built once per test; an update redraws what it shows, never its forms.
import {h, plural, replace} from "../dom.js";
import {bindButton, bindForm, clearWhenChanged} from "../actions.js";
import {d12Dice, poolWords, resultWords, signed, thresholdWords} from "./d12_dice.js";
import {DtFields} from "./d12_form.js";
import {oddsPart} from "./d12_odds.js";

export class PhD12Test extends HTMLElement {
  /** Show `test` (a TestState of the `table` message) with its odds `view`; `role` and
   * `mayRoll` (this member plays its character, or is the GM) decide the controls. */
  update({test, view, role, mayRoll, names, characters}) {
    if (!this.heading) this.build(test.test, role);
    clearWhenChanged(this, JSON.stringify(test)); // a refusal about the test it was
    // a table message comes after every change anywhere at the table: redraw only this test's
    const shown = JSON.stringify([test, view ?? null, mayRoll, characters]);
    if (shown === this.shown) return;
    this.shown = shown;
    this.number = test.test;
    this.dataset.test = test.test;
    this.dataset.open = test.open;
    const who = test.character ? names.character(test.character) : "no one";
    replace(this.heading, `Test ${test.test}`, test.label ? ` · ${test.label}` : "",
      h("span", {class: "ph-d12-badge"}, `${test.kind}${secrecy(test)}${test.open ? "" : ", over"}`));
    replace(this.summary,
      h("p", {class: "ph-d12-who"}, h("strong", {}, who), ` · ${poolWords(test.stats, test.start_pool)}`,
        test.refresh ? ` · ${test.refresh} dice join after each round` : ""),
      test.open ? h("p", {class: "ph-d12-now"},
        h("span", {class: "ph-d12-pool"}, `Pool now: ${plural("die", test.pool, "dice")}`), " · ",
        h("span", {class: "ph-d12-threshold"}, thresholdWords(test.threshold, names)))
        : h("p", {class: "ph-d12-outcome-line"}, h("span", {class: "ph-d12-outcome"}, outcome(test)),
          test.rounds_rolled > 1 ? h("span", {class: "ph-muted"}, ` · margins ${earlier(test) ? "…, " : ""}` +
            test.rounds.map((round) => signed(round.margin)).join(", ")) : null),
      oddsPart(test, view));
    replace(this.rounds, earlier(test) ? h("li", {class: "ph-d12-earlier ph-muted"},
      `${plural("earlier round", earlier(test))} ${earlier(test) === 1 ? "is" : "are"} in the log`) : null,
      test.rounds.map((round) => roundItem(round, test)));
    this.rounds.hidden = test.rounds.length === 0;
    this.updateControls(test, role, mayRoll, characters);
  }

  build(number, role) {
    const id = `ph-d12-test-${number}`;
    this.heading = h("h3", {id});
    this.summary = h("div", {class: "ph-d12-summary"});
    this.rounds = h("ol", {class: "ph-d12-rounds", "aria-label": `Rounds of test ${number}`});
    this.controls = h("div", {class: "ph-d12-controls"});
    this.setAttribute("role", "article");
    this.setAttribute("aria-labelledby", id);
    this.append(this.heading, this.summary, this.rounds, this.controls);
    if (role === "spectator") return;
    this.rollButton = h("button", {type: "button", class: "ph-d12-roll"}, "Roll");
    this.rollBox = h("div", {class: "ph-d12-roll-box", "data-ph-errors": ""}, this.rollButton);
    bindButton(this.rollButton, () => ({type: "roll_threshold_test", test: this.number}));
    this.controls.append(this.rollBox);
    if (role !== "gm") return;
    this.dtFields = new DtFields();
    this.dtForm = h("form", {class: "ph-d12-form ph-d12-set-dt", "aria-label": `Set the DT of test ${number}`},
      this.dtFields.node, h("button", {type: "submit", class: "ph-quiet"}, "Set the DT"));
    bindForm(this.dtForm, () => ({type: "set_difficulty_threshold", test: this.number,
                                  ...this.dtFields.fields()}));
    this.sayForm = h("form", {class: "ph-d12-form ph-d12-say", "aria-label": `Interpret test ${number}`},
      h("label", {}, "The GM reads the result ", h("input", {name: "text", maxlength: 280,
        required: true, autocomplete: "off", placeholder: "the guard staggers back"})),
      h("button", {type: "submit", class: "ph-quiet"}, "Say"));
    bindForm(this.sayForm, (data) => ({type: "interpret_threshold_result", test: this.number,
                                       text: String(data.get("text")).trim()}),
      () => this.sayForm.reset());
    this.endForm = h("form", {class: "ph-d12-form ph-d12-end", "aria-label": `End test ${number}`},
      h("label", {}, "Reason ", h("input", {name: "reason", maxlength: 120, autocomplete: "off",
                                           placeholder: "he surrenders"})),
      h("button", {type: "submit", class: "ph-quiet"}, "End the test"));
    bindForm(this.endForm, (data) => ({type: "end_threshold_test", test: this.number,
                                       reason: String(data.get("reason") ?? "").trim()}));
    this.controls.append(this.sayForm, this.dtForm, this.endForm);
  }

  updateControls(test, role, mayRoll, characters) {
    if (this.rollBox) {
      this.rollBox.hidden = !(test.open && mayRoll && test.pool > 0);
      this.rollButton.textContent = `Roll ${plural("die", test.pool, "dice")}` +
        (test.rounds_rolled && test.kind === "extended" ? ` (round ${test.rounds_rolled + 1})` : "");
    }
    if (role !== "gm" || !this.dtForm) return;
    this.dtFields.update(characters, test.character);
    if (this.dtFields.dt.value === "" && document.activeElement !== this.dtFields.dt) {
      this.dtFields.dt.placeholder = String(test.threshold.dt);
    }
    this.dtForm.hidden = !(test.open && test.kind === "extended");
    this.sayForm.hidden = test.rounds.length === 0;
    this.endForm.hidden = !test.open;
  }
}

function roundItem(round, {kind, refresh}) {
  const extended = kind === "extended";
  return h("li", {class: "ph-d12-round", "data-round": round.round, "data-margin": round.margin},
    h("div", {class: "ph-d12-round-head"},
      h("span", {}, `Round ${round.round}`, h("span", {class: "ph-muted"}, ` · ${round.pool}d12 at DT ${round.dt}`)),
      h("span", {class: `ph-d12-margin ${round.succeeded ? "ph-d12-won" : "ph-d12-lost"}`},
        `margin ${signed(round.margin)}`)),
    h("span", {class: "ph-dice"}, d12Dice(round.faces, round.values, {extended})),
    h("p", {class: "ph-d12-result"}, resultWords(round)),
    extended && round.pool_after !== null && round.pool_after !== undefined
      ? h("p", {class: "ph-d12-pool-change ph-muted"}, poolChange(round, refresh)) : null,
    round.notes.map((note) => h("p", {class: "ph-d12-note"}, "GM: ", h("q", {}, note))));
}

/** "3 failed dice left, CON 2: 2 joined: 6 dice in the pool", as the log says it: the stat
 * and its rating tell why only 10 of CON 20 joined a pool full at 100 dice. */
function poolChange(round, refresh) {
  const left = `${plural("failed die", round.removed, "failed dice")} left`;
  const joined = round.refresh_rating !== null && round.refresh_rating !== undefined
    ? `, ${refresh} ${round.refresh_rating}: ${round.added} joined` : "";
  return `${left}${joined}: ${plural("die", round.pool_after, "dice")} in the pool`;
}

/** The GM's secret test says so on the card (only the GM holds it until the session's end). */
function secrecy(test) {
  if (!test.visibility || test.visibility === "public") return "";
  return test.visibility === "gm" ? " in secret" : " in private";
}

/** Rounds rolled before the last ones the table keeps (they are in the log). */
function earlier(test) {
  return test.rounds_rolled - test.rounds.length;
}

function outcome(test) {
  if (test.ended === "rolled" && test.rounds.length) {
    return test.rounds[0].succeeded ? "Succeeded" : "Failed";
  }
  const rounds = plural("round", test.rounds_rolled);
  const why = test.ended === "pool_empty" ? "the pool is empty" : "ended by the GM";
  return `Over after ${rounds}: ${why}` + (test.end_reason ? ` (${test.end_reason})` : "");
}

customElements.define("ph-d12-test", PhD12Test);
