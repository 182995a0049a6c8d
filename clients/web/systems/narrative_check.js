// <ph-narrative-check>: one open check as the table builds it together: who, which skill,
// the pool drawn as dice (each die's provenance in its label), the difficulty, the
// modifications, and the server's exact odds from the `check:<id>` view; and, for who may use
// them, the controls: roll, cancel, set the difficulty (GM), add/remove dice, upgrade or
// downgrade, spend a destiny point on it. Built once per check and updated in place.
import {h, percent, replace, say} from "../dom.js";
import {bindButton, bindForm, clearWhenChanged} from "../actions.js";
import {CHARACTERISTICS, LEVELS} from "./narrative_words.js";
import {effectWords, levelWords} from "./narrative_describe.js";
import {narrativeDie} from "./narrative_dice.js";
import {countInput, labelled, offerPoints, pointsNote, reasonInput, reasonOf, setOptions, wholeNumber} from "./narrative_forms.js";

const OP_WORDS = {add: "added", remove: "removed", upgrade: "upgraded", downgrade: "downgraded"};

function modificationWords(mod, names) {
  const dice = mod.count === 1 ? "die" : "dice";
  const what = mod.kind ? `${mod.count} ${mod.kind} ${dice}` : `${mod.count} ${mod.side}-side ${dice}`;
  return `${names.member(mod.actor)} ${OP_WORDS[mod.op] ?? mod.op} ${what}${mod.reason ? ` (${mod.reason})` : ""}`;
}

export class NarrativeCheck extends HTMLElement {
  /** `check`: the CheckState of the table message; `view`: its NarrativeCheckOdds or null;
   * `open`: every open check. */
  update({check, view, me, names, acts, characters, destiny, open}) {
    this.checkId = check.check;
    if (!this.built) this.build(check, me, acts);
    if (this.spendButton) offerPoints(this.spendButton, this.spendNote, destiny[this.spendSide], this.spendSide);
    clearWhenChanged(this, JSON.stringify(check)); // a refusal about the check it was
    // two open checks of one character and skill are told apart by their ids, in the card's
    // name and its Roll's: both read "Han Solo's Ranged (Light)", and the Roll pressed was
    // the wrong one
    const twin = open.some((other) => other !== check && other.character === check.character
      && other.skill === check.skill);
    this.heading.textContent = `${names.character(check.character)}'s ${check.skill}${twin ? ` (${check.check})` : ""}`;
    // which check it rolls: with two cards open, a screen reader's list of buttons read "Roll",
    // "Roll"
    this.rollButton?.setAttribute("aria-label", `Roll ${this.heading.textContent}`);
    this.meta.textContent = [`check ${check.check}`,
      `${levelWords(check.characteristic)} ${check.characteristic_value}, rank ${check.rank}`,
      check.target ? `against ${names.character(check.target)}` : null,
      check.reason || null].filter(Boolean).join(" · ");
    const level = check.difficulty?.level ?? null;
    this.difficulty.textContent = level === "opposed"
      ? `Opposed: ${names.character(check.difficulty.opponent ?? "")}'s ${check.difficulty.opponent_skill}`
      : levelWords(level);
    this.difficulty.dataset.level = level ?? "";
    if (this.difficultyForm) this.difficultyForm.hidden = level !== null;
    this.characters = characters;
    if (this.opponentSelect) {
      setOptions(this.opponentSelect, characters.filter((c) => c.character !== check.character)
        .map((c) => [c.character, c.name]), check.target ?? null); // whom the check is against
      this.opponentSkills();
    }
    if (view !== this.shownView || level !== this.shownLevel || !this.shownOnce) {
      // only a new view (or difficulty) redraws the dice and odds (a table message comes after
      // every change at the table; the odds region is a live region and must not repeat itself)
      this.shownView = view;
      this.shownLevel = level;
      this.shownOnce = true;
      this.showPool(view);
      this.showOdds(level === null ? null : view, level === null);
    }
    // an Impossible check is rolled (as Formidable, the odds shown) only once a destiny point
    // is spent to attempt it: say so, and offer that spend only, Roll off until then (the
    // card showed "41.5% to succeed" and a Roll the server could only refuse, and a point
    // spent on "upgrade ability" used up the side's one point: the check was never attempted)
    const waiting = level === "impossible" && !check.impossible_allowed;
    this.impossibleNote.hidden = !waiting;
    if (waiting !== this.shownWaiting) {
      this.shownWaiting = waiting;
      if (this.effectSelect) {
        setOptions(this.effectSelect, (waiting ? ["attempt_impossible"] : this.effects)
          .map((value) => [value, effectWords(value)]));
        this.effectSelect.value = waiting ? "attempt_impossible" : this.effects[0];
      }
      if (this.rollButton) {
        this.rollButton.disabled = waiting;
        this.rollButton.toggleAttribute("data-ph-unavailable", waiting);
      }
    }
    // each side spends one point at most on a check: once this member's side did, its form
    // goes and the card says so (it stayed, and a click only brought the server's refusal)
    if (this.spendForm) {
      const spent = check.destiny.includes(this.spendSide);
      this.spendForm.hidden = spent;
      this.spentNote.hidden = !spent;
    }
    const changes = check.modifications.map((mod) => modificationWords(mod, names));
    for (const side of check.destiny) {
      const effect = check.destiny_effects?.[side]; // absent in a table from an older snapshot
      // an upgrade is listed once, as the upgrade the point made ("GM upgraded 1
      // difficulty-side die (GM destiny point)"); it was listed again as a point spent
      if (effect?.startsWith("upgrade_")) continue;
      changes.push(`a ${side} side destiny point was spent on it${
        effect === "attempt_impossible" ? " to attempt the impossible" : ""}`);
    }
    for (const note of view?.ignored ?? []) changes.push(`ignored: ${note}`);
    const key = JSON.stringify(changes);
    if (key !== this.changes.dataset.key) {
      this.changes.dataset.key = key;
      replace(this.changes, changes.map((line) => h("li", {}, line)));
      this.changes.hidden = changes.length === 0;
    }
  }

  build(check, me, acts) {
    this.built = true;
    this.classList.add("ph-nc");
    const id = `nc-${check.check}`;
    this.setAttribute("role", "group");
    this.setAttribute("aria-labelledby", `${id}-title`);
    this.dataset.check = check.check;
    this.heading = h("h3", {id: `${id}-title`, class: "ph-nc-title"});
    this.meta = h("p", {class: "ph-nc-meta ph-muted"});
    this.difficulty = h("span", {class: "ph-nc-difficulty"});
    this.dice = h("span", {class: "ph-dice ph-nd-dice ph-nc-dice"});
    this.notation = h("code", {class: "ph-nc-notation"});
    // the odds are read on the card; a screen reader hears only the chance of success when
    // it changes (the whole table of odds, read out after every die added, was too much)
    this.odds = h("div", {class: "ph-nc-odds"});
    this.oddsSaid = h("p", {class: "ph-sr-only ph-nc-odds-said", "aria-live": "polite"});
    this.impossibleNote = h("p", {class: "ph-nc-note ph-nc-impossible", hidden: true},
      "Impossible: rolled as Formidable (these odds) once a destiny point is spent on it to "
      + "attempt the impossible; until then it cannot be rolled.");
    this.changes = h("ul", {class: "ph-nc-changes", "aria-label": "Changes to the pool"});
    this.append(
      h("header", {class: "ph-nc-head"}, this.heading, this.difficulty),
      this.meta,
      h("div", {class: "ph-nc-pool"}, this.dice, this.notation),
      this.impossibleNote, this.odds, this.oddsSaid, this.changes);
    const controls = this.controls(check, me, acts);
    if (controls.length) this.append(h("div", {class: "ph-nc-controls"}, controls));
  }

  showPool(view) {
    if (!view) {
      replace(this.dice, h("span", {class: "ph-muted"}, "the pool comes from the server…"));
      this.notation.textContent = "";
      return;
    }
    replace(this.dice, view.dice.map((die) => narrativeDie(die.kind, null, {note: die.notes.join("; ")})));
    this.notation.textContent = view.pool;
    this.notation.title = "the pool in the notation of poolhall odds";
  }

  /** The odds of the pool, once the GM has set the difficulty: before, the server's odds are
   * those of a pool with no difficulty dice, and "94.4% to succeed" beside "no difficulty yet"
   * read as the real chance. */
  showOdds(view, noDifficulty = false) {
    if (noDifficulty) {
      replace(this.odds, h("p", {class: "ph-muted ph-nc-note ph-nc-odds-later"},
        "Odds once the GM sets the difficulty."));
      return;
    }
    const odds = view?.odds;
    if (odds) say(this.oddsSaid, `${this.heading.textContent}: ${percent(odds.p_success)} to succeed`);
    if (!odds) {
      replace(this.odds, h("p", {class: "ph-muted ph-nc-note"},
        view?.note || "odds: being computed by the server…"));
      return;
    }
    const row = (name, words, p, exact = null) => h("div", {class: `ph-nc-p ph-nc-p-${name}`},
      h("dt", {}, words),
      h("dd", {"data-p": String(p), "data-exact": exact, title: exact ? `exactly ${exact}` : null},
        percent(p)));
    const chance = h("meter", {min: 0, max: 1, value: odds.p_success, class: "ph-nc-meter",
                               "aria-label": "chance of success"});
    replace(this.odds,
      h("div", {class: "ph-nc-chance"}, h("strong", {class: "ph-nc-success"}, `${percent(odds.p_success)} to succeed`), chance),
      h("dl", {class: "ph-nc-table", "aria-label": `odds of ${odds.pool}`},
        row("success", "success", odds.p_success, odds.p_success_exact),
        row("advantage", "net advantage", odds.p_advantage["1"] ?? odds.p_advantage[1]),
        row("threat", "net threat", odds.p_threat),
        row("triumph", "triumph", odds.p_triumph, odds.p_triumph_exact),
        row("despair", "despair", odds.p_despair, odds.p_despair_exact)),
      h("p", {class: "ph-nc-means ph-muted"},
        `on average ${odds.mean_successes.toFixed(2)} net successes, `,
        `${odds.mean_advantages.toFixed(2)} net advantage`));
  }

  controls(check, me, acts) {
    const gm = me.role === "gm";
    const parts = [];
    if (gm) parts.push(this.difficultyControls(check));
    if (acts) {
      const roll = this.rollButton = h("button", {type: "button", class: "ph-nc-roll"}, "Roll");
      const cancel = h("button", {type: "button", class: "ph-quiet"}, "Cancel check");
      bindButton(roll, () => ({type: "roll_check", check: check.check}));
      bindButton(cancel, () => ({type: "cancel_check", check: check.check}));
      parts.push(h("div", {class: "ph-nc-actions", "data-ph-errors": ""}, roll, cancel));
      parts.push(this.diceForm(check, gm), this.upgradeForm(check, gm));
    }
    if (gm || me.role === "player") parts.push(this.destinyForm(check, gm), this.spentNote);
    return parts;
  }

  difficultyControls(check) {
    const level = h("select", {name: "level"}, LEVELS.map((value) => h("option", {value}, levelWords(value))));
    level.value = "average";
    this.opponentSelect = h("select", {name: "opponent"});
    this.opponentSelect.addEventListener("change", () => this.opponentSkills());
    this.skillList = h("datalist", {id: `nc-${check.check}-skills`});
    const opposed = h("span", {class: "ph-nc-opposed", hidden: true},
      labelled("opponent", this.opponentSelect),
      labelled("their skill", h("input", {name: "opponent_skill", autocomplete: "off", maxlength: 40,
                                          list: `nc-${check.check}-skills`})),
      this.skillList,
      labelled("characteristic", h("select", {name: "opponent_characteristic"},
        h("option", {value: ""}, "the skill's"), CHARACTERISTICS.map((c) => h("option", {value: c}, levelWords(c))))));
    level.addEventListener("change", () => { opposed.hidden = level.value !== "opposed"; });
    const form = h("form", {class: "ph-nc-form ph-nc-set-difficulty", "aria-label": "Set the difficulty"},
      labelled("difficulty", level), opposed, reasonInput(),
      h("button", {type: "submit"}, "Set difficulty"));
    bindForm(form, (data) => {
      const chosen = String(data.get("level"));
      if (chosen !== "opposed") return {type: "set_difficulty", check: check.check, level: chosen, ...reasonOf(data)};
      const skill = String(data.get("opponent_skill") ?? "").trim();
      const characteristic = String(data.get("opponent_characteristic") ?? "");
      return {type: "set_difficulty", check: check.check, level: "opposed",
              opponent: String(data.get("opponent") ?? ""), opponent_skill: skill,
              ...(characteristic ? {opponent_characteristic: characteristic} : {}), ...reasonOf(data)};
    });
    this.difficultyForm = form;
    return form;
  }

  /** The chosen opponent's skills from their sheet, offered in the skill field. */
  opponentSkills() {
    const sheet = this.characters?.find((c) => c.character === this.opponentSelect.value)?.stats;
    const names = Object.keys(sheet?.skills ?? {}).sort();
    if (this.skillList.dataset.key === names.join("\n")) return;
    this.skillList.dataset.key = names.join("\n");
    replace(this.skillList, names.map((name) => h("option", {value: name})));
  }

  diceForm(check, gm) {
    const kinds = gm ? ["setback", "boost", "difficulty", "ability"] : ["boost", "setback", "ability"];
    const kind = h("select", {name: "kind"}, kinds.map((value) => h("option", {value}, value)));
    const form = h("form", {class: "ph-nc-form ph-nc-dice-form", "aria-label": "Add or remove dice"},
      labelled("dice", kind), labelled("how many", countInput()), reasonInput(),
      h("button", {type: "submit", name: "op", value: "add"}, "Add"),
      h("button", {type: "submit", name: "op", value: "remove", class: "ph-quiet"}, "Remove"));
    bindForm(form, (data) => ({type: data.get("op") === "remove" ? "remove_dice" : "add_dice",
      check: check.check, kind: String(data.get("kind")), count: wholeNumber(data, "count", "how many"),
      ...reasonOf(data)}), () => this.reset(form));
    return form;
  }

  upgradeForm(check, gm) {
    const sides = gm ? ["difficulty", "ability"] : ["ability"];
    const side = h("select", {name: "side"}, sides.map((value) => h("option", {value}, `${value} side`)));
    const form = h("form", {class: "ph-nc-form ph-nc-upgrade-form", "aria-label": "Upgrade or downgrade dice"},
      labelled("dice of the", side), labelled("how many", countInput()), reasonInput(),
      h("button", {type: "submit", name: "op", value: "upgrade"}, "Upgrade"),
      h("button", {type: "submit", name: "op", value: "downgrade", class: "ph-quiet"}, "Downgrade"));
    bindForm(form, (data) => ({type: data.get("op") === "downgrade" ? "downgrade_dice" : "upgrade_dice",
      check: check.check, side: String(data.get("side")), count: wholeNumber(data, "count", "how many"),
      ...reasonOf(data)}), () => this.reset(form));
    return form;
  }

  destinyForm(check, gm) {
    const side = /** @type {"light" | "dark"} */ (gm ? "dark" : "light");
    const effects = this.effects = gm ? ["upgrade_difficulty", "upgrade_ability", "attempt_impossible", "other"]
      : ["upgrade_ability", "upgrade_difficulty", "attempt_impossible", "other"];
    const effect = h("select", {name: "effect"}, effects.map((value) => h("option", {value}, effectWords(value))));
    this.effectSelect = effect;
    this.spentNote = h("p", {class: "ph-nc-note ph-muted ph-nc-spent", hidden: true},
      `The ${side} side's destiny point for this check is spent: each side spends one at most on a check.`);
    this.spendButton = h("button", {type: "submit", class: `ph-nd-spend-${side}`}, `Spend a ${side} side point`);
    this.spendNote = pointsNote();
    this.spendSide = side;
    const form = h("form", {class: `ph-nc-form ph-nc-destiny-form ph-nc-destiny-${side}`,
                            "aria-label": `Spend a ${side} side point on this check`},
      labelled("to", effect), reasonInput(), this.spendButton, this.spendNote);
    bindForm(form, (data) => ({type: "flip_destiny", side, effect: String(data.get("effect")),
      check: check.check, ...reasonOf(data)}), () => this.reset(form));
    this.spendForm = form;
    return form;
  }

  reset(form) {
    for (const input of form.querySelectorAll("input[name=reason]")) input.value = "";
    for (const input of form.querySelectorAll("input[name=count]")) input.value = "1";
  }
}

customElements.define("ph-narrative-check", NarrativeCheck);
