// Who sees a card: Foundry's roll modes (public, GM only, blind, self). The card is usually
// posted by the GM's client from the encounter's feed, on behalf of the player who acted, so
// the player's chosen mode travels on their User (a flag set before the request is sent) and
// the message is created with that player as its author. The module names the modes as v13's
// roll modes do; v14's message modes are the same four under other names (foundry-version.mjs).

import { applyMessageMode } from "./foundry-version.mjs";

export const ROLL_MODES = ["publicroll", "gmroll", "blindroll", "selfroll"];

/** A roll mode Foundry knows, else the fallback (the user's core setting). */
export function rollModeOr(mode, fallback) {
  return ROLL_MODES.includes(mode) ? mode : ROLL_MODES.includes(fallback) ? fallback : "publicroll";
}

/** The options of the dialog's roll mode select, the current one selected. */
export function rollModeChoices(current) {
  return ROLL_MODES.map((mode) => ({ value: mode, label: `FIREFIGHT.RollMode.${mode}`, selected: mode === current }));
}

/**
 * The last request a user sent for an actor, from the users' flags ({actor, rollMode, at}):
 * the author and roll mode of that actor's next card.
 */
export function requestOf(users, actorId, moduleId) {
  let found = null;
  for (const user of users ?? []) {
    const last = user.flags?.[moduleId]?.lastRequest;
    if (last?.actor === actorId && (!found || last.at > found.at)) found = { author: user.id, rollMode: last.rollMode, at: last.at };
  }
  return found;
}

/**
 * Apply a roll mode to message data as Foundry does (v13 ChatMessage.applyRollMode, v14
 * ChatMessage.applyMode), for a message posted on behalf of `author`: it is their message (so
 * they see their own GM-only or blind card as Foundry shows a roller theirs), and "self"
 * whispers to them, not to whoever posts it.
 */
export function applyCardRollMode(ChatMessage, data, rollMode, { author = null, poster = null, game = null } = {}) {
  applyMessageMode(ChatMessage, data, rollMode, game);
  if (author && author !== poster) {
    data.author = author;
    if (rollMode === "selfroll") data.whisper = [author];
  }
  return data;
}
