// End to end for Shadowrun 3: the module's own code in Node against the real service. The GM's
// client creates an sr3 encounter for the combat; an sr3e character (fixtures following the
// system's data models) fires its Ares Predator at a targeted sr3e ganger with physical dice;
// the answer is the worked case of tests/test_sr3_http.py, the clip keeps the rounds left, the
// event comes back over the WebSocket as a card with the TNs, and an exhausted Combat Pool is
// the service's 409, shown to the user, until the next combat turn.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  fixture, makeActor, makeChatMessage, makeCombat, makeGame, makeGrid, makeNotifications, makeRenderTemplate, makeScene, makeToken, Roll,
} from "./foundry-stubs.mjs";
import { startService } from "./service-harness.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";

const ADMIN_KEY = "sr3-e2e-admin-key-0123456789";
let service;

before(async () => {
  service = await startService({ adminKey: ADMIN_KEY });
});

after(async () => {
  const exit = await service?.stop();
  if (exit) assert.ok(exit.code === 0 || exit.signal === "SIGTERM", `the service stopped cleanly: ${JSON.stringify(exit)}`);
});

test("an sr3e character's shot, its card with every TN, the clip written back, and the 409 of an exhausted Combat Pool", async (t) => {
  const sam = makeActor(fixture("sr3e-actor-sam.json"));
  // The ganger of the worked case: its sheet's Combat Pool left to the service ((4 + 3 + 3) / 2).
  const goonData = fixture("sr3e-actor-goon.json");
  goonData.system.dicePools.combat.value = 0;
  // And unhurt: the fixture's 8 stun boxes (Serious) would be +3 on its dodge's TN.
  goonData.system.health.stun.value = 0;
  goonData.system.health.physical.value = 0;
  const goon = makeActor(goonData);
  const grid = makeGrid({ size: 100, distance: 1, units: "m" });
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 400, y: 0 });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const game = makeGame({ isGM: true, systemId: "sr3e", actors: [sam, goon] });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  // The card of an event, once the feed posts it (waited on, not polled).
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
  await game.settings.set(MODULE_ID, "ruleset", "sr3");
  const ui = { notifications: makeNotifications() };
  const app = new FirefightApp({
    game, canvas: { grid, scene, tokens: { placeables: [samToken, goonToken] } }, ui, ChatMessage, Roll,
    renderTemplate: makeRenderTemplate(), fetch: globalThis.fetch, WebSocket: globalThis.WebSocket,
  });
  const combat = makeCombat({ round: 0, combatants: [{ tokenId: samToken.id }, { tokenId: goonToken.id }] });
  game.combat = combat;
  const flag = await app.ensureEncounter(combat);
  assert.equal(flag.ruleset, "sr3");
  app.follow(combat);
  t.after(() => app.feed?.stop());

  game.user.targets = new Set([goonToken]);
  const data = app.dialogData(samToken, { itemId: "predator0000001" });
  assert.deepEqual(data.targets.map((x) => [x.id, x.distance_m]), [[goonToken.id, 4]]);
  // The worked case's Sam wears no coat and is unhurt (the sheet's Light wound would be +1 TN).
  sam.items.delete("lined0coat00001");
  sam.system.health.physical.value = 0;
  const form = {
    weapon: "predator0000001", mode: "SA", pool: 2, sight: "standard", movement: "stationary", melee_opponents: 0,
    [`cover.${goonToken.id}`]: "none", [`target_movement.${goonToken.id}`]: "walking", [`dodge.${goonToken.id}`]: 1, [`resist.${goonToken.id}`]: 1,
    vision: "normal", light: "full", obscurant: "none",
    dice: `attack: 6 5 5 4 2 1\ndodge:${goonToken.id}: 4\nresist:${goonToken.id}: 4 2 1 1 5`,
  };
  const answer = await app.attack(samToken, data, form);
  const result = answer.result;
  assert.equal(result.kind, "sr3_attack");
  // tests/test_sr3_http.py's first case, worked by hand: TN 4, 4 successes, 1 dodged, Body 4 + 1
  // against 9 - 5 = 4: 2 successes, 3 - 2 = 1 net: M, 3 boxes; pools 6 - 2 and 5 - 2.
  assert.deepEqual([result.attack.target_number, result.attack.successes], [4, 4]);
  assert.deepEqual([result.target.dodge_successes, result.target.net_successes], [1, 3]);
  assert.deepEqual([result.target.damage.level, result.target.damage.boxes, result.target.damage.track], ["M", 3, "physical"]);
  assert.deepEqual(result.combat_pool, [
    { actor: samToken.id, spent: 2, left: 4 },
    { actor: goonToken.id, spent: 2, left: 3 },
  ]);
  assert.equal(sam.items.get("predatorClip001").system.rounds, 14);

  // The event over the WebSocket becomes the card.
  const message = await cardOf(answer.event_id);
  assert.match(message.content, /<span class="value firefight-tn">4<\/span>/);
  assert.match(message.content, /range \(short\), standard vision/);
  assert.match(message.content, /<span class="firefight-level">M<\/span>: <span class="firefight-boxes__count">3<\/span>/);
  assert.deepEqual(message.rolls.map((r) => r.dice[0].results.map((x) => x.result)), result.dice.map((d) => d.values));

  // Four more pool dice: Sam has 4 left; then a fifth is refused (409).
  const spend = { ...form, pool: 4, [`dodge.${goonToken.id}`]: 0, [`resist.${goonToken.id}`]: 0, dice: "attack: 2 2 2 2 2 2 2 2" };
  assert.equal((await app.attack(samToken, data, spend)).result.combat_pool[0].left, 0);
  await assert.rejects(app.attack(samToken, data, { ...spend, pool: 1, dice: "attack: 2 2 2 2 2" }), (error) => {
    assert.equal(error.status, 409);
    assert.equal(error.problem.path, "$.pool");
    assert.match(error.message, /0 Combat Pool dice left/);
    return true;
  });

  // The combat's tokens as the encounter's scene, with their sr3e sheets: an attack by names
  // (the console's, a script's) is filled from them: Sam's pistol skill 4, the ganger's Body 4
  // and armour jacket, the distance from the positions.
  await app.syncScene(combat);
  const byNames = await app.client().attack(flag.id, game.settings.get(MODULE_ID, "gmTokens")[flag.id], {
    ruleset: "sr3", attacker: samToken.id, weapon: "predator0000001", mode: "SA", target: { id: goonToken.id }, dice: { attack: [6, 6, 2, 2], [`resist:${goonToken.id}`]: [2, 2, 2, 2] },
  });
  assert.equal(byNames.result.attack.dice, 4);
  assert.equal(byNames.result.target.range, "short");
  assert.deepEqual([byNames.result.target.armor.ballistic, byNames.result.target.damage.resist.dice], [5, 4]);
  // The sheet's gun has what the clip kept (15 less two shots; the refused one fired none).
  assert.equal(byNames.result.ammo_left, 12);
});
