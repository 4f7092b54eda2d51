// "firefight runs initiative", as FirefightApp's methods (mixed into its prototype): the active
// GM's client pushes Foundry's initiative rolls to the service and makes the combat tracker
// follow the service's order. What to send and what to change is src/initiative-sync.mjs.
//
// Foundry fires updateCombatant once per combatant, one after the other, before the combat
// sorts its turns again (ClientDatabaseBackend#_updateDocuments, then
// Combat#_onUpdateDescendantDocuments): a roll of several combatants ("Roll All") is gathered
// into one push. The pushes, the reads of the service's order and the tracker updates they make
// run one after the other, so each starts from what the one before it learned.

import {
  advancesWhileRunning, fromServiceOptions, isFromService, knownFromTurn, knownFromView, MODULE_ID, pushRequests,
  trackerScores, trackerUpdates,
} from "./initiative-sync.mjs";
import { RULESETS_WITH_PASSES } from "./combat-sync.mjs";

export class TrackerInitiative {
  /** Whether the GM chose that the service runs the initiative (world setting). */
  serviceRunsInitiative() {
    return this.settings().serviceInitiative === true;
  }

  queueInitiative(step) {
    this.initiativeQueue ??= Promise.resolve();
    const run = this.initiativeQueue.then(step);
    this.initiativeQueue = run.catch(() => {});
    return run;
  }

  /** The combat's encounter with the GM token, on the active GM's client with the setting on; else null. */
  initiativeTarget(combat) {
    if (!combat || !this.serviceRunsInitiative() || !this.isActiveGM()) return null;
    const flag = combat.getFlag?.(MODULE_ID, "encounter");
    // d100 has no initiative passes for the service to run: its tracker stays as it is.
    if (!flag?.id || !RULESETS_WITH_PASSES.has(flag.ruleset)) return null;
    const encounter = this.encounter(combat);
    if (!encounter?.gmToken) return null;
    return { flag, encounter, client: this.client() };
  }

  async rememberOrder(combat, known) {
    await combat.setFlag(MODULE_ID, "encounter.initiative", known);
    return known;
  }

  /**
   * updateCombatant: a combatant's initiative was rolled or changed. The combatants of one
   * update are pushed together, once they have all fired; the module's own updates are not.
   */
  initiativeChanged(combatant, changed, options = {}) {
    if (!("initiative" in (changed ?? {})) || isFromService(options)) return null;
    const combat = combatant.parent ?? combatant.combat ?? null;
    if (!this.initiativeTarget(combat)) return null;
    this.pushing ??= new Map();
    if (!this.pushing.has(combat.id)) {
      this.pushing.set(combat.id, Promise.resolve().then(() => {
        this.pushing.delete(combat.id);
        return this.queueInitiative(() => this.pushInitiative(combat));
      }));
    }
    return this.pushing.get(combat.id);
  }

  /** Send the tracker's scores to the service (see pushRequests); returns what was sent. */
  async pushInitiative(combat) {
    const target = this.initiativeTarget(combat);
    if (!target || combat.round < 1) return [];
    const { encounter, client } = target;
    const scores = trackerScores(combat.combatants, (c) => this.combatantId(c));
    let known = combat.getFlag(MODULE_ID, "encounter")?.initiative ?? null;
    const requests = pushRequests(known, scores, combat.round);
    for (const request of requests) {
      let answer;
      if (request.kind === "start") answer = await client.startInitiative(encounter.id, encounter.gmToken, request.body);
      else if (request.kind === "join") answer = await client.joinInitiative(encounter.id, encounter.gmToken, request.body);
      else answer = await client.leaveInitiative(encounter.id, encounter.gmToken, request.actor);
      known = knownFromTurn(answer?.changes?.turn, known, combat.round);
    }
    if (requests.length) await this.rememberOrder(combat, known);
    return requests;
  }

  /**
   * The service's order read again (after one of its events) and shown by the tracker: each
   * combatant's initiative the service's score, the combat's turn its acting actor's. Both
   * updates say they come from the service, so neither is sent back.
   */
  async followInitiative(combat) {
    const target = this.initiativeTarget(combat);
    if (!target) return null;
    const { encounter, client } = target;
    const view = await client.getInitiative(encounter.id, encounter.gmToken);
    const before = combat.getFlag(MODULE_ID, "encounter")?.initiative ?? null;
    const known = await this.rememberOrder(combat, knownFromView(view, before, combat.round));
    if (!known) return null;
    const { updates, current } = trackerUpdates(combat.combatants, known, (c) => this.combatantId(c));
    if (updates.length) await combat.updateEmbeddedDocuments("Combatant", updates, fromServiceOptions());
    // The turns are sorted again once the combatants are updated: the index is read after it.
    const turn = current ? combat.turns.findIndex((c) => c.id === current) : -1;
    if (turn >= 0 && turn !== combat.turn) await combat.update({ turn }, fromServiceOptions());
    return known;
  }

  /**
   * A tracker move while the setting is on (syncCombat's part): the module's own follow-ups are
   * only remembered; the combat starting with rolled initiative hands it to the service; while
   * the service runs it, a move by the GM asks it for that phase (a refusal says why and puts
   * the tracker back). Returns null when the service runs none: the tracker's advances go as before.
   * What the tracker showed is remembered as synced, except after a refusal: the tracker is not
   * there any more (the follow-up that put it back remembers where it is).
   */
  async syncWithServiceInitiative(combat, current, options, target) {
    const { flag, encounter, client } = target;
    const remember = () => combat.setFlag(MODULE_ID, "encounter.synced", current);
    if (isFromService(options)) {
      await remember();
      return [];
    }
    const known = flag.initiative ?? null;
    if (!known) {
      const starts = (flag.synced?.round ?? 0) < 1 && current.round >= 1;
      if (!starts || !trackerScores(combat.combatants, (c) => this.combatantId(c)).size) return null;
      const pushed = await this.queueInitiative(() => this.pushInitiative(combat));
      await remember();
      return pushed;
    }
    const advances = advancesWhileRunning(flag.synced ?? null, current, known);
    const sent = [];
    for (const body of advances) {
      try {
        await client.advance(encounter.id, encounter.gmToken, body);
        sent.push(body);
      } catch (error) {
        if (error?.status !== 409) throw error;
        this.notify("warn", "FIREFIGHT.Notify.InitiativeRefused", { detail: this.failureDetail(error) });
        await this.queueInitiative(() => this.followInitiative(combat));
        return sent;
      }
    }
    await remember();
    return sent;
  }
}
