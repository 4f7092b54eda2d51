// The combat's scene as the service's scene (docs/api.md, "The scene"): each token of the scene
// is an actor of the encounter, with its name, whether it is hidden, its centre in metres and,
// with the shadowrun5e system (sr5), the sr3e system (sr3) or the shadowrun4e system (sr4), its sheet. Which token change
// means which request is decided here; the GM's client sends them (foundry-app.mjs).
//
// Foundry's TokenDocument (v13, v14): `x`, `y` the top-left corner in pixels, `width`, `height`
// in grid spaces, `hidden`; createToken(document, options, userId), updateToken(document,
// changed, options, userId), deleteToken(document, options, userId) fire on every client. A
// drag through waypoints is an update per checkpoint, and the movement may stop at any of them
// (https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.TokenMeasuredMovementWaypoint.html,
// `checkpoint`): every update that moves the token is where it stands.

import * as sr5 from "./sr5-actor.mjs";
import * as sr3e from "./sr3-actor.mjs";
import * as sr4e from "./sr4-actor.mjs";
import { serviceId } from "./requests.mjs";
import { toScenePoint } from "./geometry.mjs";

// The service's bounds (schemas/sr5.py): ratings 0..30, attributes 1..30, 20 weapons a sheet.
const MAX_RATING = 30;
const MAX_WEAPONS = 20;
const NAME_MAX = 200;

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/** The token's centre in canvas pixels, from its document (the combat's scene need not be drawn). */
export function tokenCentre(tokenDocument, grid) {
  const size = grid?.size ?? 0;
  return {
    x: Number(tokenDocument.x ?? 0) + (Number(tokenDocument.width ?? 1) * size) / 2,
    y: Number(tokenDocument.y ?? 0) + (Number(tokenDocument.height ?? 1) * size) / 2,
  };
}

/** The service's point (metres, y up) of a token's centre. */
export function tokenPosition(tokenDocument, grid) {
  return toScenePoint(tokenCentre(tokenDocument, grid), grid);
}

/**
 * A shadowrun5e actor as the service's SR5Sheet: the numbers the module sends with an attack
 * today (sr5-actor.mjs), and its ranged weapons that name a category and a firing mode.
 */
export function sr5Sheet(actor, { version } = {}) {
  const items = sr5
    .rangedWeapons(actor, { version })
    .filter((item) => {
      const w = sr5.sr5Weapon(item, { version });
      return w.category && w.modes.length > 0;
    })
    .slice(0, MAX_WEAPONS);
  const weapons = items
    .map((item) => sr5.sr5Weapon(item, { version }))
    .map((w) => ({
      ...w,
      damage: clamp(w.damage, 0, 100),
      accuracy: clamp(w.accuracy, 0, MAX_RATING),
      ap: clamp(w.ap, -MAX_RATING, MAX_RATING),
      rc: clamp(w.rc, 0, MAX_RATING),
      ammo: clamp(w.ammo, 0, 10_000),
    }));
  const whole = (value) => Math.trunc(Number(value)) || 0;
  const attribute = (name) => clamp(sr5.attributeValue(actor, name, { version }) || 1, 1, MAX_RATING);
  const rating = (value) => clamp(whole(value), 0, MAX_RATING);
  const skill = (id) => rating(sr5.skillValue(actor, id, { version }));
  const weaponSkill = (item) => rating(sr5.weaponSkill(actor, item, sr5.weaponCategory(item, { version }), { version }).value);
  // The combat skill its attacks use: the first weapon's (equipped ones come first).
  const first = sr5.rangedWeapons(actor, { version })[0];
  const sheet = {
    ruleset: "sr5",
    agility: attribute("agility"),
    strength: attribute("strength"),
    willpower: attribute("willpower"),
    intuition: attribute("intuition"),
    reaction: attribute("reaction"),
    body: attribute("body"),
    charisma: attribute("charisma"),
    edge: rating(sr5.attributeValue(actor, "edge", { version })),
    armor: rating(sr5.armorValue(actor, { version })),
    gymnastics: skill("gymnastics"),
    perception: skill("perception"),
    // As the attack's wound modifier (SR5Actor.getWoundModifier): the negative of the wounds.
    wound_modifier: clamp(sr5.woundModifier(actor, { version }), -30, 0),
    weapons,
  };
  if (first) sheet.skill = weaponSkill(first);
  // Each gun's own skill (Pistols for the pistol, Automatics for the rifle), so an attack that
  // names the gun uses the right one.
  sheet.weapon_skills = Object.fromEntries(
    items.map((item, index) => [weapons[index].id, weaponSkill(item)]),
  );
  return sheet;
}

/**
 * Who controls a token's actor on the scene: the players when a player owns it
 * (ClientDocument#hasPlayerOwner), so the players' token acts for it; the GM's otherwise (the
 * players' token acts for no actor of the GM's).
 */
export const PLAYERS_CONTROLLER = "players";

/** The scene actor of a token (PUT .../actors/{id}): name, hidden, position and, in SR5 with shadowrun5e, the sheet. */
export function sceneActorOf(tokenDocument, { grid, ruleset, systemId, systemVersion = undefined }) {
  const version = systemVersion;
  const actor = tokenDocument.actor ?? null;
  const body = {
    name: String(tokenDocument.name ?? "").slice(0, NAME_MAX),
    controller: actor?.hasPlayerOwner ? PLAYERS_CONTROLLER : "gm",
    hidden: Boolean(tokenDocument.hidden),
    position: tokenPosition(tokenDocument, grid),
  };
  if (ruleset === "sr5" && sr5.isShadowrunActor(actor, systemId)) body.sheet = sr5Sheet(actor, { version });
  else if (ruleset === "sr3" && sr3e.isSr3eActor(actor, systemId)) body.sheet = sr3e.sr3Sheet(actor, { version });
  else if (ruleset === "sr4" && sr4e.isSr4eActor(actor, systemId)) body.sheet = sr4e.sr4Sheet(actor, { version });
  return body;
}

/** The service's id of a token's actor on the scene (the id attacks name it by). */
export function sceneActorId(tokenDocument) {
  return serviceId(tokenDocument.id);
}

/** Whether an update moved the token (a change of `x` or `y`). */
export function isMove(changed) {
  return changed !== null && typeof changed === "object" && ("x" in changed || "y" in changed);
}
