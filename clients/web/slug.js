// A character's id from its name, as the server makes ids from names
// (server/rules/core.py `slugify`): "Ørjan Lïf" -> "orjan-lif". Latin letters keep their base
// letter; a name with no Latin letter or digit ("李") gets "character" (or "character-2" ...).

/** Latin letters Unicode does not split into a base letter and a mark (the server's table). */
const UNSPLIT = /** @type {Record<string, string>} */ ({
  "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d",
  "ł": "l", "þ": "th", "ı": "i", "ħ": "h", "ŧ": "t", "ŋ": "n",
});

/**
 * An id for a new character named `name`. A name with no Latin letter or digit gets the first
 * of "character", "character-2", ... not in `taken`; a Latin name keeps its id even when it
 * is taken, so that the server says so rather than a second "Han" quietly becoming "han-2".
 * @param {string} name
 * @param {Iterable<string>} [taken] the ids already in use
 * @returns {string}
 */
export function slugOf(name, taken = []) {
  const letters = [...name.toLowerCase()].map((c) => UNSPLIT[c] ?? c).join("")
    .normalize("NFKD").replace(/\p{M}/gu, "");
  const base = letters.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40)
    .replace(/-+$/, "");
  if (base || !name.trim()) return base;
  const used = new Set(taken);
  let id = "character";
  for (let n = 2; used.has(id); n += 1) id = `character-${n}`;
  return id;
}
