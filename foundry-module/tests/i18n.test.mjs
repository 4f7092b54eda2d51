// Every string a user sees goes through game.i18n with a key in lang/en.json: the templates hold
// no literal words, every key the code names exists, and en.json holds no key nothing uses.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fixture, LANG, localize, makeActor, makeGame, makeGrid, makeScene, makeToken, Roll, stubDocument } from "./foundry-stubs.mjs";
import { MODULE_ROOT } from "./foundry-stubs.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { cardForEvent } from "../src/chat-card.mjs";
import { registerSettings } from "../src/settings.mjs";

const read = (dir) => readdirSync(join(MODULE_ROOT, dir)).map((name) => ({ name: `${dir}/${name}`, text: readFileSync(join(MODULE_ROOT, dir, name), "utf8") }));
const templates = read("templates");
const sources = read("src");

function leaves(object, prefix) {
  return Object.entries(object).flatMap(([key, value]) => (typeof value === "string" ? [`${prefix}.${key}`] : leaves(value, `${prefix}.${key}`)));
}
const keyExists = (key) => key.split(".").reduce((o, k) => (o == null ? undefined : o[k]), LANG) !== undefined;

test("the templates hold no literal words: text, placeholders and titles all come from localize", () => {
  for (const { name, text } of templates) {
    const withoutHelpers = text.replace(/\{\{[\s\S]*?\}\}/g, "");
    const attributes = [...withoutHelpers.matchAll(/\b(placeholder|title|label|aria-label)="([^"]*)"/g)].map((m) => m[2]);
    const textNodes = withoutHelpers.replace(/<[^>]*>/g, "\n").split("\n");
    for (const piece of [...attributes, ...textNodes]) {
      const words = piece.replace(/&[a-z]+;/g, "").trim();
      assert.doesNotMatch(words, /[A-Za-z]/, `${name}: "${words}" is shown as written`);
    }
  }
});

test("the code shows no literal words either: labels, titles and texts it sets are localised", () => {
  for (const { name, text } of sources) {
    const literal = [...text.matchAll(/\b(textContent|title|label|hint|name)\s*[:=]\s*(["'`])([^"'`]*)\2/g)]
      .map((m) => m[3])
      .filter((value) => /[A-Za-z]/.test(value) && !value.startsWith("FIREFIGHT.") && !value.includes("${") && !/Error$/.test(value));
    assert.deepEqual(literal, [], name);
  }
});

test("every key the code and the templates name is in en.json, and every en.json key is used", () => {
  const code = [...sources, ...templates].map((f) => f.text).join("\n");
  const named = new Set([...code.matchAll(/["`](FIREFIGHT(?:\.[A-Za-z0-9_]+)+)(\.\$\{)?/g)].map((m) => m[1]));
  for (const key of named) assert.ok(keyExists(key), `${key} is not in en.json`);
  const unused = leaves(LANG.FIREFIGHT, "FIREFIGHT").filter((key) => {
    const parts = key.split(".");
    for (let n = parts.length; n >= 2; n -= 1) if (named.has(parts.slice(0, n).join("."))) return false;
    return true;
  });
  assert.deepEqual(unused, [], "keys nothing uses");
});

test("the keys built from data resolve: every label of the dialog and of the cards", async () => {
  const labels = [];
  const walk = (value, path) => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
    else if (typeof value === "string" && value.startsWith("FIREFIGHT.")) labels.push([path, value]);
  };
  for (const [systemId, ruleset] of [["shadowrun5e", "sr5"], ["dnd5e", "sr5"], ["dnd5e", "d100"]]) {
    const game = makeGame({ systemId });
    registerSettings(game);
    game.settings.storeWorld("firefight", "ruleset", ruleset);
    const grid = makeGrid();
    const sam = makeToken({ id: "tokSam000000001", name: "Sam", actor: makeActor(fixture("sr5-actor-sam.json")), x: 0, y: 0 });
    const app = new FirefightApp({ game, canvas: { grid, scene: makeScene({ grid, tokens: [sam] }), tokens: { placeables: [sam] } }, ui: {}, Roll, document: stubDocument });
    walk(app.dialogData(sam), `${systemId}/${ruleset}`);
  }
  for (const name of ["sr5-attack-bf.json", "d100-attack.json", "sr5-suppressive-cover-event.json"]) {
    const { event_id, id, result } = fixture(name);
    walk(cardForEvent({ id: event_id ?? id, encounter: "e", result }), name);
  }
  assert.ok(labels.length > 100, `${labels.length} labels`);
  for (const [path, key] of labels) assert.notEqual(localize(key), key, `${path}: ${key}`);
});
