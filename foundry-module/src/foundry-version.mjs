// What differs between the Foundry releases the module runs on (module.json: 13 to 14), in one
// place, branching on `game.release.generation`. Everything else the module touches is the
// same in both and is checked against both API pages:
// - DialogV2.wait: the `render` callback and a button's callback get the DialogV2 in both
//   (https://foundryvtt.com/api/v13/types/foundry.DialogV2ButtonCallback.html,
//   https://foundryvtt.com/api/v14/types/foundry.DialogV2ButtonCallback.html);
//   ApplicationV2 for the GM's menu likewise.
// - Chat cards render through `renderChatMessageHTML(message, html: HTMLElement, context)`
//   (https://foundryvtt.com/api/v14/functions/hookEvents.renderChatMessageHTML.html; v13 the same).
// - Document#update, setFlag, createEmbeddedDocuments / deleteEmbeddedDocuments of Drawing and
//   Token, and the updateToken / moveToken hooks (one update per checkpoint of a movement:
//   https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.TokenMeasuredMovementWaypoint.html).
//
// What differs:
// - Zones: v14 has no MeasuredTemplate (Regions replace them, with shapes:
//   https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.RegionData.html); v13
//   keeps templates (src/zones.mjs has both layers).
// - Who sees a message: v13 `ChatMessage.applyRollMode(data, rollMode)` with the roll modes
//   (publicroll, gmroll, blindroll, selfroll) and the core setting `rollMode`; v14
//   `ChatMessage.applyMode(data, mode)` with CONFIG.ChatMessage.modes (public, gm, blind,
//   self: https://foundryvtt.com/api/v14/variables/CONFIG.ChatMessage.html) and the core
//   setting `messageMode`. The module keeps the roll modes' names (its flags, its dialog) and
//   translates them here.

import { RegionZoneLayer, TemplateZoneLayer } from "./zones.mjs";

/** The running Foundry's generation (13 when it does not say: the oldest the module supports). */
export function generation(game) {
  return Number(game?.release?.generation) || 13;
}

/** Whether zones are Regions (v14 removed MeasuredTemplate). */
export function zonesAreRegions(game) {
  return generation(game) >= 14;
}

/** The zone layer of a scene: Regions on v14, templates (and polygon Drawings) on v13. */
export function zoneLayer(game, scene, options) {
  return zonesAreRegions(game) ? new RegionZoneLayer(scene, options) : new TemplateZoneLayer(scene, options);
}

/** v14's message mode for each of the module's roll modes. */
export const MESSAGE_MODES = { publicroll: "public", gmroll: "gm", blindroll: "blind", selfroll: "self" };
const ROLL_MODE_OF = Object.fromEntries(Object.entries(MESSAGE_MODES).map(([roll, message]) => [message, roll]));

/** Who sees `data` (whisper, blind), as Foundry applies a roll mode (v13) or a message mode (v14). */
export function applyMessageMode(ChatMessage, data, rollMode, game) {
  if (generation(game) >= 14) ChatMessage.applyMode(data, MESSAGE_MODES[rollMode] ?? "public");
  else ChatMessage.applyRollMode(data, rollMode);
  return data;
}

/** This user's chosen mode in the chat log, as a roll mode name (null when unset or unknown). */
export function userRollMode(game) {
  try {
    if (generation(game) >= 14) return ROLL_MODE_OF[game.settings.get("core", "messageMode")] ?? null;
    return game.settings.get("core", "rollMode");
  } catch {
    return null;
  }
}
