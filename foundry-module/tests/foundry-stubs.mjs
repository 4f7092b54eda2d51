// Stubs of the parts of Foundry's client API the module uses, following its documented
// behaviour (foundryvtt.com/api, v12/v13): documents with flags and dotted updates, settings,
// i18n, Roll.fromData, ChatMessage.create, scenes with embedded templates, BaseGrid.measurePath.
// Templates render with the real Handlebars, as Foundry does.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";

export const MODULE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const LANG = JSON.parse(readFileSync(join(MODULE_ROOT, "lang", "en.json"), "utf8"));

export function fixture(name) {
  return JSON.parse(readFileSync(join(MODULE_ROOT, "tests", "fixtures", name), "utf8"));
}

function getProperty(object, path) {
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), object);
}

function setProperty(object, path, value) {
  const keys = path.split(".");
  let o = object;
  for (const key of keys.slice(0, -1)) o = o[key] ??= {};
  o[keys.at(-1)] = value;
}

/** foundry.utils: localize like game.i18n.localize (a missing key comes back as itself). */
export function localize(key) {
  const value = getProperty(LANG, key);
  return typeof value === "string" ? value : key;
}

export function format(key, data = {}) {
  return localize(key).replace(/\{(\w+)\}/g, (_, name) => String(data[name] ?? `{${name}}`));
}

/** A Handlebars environment like Foundry's: the `localize` helper (HandlebarsHelpers.localize). */
export function handlebars() {
  const hbs = Handlebars.create();
  hbs.registerHelper("localize", (key, options) => {
    const data = options?.hash ?? {};
    return Object.keys(data).length ? format(key, data) : localize(key);
  });
  return hbs;
}

/** renderTemplate(path, data) over modules/firefight/templates/*.hbs. */
export function makeRenderTemplate() {
  const hbs = handlebars();
  const cache = new Map();
  return async (path, data) => {
    const file = path.replace(/^modules\/firefight\//, "");
    if (!cache.has(file)) cache.set(file, hbs.compile(readFileSync(join(MODULE_ROOT, file), "utf8"), { strict: false }));
    return cache.get(file)(data);
  };
}

export class Collection extends Map {
  constructor(entries = []) {
    super(entries.map((e) => [e.id, e]));
  }
  find(fn) {
    for (const value of this.values()) if (fn(value)) return value;
    return undefined;
  }
  filter(fn) {
    return [...this.values()].filter(fn);
  }
  map(fn) {
    return [...this.values()].map(fn);
  }
  [Symbol.iterator]() {
    return this.values();
  }
}

/** A Document: `update` takes dotted keys, flags through getFlag/setFlag/unsetFlag. */
export class StubDocument {
  constructor(data, { parent = null, owner = true } = {}) {
    Object.assign(this, structuredClone(data));
    this.id = data._id ?? data.id;
    this.flags ??= {};
    this.parent = parent;
    this.isOwner = owner;
    this.updates = [];
  }
  async update(changes) {
    this.updates.push(changes);
    for (const [key, value] of Object.entries(changes)) setProperty(this, key, value);
    return this;
  }
  getFlag(scope, key) {
    return getProperty(this.flags?.[scope] ?? {}, key);
  }
  async setFlag(scope, key, value) {
    this.flags[scope] ??= {};
    setProperty(this.flags[scope], key, structuredClone(value));
    return this;
  }
  async unsetFlag(scope, key) {
    delete this.flags?.[scope]?.[key];
  }
}

export function makeActor(data, options = {}) {
  const actor = new StubDocument({ ...data, items: [] }, options);
  actor.items = new Collection((data.items ?? []).map((item) => new StubDocument(item, { parent: actor })));
  for (const item of actor.items) item.actor = actor;
  return actor;
}

/** A square grid: `size` pixels a space, `distance` units a space (BaseGrid). */
export function makeGrid({ size = 100, distance = 1, units = "m" } = {}) {
  return {
    size,
    distance,
    units,
    // Gridless-like Euclidean measure, enough for the tests (BaseGrid#measurePath result.distance).
    measurePath(waypoints) {
      let pixels = 0;
      for (let i = 1; i < waypoints.length; i += 1) {
        pixels += Math.hypot(waypoints[i].x - waypoints[i - 1].x, waypoints[i].y - waypoints[i - 1].y);
      }
      const d = (pixels / size) * distance;
      return { distance: d, euclidean: d, spaces: 0, cost: d, waypoints: [], segments: [] };
    },
  };
}

/** A token placeable with its document's name and actor; `center` in canvas pixels. */
export function makeToken({ id, name, actor, x, y, actorId = actor?.id }) {
  return { id, name, actor, actorId, center: { x, y }, document: { id, name, actor, actorId } };
}

export function makeScene({ grid, tokens = [] }) {
  const scene = {
    id: "scene0000000001",
    grid,
    tokens: new Collection(tokens.map((t) => ({ id: t.id, name: t.name, actor: t.actor, actorId: t.actorId }))),
    templates: new Collection(),
    created: [],
    deleted: [],
    nextId: 1,
    async createEmbeddedDocuments(type, data) {
      if (type !== "MeasuredTemplate") throw new Error(`unexpected ${type}`);
      const docs = data.map((d) => {
        const doc = new StubDocument({ ...d, _id: `tmpl${String(scene.nextId++).padStart(12, "0")}` });
        scene.templates.set(doc.id, doc);
        return doc;
      });
      scene.created.push(...docs);
      return docs;
    },
    async deleteEmbeddedDocuments(type, ids) {
      if (type !== "MeasuredTemplate") throw new Error(`unexpected ${type}`);
      for (const id of ids) {
        if (!scene.templates.has(id)) throw new Error(`no template ${id}`);
        scene.templates.delete(id);
      }
      scene.deleted.push(...ids);
      return ids;
    },
  };
  return scene;
}

/** Roll.fromData as Foundry does it: it refuses data that is not an evaluated Roll of Die terms. */
export class Roll {
  constructor(formula, data = {}, options = {}) {
    this.formula = formula;
    this.data = data;
    this.options = options;
    this.terms = [];
    this._evaluated = false;
  }
  static fromData(data) {
    if (data.class !== "Roll") throw new Error(`not a Roll: ${data.class}`);
    const roll = new Roll(data.formula, data.data, data.options);
    roll.terms = data.terms.map((term) => {
      if (term.class !== "Die") throw new Error(`unexpected term ${term.class}`);
      if (term.number !== term.results.length) throw new Error("a Die's number must match its results");
      for (const r of term.results) if (r.result < 1 || r.result > term.faces) throw new Error(`${r.result} on a d${term.faces}`);
      return term;
    });
    if (data.evaluated ?? true) {
      roll._total = data.total;
      roll._evaluated = true;
    }
    return roll;
  }
  get total() {
    return this._total;
  }
  get dice() {
    return this.terms;
  }
  toJSON() {
    return { class: "Roll", options: this.options, dice: [], formula: this.formula, terms: this.terms, total: this._total, evaluated: this._evaluated };
  }
}

export function makeChatMessage() {
  const messages = new Collection();
  let next = 1;
  return {
    messages,
    ChatMessage: {
      async create(data) {
        for (const roll of data.rolls ?? []) if (!(roll instanceof Roll)) throw new Error("rolls must be Roll instances");
        const message = new StubDocument({ ...data, rolls: [], _id: `msg${String(next++).padStart(13, "0")}` });
        message.rolls = data.rolls ?? [];
        messages.set(message.id, message);
        return message;
      },
    },
  };
}

/** game.settings: register/get/set, with each setting's default. */
export function makeSettings() {
  const registered = new Map();
  const values = new Map();
  return {
    registered,
    register(module, key, config) {
      registered.set(`${module}.${key}`, config);
    },
    get(module, key) {
      const id = `${module}.${key}`;
      if (!registered.has(id)) throw new Error(`setting ${id} is not registered`);
      return values.has(id) ? structuredClone(values.get(id)) : structuredClone(registered.get(id).default);
    },
    async set(module, key, value) {
      const id = `${module}.${key}`;
      if (!registered.has(id)) throw new Error(`setting ${id} is not registered`);
      values.set(id, structuredClone(value));
      return value;
    },
  };
}

export function makeNotifications() {
  const seen = [];
  const note = (level) => (message) => seen.push({ level, message });
  return { seen, info: note("info"), warn: note("warn"), error: note("error") };
}

/** A game with a user (GM or not), settings registered by the module, and i18n. */
export function makeGame({ isGM = true, systemId = "shadowrun5e", actors = [], userId = "user0000000001", activeGM = undefined } = {}) {
  const user = { id: userId, isGM, targets: new Set() };
  const game = {
    user,
    users: { activeGM: activeGM === undefined ? (isGM ? user : { id: "gm000000000001" }) : activeGM },
    system: { id: systemId },
    world: { title: "Test world" },
    settings: makeSettings(),
    i18n: { localize, format },
    actors: new Collection(actors),
    messages: null,
    combat: null,
  };
  return game;
}

/** A combat with flags; `combatant` is the current turn's. */
export function makeCombat({ round = 0, turn = null, combatants = [], initiativePass = undefined } = {}) {
  const combat = new StubDocument({ _id: "combat000000001", round, turn });
  combat.combatants = combatants;
  if (initiativePass !== undefined) combat.system = { initiativePass };
  Object.defineProperty(combat, "combatant", { get: () => (combat.turn === null ? null : combat.combatants[combat.turn] ?? null) });
  return combat;
}
