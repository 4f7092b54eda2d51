// The module's flows in Foundry terms: which encounter and token to use, creating an encounter
// per combat, the combat's scene as the encounter's, following its events (chat cards, zones); the
// attack dialog is in attack-dialog.mjs (its requests built in attack-builder.mjs), the card's
// buttons in card-actions.mjs.
// Foundry's globals come in through `env` ({game, canvas, ui, ChatMessage, Roll, renderTemplate,
// DialogV2, FormDataExtended, document, fetch, WebSocket}), so tests run these flows against
// stubs of Foundry's API.

import { FirefightClient } from "./client.mjs";
import { checkConnection } from "./connection.mjs";
import { AttackDialog } from "./attack-dialog.mjs";
import { CardActions } from "./card-actions.mjs";
import { CARD_TEMPLATE, cardForEvent } from "./chat-card.mjs";
import { advancesBetween, encounterFlag, isActorCombatant, trackerSnapshot } from "./combat-sync.mjs";
import { INITIATIVE_EVENTS } from "./initiative-sync.mjs";
import { EncounterFeed } from "./live.mjs";
import { MONITOR_EVENTS, MonitorSync } from "./monitor-sync.mjs";
import { TrackerInitiative } from "./tracker-initiative.mjs";
import { rollsForDice, diceOfResult } from "./rolls.mjs";
import { MODULE_ID, readSettings } from "./settings.mjs";
import { applyCardRollMode, requestOf, rollModeOr } from "./roll-mode.mjs";
import { userRollMode, zoneLayer } from "./foundry-version.mjs";
import { isMove, sceneActorId, sceneActorOf, tokenPosition } from "./scene-sync.mjs";
import { serviceId } from "./requests.mjs";

/** The service's 404 for an actor its scene does not hold (docs/api.md, "The scene"). */
function isActorNotFound(error) {
  return error?.status === 404 && String(error.problem?.type ?? "").endsWith("/actor-not-found");
}

export class FirefightApp {
  constructor(env) {
    this.env = env;
    this.feed = null;
    this.feedKey = null;
    // The scene's requests, one after the other in the order Foundry fired the hooks.
    this.sceneQueue = Promise.resolve();
  }

  get game() {
    return this.env.game;
  }

  settings() {
    return readSettings(this.game);
  }

  client() {
    const { serviceUrl } = this.settings();
    return new FirefightClient({ baseUrl: serviceUrl, fetch: this.env.fetch });
  }

  localize(key, data = null) {
    const i18n = this.game.i18n;
    return data ? i18n.format(key, data) : i18n.localize(key);
  }

  notify(level, key, data) {
    this.env.ui?.notifications?.[level]?.(this.localize(key, data));
  }

  /** A failure in this user's language: the module's own (a `key`) localised, else as it came (the service's detail). */
  failureDetail(error) {
    return error?.key ? this.localize(`FIREFIGHT.Error.${error.key}`, error.data ?? {}) : String(error?.message ?? error);
  }

  notifyFailure(error) {
    this.notify("error", "FIREFIGHT.Notify.Failed", { detail: this.failureDetail(error) });
  }

  /** True on the one client that acts for the GM (the active GM, v11+ `game.users.activeGM`). */
  isActiveGM() {
    const user = this.game.user;
    if (!user?.isGM) return false;
    const active = this.game.users?.activeGM;
    return !active || active.id === user.id;
  }

  /** The encounter of a combat (its flags) or the world's fixed one, with this user's token. */
  encounter(combat = this.game.combat) {
    const settings = this.settings();
    const flag = combat?.getFlag?.(MODULE_ID, "encounter") ?? combat?.flags?.[MODULE_ID]?.encounter ?? null;
    const id = flag?.id || settings.encounterId || null;
    if (!id) return null;
    const ruleset = flag?.ruleset || settings.ruleset || "sr5";
    const gmToken = settings.gmTokens?.[id] || settings.gmToken || null;
    const playerToken = flag?.playerToken || settings.playerToken || null;
    const token = this.game.user?.isGM ? gmToken || playerToken : playerToken;
    // Who keeps the monitors: what the combat's encounter was created with or switched to (one
    // created before the setting existed: "vtt"), else, for the world's fixed one, the setting.
    const damage = flag ? flag.damage || "vtt" : settings.damageMode || "vtt";
    return { id, ruleset, token, gmToken, playerToken, damage, combat: flag ? combat : null, lastEventId: flag?.lastEventId ?? null };
  }

  requireEncounter() {
    const encounter = this.encounter();
    if (!encounter || !encounter.token) {
      this.notify("warn", "FIREFIGHT.Notify.NoEncounter");
      return null;
    }
    return encounter;
  }

  // ---- Settings check ------------------------------------------------------------------------

  async checkConnection() {
    const settings = this.settings();
    const encounter = this.encounter();
    const result = await checkConnection({
      serviceUrl: settings.serviceUrl,
      pageUrl: this.env.pageUrl ?? globalThis.location?.href ?? null,
      fetch: this.env.fetch,
      encounterId: encounter?.id ?? null,
      token: encounter?.token ?? null,
      adminKey: this.game.user?.isGM ? settings.adminKey || null : null,
    });
    this.notify(result.ok ? "info" : "error", `FIREFIGHT.Check.${result.key}`, result.data);
    return result;
  }

  // ---- An encounter per combat ---------------------------------------------------------------

  /** The GM's client creates the combat's encounter (admin key) and remembers it in its flags. */
  async ensureEncounter(combat) {
    if (!this.isActiveGM()) return null;
    const existing = combat.getFlag(MODULE_ID, "encounter");
    if (existing?.id) return existing;
    const settings = this.settings();
    if (!settings.adminKey) return null;
    const ruleset = settings.ruleset || "sr5";
    const damage = settings.damageMode || "vtt";
    const created = await this.client().createEncounter(settings.adminKey, { ruleset, damage, name: `${this.game.world?.title ?? "Foundry"}: ${combat.id}`.slice(0, 200) });
    const gmTokens = { ...(settings.gmTokens ?? {}), [created.id]: created.tokens.gm };
    await this.game.settings.set(MODULE_ID, "gmTokens", gmTokens);
    const flag = { ...encounterFlag(created, ruleset), damage };
    flag.synced = combat.round >= 1 ? { ...trackerSnapshot(combat, (c) => this.combatantId(c), this.game.system), turn: null, actor: null } : null;
    await combat.setFlag(MODULE_ID, "encounter", flag);
    this.notify("info", "FIREFIGHT.Notify.EncounterCreated", { id: created.id });
    return flag;
  }

  /** The service's id of a combatant's actor; null for one that stands for nobody (combat-sync.mjs isActorCombatant). */
  combatantId(combatant) {
    if (!isActorCombatant(combatant, this.game.system)) return null;
    return serviceId(combatant.tokenId ?? combatant.token?.id ?? combatant.actorId);
  }

  /**
   * Send the advances a tracker change means (GM only), then remember what was sent. With
   * "firefight runs initiative" on and the service running it, the service decides
   * (src/tracker-initiative.mjs); `options` are the update's (the hook's).
   */
  syncCombat(combat, options = {}) {
    // One after the other: a shadowrun5e pass (0.34+) is two combat updates in a row (the pass,
    // then the turn), and each sync starts from what the one before it remembered.
    this.combatQueue ??= Promise.resolve();
    const run = this.combatQueue.then(() => this.syncCombatNow(combat, options));
    this.combatQueue = run.catch(() => {});
    return run;
  }

  async syncCombatNow(combat, options = {}) {
    if (!this.isActiveGM()) return [];
    const flag = combat.getFlag(MODULE_ID, "encounter");
    if (!flag?.id) return [];
    const encounter = this.encounter(combat);
    if (!encounter?.gmToken) {
      this.notify("warn", "FIREFIGHT.Notify.NoGmToken", { id: flag.id });
      return [];
    }
    const current = trackerSnapshot(combat, (c) => this.combatantId(c), this.game.system);
    const target = this.initiativeTarget(combat);
    const sent = target ? await this.syncWithServiceInitiative(combat, current, options, target) : null;
    if (sent !== null) return sent;
    const advances = advancesBetween(flag.synced ?? null, current, { ruleset: flag.ruleset });
    if (advances.length === 0) return [];
    const client = this.client();
    for (const body of advances) await client.advance(flag.id, encounter.gmToken, body);
    await combat.setFlag(MODULE_ID, "encounter.synced", current);
    return advances;
  }

  // ---- The combat's scene as the encounter's scene ----------------------------------------------

  /**
   * Where a scene change goes: the combat's encounter with the GM token, on the active GM's
   * client only, for a token of the combat's scene; null otherwise (players never send these).
   */
  sceneTarget(tokenDocument = null, combat = this.combatOfScene(tokenDocument?.parent)) {
    if (!combat || !this.isActiveGM()) return null;
    if (!combat.getFlag?.(MODULE_ID, "encounter")?.id) return null;
    const encounter = this.encounter(combat);
    if (!encounter?.gmToken) return null;
    const scene = this.sceneOfPlay(combat);
    if (!scene || (tokenDocument && tokenDocument.parent !== scene)) return null;
    return { encounter, scene, grid: this.gridOf(scene), client: this.client() };
  }

  /**
   * The combat with an encounter fought on `scene`, whichever scene the GM views (game.combat is
   * the viewed scene's); else game.combat.
   */
  combatOfScene(scene) {
    const linked = scene ? this.game.combats?.find?.((c) => c.scene === scene && c.getFlag?.(MODULE_ID, "encounter")?.id) : null;
    return linked ?? this.game.combat;
  }

  queueScene(step) {
    const run = this.sceneQueue.then(step);
    this.sceneQueue = run.catch(() => {});
    return run;
  }

  /** The PUT of a token's actor, as the token is when the hook fires (requests are sent later, in order). */
  sceneActorPut(target, tokenDocument) {
    const body = sceneActorOf(tokenDocument, { grid: target.grid, ruleset: target.encounter.ruleset, systemId: this.game.system?.id, systemVersion: this.game.system?.version });
    const actorId = sceneActorId(tokenDocument);
    return () => target.client.putActor(target.encounter.id, target.encounter.gmToken, actorId, body);
  }

  /** A change to an actor the service's scene may not hold (a token from before the encounter): set it whole then. */
  async changeOrSet(change, put) {
    try {
      return await change();
    } catch (error) {
      if (!isActorNotFound(error)) throw error;
      return put();
    }
  }

  /** Every token of the combat's scene as an actor of its encounter; once per scene, so a reload does not repeat it. */
  async syncScene(combat = this.game.combat) {
    const target = this.sceneTarget(null, combat);
    if (!target || combat.getFlag(MODULE_ID, "encounter").scene === target.scene.id) return [];
    const puts = [...(target.scene.tokens ?? [])].map((token) => [sceneActorId(token), this.sceneActorPut(target, token)]);
    const sent = await this.queueScene(async () => {
      for (const [, put] of puts) await put();
      return puts.map(([id]) => id);
    });
    // The service keeps the monitors: the damage the sheets hold already is its starting point.
    await this.seedMonitors(combat);
    await combat.setFlag(MODULE_ID, "encounter", { ...combat.getFlag(MODULE_ID, "encounter"), scene: target.scene.id });
    return sent;
  }

  /** createToken: a new actor on the scene. */
  async tokenCreated(tokenDocument) {
    const target = this.sceneTarget(tokenDocument);
    if (!target) return null;
    const put = this.sceneActorPut(target, tokenDocument);
    const monitors = this.monitorTarget(this.combatOfScene(tokenDocument.parent));
    return this.queueScene(async () => {
      const answer = await put();
      if (monitors) await this.queueMonitors(() => this.seedMonitor(monitors, tokenDocument));
      return answer;
    });
  }

  /**
   * updateToken: a hidden toggle or a new name is a PATCH, a move one POST .../move. v13 and v14
   * update a token once per checkpoint of its path, and a movement may stop or pause at any of
   * them: each one is where the token stands, so each is sent (the last one sent is where it
   * stopped, whether it went all the way or not).
   */
  async tokenUpdated(tokenDocument, changed, _options = {}) {
    const target = this.sceneTarget(tokenDocument);
    if (!target) return [];
    const { id: encounterId, gmToken } = target.encounter;
    const actorId = sceneActorId(tokenDocument);
    const put = this.sceneActorPut(target, tokenDocument);
    const patch = {};
    if ("hidden" in changed) patch.hidden = Boolean(tokenDocument.hidden);
    if ("name" in changed) patch.name = String(tokenDocument.name ?? "").slice(0, 200);
    const position = isMove(changed) ? tokenPosition(tokenDocument, target.grid) : null;
    return this.queueScene(async () => {
      const sent = [];
      if (Object.keys(patch).length > 0) {
        await this.changeOrSet(() => target.client.patchActor(encounterId, gmToken, actorId, patch), put);
        sent.push("patch");
      }
      if (position) {
        await this.changeOrSet(() => target.client.moveActor(encounterId, gmToken, actorId, position), put);
        sent.push("move");
      }
      return sent;
    });
  }

  /** deleteToken: off the scene (one the service does not hold is already off it). */
  async tokenDeleted(tokenDocument) {
    const target = this.sceneTarget(tokenDocument);
    if (!target) return null;
    const actorId = sceneActorId(tokenDocument);
    return this.queueScene(async () => {
      try {
        return await target.client.deleteActor(target.encounter.id, target.encounter.gmToken, actorId);
      } catch (error) {
        if (isActorNotFound(error)) return null;
        throw error;
      }
    });
  }

  // ---- Following the encounter ----------------------------------------------------------------

  /** The GM's client follows the current encounter's socket (and only one). */
  follow(combat = this.game.combat) {
    const encounter = this.encounter(combat);
    const key = encounter && this.isActiveGM() ? `${encounter.id}|${encounter.token}` : null;
    if (key === this.feedKey) return this.feed;
    this.feed?.stop();
    this.feed = null;
    this.feedKey = key;
    if (!key || !encounter.token) return null;
    const settings = this.settings();
    this.feed = new EncounterFeed({
      baseUrl: settings.serviceUrl,
      encounterId: encounter.id,
      token: encounter.token,
      after: encounter.lastEventId,
      WebSocketImpl: this.env.WebSocket,
      onEvent: (event) => this.handleEvent(event, encounter),
      onStatus: (status) => {
        if (status.state === "reconnecting" && status.delay > 2000) this.notify("warn", "FIREFIGHT.Notify.Reconnecting", { seconds: Math.round(status.delay / 1000) });
      },
    });
    this.feed.start();
    return this.feed;
  }

  /**
   * The scene the fight happens on: the combat's (Combat#scene), which need not be the one this
   * client views; the viewed one only for a combat not linked to a scene, or no combat.
   */
  sceneOfPlay(combat = this.game.combat) {
    return combat?.scene ?? this.env.canvas?.scene ?? null;
  }

  /** A scene's grid: the canvas's BaseGrid when it is the viewed scene, else Scene#grid (v12+). */
  gridOf(scene) {
    return scene && scene === this.env.canvas?.scene ? this.env.canvas.grid : scene?.grid;
  }

  /**
   * One event of the encounter's feed: its card first (what the table reads must not wait on,
   * or be lost to, anything else), then its zones, the tracker and the sheets.
   */
  async handleEvent(event, encounter) {
    const combat = encounter.combat;
    // Who keeps the monitors now (the GM may have switched since the feed started).
    const current = this.encounter(combat ?? this.game.combat);
    const damage = current?.id === encounter.id ? current.damage : encounter.damage;
    await this.postCard(event, encounter.ruleset, { damage });
    await this.drawZones(event, encounter);
    if (combat && INITIATIVE_EVENTS.has(event.type) && this.initiativeTarget(combat)) {
      await this.queueInitiative(() => this.followInitiative(combat));
    }
    // The service's monitors changed: read them again and put them on the sheets.
    if (MONITOR_EVENTS.has(event.type) && damage !== "vtt") await this.mirrorMonitors(combat ?? this.game.combat);
    if (combat) await combat.setFlag(MODULE_ID, "encounter.lastEventId", event.id);
  }

  /**
   * An event's zones on the combat's scene: Regions on v14, templates on v13
   * (src/foundry-version.mjs). A zone the scene refuses is told, never thrown: the event's card
   * is posted already and the feed goes on.
   */
  async drawZones(event, encounter) {
    const started = event.zones_started ?? [];
    const scene = this.sceneOfPlay(encounter.combat ?? this.game.combat);
    if (!scene || (started.length === 0 && (event.zones_ended ?? []).length === 0)) return null;
    try {
      return await zoneLayer(this.game, scene, { encounter: encounter.id, grid: this.gridOf(scene) }).apply(event);
    } catch (error) {
      const zones = (started.length > 0 ? started.map((zone) => zone.id) : event.zones_ended).join(", ");
      this.notify("error", "FIREFIGHT.Notify.ZoneNotDrawn", { zones, detail: this.failureDetail(error) });
      return null;
    }
  }

  /**
   * A name for a service id: a token on the scene, an actor, or an item of one of them. A hidden
   * token's name only where `revealHidden` (a card only GMs read): else "someone".
   */
  nameOf(id, { revealHidden = true } = {}) {
    const scene = this.sceneOfPlay();
    const token = scene?.tokens?.get?.(id);
    if (token) return token.hidden && !revealHidden ? this.localize("FIREFIGHT.Card.Someone") : token.name;
    const actor = this.game.actors?.get?.(id);
    if (actor) return actor.name;
    for (const t of scene?.tokens ?? []) {
      const item = t.actor?.items?.get?.(id);
      if (item) return item.name;
    }
    return id;
  }

  /**
   * Whether only GMs read a card shown in `mode` for `authorId` (roll-mode.mjs): a blind card,
   * or a GM-only or self card of a GM. Public cards, and a player's GM-only or self card (its
   * author reads it), name no hidden actor.
   */
  onlyGMsRead(mode, authorId) {
    if (mode === "blindroll") return true;
    const author = this.game.users?.get?.(authorId) ?? (this.game.user?.id === authorId ? this.game.user : null);
    return (mode === "gmroll" || mode === "selfroll") && author?.isGM === true;
  }

  /** This user's roll mode (core setting), what cards of their requests use unless they choose. */
  userRollMode() {
    return rollModeOr(userRollMode(this.game), "publicroll");
  }

  /** Say on this user which actor they act for and how the card is to be shown (see roll-mode.mjs). */
  async announce(actorId, rollMode) {
    await this.game.user?.setFlag?.(MODULE_ID, "lastRequest", { actor: actorId, rollMode: rollModeOr(rollMode, this.userRollMode()), at: Date.now() });
  }

  /**
   * The chat card of one event, with its dice as real Rolls; once per event. Shown as the
   * acting user chose (`rollMode`, `author`), else as their last request said, else as this
   * user's roll mode says.
   */
  /**
   * The body map a ruleset's cards draw (GET /v1/rulesets/{ruleset}: Hard Life's), read once per
   * service; null when it cannot be read (the card then lists the locations only).
   */
  async bodyMapOf(ruleset) {
    const key = `${this.settings().serviceUrl} ${ruleset}`;
    this.bodyMaps ??= new Map();
    if (!this.bodyMaps.has(key)) {
      this.bodyMaps.set(key, this.client().ruleset(ruleset).then((detail) => detail?.body_map ?? null, () => {
        this.bodyMaps.delete(key);
        return null;
      }));
    }
    return this.bodyMaps.get(key);
  }

  async postCard(event, ruleset, { rollMode = null, author = null, damage = this.encounter()?.damage ?? "vtt" } = {}) {
    if (this.game.messages?.find?.((m) => m.flags?.[MODULE_ID]?.eventId === event.id)) return null;
    const actorId = event.result?.attacker ?? event.result?.actor ?? null;
    const request = rollMode ? null : requestOf(this.game.users, actorId, MODULE_ID);
    const mode = rollModeOr(rollMode ?? request?.rollMode, this.userRollMode());
    const cardAuthor = author ?? request?.author ?? null;
    const revealHidden = this.onlyGMsRead(mode, cardAuthor ?? this.game.user?.id);
    const bodyMap = ruleset === "sr3-hardlife" ? await this.bodyMapOf(ruleset) : null;
    const card = cardForEvent(event, { ruleset, bodyMap, nameOf: (id) => this.nameOf(id, { revealHidden }) });
    if (!card) return null;
    const content = await this.env.renderTemplate(CARD_TEMPLATE, card);
    const rolls = rollsForDice(diceOfResult(event.result), card.ruleset ?? ruleset).map((data) => this.env.Roll.fromData(data));
    const scene = this.sceneOfPlay();
    const speakerToken = scene?.tokens?.get?.(card.attacker ?? card.actor);
    // A hidden shooter speaks as no token: its name and portrait would give it away.
    const speaker = speakerToken && (revealHidden || !speakerToken.hidden)
      ? { scene: scene.id, token: speakerToken.id, actor: speakerToken.actorId, alias: speakerToken.name }
      : { alias: speakerToken ? this.localize("FIREFIGHT.Card.Someone") : "firefight" };
    const data = {
      content,
      rolls,
      speaker,
      // `damage`: who applied the card's damage when it was dealt (its Apply button follows it).
      flags: { [MODULE_ID]: { eventId: event.id, encounter: event.encounter, ruleset: card.ruleset, attacker: card.attacker ?? card.actor ?? null, weapon: card.weapon ?? null, rollMode: mode, damage } },
    };
    applyCardRollMode(this.env.ChatMessage, data, mode, { author: cardAuthor, poster: this.game.user?.id ?? null, game: this.game });
    return this.env.ChatMessage.create(data);
  }
}

// The attack dialog lives in attack-dialog.mjs, the card's buttons in card-actions.mjs, the
// service's initiative in the tracker in tracker-initiative.mjs, the service's monitors on the
// sheets in monitor-sync.mjs; they are methods of the app all the same.
for (const mixin of [AttackDialog, CardActions, TrackerInitiative, MonitorSync]) {
  for (const name of Object.getOwnPropertyNames(mixin.prototype)) {
    if (name !== "constructor") Object.defineProperty(FirefightApp.prototype, name, Object.getOwnPropertyDescriptor(mixin.prototype, name));
  }
}
