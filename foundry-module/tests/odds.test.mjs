// The attack dialog's odds (src/odds.mjs) against the real service: once Foundry renders the
// dialog, its odds panel shows what POST .../attacks/odds answers for the body the attack would
// send (without its given dice), asks again as a field changes, shows a refusal's text in the
// panel, never lets an older answer overwrite a newer one, and changes nothing in the encounter.
// Against the running stub Foundry (FOUNDRY_VERSION): v13 and v14 hand the render callback the DialogV2.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  DialogV2, fixture, FormDataExtended, makeActor, makeChatMessage, makeCombat, makeGame, makeGrid, makeNotifications, makeRenderTemplate,
  makeScene, makeToken, Roll,
} from "./foundry-stubs.mjs";
import { startService } from "./service-harness.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { damageBars, percent } from "../src/odds.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";

const ADMIN_KEY = "odds-admin-key-0123456789";
const GOON = "tokGoon00000001";
let service;

before(async () => {
  service = await startService({ adminKey: ADMIN_KEY });
});

after(async () => {
  await service?.stop();
});

/**
 * A GM's Foundry on the real service: Sam (shadowrun5e) targets a ganger 30 m
 * away, the combat's encounter created. Every odds request and its answer is logged; `hold`
 * (when set) keeps the next odds answer back until the test releases it.
 */
async function table() {
  const sam = makeActor(fixture("sr5-actor-sam.json"));
  const goon = makeActor(fixture("sr5-actor-goon.json"));
  const grid = makeGrid({ size: 100, distance: 1, units: "m" });
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: GOON, name: "Halloweener", actor: goon, x: 3000, y: 0 });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const game = makeGame({ isGM: true, actors: [sam, goon] });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  registerSettings(game);
  await game.settings.set(MODULE_ID, "serviceUrl", service.baseUrl);
  await game.settings.set(MODULE_ID, "adminKey", ADMIN_KEY);
  const asked = [];
  const log = { asked, hold: null };
  const fetch = async (url, init = {}) => {
    const response = await globalThis.fetch(url, init);
    if (!String(url).endsWith("/attacks/odds")) return response;
    const text = await response.text();
    const entry = { body: JSON.parse(init.body), status: response.status, answer: JSON.parse(text) };
    asked.push(entry);
    const answer = { status: response.status, ok: response.ok, text: async () => text };
    if (!log.hold) return answer;
    const hold = log.hold;
    log.hold = null;
    return new Promise((resolve) => {
      hold.release = () => resolve(answer);
      hold.entry = entry;
      hold.arrived();
    });
  };
  const canvas = { grid, scene, tokens: { placeables: [samToken, goonToken] } };
  const app = new FirefightApp({
    game, canvas, ui: { notifications: makeNotifications() }, ChatMessage, Roll, renderTemplate: makeRenderTemplate(),
    DialogV2, FormDataExtended, fetch, WebSocket: globalThis.WebSocket,
  });
  const combat = makeCombat({ round: 0, combatants: [{ tokenId: samToken.id }, { tokenId: goonToken.id }] });
  game.combat = combat;
  const flag = await app.ensureEncounter(combat);
  game.user.targets = new Set([goonToken]);
  const gmToken = game.settings.get(MODULE_ID, "gmTokens")[flag.id];
  const view = () => app.client().getEncounter(flag.id, gmToken);
  return { app, samToken, log, view, encounter: flag.id, gmToken };
}

const panelOf = (dialog) => dialog.element.querySelector(".firefight-odds__body");

/** The panel shows the answer's numbers for every target, and its damage as one bar a number of boxes. */
function assertShows(panel, odds) {
  const html = panel.innerHTML;
  assert.equal(panel.dataset.state, odds.method);
  for (const t of odds.targets) {
    const article = html.slice(html.indexOf(`data-target="${t.target}"`));
    assert.match(article, new RegExp(`class="firefight-odds-hit" data-value="${t.hit}">${percent(t.hit).replace(/[.<>]/g, "\\$&")}<`));
    assert.match(article, new RegExp(`class="firefight-odds-damage" data-value="${t.damage_mean}">${t.damage_mean.toFixed(2)}<`));
    assert.match(article, new RegExp(`class="firefight-odds-glitch" data-value="${t.glitch}">`));
    assert.equal(article.includes("firefight-odds-graze"), t.graze > 0);
    const bars = [...article.matchAll(/data-boxes="(\d+)" data-p="([^"]+)"/g)].map((m) => ({ boxes: Number(m[1]), p: Number(m[2]) }));
    assert.deepEqual(bars, damageBars(t.damage));
    // The chart's text alternative names every bar.
    const label = /<svg role="img" aria-label="([^"]*)"/.exec(article)[1].replace(/&lt;/g, "<").replace(/&gt;/g, ">");
    for (const bar of bars) assert.ok(label.includes(`${bar.boxes} boxes: ${percent(bar.p)}`), label);
  }
}

{
  test("the dialog shows the service's odds before Fire, asks again on a change, and shows a refusal", async () => {
    const { app, samToken, log, view } = await table();
    const before = await view();
    DialogV2.respond(async (dialog) => {
      const preview = app.oddsPreview;
      await preview.settled();
      const first = log.asked.at(-1);
      assert.equal(first.status, 200, JSON.stringify(first.answer));
      // The body is the attack's, as Fire would build it from the dialog as it is, without dice.
      const { body } = app.buildAttack(samToken, app.dialogData(samToken), { ...new FormDataExtended(dialog.form).object, dice: "" });
      delete body.dice;
      assert.deepEqual(first.body, body);
      assert.equal(first.body.targets[0].id, GOON);
      assert.equal(first.answer.kind, "attack_odds");
      assertShows(panelOf(dialog), first.answer);

      // Push the Limit: asked again, and the panel follows.
      dialog.change("edge", "push_the_limit");
      await preview.settled();
      const pushed = log.asked.at(-1);
      assert.equal(log.asked.length, 2);
      assert.equal(pushed.body.edge, "push_the_limit");
      assert.ok(pushed.answer.targets[0].hit > first.answer.targets[0].hit, "exploding sixes hit more");
      assertShows(panelOf(dialog), pushed.answer);

      // 1000 m is beyond the assault rifle's extreme range: the service refuses, the panel says why.
      dialog.change(`distance.${GOON}`, 1000);
      await preview.settled();
      const refused = log.asked.at(-1);
      assert.ok(refused.status >= 400 && refused.status < 500, JSON.stringify(refused.answer));
      const panel = panelOf(dialog);
      assert.equal(panel.dataset.state, "refused");
      assert.ok(panel.innerHTML.includes("No odds: "), panel.innerHTML);
      assert.ok(panel.innerHTML.includes(refused.answer.detail.replace(/'/g, "&#39;")), panel.innerHTML);
      assert.equal(app.env.ui.notifications.seen.filter((n) => n.level !== "info").length, 0, "no error notice");
      return null;
    });
    assert.equal(await app.openAttackDialog(samToken), null);
    assert.equal(app.oddsPreview.stopped, true, "closing the dialog stops its odds");
    // Nothing rolled, nothing stored: the encounter is as it was.
    const afterwards = await view();
    assert.deepEqual([afterwards.version, afterwards.last_event_id], [before.version, before.last_event_id]);
    assert.deepEqual(afterwards.combat, before.combat);
  });
}

test("an odds answer that comes after a newer one is dropped", async () => {
  const { app, samToken, log } = await table();
  // The first answer (the dialog as it opens) is held back...
  const hold = {};
  const arrived = new Promise((resolve) => { hold.arrived = resolve; });
  log.hold = hold;
  DialogV2.respond(async (dialog) => {
    const preview = app.oddsPreview;
    await arrived;
    // ... while a change is asked and answered.
    dialog.change("edge", "push_the_limit");
    await preview.settled();
    const newer = log.asked.at(-1);
    assert.equal(newer.body.edge, "push_the_limit");
    assertShows(panelOf(dialog), newer.answer);
    const shown = panelOf(dialog).innerHTML;
    // The older answer arrives last: the panel keeps the newer one.
    hold.release();
    await new Promise(setImmediate);
    assert.notEqual(hold.entry.answer.targets[0].hit, newer.answer.targets[0].hit);
    assert.equal(panelOf(dialog).innerHTML, shown);
    assertShows(panelOf(dialog), newer.answer);
    return null;
  });
  await app.openAttackDialog(samToken);
});

test("a dialog that cannot make an attack asks for no odds and says what is missing", async () => {
  const { app, samToken, log } = await table();
  // Sam targets nobody: an SR5 attack needs a target (or suppressive fire).
  app.game.user.targets = new Set();
  DialogV2.respond(async (dialog) => {
    await app.oddsPreview.settled();
    const panel = panelOf(dialog);
    assert.equal(panel.dataset.state, "incomplete");
    assert.equal(panel.innerHTML, '<p class="hint">Odds once the dialog makes an attack: target at least one token.</p>');
    assert.equal(log.asked.length, 0);
    // Suppressive fire needs no target: its odds come (a zone, no target to hit).
    dialog.change("mode", "suppressive");
    await app.oddsPreview.settled();
    assert.equal(log.asked.length, 1);
    const zone = log.asked[0];
    assert.equal(zone.status, 200, JSON.stringify(zone.answer));
    assert.deepEqual(zone.answer.targets, []);
    assert.match(panel.innerHTML, /<p class="hint">No target to hit\.<\/p>/);
    for (const note of zone.answer.notes) assert.ok(panel.innerHTML.includes(note.replace(/'/g, "&#x27;")), note);
    return null;
  });
  await app.openAttackDialog(samToken);
});
