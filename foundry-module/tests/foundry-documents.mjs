// Foundry's documents as the stubs model them: foundry.utils' object helpers, a Collection,
// Hooks, and a Document whose update diffs, checks ownership and fires its hooks as Foundry's does
// (foundry-stubs.mjs builds the game, scenes, chat and settings on these; foundry-combat.mjs the
// combats).

import { isDeepStrictEqual } from "node:util";

export function getProperty(object, path) {
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), object);
}

export function setProperty(object, path, value) {
  const keys = path.split(".");
  let o = object;
  for (const key of keys.slice(0, -1)) o = o[key] ??= {};
  o[keys.at(-1)] = value;
}

/** foundry.utils.flattenObject: nested objects as dotted keys (arrays and null stay values). */
export function flattenObject(object, prefix = "") {
  const flat = {};
  for (const [key, value] of Object.entries(object ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0) Object.assign(flat, flattenObject(value, path));
    else flat[path] = value;
  }
  return flat;
}

/** foundry.utils.expandObject: dotted keys as nested objects. */
export function expandObject(flat) {
  const object = {};
  for (const [key, value] of Object.entries(flat)) setProperty(object, key, structuredClone(value));
  return object;
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

/**
 * Hooks as Foundry's: `on`/`once` register, `call` stops at the first handler returning false
 * (and says so), `callAll` runs every one. Documents fire theirs through `Hooks` below.
 */
export function makeHooks() {
  const handlers = new Map();
  const add = (name, fn, once) => {
    if (!handlers.has(name)) handlers.set(name, []);
    handlers.get(name).push({ fn, once });
    return fn;
  };
  const run = (name, args, stopOnFalse) => {
    for (const entry of [...(handlers.get(name) ?? [])]) {
      if (entry.once) handlers.set(name, handlers.get(name).filter((e) => e !== entry));
      if (entry.fn(...args) === false && stopOnFalse) return false;
    }
    return true;
  };
  return {
    handlers,
    on: (name, fn) => add(name, fn, false),
    once: (name, fn) => add(name, fn, true),
    off: (name, fn) => handlers.set(name, (handlers.get(name) ?? []).filter((e) => e.fn !== fn)),
    call: (name, ...args) => run(name, args, true),
    callAll: (name, ...args) => run(name, args, false),
    reset: () => handlers.clear(),
  };
}

/** The hooks stub documents fire through; tests listen here (or install it as globalThis.Hooks). */
export const Hooks = makeHooks();

/** The game whose user documents check permissions against: the last one made by makeGame. */
export const running = { game: null };

/**
 * A Document: `update` takes dotted keys and, as Foundry's Document#update, refuses a user who
 * does not own it (a GM owns everything), fires `preUpdate<Name>` (false cancels) then
 * `update<Name>`; flags through getFlag/setFlag/unsetFlag (setFlag is an update).
 */
export class StubDocument {
  constructor(data, { parent = null, owner = true, documentName = "Document" } = {}) {
    Object.assign(this, structuredClone(data));
    this.id = data._id ?? data.id;
    this.flags ??= {};
    this.parent = parent;
    this.documentName = documentName;
    this.ownedByPlayer = owner;
    this.updates = [];
  }
  /** `owner`: true (the player's), false (the GM's only) or the id of the one user who owns it. */
  get isOwner() {
    const user = running.game?.user;
    if (!user) return this.ownedByPlayer !== false;
    return user.isGM === true || this.ownedByPlayer === true || this.ownedByPlayer === user.id;
  }
  /** ClientDocument#hasPlayerOwner: whether any non-GM user owns it. */
  get hasPlayerOwner() {
    return this.ownedByPlayer !== false;
  }
  /**
   * As Document#update with its default `diff: true`: only the values that differ from the
   * document's are written, an update that changes nothing is dropped (no hook, undefined), and
   * the hooks receive that differential data expanded into objects with the document's `_id`
   * (`{_id, system: {track: {stun: {value: 3}}}}`, not the dotted keys given), with the update's
   * options as given (a module's own keys included) and the id of the user who made it.
   */
  async update(changes, options = {}) {
    const user = running.game?.user;
    if (user && !this.isOwner) throw new Error(`User ${user.name} lacks permission to update ${this.documentName} [${this.id}]`);
    const userId = user?.id ?? null;
    const diff = Object.fromEntries(Object.entries(flattenObject(changes)).filter(([key, value]) => !isDeepStrictEqual(getProperty(this, key), value)));
    if (Object.keys(diff).length === 0) return undefined;
    const changed = { ...expandObject(diff), _id: this.id };
    if (Hooks.call(`preUpdate${this.documentName}`, this, changed, options, userId) === false) return undefined;
    this.updates.push(changes);
    for (const [key, value] of Object.entries(diff)) setProperty(this, key, structuredClone(value));
    Hooks.callAll(`update${this.documentName}`, this, changed, options, userId);
    return this;
  }
  getFlag(scope, key) {
    return getProperty(this.flags?.[scope] ?? {}, key);
  }
  async setFlag(scope, key, value) {
    return this.update({ [`flags.${scope}.${key}`]: value });
  }
  async unsetFlag(scope, key) {
    delete this.flags?.[scope]?.[key];
  }
}

export function makeActor(data, options = {}) {
  const actor = new StubDocument({ ...data, items: [] }, { documentName: "Actor", ...options });
  actor.items = new Collection((data.items ?? []).map((item) => new StubDocument(item, { parent: actor, documentName: "Item", owner: options.owner ?? true })));
  for (const item of actor.items) item.actor = actor;
  return actor;
}
