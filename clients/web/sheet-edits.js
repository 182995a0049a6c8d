// The edits a GM had typed into a character form, in words, against the sheet the form was
// opened from ("name: Han Solo (Captain)", "agility: 4", "skills › Cool: removed"): listed by
// ./sheet-changed.js after the form is reloaded over a change made elsewhere, so that they can
// be entered again. Fetched with the first such reload.

/** @import {CharacterEntry} from "./messages.js" */

/** What `command` (the form's update) says differently from the sheet `entry` it was made
 * from, in words ("name: Han Solo (Captain)", "agility: 4", "skills › Cool: removed").
 * @param {CharacterEntry} entry @param {any} command @returns {string[]} */
export function differences(entry, command) {
  /** @type {string[]} */
  const said = [];
  if (typeof command.name === "string" && command.name !== entry.name) said.push(`name: ${command.name}`);
  compare(entry.stats ?? {}, command.stats ?? {}, "", said);
  return said;
}

/** @param {any} value @returns {boolean} */
const isRecord = (value) => Boolean(value) && typeof value === "object" && !Array.isArray(value);

/** @param {Record<string, any>} before @param {Record<string, any>} after @param {string} path
 * @param {string[]} said */
function compare(before, after, path, said) {
  for (const [key, value] of Object.entries(after)) {
    if (!path && key === "system") continue;
    const where = path ? `${path} › ${key}` : key;
    const was = before[key]; // not its own ("constructor"): Object's function, as none
    if (isRecord(value) && isRecord(was)) compare(was, value, where, said);
    else if (isRecord(value)) said.push(`${where}: ${Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ")}`);
    else if ((was ?? null) !== (value ?? null)) said.push(`${where}: ${value ?? "blank"}`);
  }
  for (const [key, was] of Object.entries(before)) { // an entry (a skill, a stat) taken out
    if (isRecord(was) || path) {
      if (!Object.hasOwn(after, key)) said.push(`${path ? `${path} › ${key}` : key}: removed`);
    }
  }
}
