// The narrative vocabulary the forms offer, as the JSON Schema of the commands lists it
// (`poolhall schema`: SetDifficulty.level, NarrativeStatsInput, FlipDestiny.effect). Choices,
// not rules: the server decides what each one does.

/** SetDifficulty.level, from no difficulty dice to an opponent's. */
export const LEVELS = ["simple", "easy", "average", "hard", "daunting", "formidable", "impossible",
                       "opposed"];

/** The six characteristics (NarrativeStats). */
export const CHARACTERISTICS = ["brawn", "agility", "intellect", "cunning", "willpower", "presence"];

/** FlipDestiny.effect. */
export const EFFECTS = ["upgrade_ability", "upgrade_difficulty", "attempt_impossible", "other"];

/** A characteristic's rating bounds and a skill's rank bounds (NarrativeStatsInput, SkillInput). */
export const CHARACTERISTIC_MAX = 10;
export const RANK_MAX = 5;
/** The most points either side of the destiny pool holds (events/narrative_values.py
 * MAX_DESTINY: the server's "the light is between 0 and 50"). */
export const DESTINY_MAX = 50;
