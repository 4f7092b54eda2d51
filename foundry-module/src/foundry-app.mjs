// The module's flows in Foundry terms: which encounter and token to use, creating an encounter
// per combat, following its events (chat cards, zones) and the attack dialog; the card's buttons are
// in card-actions.mjs.
// Foundry's globals come in through `env` ({game, canvas, ui, ChatMessage, Roll, renderTemplate,
// DialogV2, FormDataExtended, document, fetch, WebSocket}), so tests run these flows against
// stubs of Foundry's API.

import { FirefightClient } from "./client.mjs";
import { checkConnection } from "./connection.mjs";
import { CardActions } from "./card-actions.mjs";
import { CARD_TEMPLATE, cardForEvent } from "./chat-card.mjs";
import { advancesBetween, encounterFlag, trackerSnapshot } from "./combat-sync.mjs";
import { INITIATIVE_EVENTS } from "./initiative-sync.mjs";
import { EncounterFeed } from "./live.mjs";
import { MONITOR_EVENTS, MonitorSync } from "./monitor-sync.mjs";
import { TrackerInitiative } from "./tracker-initiative.mjs";
import { rollsForDice, diceOfResult } from "./rolls.mjs";
import { MODULE_ID, readSettings } from "./settings.mjs";
import { applyCardRollMode, requestOf, rollModeChoices, rollModeOr } from "./roll-mode.mjs";
import { TemplateZoneLayer } from "./zones.mjs";
import { ODDS_TEMPLATE, OddsPreview, oddsView } from "./odds.mjs";
import * as sr5 from "./sr5-actor.mjs";
import * as sr3e from "./sr3-actor.mjs";
import * as sr4e from "./sr4-actor.mjs";
import {
  SR4_AMMO, SR4_BURSTS, SR4_CATEGORIES, SR4_CHOKES, SR4_COVER, SR4_DELIVERY, SR4_FLAGS, SR4_GRENADES, SR4_VISIBILITY,
  sr4AttackRequest, sr4AvailableModes, sr4FromManual,
} from "./sr4-requests.mjs";
import {
  SR3_CATEGORIES, SR3_COVER, SR3_MOVEMENT, SR3_SIGHTS, SR3_TARGET_MOVEMENT, SR3_VISIBILITY, sr3AttackRequest, sr3FromManual,
} from "./sr3-requests.mjs";
import { HL_LOCATIONS, hlAttackRequest, hlFromManual, parseArea } from "./sr3hl-requests.mjs";
import { measureMetres, toScenePoint, bearingDeg, distanceM } from "./geometry.mjs";
import { isMove, moveFinished, sceneActorId, sceneActorOf, tokenPosition } from "./scene-sync.mjs";
import {
  availableModes, COVER, d100AttackRequest, RequestError, ENVIRONMENT, mergeManual, parseGivenDice, serviceId,
  SMARTLINK, SR5_AMMO, SR5_CATEGORIES, sr5AttackRequest, sr5FromManual,
} from "./requests.mjs";

export const DIALOG_TEMPLATE = "modules/firefight/templates/attack-dialog.hbs";

/** A select's options: the value sent and the lang key shown (lang/en.json under `prefix`). */
function options(values, prefix) {
  return values.map((value) => ({ value, label: `${prefix}.${value}` }));
}

const D100_MODES = ["attack", "suppressive"];

/** The service's 404 for an actor its scene does not hold (docs/api.md, "The scene"). */
function isActorNotFound(error) {
  return error?.status === 404 && String(error.problem?.type ?? "").endsWith("/actor-not-found");
}

/** A number typed in a form, or null when the field was left empty (FormDataExtended gives null). */
function typedNumber(value) {
  if (value === undefined || value === null || value === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
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
    flag.synced = combat.round >= 1 ? { ...trackerSnapshot(combat, (c) => this.combatantId(c)), turn: null, actor: null } : null;
    await combat.setFlag(MODULE_ID, "encounter", flag);
    this.notify("info", "FIREFIGHT.Notify.EncounterCreated", { id: created.id });
    return flag;
  }

  combatantId(combatant) {
    return serviceId(combatant.tokenId ?? combatant.token?.id ?? combatant.actorId ?? combatant.id);
  }

  /**
   * Send the advances a tracker change means (GM only), then remember what was sent. With
   * "firefight runs initiative" on and the service running it, the service decides
   * (src/tracker-initiative.mjs); `options` are the update's (the hook's).
   */
  async syncCombat(combat, options = {}) {
    if (!this.isActiveGM()) return [];
    const flag = combat.getFlag(MODULE_ID, "encounter");
    if (!flag?.id) return [];
    const encounter = this.encounter(combat);
    if (!encounter?.gmToken) {
      this.notify("warn", "FIREFIGHT.Notify.NoGmToken", { id: flag.id });
      return [];
    }
    const current = trackerSnapshot(combat, (c) => this.combatantId(c));
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
    const body = sceneActorOf(tokenDocument, { grid: target.grid, ruleset: target.encounter.ruleset, systemId: this.game.system?.id });
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
   * updateToken: a hidden toggle or a new name is a PATCH, a finished move one POST .../move
   * (v13 updates at each checkpoint of a path: only the last one is sent).
   */
  async tokenUpdated(tokenDocument, changed, options = {}) {
    const target = this.sceneTarget(tokenDocument);
    if (!target) return [];
    const { id: encounterId, gmToken } = target.encounter;
    const actorId = sceneActorId(tokenDocument);
    const put = this.sceneActorPut(target, tokenDocument);
    const patch = {};
    if ("hidden" in changed) patch.hidden = Boolean(tokenDocument.hidden);
    if ("name" in changed) patch.name = String(tokenDocument.name ?? "").slice(0, 200);
    const position = isMove(changed) && moveFinished(tokenDocument, options) ? tokenPosition(tokenDocument, target.grid) : null;
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

  async handleEvent(event, encounter) {
    const scene = this.sceneOfPlay(encounter.combat ?? this.game.combat);
    if (scene && ((event.zones_started ?? []).length > 0 || (event.zones_ended ?? []).length > 0)) {
      await new TemplateZoneLayer(scene, { encounter: encounter.id, grid: this.gridOf(scene) }).apply(event);
    }
    const combat = encounter.combat;
    if (combat && INITIATIVE_EVENTS.has(event.type) && this.initiativeTarget(combat)) {
      await this.queueInitiative(() => this.followInitiative(combat));
    }
    // Who keeps the monitors now (the GM may have switched since the feed started).
    const current = this.encounter(combat ?? this.game.combat);
    const damage = current?.id === encounter.id ? current.damage : encounter.damage;
    // The service's monitors changed: read them again and put them on the sheets.
    if (MONITOR_EVENTS.has(event.type) && damage !== "vtt") await this.mirrorMonitors(combat ?? this.game.combat);
    await this.postCard(event, encounter.ruleset, { damage });
    if (combat) await combat.setFlag(MODULE_ID, "encounter.lastEventId", event.id);
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
    let mode = null;
    try {
      mode = this.game.settings.get("core", "rollMode");
    } catch {
      mode = null;
    }
    return rollModeOr(mode, "publicroll");
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
    applyCardRollMode(this.env.ChatMessage, data, mode, { author: cardAuthor, poster: this.game.user?.id ?? null });
    return this.env.ChatMessage.create(data);
  }

  // ---- Attacking --------------------------------------------------------------------------------

  /** Targets of this user: their tokens with distances in metres from the attacker. */
  targetsFrom(attackerToken) {
    const grid = this.env.canvas.grid;
    return [...(this.game.user.targets ?? [])]
      .filter((t) => t.id !== attackerToken.id)
      .map((t) => ({
        token: t,
        id: serviceId(t.id),
        name: t.name,
        distance_m: measureMetres(grid, attackerToken.center, t.center),
        position: toScenePoint(t.center, grid),
      }));
  }

  /** Everyone else on the scene, for who is inside a suppression zone. */
  bystandersFrom(attackerToken) {
    const grid = this.env.canvas.grid;
    return (this.env.canvas.tokens?.placeables ?? [])
      .filter((t) => t.id !== attackerToken.id && t.actor)
      .map((t) => ({ id: serviceId(t.id), position: toScenePoint(t.center, grid) }));
  }

  /** Everything the dialog shows, read from the actor (shadowrun5e) or its remembered manual form. */
  dialogData(token, { itemId = null } = {}) {
    const actor = token.actor;
    const encounter = this.encounter();
    const ruleset = encounter?.ruleset ?? this.settings().ruleset ?? "sr5";
    const shadowrun = ruleset === "sr5" && sr5.isShadowrunActor(actor, this.game.system?.id);
    const mappedSr3 = ruleset === "sr3" && sr3e.isSr3eActor(actor, this.game.system?.id);
    const mappedSr4 = ruleset === "sr4" && sr4e.isSr4eActor(actor, this.game.system?.id);
    const targets = this.targetsFrom(token).map((t) => ({ ...t, defender: this.defenderOf(t.token.actor, ruleset) }));
    const base = {
      ruleset,
      sr5: ruleset === "sr5",
      d100: ruleset === "d100",
      sr3: ruleset === "sr3",
      sr4: ruleset === "sr4",
      sr3hl: ruleset === "sr3-hardlife",
      shadowrun,
      sr3e: mappedSr3,
      sr4e: mappedSr4,
      actorName: token.name,
      targets,
      cover: options(COVER, "FIREFIGHT.Cover"),
      environment: Object.entries(ENVIRONMENT).map(([field, values]) => ({ field, label: `FIREFIGHT.Environment.${field}.Name`, options: options(values, `FIREFIGHT.Environment.${field}`) })),
      smartlink: options(SMARTLINK, "FIREFIGHT.Smartlink"),
      ammo: options(SR5_AMMO, "FIREFIGHT.Ammo"),
      categories: options(SR5_CATEGORIES, "FIREFIGHT.Category"),
      rollModes: rollModeChoices(this.userRollMode()),
    };
    if (ruleset === "sr3" || ruleset === "sr3-hardlife") Object.assign(base, this.sr3DialogChoices());
    if (ruleset === "sr3-hardlife") Object.assign(base, this.hlDialogChoices());
    if (ruleset === "sr4") Object.assign(base, this.sr4DialogChoices());
    if (mappedSr4) {
      const weapons = sr4e.rangedWeapons(actor).map((item) => {
        const weapon = sr4e.sr4Weapon(item);
        return { id: item.id, name: item.name, weapon, skill: sr4e.weaponSkill(actor, item), modes: options(sr4AvailableModes(weapon.modes), "FIREFIGHT.Mode"), selected: item.id === itemId };
      });
      const chosen = weapons.find((w) => w.selected) ?? weapons[0];
      return { ...base, weapons, modes: chosen ? chosen.modes : [] };
    }
    if (mappedSr3) {
      const weapons = sr3e.rangedWeapons(actor).map((item) => {
        const weapon = sr3e.sr3Weapon(actor, item);
        return { id: item.id, name: item.name, weapon, skill: sr3e.weaponSkill(actor, item), modes: options(weapon.modes, "FIREFIGHT.Mode"), selected: item.id === itemId };
      });
      const chosen = weapons.find((w) => w.selected) ?? weapons[0];
      return { ...base, weapons, modes: chosen ? chosen.modes : [] };
    }
    if (shadowrun) {
      const weapons = sr5.rangedWeapons(actor).map((item) => {
        const weapon = sr5.sr5Weapon(item);
        return { id: item.id, name: item.name, weapon, modes: options(availableModes(weapon.modes), "FIREFIGHT.Mode"), selected: item.id === itemId };
      });
      // The modes of the weapon chosen from its sheet (else the first); another weapon's modes
      // are checked when the attack is built.
      const chosen = weapons.find((w) => w.selected) ?? weapons[0];
      return { ...base, weapons, modes: chosen ? chosen.modes : [] };
    }
    const saved = actor.getFlag?.(MODULE_ID, `manual.${ruleset}`) ?? actor.flags?.[MODULE_ID]?.manual?.[ruleset] ?? {};
    const manual = mergeManual(ruleset, saved);
    return {
      ...base,
      manual,
      manualFields: Object.entries(manual).map(([key, value]) => ({ key, value, label: ruleset === "sr3" ? `FIREFIGHT.SR3.Field.${key}` : ruleset === "sr3-hardlife" ? `FIREFIGHT.HL.Field.${key}` : ruleset === "sr4" ? `FIREFIGHT.SR4.Field.${key}` : `FIREFIGHT.Field.${key}` })),
      modes: options(ruleset === "sr5" ? availableModes(["SS", "SA", "BF", "FA"]) : ruleset === "sr3" || ruleset === "sr3-hardlife" ? ["SS", "SA", "BF", "FA"] : ruleset === "sr4" ? sr4AvailableModes(sr4FromManual("x", manual).weapon.modes) : D100_MODES, "FIREFIGHT.Mode"),
    };
  }

  /** The SR3 dialog's lists: categories, sights, movement and the visibility table's columns and rows. */
  sr3DialogChoices() {
    return {
      sr3Categories: options(SR3_CATEGORIES, "FIREFIGHT.SR3.Category"),
      sights: options(SR3_SIGHTS, "FIREFIGHT.SR3.Sight"),
      movements: options(SR3_MOVEMENT, "FIREFIGHT.SR3.Movement"),
      targetMovements: options(SR3_TARGET_MOVEMENT, "FIREFIGHT.SR3.Movement"),
      cover: options(SR3_COVER, "FIREFIGHT.Cover"),
      visibility: Object.entries(SR3_VISIBILITY).map(([field, values]) => ({ field, label: `FIREFIGHT.SR3.Visibility.${field}.Name`, options: options(values, `FIREFIGHT.SR3.Visibility.${field}`) })),
    };
  }

  /** Hard Life's list: the locations of a called shot (004, Tables 6 and 10). */
  hlDialogChoices() {
    return {
      locations: HL_LOCATIONS.map((value) => ({ value, label: `FIREFIGHT.HL.Location.${value}` })),
    };
  }

  /** The SR4 dialog's lists: categories, bursts, chokes, ammunition, visibility, the attacker's situation and the grenade's. */
  sr4DialogChoices() {
    return {
      sr4Categories: options(SR4_CATEGORIES, "FIREFIGHT.SR3.Category"),
      cover: options(SR4_COVER, "FIREFIGHT.Cover"),
      bursts: options(SR4_BURSTS, "FIREFIGHT.SR4.Burst"),
      chokes: options(SR4_CHOKES, "FIREFIGHT.SR4.Choke"),
      sr4Ammo: options(SR4_AMMO, "FIREFIGHT.Ammo"),
      flags: options(SR4_FLAGS, "FIREFIGHT.SR4.Flag"),
      grenades: options(SR4_GRENADES, "FIREFIGHT.SR4.Grenade"),
      deliveries: options(SR4_DELIVERY, "FIREFIGHT.SR4.Delivery"),
      visibility: Object.entries(SR4_VISIBILITY).map(([field, values]) => ({ field, label: `FIREFIGHT.SR4.Visibility.${field}.Name`, options: options(values, `FIREFIGHT.SR4.Visibility.${field}`) })),
    };
  }

  defenderOf(actor, ruleset) {
    if (ruleset === "sr5" && sr5.isShadowrunActor(actor, this.game.system?.id)) return sr5.sr5Defender(actor);
    if (ruleset === "sr3" && sr3e.isSr3eActor(actor, this.game.system?.id)) return sr3e.sr3Defender(actor);
    if (ruleset === "sr4" && sr4e.isSr4eActor(actor, this.game.system?.id)) return sr4e.sr4Defender(actor);
    const saved = actor?.flags?.[MODULE_ID]?.manual?.[ruleset] ?? {};
    const manual = mergeManual(ruleset, saved);
    if (ruleset === "sr3") return sr3FromManual("x", manual).defender;
    if (ruleset === "sr3-hardlife") return hlFromManual("x", manual).defender;
    if (ruleset === "sr4") return sr4FromManual("x", manual).defender;
    return ruleset === "d100"
      ? { defense: manual.defense, passive_defense: manual.passive_defense, armor: manual.armor }
      : sr5FromManual("x", manual).defender;
  }

  /**
   * The attack body from the dialog's form (flat names: weapon, mode, cover.<target>, ...).
   * Returns {body, writeBack} where writeBack says which item and actor the answer updates.
   */
  buildAttack(token, data, form) {
    const actor = token.actor;
    const grid = this.env.canvas.grid;
    const dice = parseGivenDice(form.dice);
    const origin = toScenePoint(token.center, grid);
    const targets = data.targets.map((t) => ({
      id: t.id,
      distance_m: typedNumber(form[`distance.${t.id}`]) ?? t.distance_m,
      defender: t.defender,
      position: t.position,
      cover: form[`cover.${t.id}`],
      called_shot: Boolean(form[`called.${t.id}`]),
      prone: Boolean(form[`prone.${t.id}`]),
    }));
    if (data.d100) {
      const manual = mergeManual("d100", data.manual, form);
      const suppressive = form.mode === "suppressive" && targets[0] ? { origin, center: targets[0].position } : null;
      const body = d100AttackRequest({
        attackerId: token.id,
        manual,
        targets,
        position: origin,
        options: { shot_rate: form.shot_rate, aim: form.aim, modifiers: form.modifiers, dice, suppressive, bystanders: suppressive ? this.bystandersFrom(token) : [] },
      });
      return { body, writeBack: { actor, manual: { ruleset: "d100", values: manual } } };
    }
    if (data.sr3) return this.buildSr3Attack(token, data, form, targets, dice);
    if (data.sr3hl) return this.buildHlAttack(token, data, form, targets, dice);
    if (data.sr4) return this.buildSr4Attack(token, data, form, targets, dice);
    let attacker;
    let weapon;
    let item = null;
    let manual = null;
    if (data.shadowrun) {
      item = actor.items.get(form.weapon) ?? null;
      if (!item) throw new RequestError("choose a weapon", "$.weapon", "chooseWeapon");
      const category = form.category || sr5.weaponCategory(item);
      weapon = sr5.sr5Weapon(item, { category });
      attacker = sr5.sr5Attacker(actor, item, { id: token.id, category });
    } else {
      manual = mergeManual("sr5", data.manual, form);
      ({ attacker, weapon } = sr5FromManual(token.id, manual));
    }
    const zone =
      form.mode === "suppressive"
        ? {
            origin,
            direction_deg: typedNumber(form.zone_direction) ?? (targets[0] ? bearingDeg(origin, targets[0].position) : 0),
            length_m: typedNumber(form.zone_length) || (targets[0] ? Math.max(1, distanceM(origin, targets[0].position)) : 10),
          }
        : null;
    const body = sr5AttackRequest({
      attacker,
      weapon,
      mode: form.mode,
      targets: form.mode === "suppressive" ? [] : targets,
      options: {
        environment: { visibility: form.visibility, light: form.light, glare: form.glare, wind: form.wind },
        smartlink: form.smartlink,
        ammo: form.ammo,
        edge: form.edge,
        dice,
        zone,
        bystanders: zone ? this.bystandersFrom(token) : [],
      },
    });
    return { body, writeBack: { actor, item, manual: manual ? { ruleset: "sr5", values: manual } : null } };
  }

  /**
   * An SR3 attack: the sr3e actor's weapon (its loaded ammunition written back), or the manual
   * form; the target's dodge and resistance dice and movement from its row, the rest from the
   * dialog. SR3 fires each attack at one target.
   */
  buildSr3Attack(token, data, form, targets, dice) {
    const actor = token.actor;
    let attacker;
    let weapon;
    let ammoItem = null;
    let manual = null;
    if (data.sr3e) {
      const item = actor.items.get(form.weapon) ?? null;
      if (!item) throw new RequestError("choose a weapon", "$.weapon", "chooseWeapon");
      ammoItem = sr3e.loadedAmmo(actor, item);
      if (!ammoItem) throw new RequestError(`${item.name} has no ammunition loaded`, "$.weapon.ammo", "noAmmo", { weapon: item.name });
      weapon = sr3e.sr3Weapon(actor, item, { category: form.category || null });
      attacker = sr3e.sr3Attacker(actor, item, { id: token.id });
      const skill = typedNumber(form.skill);
      if (skill !== null) attacker.skill = Math.max(0, Math.round(skill));
    } else {
      manual = mergeManual("sr3", data.manual, form);
      ({ attacker, weapon } = sr3FromManual(token.id, manual));
    }
    const body = sr3AttackRequest({
      attacker,
      weapon,
      mode: form.mode,
      targets: targets.map((t) => ({
        ...t,
        movement: form[`target_movement.${t.id}`],
        dodge: form[`dodge.${t.id}`],
        resist: form[`resist.${t.id}`],
      })),
      options: {
        pool: form.pool,
        sight: form.sight,
        rounds: form.rounds,
        movement: form.movement,
        melee_opponents: form.melee_opponents,
        called_shot: Boolean(form.called_shot),
        blind_fire: Boolean(form.blind_fire),
        second_firearm: Boolean(form.second_firearm),
        indirect: Boolean(form.indirect),
        visibility: { vision: form.vision, light: form.light, obscurant: form.obscurant },
        dice,
      },
    });
    return { body, writeBack: { actor, item: null, ammoItem, manual: manual ? { ruleset: "sr3", values: manual } : null } };
  }

  /**
   * A Hard Life attack from the manual form: the target's Table 8 dodge (Combat Pool and Dodge
   * Pool dice, into cover, prone) and Body's Combat Pool dice from its row, the called shot's
   * location and suppression fire's area (corners in metres) from the dialog.
   */
  buildHlAttack(token, data, form, targets, dice) {
    const manual = mergeManual("sr3-hardlife", data.manual, form);
    const { attacker, weapon } = hlFromManual(token.id, manual);
    const area = parseArea(form.area);
    const body = hlAttackRequest({
      attacker,
      weapon,
      mode: form.mode,
      targets: area ? [] : targets.map((t) => ({
        ...t,
        movement: form[`target_movement.${t.id}`],
        dodge_combat: form[`dodge.${t.id}`],
        dodge_pool: form[`dodge_pool.${t.id}`],
        into_cover_m: form[`into_cover.${t.id}`],
        prone: Boolean(form[`prone.${t.id}`]),
        resist: form[`resist.${t.id}`],
      })),
      options: {
        pool: form.pool,
        sight: form.sight,
        rounds: form.rounds,
        movement: form.movement,
        melee_opponents: form.melee_opponents,
        called_shot: form.called_location || null,
        blind_fire: Boolean(form.blind_fire),
        second_firearm: Boolean(form.second_firearm),
        indirect: Boolean(form.indirect),
        visibility: { vision: form.vision, light: form.light, obscurant: form.obscurant },
        suppression: area ? { area, bullets_per_m2: form.bullets_per_m2 } : null,
        dice,
      },
    });
    return { body, writeBack: { actor: token.actor, item: null, manual: { ruleset: "sr3-hardlife", values: manual } } };
  }

  /**
   * An SR4 attack: the shadowrun4e actor's weapon (its rounds written back), or the manual form;
   * each target's Dodge and whether it is hidden from its row, the rest from the dialog. A
   * grenade goes at the targeted token, or at the point typed in when none is targeted; the
   * other tokens are where its blast may reach.
   */
  buildSr4Attack(token, data, form, targets, dice) {
    const actor = token.actor;
    const grid = this.env.canvas.grid;
    const origin = toScenePoint(token.center, grid);
    let attacker;
    let weapon;
    let item = null;
    let manual = null;
    const thrownGrenade = Boolean(form.grenade_type) && ["standard_grenade", "aerodynamic_grenade"].includes(form.category);
    if (data.sr4e && thrownGrenade) {
      // A thrown grenade is no "Ranged Weapon" of shadowrun4e: one grenade, thrown as a single
      // action (its numbers are the grenade's, not a gun's).
      weapon = { id: serviceId(`grenade-${form.grenade_type}`), category: form.category, damage: 0, damage_type: "P", ap: 0, rc: 0, modes: ["SS"], ammo: 1 };
      const gun = actor.items.get(form.weapon) ?? null;
      attacker = sr4e.sr4Attacker(actor, gun ?? { system: {} }, { id: token.id });
      const skill = typedNumber(form.skill);
      if (skill !== null) attacker.skill = Math.max(0, Math.round(skill));
    } else if (data.sr4e) {
      item = actor.items.get(form.weapon) ?? null;
      if (!item) throw new RequestError("choose a weapon", "$.weapon", "chooseWeapon");
      weapon = sr4e.sr4Weapon(item, { category: form.category || null });
      attacker = sr4e.sr4Attacker(actor, item, { id: token.id });
      const skill = typedNumber(form.skill);
      if (skill !== null) attacker.skill = Math.max(0, Math.round(skill));
    } else {
      manual = mergeManual("sr4", data.manual, form);
      ({ attacker, weapon } = sr4FromManual(token.id, manual));
    }
    const zone =
      form.mode === "suppressive"
        ? {
            origin,
            direction_deg: typedNumber(form.zone_direction) ?? (targets[0] ? bearingDeg(origin, targets[0].position) : 0),
            length_m: typedNumber(form.zone_length) || (targets[0] ? Math.max(1, distanceM(origin, targets[0].position)) : 10),
          }
        : null;
    const grenade = form.grenade_type ? {
      type: form.grenade_type, delivery: form.grenade_delivery, airburst: Boolean(form.airburst),
      dv: form.grenade_dv, ap: form.grenade_ap, falloff_per_m: form.grenade_falloff, radius_m: form.grenade_radius,
    } : null;
    const aimed = String(form.aim_point ?? "").trim().split(/[\s,;]+/).filter(Boolean).map(Number);
    const aimPoint = aimed.length === 2 && aimed.every(Number.isFinite) ? { x: aimed[0], y: aimed[1] } : null;
    const withDefender = targets.map((t) => ({
      ...t,
      defender: { ...t.defender, dodge: Math.max(0, Math.round(typedNumber(form[`dodge.${t.id}`]) ?? t.defender.dodge ?? 0)) },
      hidden: Boolean(form[`hidden.${t.id}`]),
    }));
    // Aimed at a point, every other token is where the blast may reach; aimed at a token, the others.
    const bystanders = grenade ? this.bystandersFrom(token).filter((b) => aimPoint || !targets.some((t) => serviceId(t.id) === b.id)) : [];
    const flags = Object.fromEntries(SR4_FLAGS.map((flag) => [flag, Boolean(form[`flag.${flag}`])]));
    const body = sr4AttackRequest({
      attacker,
      weapon,
      mode: form.mode,
      targets: form.mode === "suppressive" || (grenade && aimPoint) ? [] : withDefender,
      options: {
        ...flags,
        burst: form.burst,
        choke: form.choke,
        ammo: form.ammo,
        edge: form.extra_dice ? "extra_dice" : "none",
        visibility: { vision: form.vision, light: form.light, obscurant: form.obscurant },
        zone,
        grenade,
        origin: grenade ? origin : null,
        aim_point: aimPoint,
        bystanders,
        dice,
      },
    });
    return { body, writeBack: { actor, item: null, sr4Item: item, manual: manual ? { ruleset: "sr4", values: manual } : null } };
  }

  /** Post the attack, then write back what it spent: ammo on the weapon, Edge, the manual form. */
  async attack(token, data, form) {
    const encounter = this.requireEncounter();
    if (!encounter) return null;
    const { body, writeBack } = this.buildAttack(token, data, form);
    const rollMode = rollModeOr(form.rollMode, this.userRollMode());
    await this.announce(serviceId(token.id), rollMode);
    const answer = await this.client().attack(encounter.id, encounter.token, body);
    await this.writeBack(writeBack, answer.result);
    // With no GM online nobody follows the socket: the attacker's client posts the card itself.
    if (!this.game.users?.activeGM) {
      await this.postCard({ id: answer.event_id, type: "attack", encounter: encounter.id, result: answer.result, zones_started: [], zones_ended: [] }, encounter.ruleset, { rollMode, author: this.game.user?.id, damage: encounter.damage });
    }
    return answer;
  }

  async writeBack({ actor, item, ammoItem = null, sr4Item = null, manual }, result) {
    if (item) await item.update(sr5.ammoUpdate(result.ammo_left));
    if (sr4Item) await sr4Item.update(sr4e.ammoUpdate(result.ammo_left));
    if (ammoItem) await ammoItem.update(sr3e.ammoUpdate(result.ammo_left));
    if (result.edge_spent > 0 && sr5.isShadowrunActor(actor, this.game.system?.id)) await actor.update(sr5.edgeUpdate(actor, result.edge_spent));
    if (manual) {
      const values = { ...manual.values };
      if ("ammo" in values) values.ammo = result.ammo_left;
      await actor.setFlag(MODULE_ID, `manual.${manual.ruleset}`, values);
    }
  }

  async takeAim(token, aimFor = "dice", rollMode = null) {
    const encounter = this.requireEncounter();
    if (!encounter) return null;
    await this.announce(serviceId(token.id), rollMode);
    // SR3's and SR4's aim is a simple action and nothing more (schemas/sr3.py, schemas/sr4.py).
    const body = encounter.ruleset === "sr3" || encounter.ruleset === "sr4" || encounter.ruleset === "sr3-hardlife"
      ? { ruleset: encounter.ruleset, actor: serviceId(token.id), action: "take_aim" }
      : { actor: serviceId(token.id), action: "take_aim", aim_for: aimFor };
    return this.client().action(encounter.id, encounter.token, body);
  }

  /**
   * The actor's token on the scene of play, for an attack from its weapon's sheet; a notice
   * when it has none there (the sheet can be open anywhere).
   */
  tokenOfActor(actor) {
    const scene = this.sceneOfPlay();
    const token = (actor.getActiveTokens?.() ?? []).find((t) => !scene || (t.document?.parent ?? t.scene ?? scene) === scene);
    if (!token) this.notify("warn", "FIREFIGHT.Notify.NoToken", { name: actor.name, scene: scene?.name ?? "—" });
    return token ?? null;
  }

  /** The weapon sheet's button: the dialog for the actor's token, with that weapon chosen. */
  async attackWithItem(item) {
    const token = this.tokenOfActor(item.actor);
    return token ? this.openAttackDialog(token, { itemId: item.id }) : null;
  }

  /**
   * The odds of the attack the open dialog would send (docs/odds.md), drawn in its odds panel
   * and asked again as its fields change. `dialog` is what DialogV2.wait's render callback is
   * given: the DialogV2 in v13, its HTMLDialogElement in v12. Returns the OddsPreview (null when
   * the dialog has no odds panel).
   */
  previewOdds(dialog, token, data) {
    const root = dialog?.element ?? dialog;
    const form = root?.querySelector?.("form");
    const panel = root?.querySelector?.(".firefight-odds__body");
    const encounter = this.encounter();
    if (!form || !panel || !encounter?.token) return null;
    const client = this.client();
    const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const preview = new OddsPreview({
      panel,
      // The attack's own body from the fields as they are now, its given dice left out.
      read: () => this.buildAttack(token, data, { ...new this.env.FormDataExtended(form).object, dice: "" }).body,
      ask: (body) => client.attackOdds(encounter.id, encounter.token, body),
      draw: (answer) => this.env.renderTemplate(ODDS_TEMPLATE, oddsView(answer, { localize: (key, values) => this.localize(key, values), nameOf: (id) => this.nameOf(id) })),
      say: (key, values) => `<p class="hint">${escape(this.localize(key, values))}</p>`,
      describe: (error) => this.failureDetail(error),
    });
    for (const type of ["change", "input"]) form.addEventListener(type, () => preview.schedule());
    this.oddsPreview = preview;
    preview.refresh();
    return preview;
  }

  /** The attack dialog (DialogV2, v12+), filled from the actor. */
  async openAttackDialog(token, { itemId = null } = {}) {
    if (!this.settings().serviceUrl) return this.notify("warn", "FIREFIGHT.Notify.NoService");
    if (!this.requireEncounter()) return null;
    // Distances and zones are measured on the viewed canvas: it must be the combat's scene.
    const scene = this.sceneOfPlay();
    if (scene && this.env.canvas?.scene && scene !== this.env.canvas.scene) {
      return this.notify("warn", "FIREFIGHT.Notify.OtherScene", { scene: scene.name ?? scene.id });
    }
    const data = this.dialogData(token, { itemId });
    const content = await this.env.renderTemplate(DIALOG_TEMPLATE, data);
    const formOf = (button) => new this.env.FormDataExtended(button.form).object;
    let preview = null;
    const choice = await this.env.DialogV2.wait({
      window: { title: this.localize("FIREFIGHT.Dialog.Title", { name: token.name }) },
      classes: ["firefight-dialog"],
      content,
      // Once rendered (and on every render after), the odds follow the dialog's fields.
      render: (_event, dialog) => {
        preview ??= this.previewOdds(dialog, token, data);
      },
      close: () => {
        preview?.stop();
      },
      buttons: [
        { action: "fire", label: this.localize("FIREFIGHT.Button.Fire"), default: true, callback: (_e, button) => ({ action: "fire", form: formOf(button) }) },
        ...(data.sr5 || data.sr3 || data.sr4 || data.sr3hl ? [{ action: "aim", label: this.localize("FIREFIGHT.Button.TakeAim"), callback: (_e, button) => ({ action: "aim", form: formOf(button) }) }] : []),
        { action: "cancel", label: this.localize("FIREFIGHT.Button.Cancel") },
      ],
      rejectClose: false,
    });
    if (!choice || typeof choice !== "object") return null;
    try {
      if (choice.action === "aim") return await this.takeAim(token, choice.form.aim_for || "dice", choice.form.rollMode);
      return await this.attack(token, data, choice.form);
    } catch (error) {
      this.notifyFailure(error);
      return null;
    }
  }
}

// The card's buttons live in card-actions.mjs, the service's initiative in the tracker in
// tracker-initiative.mjs, the service's monitors on the sheets in monitor-sync.mjs; they are
// methods of the app all the same.
for (const mixin of [CardActions, TrackerInitiative, MonitorSync]) {
  for (const name of Object.getOwnPropertyNames(mixin.prototype)) {
    if (name !== "constructor") Object.defineProperty(FirefightApp.prototype, name, Object.getOwnPropertyDescriptor(mixin.prototype, name));
  }
}
