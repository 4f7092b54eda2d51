// End to end for Shadowrun 4: the module's own code in Node against the real service. The GM's
// client creates an sr4 encounter for the combat; a shadowrun4e character (fixtures following the
// system's data models) fires a wide short burst of its AK-97 at a targeted shadowrun4e ganger
// with physical dice: the numbers worked by hand, the gun keeps the rounds left, the event comes
// back over the WebSocket as a card; then a grenade thrown at a point is held until two advances
// set it off, and that advance's event is a card with the blast.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  fixture, makeActor, makeChatMessage, makeCombat, makeGame, makeGrid, makeRenderTemplate, makeNotifications, makeScene, makeToken, Roll,
} from "./foundry-stubs.mjs";
import { startService } from "./service-harness.mjs";
import { releasesOf } from "./system-fixtures.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import * as sr4e from "../src/sr4-actor.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";

const ADMIN_KEY = "sr4-e2e-admin-key-0123456789";
let service;

before(async () => {
  service = await startService({ adminKey: ADMIN_KEY });
});

after(async () => {
  const exit = await service?.stop();
  if (exit) assert.ok(exit.code === 0 || exit.signal === "SIGTERM", `the service stopped cleanly: ${JSON.stringify(exit)}`);
});

/** The GM's table on the real service with a shadowrun4e release's Sam and ganger, an sr4 encounter and its feed. */
async function sr4Table(t, release) {
  const sam = makeActor(fixture(release.sam));
  const goon = makeActor(fixture(release.goon));
  const grid = makeGrid({ size: 100, distance: 1, units: "m" });
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 400, y: 0 });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const game = makeGame({ isGM: true, systemId: "shadowrun4e", systemVersion: release.version, generation: release.foundry, actors: [sam, goon] });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  const waiting = new Map();
  const create = ChatMessage.create;
  ChatMessage.create = async (data) => {
    const message = await create(data);
    waiting.get(message.flags?.firefight?.eventId)?.(message);
    return message;
  };
  const cardOf = (eventId) => [...messages].find((m) => m.flags?.firefight?.eventId === eventId) ?? new Promise((resolve) => waiting.set(eventId, resolve));
  registerSettings(game);
  await game.settings.set(MODULE_ID, "serviceUrl", service.baseUrl);
  await game.settings.set(MODULE_ID, "adminKey", ADMIN_KEY);
  await game.settings.set(MODULE_ID, "ruleset", "sr4");
  const app = new FirefightApp({
    game, canvas: { grid, scene, tokens: { placeables: [samToken, goonToken] } }, ui: { notifications: makeNotifications() }, ChatMessage, Roll,
    renderTemplate: makeRenderTemplate(), fetch: globalThis.fetch, WebSocket: globalThis.WebSocket,
  });
  const combat = makeCombat({ round: 0, combatants: [{ tokenId: samToken.id }, { tokenId: goonToken.id }] });
  game.combat = combat;
  const flag = await app.ensureEncounter(combat);
  assert.equal(flag.ruleset, "sr4");
  app.follow(combat);
  t.after(() => app.feed?.stop());
  return { app, game, sam, goon, samToken, goonToken, combat, flag, cardOf };
}

test("a shadowrun4e burst and a held grenade against the real service, their cards from the WebSocket", async (t) => {
  const { app, game, sam, samToken, goonToken, combat, flag, cardOf } = await sr4Table(t, releasesOf("shadowrun4e").at(-1));
  game.user.targets = new Set([goonToken]);
  const data = app.dialogData(samToken, { itemId: "ak97Rifle000001" });
  assert.deepEqual(data.targets.map((x) => [x.id, x.distance_m]), [[goonToken.id, 4]]);
  const form = {
    weapon: "ak97Rifle000001", mode: "BF", burst: "wide", [`cover.${goonToken.id}`]: "none", [`dodge.${goonToken.id}`]: 0,
    dice: `attack: 6 5 5 2 1 3 4 2 3 4\nsoak:${goonToken.id}: 5 6 1 2 3 4 2 2 3 4 1`,
  };
  const answer = await app.attack(samToken, data, form);
  const result = answer.result;
  const [target] = result.targets;
  // By hand (001): Agility 5 + Automatics 5; the first burst's -2 recoil against the rifle's RC
  // 2: 10 dice, 3 hits. Reaction 3 less the wide burst's 2 and the ganger's wounds 3 (its sheet's
  // woundModifier; SR4 core, "Wound Modifiers"): no die. 3 net: DV 6 + 3 = 9 against the
  // jacket's 8 - 1 = 7: physical; Body 4 + 7 = 11 soak dice (no wounds), 2 hits: 7 boxes.
  assert.equal(result.kind, "sr4_attack");
  assert.deepEqual([target.attack.pool, target.attack.hits, target.defense.pool, target.net_hits], [10, 3, 0, 3]);
  assert.deepEqual([target.damage.dv, target.damage.armor, target.damage.track, target.damage.boxes], [9, 7, "physical", 7]);
  assert.equal(sam.items.get("ak97Rifle000001").system.currentAmmo, 35, "three rounds fired, written back");
  const message = await cardOf(answer.event_id);
  assert.match(message.content, /<span class="firefight-boxes__count">7<\/span>/);
  assert.deepEqual(message.rolls.map((r) => r.dice[0].results.map((x) => x.result)), result.dice.map((d) => d.values));

  // A fragmentation grenade at a point 2 m past the ganger: held, then set off by the second
  // pass boundary (the VTT runs the initiative), its blast on the advance's card.
  // The combat's tokens as the encounter's scene, with their shadowrun4e sheets: who stands where
  // when the grenade goes off.
  await app.syncScene(combat);
  // shadowrun4e keeps no grenade as a "Ranged Weapon": the dialog's category says it is thrown,
  // the skill is typed in (Throwing Weapons).
  // Every die the blast's card depends on is given or made harmless (001, "Determine Scatter",
  // "Blast Effects"): Agility 5 + Throwing 3 = 8 dice, 2 hits; the scatter's 1 + 1 + 1 = 3 m less
  // 2 m per hit lands it on the aimed point (6, 0), 2 m from the ganger (4, 0). The grenade's DV
  // is given as 18 (its other numbers the fragmentation row's, AP +5, -1 per m): 18 - 2 = 16
  // against the ganger's Body 4 + impact armor 6 + 5 = 15 soak dice, so at least one box
  // whatever the blast's own dice (they come from the throw's seed, not from the request).
  const thrown = await app.attack(samToken, app.dialogData(samToken), {
    weapon: "ak97Rifle000001", category: "standard_grenade", skill: 3, mode: "SS", grenade_type: "fragmentation", grenade_delivery: "standard", aim_point: "6 0",
    grenade_dv: "18", dice: "attack: 6 5 2 2 3 4 1 2\nscatter_direction: 1\nscatter: 1 1 1",
  });
  assert.deepEqual([thrown.result.targets.length, thrown.result.scatter.landed], [0, { x: 6, y: 0 }], JSON.stringify(thrown.result.scatter));
  const held = thrown.result.pending_grenade;
  assert.equal(thrown.result.weapon, "grenade-fragmentation");
  assert.equal(sam.items.get("ak97Rifle000001").system.currentAmmo, 35, "the rifle fired nothing");
  assert.ok(held, JSON.stringify(thrown.result.scatter));
  const token = game.settings.get(MODULE_ID, "gmTokens")[flag.id];
  await app.client().advance(flag.id, token, { to: "initiative_pass" });
  const second = await app.client().advance(flag.id, token, { to: "initiative_pass" });
  const [blast] = second.result.went_off;
  assert.equal(blast.grenade, held);
  const goonHit = blast.hits.find((h) => h.actor === goonToken.id);
  assert.deepEqual([goonHit?.distance_m, goonHit?.dv, goonHit?.track], [2, 16, "physical"], JSON.stringify(blast.hits));
  assert.ok(goonHit.boxes >= 1, JSON.stringify(goonHit));
  const blastCard = await cardOf(second.event_id);
  assert.match(blastCard.content, new RegExp(`data-grenade="${held}"`));
  assert.match(blastCard.content, /data-firefight-action="apply-damage" data-target="tokGoon00000001"/);
});

test("shadowrun4e 0.1.x (Foundry v13): the burst's rounds come from the gun's capacity, and the rounds left are the next attack's", async (t) => {
  const release = releasesOf("shadowrun4e")[0];
  const { app, sam, samToken, goonToken } = await sr4Table(t, release);
  const version = release.version;
  const rifle = sam.items.get("ak97Rifle000001");
  assert.equal(rifle.system.ammo, "38(c)");
  app.game.user.targets = new Set([goonToken]);
  const data = app.dialogData(samToken, { itemId: "ak97Rifle000001" });
  assert.equal(data.weapons.find((w) => w.id === "ak97Rifle000001").weapon.ammo, 38, "a full load: the capacity's number");
  // 0.1.x's gun names no category: the dialog's Category says it. The same shot as 1.x's above,
  // worked the same way: 10 dice, 3 hits; no defense dice; 7 boxes (0.1.x's RC 2 is the sheet's
  // own, its woundModifier 3 the ganger's -3).
  const answer = await app.attack(samToken, data, {
    weapon: "ak97Rifle000001", category: "assault_rifle", mode: "BF", burst: "wide", [`cover.${goonToken.id}`]: "none", [`dodge.${goonToken.id}`]: 0,
    dice: `attack: 6 5 5 2 1 3 4 2 3 4\nsoak:${goonToken.id}: 5 6 1 2 3 4 2 2 3 4 1`,
  });
  const [target] = answer.result.targets;
  assert.deepEqual([target.attack.pool, target.attack.hits, target.defense.pool, target.net_hits, target.damage.boxes], [10, 3, 0, 3, 7]);
  assert.equal(answer.result.ammo_left, 35);
  assert.equal(rifle.flags.firefight.rounds, 35, "the rounds left, on the gun in the module's flag");
  assert.equal(rifle.system.ammo, "38(c)", "the capacity as the book writes it");
  assert.equal(sr4e.sr4Weapon(rifle, { version }).ammo, 35);
  assert.equal(app.dialogData(samToken, { itemId: "ak97Rifle000001" }).weapons.find((w) => w.id === "ak97Rifle000001").weapon.ammo, 35);
});
