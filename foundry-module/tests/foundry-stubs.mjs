// Stubs of the parts of Foundry's client API the module uses, following its documented
// behaviour (foundryvtt.com/api, v13 and v14): documents with flags and dotted updates, settings,
// i18n, Roll.fromData, ChatMessage.create, scenes with embedded templates and regions,
// BaseGrid.measurePath. Templates render with the real Handlebars, as Foundry does.
//
// One Foundry per run: FOUNDRY_VERSION (13, the default, or 14) picks what differs
// (tests/foundry-v13.mjs, tests/foundry-v14.mjs); `npm test` runs every suite against both.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import { cleanChatHTML, parseHTML, StubElement } from "./foundry-ui.mjs";
import { V13 } from "./foundry-v13.mjs";
import { V14 } from "./foundry-v14.mjs";
import { Collection, getProperty, Hooks, running, StubDocument } from "./foundry-documents.mjs";

export { Collection, Hooks, makeActor, makeHooks, StubDocument } from "./foundry-documents.mjs";
export { makeCombat, makeTrackerCombat } from "./foundry-combat.mjs";
export { ALLOWED_HTML_TAGS, ApplicationV2, cleanChatHTML, DialogV2, FormDataExtended, formFields, parseHTML, StubElement, stubDocument } from "./foundry-ui.mjs";

const VERSIONS = { 13: V13, 14: V14 };

/** The Foundry generation these stubs are (FOUNDRY_VERSION, default 13). */
export const FOUNDRY_VERSION = Number(process.env.FOUNDRY_VERSION ?? 13);
if (!VERSIONS[FOUNDRY_VERSION]) throw new Error(`FOUNDRY_VERSION=${process.env.FOUNDRY_VERSION}: the stubs model Foundry 13 and 14`);

/** What the running stub Foundry does where v13 and v14 differ: the current game's generation. */
export function core() {
  return VERSIONS[running.game?.release?.generation] ?? VERSIONS[FOUNDRY_VERSION];
}

export const MODULE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const LANG = JSON.parse(readFileSync(join(MODULE_ROOT, "lang", "en.json"), "utf8"));

export function fixture(name) {
  return JSON.parse(readFileSync(join(MODULE_ROOT, "tests", "fixtures", name), "utf8"));
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

/** CONST.GRID_DIAGONALS (v12+): how a square grid counts a diagonal step. */
export const GRID_DIAGONALS = { EQUIDISTANT: 0, EXACT: 1, APPROXIMATE: 2, RECTILINEAR: 3, ALTERNATING_1: 4, ALTERNATING_2: 5, ILLEGAL: 6 };

/**
 * A square grid as Foundry's SquareGrid (v12+): `size` pixels a space, `distance` units a space,
 * and measurePath counting diagonals by the world's `gridDiagonals` rule, as
 * SquareGrid#_measurePath does for 2D waypoints: EQUIDISTANT (the core default) counts a
 * diagonal as one space, ALTERNATING_1 as 1/2/1 (5/10/5 ft), EXACT as sqrt(2), and so on. So a
 * diagonal is not its straight-line length here any more than it is in Foundry.
 */
export function makeGrid({ size = 100, distance = 1, units = "m", diagonals = GRID_DIAGONALS.EQUIDISTANT } = {}) {
  return {
    type: 1,
    isSquare: true,
    size,
    distance,
    units,
    diagonals,
    measurePath(waypoints) {
      let l0 = diagonals === GRID_DIAGONALS.ALTERNATING_2 ? 1 : 0;
      let dx0 = l0;
      let dy0 = l0;
      let total = 0;
      let euclidean = 0;
      const segments = [];
      for (let i = 1; i < waypoints.length; i += 1) {
        const p0 = waypoints[i - 1];
        const p1 = waypoints[i];
        let dx = Math.abs(p0.x - p1.x) / size;
        let dy = Math.abs(p0.y - p1.y) / size;
        if (dx < dy) [dx, dy] = [dy, dx];
        let l;
        switch (diagonals) {
          case GRID_DIAGONALS.EQUIDISTANT: l = dx; break;
          case GRID_DIAGONALS.EXACT: l = dx + (Math.SQRT2 - 1) * dy; break;
          case GRID_DIAGONALS.APPROXIMATE: l = dx + 0.5 * dy; break;
          case GRID_DIAGONALS.ALTERNATING_1:
          case GRID_DIAGONALS.ALTERNATING_2: {
            dx0 += dx;
            dy0 += dy;
            const fx = Math.floor(dx0);
            const fy = Math.floor(dy0);
            const a = fx + 0.5 * fy;
            const mx = dx0 - fx;
            const my = dy0 - fy;
            const l1 = Math.floor(a) * (1 - mx) + Math.floor(a + 1) * (mx - my) + Math.floor(a + 1.5) * my;
            l = l1 - l0;
            l0 = l1;
            break;
          }
          default: l = dx + dy;
        }
        const segment = { distance: l * distance, euclidean: (Math.hypot(p0.x - p1.x, p0.y - p1.y) / size) * distance };
        segments.push(segment);
        total += segment.distance;
        euclidean += segment.euclidean;
      }
      return { distance: total, euclidean, cost: total, spaces: Math.round(total / distance), waypoints: [...waypoints], segments };
    },
  };
}

/**
 * A token placeable with its document's name and actor; `center` in canvas pixels. `makeScene`
 * gives it its TokenDocument (x, y the top-left corner, width and height in grid spaces).
 */
export function makeToken({ id, name, actor, x, y, actorId = actor?.id, hidden = false, owner = true }) {
  return { id, name, actor, actorId, hidden, owner, center: { x, y }, document: { id, name, actor, actorId, hidden } };
}

/**
 * A TokenDocument of `scene` (v12+): `x`/`y` its top-left corner in pixels, `width`/`height` in
 * grid spaces, `hidden`; updates fire preUpdateToken/updateToken as Document#update does.
 */
export function makeTokenDocument(scene, { id, name, actor = null, actorId = actor?.id ?? null, x = 0, y = 0, width = 1, height = 1, hidden = false, owner = true }) {
  const doc = new StubDocument({ _id: id, name, actorId, x, y, width, height, hidden }, { parent: scene, documentName: "Token", owner });
  // The actor is the world's (or the token's synthetic) Actor, not a copy.
  doc.actor = actor;
  return doc;
}

/**
 * What Foundry's data validation refuses in a Region's shapes (BaseShapeData.TYPES of the
 * running version; a circle's x, y and radius, a polygon's points as a flat array of pairs):
 * https://foundryvtt.com/api/v14/classes/foundry.data.CircleShapeData.html,
 * https://foundryvtt.com/api/v14/classes/foundry.data.PolygonShapeData.html.
 */
function validateRegion(data) {
  if (!Array.isArray(data.shapes)) throw new Error("Region validation errors: shapes: must be an array");
  for (const shape of data.shapes) {
    if (!core().regionShapes.includes(shape.type)) throw new Error(`Region validation errors: shapes: "${shape.type}" is not a valid shape type`);
    if (shape.type === "circle" && ![shape.x, shape.y, shape.radius].every(Number.isFinite)) throw new Error("Region validation errors: a circle needs x, y and radius");
    if (shape.type === "polygon" && !(Array.isArray(shape.points) && shape.points.length >= 6 && shape.points.length % 2 === 0 && shape.points.every(Number.isFinite))) {
      throw new Error("Region validation errors: a polygon's points are at least three x, y pairs");
    }
  }
}

/**
 * TokenDocument#move as v13 and v14 run it: one update (and one updateToken on every client)
 * per checkpoint of the path, each with the movement in `options.movement[tokenId]`: the
 * waypoints still `pending` after it (https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.TokenMeasuredMovementWaypoint.html:
 * "There's an update/movement operation for each checkpoint in a movement path. At a checkpoint
 * the movement can be stopped or paused"; TokenMovementOperation's `pending`). `stopAfter`
 * checkpoints the movement stops (the user stops it, or a module's hook does): no update for
 * the rest. `waypoints` are {x, y} top-left corners, each a checkpoint.
 */
export async function moveToken(tokenDocument, waypoints, { stopAfter = waypoints.length } = {}) {
  const id = `move${Math.random().toString(36).slice(2, 14)}`;
  for (let i = 0; i < Math.min(stopAfter, waypoints.length); i += 1) {
    const { x, y } = waypoints[i];
    const pending = waypoints.slice(i + 1).map((w) => ({ ...w, checkpoint: true, explicit: true }));
    await tokenDocument.update({ x, y }, { movement: { [tokenDocument.id]: { id, pending: { waypoints: pending }, passed: { waypoints: waypoints.slice(0, i + 1) } } } });
  }
}

/**
 * A scene with its grid and TokenDocuments (one per placeable, centred where the placeable is),
 * embedded templates (v13 only: v14 has none), drawings and regions, and token creation and
 * deletion firing createToken/deleteToken on every listener as Foundry fires them (document,
 * options, userId).
 */
export function makeScene({ grid, tokens = [], id = "scene0000000001", name = "Warehouse" }) {
  const scene = {
    id,
    name,
    grid,
    tokens: new Collection(),
    templates: new Collection(),
    drawings: new Collection(),
    regions: new Collection(),
    created: [],
    deleted: [],
    nextId: 1,
    async createEmbeddedDocuments(type, data, options = {}) {
      if (!core().sceneDocuments.includes(type)) throw new Error(`${type} is not a valid embedded Document type in Foundry v${core().generation}`);
      if (type === "Region") {
        for (const d of data) validateRegion(d);
        const docs = data.map((d) => new StubDocument({ ...d, _id: `regn${String(scene.nextId++).padStart(12, "0")}` }, { parent: scene, documentName: "Region" }));
        for (const doc of docs) scene.regions.set(doc.id, doc);
        scene.created.push(...docs);
        return docs;
      }
      if (type === "Token") {
        const docs = data.map((d) => makeTokenDocument(scene, d));
        for (const doc of docs) scene.tokens.set(doc.id, doc);
        for (const doc of docs) Hooks.callAll("createToken", doc, options, running.game?.user?.id ?? null);
        return docs;
      }
      if (type === "Drawing") {
        const docs = data.map((d) => new StubDocument({ ...d, _id: `draw${String(scene.nextId++).padStart(12, "0")}` }, { documentName: "Drawing" }));
        for (const doc of docs) scene.drawings.set(doc.id, doc);
        scene.created.push(...docs);
        return docs;
      }
      if (type !== "MeasuredTemplate") throw new Error(`unexpected ${type}`);
      const docs = data.map((d) => {
        const doc = new StubDocument({ ...d, _id: `tmpl${String(scene.nextId++).padStart(12, "0")}` });
        scene.templates.set(doc.id, doc);
        return doc;
      });
      scene.created.push(...docs);
      return docs;
    },
    async deleteEmbeddedDocuments(type, ids, options = {}) {
      if (!core().sceneDocuments.includes(type)) throw new Error(`${type} is not a valid embedded Document type in Foundry v${core().generation}`);
      if (type === "Region") {
        for (const id of ids) {
          if (!scene.regions.has(id)) throw new Error(`no region ${id}`);
          scene.regions.delete(id);
        }
        scene.deleted.push(...ids);
        return ids;
      }
      if (type === "Token") {
        const docs = ids.map((tokenId) => scene.tokens.get(tokenId));
        if (docs.some((d) => !d)) throw new Error(`no token in ${ids}`);
        for (const doc of docs) scene.tokens.delete(doc.id);
        // A deleted document keeps its parent.
        for (const doc of docs) Hooks.callAll("deleteToken", doc, options, running.game?.user?.id ?? null);
        return docs;
      }
      if (type === "Drawing") {
        for (const id of ids) {
          if (!scene.drawings.has(id)) throw new Error(`no drawing ${id}`);
          scene.drawings.delete(id);
        }
        scene.deleted.push(...ids);
        return ids;
      }
      if (type !== "MeasuredTemplate") throw new Error(`unexpected ${type}`);
      for (const id of ids) {
        if (!scene.templates.has(id)) throw new Error(`no template ${id}`);
        scene.templates.delete(id);
      }
      scene.deleted.push(...ids);
      return ids;
    },
  };
  const size = grid?.size ?? 100;
  for (const token of tokens) {
    const doc = makeTokenDocument(scene, { id: token.id, name: token.name, actor: token.actor, actorId: token.actorId, x: token.center.x - size / 2, y: token.center.y - size / 2, hidden: token.hidden, owner: token.owner });
    scene.tokens.set(doc.id, doc);
    // A placeable's document is its scene's TokenDocument (Token#document, TokenDocument#parent).
    if (token.document) token.document = doc;
  }
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
  /** Who sees a message in each mode (the same rule for v13's roll modes and v14's message modes). */
  const applyModeRule = (chatData, mode) => {
    const game = running.game;
    const { modes } = core().message;
    let whisper;
    if (mode === modes.public) whisper = [];
    else if (mode === modes.self) whisper = [game.user.id];
    else if (chatData.whisper?.length) whisper = chatData.whisper;
    else whisper = [...game.users].filter((u) => u.isGM).map((u) => u.id);
    chatData.whisper = whisper;
    chatData.blind = mode === modes.blind;
    return chatData;
  };
  return {
    messages,
    ChatMessage: {
      /**
       * v13: ChatMessage.applyRollMode(chatData, rollMode)
       * (https://foundryvtt.com/api/v13/classes/foundry.documents.ChatMessage.html#applyrollmode);
       * v14 has none (it is applyMode).
       */
      get applyRollMode() {
        if (core().message.apply !== "applyRollMode") return undefined;
        return (chatData, rollMode) => applyModeRule(chatData, rollMode === "roll" ? running.game.settings.get("core", "rollMode") : rollMode);
      },
      /**
       * v14: ChatMessage.applyMode(chatData, mode) with a key of CONFIG.ChatMessage.modes, the
       * user's core "messageMode" when omitted
       * (https://foundryvtt.com/api/v14/variables/CONFIG.ChatMessage.html); v13 has none.
       */
      get applyMode() {
        if (core().message.apply !== "applyMode") return undefined;
        return (chatData, mode = running.game.settings.get("core", "messageMode")) => {
          if (!Object.values(core().message.modes).includes(mode)) throw new Error(`"${mode}" is not a mode of CONFIG.ChatMessage.modes`);
          return applyModeRule(chatData, mode);
        };
      },
      async create(data) {
        for (const roll of data.rolls ?? []) if (!(roll instanceof Roll)) throw new Error("rolls must be Roll instances");
        // The content is an HTMLField: saved cleaned (foundry.utils.cleanHTML).
        if (typeof data.content === "string") data = { ...data, content: cleanChatHTML(data.content) };
        const author = data.author ?? running.game?.user?.id ?? null;
        // Only a GM may post a message as another user (ChatMessage's create permission).
        if (author !== (running.game?.user?.id ?? null) && running.game?.user && !running.game.user.isGM) throw new Error(`User ${running.game.user.name} lacks permission to create ChatMessage as another user`);
        // A message is its author's (and, as everything, the GM's).
        const message = new StubDocument({ whisper: [], blind: false, ...data, author, rolls: [], _id: `msg${String(next++).padStart(13, "0")}` }, { documentName: "ChatMessage", owner: author ?? false });
        message.rolls = data.rolls ?? [];
        messages.set(message.id, message);
        return message;
      },
    },
  };
}

/**
 * game.settings as Foundry's ClientSettings: register/registerMenu/get/set. A world setting is a
 * Setting document: setting one before the game is ready throws, and a user without
 * SETTINGS_MODIFY (a player) is refused as the server refuses them. `storeWorld` puts a value
 * in the world's data as if a GM had saved it earlier.
 *
 * A world setting's onChange runs on every connected client, as Setting#_onUpdate does for the
 * Setting document every client gets, with (value, options, userId): userId the user who changed
 * it (https://foundryvtt.com/api/v14/interfaces/foundry.types.SettingConfig.html, onChange).
 * `set` is this client's own change; `receive` is another user's change arriving on this client.
 * A client setting's onChange runs on this client only (it lives in this browser).
 */
export function makeSettings(game) {
  const registered = new Map();
  const menus = new Map();
  const values = new Map();
  const id = (module, key) => {
    const full = `${module}.${key}`;
    if (!registered.has(full)) throw new Error(`"${full}" is not a registered game setting`);
    return full;
  };
  return {
    registered,
    menus,
    register(module, key, config) {
      registered.set(`${module}.${key}`, { ...config, namespace: module, key, scope: config.scope ?? "client" });
    },
    registerMenu(module, key, config) {
      menus.set(`${module}.${key}`, { ...config, namespace: module, key: `${module}.${key}` });
    },
    get(module, key) {
      const full = id(module, key);
      return values.has(full) ? structuredClone(values.get(full)) : structuredClone(registered.get(full).default);
    },
    async set(module, key, value) {
      const full = id(module, key);
      const config = registered.get(full);
      if (config.scope === "world") {
        if (!game.ready) throw new Error("You may not set a World-level Setting before the Game is ready.");
        if (!game.user?.can("SETTINGS_MODIFY")) throw new Error(`User ${game.user?.name} lacks permission to update Setting [${full}]`);
      }
      values.set(full, structuredClone(value));
      config.onChange?.(structuredClone(value), {}, config.scope === "world" ? (game.user?.id ?? null) : undefined);
      return value;
    },
    /** Another user's change of a world setting, as this client receives it. */
    receive(module, key, value, userId) {
      const full = id(module, key);
      const config = registered.get(full);
      if (config.scope !== "world") throw new Error(`${full} is not a world setting: no other client changes it`);
      values.set(full, structuredClone(value));
      config.onChange?.(structuredClone(value), {}, userId);
    },
    storeWorld(module, key, value) {
      values.set(id(module, key), structuredClone(value));
    },
    /**
     * What Configure Settings shows this user, as SettingsConfig#_prepareCategoryData (v12/v13)
     * decides it: menus unless restricted and the user lacks SETTINGS_MODIFY; settings with
     * `config`, world ones only to users with SETTINGS_MODIFY.
     */
    shownTo(user) {
      const canConfigure = user.can("SETTINGS_MODIFY");
      const shown = [];
      for (const menu of menus.values()) if (!menu.restricted || canConfigure) shown.push(menu.key);
      for (const [full, setting] of registered) if (setting.config && (canConfigure || setting.scope !== "world")) shown.push(full);
      return shown;
    },
  };
}

export function makeNotifications() {
  const seen = [];
  const note = (level) => (message) => seen.push({ level, message });
  return { seen, info: note("info"), warn: note("warn"), error: note("error") };
}

/** A user: GMs hold SETTINGS_MODIFY (Foundry gives it to assistant GMs and up), players do not. */
export function makeUser({ id = "user0000000001", name = "Player", isGM = false } = {}) {
  const user = new StubDocument({ _id: id, name, isGM }, { documentName: "User" });
  user.targets = new Set();
  user.can = (permission) => isGM && ["SETTINGS_MODIFY"].includes(permission);
  return user;
}

/**
 * A game as Foundry builds it. At `init` only `game.userId` exists: `game.user` and `game.users`
 * come with the world's documents before `setup`, and `game.ready` is true from `ready` on.
 * `phase: "ready"` (the default) gives a game already past `ready`; `startGame` walks the phases.
 */
export function makeGame({ isGM = true, systemId = "shadowrun5e", systemVersion = undefined, actors = [], userId = isGM ? "user0000000001" : "player00000001", activeGM = undefined, phase = "ready", generation = FOUNDRY_VERSION } = {}) {
  const user = makeUser({ id: userId, name: isGM ? "Gamemaster" : "Player", isGM });
  const users = new Collection([user]);
  users.current = user;
  users.activeGM = activeGM === undefined ? (isGM ? user : { id: "gm000000000001" }) : activeGM;
  const game = {
    userId,
    release: { generation },
    ready: false,
    // game.system: the running system's id and its release (foundry.packages.BaseSystem `version`),
    // which picks the line of its data paths; none given is the newest line.
    system: { id: systemId, version: systemVersion },
    world: { title: "Test world" },
    i18n: { localize, format },
    actors: new Collection(actors),
    messages: null,
    combat: null,
  };
  game.settings = makeSettings(game);
  // Core's own: the mode each user picks in the chat log, v13's "rollMode" (CONST.DICE_ROLL_MODES)
  // or v14's "messageMode" (CONFIG.ChatMessage.modes).
  const { message } = VERSIONS[generation] ?? VERSIONS[FOUNDRY_VERSION];
  game.settings.register("core", message.setting, { scope: "client", config: false, type: String, default: message.modes.public });
  // Foundry's Game#user is `this.users?.current`: nothing until the users exist.
  Object.defineProperty(game, "user", { get: () => game.users?.current, configurable: true });
  game.enterSetup = () => {
    game.users = users;
  };
  game.enterReady = () => {
    game.ready = true;
  };
  if (phase !== "init") game.enterSetup();
  if (phase === "ready") game.enterReady();
  running.game = game;
  return game;
}

/**
 * This user picks a mode in the chat log: `mode` one of public, gm, blind, self, stored as the
 * running version keeps it (v13's core "rollMode": publicroll...; v14's core "messageMode": public...).
 */
export async function chooseChatMode(game, mode) {
  const { setting, modes } = core().message;
  if (!(mode in modes)) throw new Error(`no chat mode "${mode}"`);
  return game.settings.set("core", setting, modes[mode]);
}

/**
 * A chat message's element as the chat log draws it (ChatMessage#renderHTML): its content in
 * an `li.chat-message` with the message's id, then `renderChatMessageHTML(message, html,
 * context)` (https://foundryvtt.com/api/v14/functions/hookEvents.renderChatMessageHTML.html;
 * v13 the same) on every listener.
 */
export function drawChatMessage(message, hooks) {
  const element = new StubElement("li", { classes: ["chat-message", "message"] });
  element.dataset.messageId = message.id;
  for (const child of parseHTML(message.content ?? "").children) element.append(child);
  hooks.callAll("renderChatMessageHTML", message, element, { canDelete: game?.user?.isGM ?? false });
  return element;
}

/**
 * Foundry's boot order: `init` (no user yet), the world's documents, `setup`, then the UI
 * (the sidebar's chat log draws the messages already in it, each through renderChatMessageHTML),
 * then `ready`: `setup` fires "after all Documents are initialized ... but before the UI
 * applications or Canvas have been initialized", `ready` "once the game is fully ready"
 * (https://foundryvtt.com/api/v13/functions/hookEvents.setup.html,
 * https://foundryvtt.com/api/v14/functions/hookEvents.ready.html). A module that makes its app
 * at `ready` sees the log's cards drawn before it exists. Returns the drawn elements.
 */
export async function startGame(game, hooks) {
  hooks.callAll("init");
  hooks.callAll("i18nInit");
  game.enterSetup();
  hooks.callAll("setup");
  const drawn = [...(game.messages ?? [])].map((message) => drawChatMessage(message, hooks));
  game.enterReady();
  hooks.callAll("ready");
  return drawn;
}
