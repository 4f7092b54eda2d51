// "Damage kept by: firefight's condition monitors" (the world setting `damageMode`): the service
// keeps every scene actor's condition monitor (docs/api.md) and the GM's client mirrors it onto
// the system's own tracks; a GM's edit of a track on a sheet goes back to the service as a
// monitor edit on the version the client read. With "Foundry sheets" (`vtt`, the default)
// nothing here runs and the sheets stay Foundry's, as before.
//
// One writer: only the active GM's client mirrors (after each event that can change a monitor,
// it reads the encounter again rather than guessing from the result), and it marks its own
// writes with the update option MIRROR_OPTION, which Foundry hands to every client's
// `updateActor` hook with the update (hookEvents.updateDocument: document, changed, options,
// userId), so a mirrored write is never sent back as an edit.

import { MODULE_ID } from "./settings.mjs";
import * as sr5 from "./sr5-actor.mjs";
import * as sr3e from "./sr3-actor.mjs";
import * as sr4e from "./sr4-actor.mjs";
import { sceneActorId } from "./scene-sync.mjs";

/** The update option that marks the mirror's own writes (`actor.update(data, {firefightMirror: true})`). */
export const MIRROR_OPTION = "firefightMirror";

/**
 * The events after which the monitors may have changed: an attack, an action (Second Chance
 * resolves an attack again), a zone test, a monitor edit, an undo, a state edit (a switch of the
 * damage mode settles every monitor).
 */
export const MONITOR_EVENTS = new Set(["attack", "action", "zone_test", "monitor", "undo", "state_edited"]);

/** The damage modes (schemas/monitor.py DamageMode). */
export const DAMAGE_MODES = ["service", "confirm", "vtt"];

/** Which ruleset's monitor each mapped system's tracks show (their paths per system version). */
const SYSTEMS = [
  { ruleset: "sr5", is: sr5.isShadowrunActor, paths: sr5.trackPaths },
  { ruleset: "sr4", is: sr4e.isSr4eActor, paths: sr4e.trackPaths },
  { ruleset: "sr3", is: sr3e.isSr3eActor, paths: sr3e.trackPaths },
];

const get = (object, path) => path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), object);

function boxes(value) {
  const n = Math.trunc(Number(value));
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * Where the actor's system keeps the tracks of an encounter of `ruleset`, in the system's
 * version (`game.system.version`): {physical, stun[, overflow]} paths, or null.
 */
export function trackPaths(actor, systemId, ruleset, systemVersion = undefined) {
  const system = SYSTEMS.find((s) => s.ruleset === ruleset && s.is(actor, systemId));
  return system ? system.paths({ version: systemVersion }) : null;
}

/**
 * The update that puts a service monitor on the actor's tracks: only the tracks that differ
 * (a track the monitor leaves out is 0: the service omits defaults); null when they all agree.
 */
export function mirrorUpdate(actor, { systemId, systemVersion, ruleset }, monitor) {
  const paths = trackPaths(actor, systemId, ruleset, systemVersion);
  if (!paths || !monitor) return null;
  const update = {};
  for (const [track, path] of Object.entries(paths)) {
    const value = boxes(monitor[track]);
    if (boxes(get(actor, path)) !== value) update[path] = value;
  }
  return Object.keys(update).length > 0 ? update : null;
}

/**
 * The tracks an update of the actor set, from the hook's differential data (expanded objects:
 * `{system: {track: {stun: {value: 3}}}}`), as a MonitorSet: `{"stun": 3}`; null when the update
 * touched no track value (any other change of the sheet is not the monitor's).
 */
export function editedTracks(actor, { systemId, systemVersion, ruleset }, changed) {
  const paths = trackPaths(actor, systemId, ruleset, systemVersion);
  if (!paths) return null;
  const set = {};
  for (const [track, path] of Object.entries(paths)) {
    const value = get(changed, path);
    if (value !== undefined && value !== null) set[track] = boxes(value);
  }
  return Object.keys(set).length > 0 ? set : null;
}

/** The tracks the sheet holds now, as a MonitorSet; null when they are all empty (or unmapped). */
export function sheetTracks(actor, { systemId, systemVersion, ruleset }) {
  const paths = trackPaths(actor, systemId, ruleset, systemVersion);
  if (!paths) return null;
  const set = Object.fromEntries(Object.entries(paths).map(([track, path]) => [track, boxes(get(actor, path))]));
  return Object.values(set).some((n) => n > 0) ? set : null;
}

/** Whether two monitors mark the same boxes on every track. */
export function sameTracks(a, b) {
  return ["physical", "stun", "overflow"].every((track) => boxes(a?.[track]) === boxes(b?.[track]));
}

function isStateChanged(error) {
  return error?.status === 409 && String(error.problem?.type ?? "").endsWith("/state-changed");
}

/** FirefightApp's monitor methods (mixed into its prototype, as CardActions). */
export class MonitorSync {
  /** The encounter's monitors, where this client keeps them: the active GM's, with the GM token, damage not "vtt". */
  monitorTarget(combat = this.game.combat, { activeOnly = true } = {}) {
    if (activeOnly ? !this.isActiveGM() : !this.game.user?.isGM) return null;
    const encounter = this.encounter(combat);
    if (!encounter?.gmToken || !encounter.damage || encounter.damage === "vtt") return null;
    const scene = this.sceneOfPlay(encounter.combat ?? combat);
    if (!scene) return null;
    return { encounter, scene, client: this.client(), systems: { systemId: this.game.system?.id, systemVersion: this.game.system?.version, ruleset: encounter.ruleset } };
  }

  /** Monitor reads and writes, one after the other (a mirror never interleaves with an edit). */
  queueMonitors(step) {
    this.monitorQueue ??= Promise.resolve();
    const run = this.monitorQueue.then(step);
    this.monitorQueue = run.catch(() => {});
    return run;
  }

  /** The tokens of the scene showing `actor` (a linked actor may have several), by the service's id. */
  tokensOfActor(scene, actor) {
    return [...(scene.tokens ?? [])].filter((token) => token.actor === actor).map((token) => sceneActorId(token));
  }

  /**
   * Read the encounter and remember, per encounter, its version and each actor's monitor: what
   * an edit is made on (its `version`) and what tells a hit that landed since from an unrelated
   * change.
   */
  async readMonitors(target) {
    const view = await target.client.getEncounter(target.encounter.id, target.encounter.gmToken);
    const monitors = Object.fromEntries(Object.entries(view.scene ?? {}).filter(([, a]) => a.monitor).map(([id, a]) => [id, a.monitor]));
    this.monitorsRead = { encounter: target.encounter.id, version: view.version, monitors };
    return this.monitorsRead;
  }

  /** Put each read monitor on its token's actor (marked as the mirror's). Returns the actor ids written. */
  async writeMirror(target, read) {
    const written = [];
    for (const token of target.scene.tokens ?? []) {
      const id = sceneActorId(token);
      const update = token.actor && read.monitors[id] ? mirrorUpdate(token.actor, target.systems, read.monitors[id]) : null;
      if (!update) continue;
      await token.actor.update(update, { [MIRROR_OPTION]: true });
      written.push(id);
    }
    return written;
  }

  /** The GM's client: every scene actor's monitor, read from the service, onto its sheet. */
  async mirrorMonitors(combat = this.game.combat) {
    const target = this.monitorTarget(combat);
    if (!target) return [];
    return this.queueMonitors(async () => this.writeMirror(target, await this.readMonitors(target)));
  }

  /**
   * The damage a token's sheet holds when the service takes its monitor over (a new token of the
   * scene, the scene's first sync, a switch to the service's monitors): set on the service's
   * monitor, so the first mirror does not wipe it.
   */
  async seedMonitor(target, tokenDocument) {
    const set = tokenDocument.actor ? sheetTracks(tokenDocument.actor, target.systems) : null;
    if (!set) return null;
    const body = { set, reason: this.localize("FIREFIGHT.Monitor.FromSheet") };
    return target.client.editMonitor(target.encounter.id, target.encounter.gmToken, sceneActorId(tokenDocument), body);
  }

  async seedAll(target) {
    const seeded = [];
    for (const token of target.scene.tokens ?? []) if (await this.seedMonitor(target, token)) seeded.push(sceneActorId(token));
    return seeded;
  }

  /** Every token's sheet damage onto the service's monitors, before any mirror reads them. */
  async seedMonitors(combat = this.game.combat) {
    const target = this.monitorTarget(combat);
    if (!target) return [];
    return this.queueMonitors(() => this.seedAll(target));
  }

  /**
   * updateActor (every client): a GM's own edit of a track on a sheet, on that GM's client, goes
   * to the service as `POST .../monitor {"set", "version"}`; never the mirror's write, another
   * user's update, or an update that changed no track. On 409 state-changed the client reads the
   * encounter again: when this actor's monitor is still what the sheet was mirrored from (the
   * version moved for something else, a token's move), the edit is sent again on the new version;
   * when it changed (a hit landed in between), the service's monitor is mirrored back and the GM
   * is told the edit was not sent.
   */
  async actorUpdated(actor, changed, options = {}, userId = null) {
    if (options?.[MIRROR_OPTION]) return null;
    if (!this.game.user?.isGM || userId !== this.game.user.id) return null;
    const target = this.monitorTarget(this.game.combat, { activeOnly: false });
    const set = target ? editedTracks(actor, target.systems, changed) : null;
    if (!set) return null;
    const ids = this.tokensOfActor(target.scene, actor);
    if (ids.length === 0) return null;
    return this.queueMonitors(async () => {
      let read = this.monitorsRead?.encounter === target.encounter.id ? this.monitorsRead : await this.readMonitors(target);
      const sent = [];
      for (const id of ids) {
        const known = read.monitors[id];
        const edit = (version) => target.client.editMonitor(target.encounter.id, target.encounter.gmToken, id, { set, version, reason: this.localize("FIREFIGHT.Monitor.FromSheetEdit") });
        let answer;
        try {
          answer = await edit(read.version);
        } catch (error) {
          if (!isStateChanged(error)) throw error;
          read = await this.readMonitors(target);
          if (!sameTracks(read.monitors[id], known)) {
            await this.writeMirror(target, read);
            this.notify("warn", "FIREFIGHT.Notify.MonitorMoved", { name: actor.name });
            continue;
          }
          answer = await edit(read.version);
        }
        read.version = answer.changes?.version ?? read.version;
        read.monitors[id] = answer.result?.monitor ?? read.monitors[id];
        sent.push(id);
      }
      return sent;
    });
  }

  /**
   * The world setting switched (onChange runs on every client; the active GM's acts): the
   * running encounter's `damage` follows it (`PUT .../state`), the combat's flag remembers it,
   * and when the service takes the monitors over, the sheets' damage seeds them and the
   * service's monitors are mirrored back. All of it in the monitors' queue: a mirror that the
   * switch's own event starts reads the monitors only once the sheets' damage is on them (else it
   * would write the fresh, empty monitors over the sheets before they were read).
   */
  async damageModeChanged(mode, combat = this.game.combat) {
    if (!this.isActiveGM()) return null;
    const encounter = this.encounter(combat);
    if (!encounter?.gmToken) return null;
    const seeded = await this.queueMonitors(async () => {
      await this.client().editState(encounter.id, encounter.gmToken, { damage: mode, reason: this.localize("FIREFIGHT.Monitor.Switched") });
      if (encounter.combat) await encounter.combat.setFlag(MODULE_ID, "encounter.damage", mode);
      const target = mode === "vtt" ? null : this.monitorTarget(combat);
      return target ? this.seedAll(target) : [];
    });
    if (mode === "vtt") return { damage: mode };
    const mirrored = await this.mirrorMonitors(combat);
    return { damage: mode, seeded, mirrored };
  }

  /**
   * "confirm": the card's Apply applies the damage the service holds for the target (the oldest
   * waiting on the same track with the same boxes: a pending damage names no event), once, as
   * the user's token allows (the GM, or the target's controller).
   */
  async applyPending(targetId, track, boxesDealt, message = null) {
    const encounter = this.requireEncounter();
    if (!encounter) return null;
    const { tokenDocument, actor } = this.targetActor(targetId);
    const name = this.shownName(tokenDocument, actor);
    // As with Foundry's own damage: the target's owner or the GM (the players' token would let
    // any player apply it to any players' actor).
    if (actor && !this.canAct(actor)) return this.notify("warn", "FIREFIGHT.Notify.NotOwner", { name });
    if (message && this.appliedRecord(message, targetId, actor)) return this.notify("info", "FIREFIGHT.Notify.AlreadyApplied", { name });
    const client = this.client();
    const sceneActor = await client.getActor(encounter.id, encounter.token, targetId);
    const pending = (sceneActor?.monitor?.pending ?? []).find((p) => p.track === track && p.boxes === boxesDealt);
    if (!pending) return this.notify("info", "FIREFIGHT.Notify.NothingPending", { name });
    const answer = await client.applyPending(encounter.id, encounter.token, targetId, pending.id);
    if (message) {
      const record = { track, boxes: boxesDealt, pending: pending.id, by: this.game.user?.id ?? null };
      if (message.isOwner) await message.setFlag(MODULE_ID, `applied.${targetId}`, record);
      else if (actor?.isOwner) await actor.setFlag(MODULE_ID, `applied.${message.id}.${targetId}`, record);
    }
    this.notify("info", "FIREFIGHT.Notify.DamageApplied", { boxes: boxesDealt, track: this.localize(`FIREFIGHT.Track.${track}`), name });
    return answer;
  }
}
