// The console's wiring: create or join an encounter, resolve attacks, run the round (turns,
// actions, zone tests), show results, follow events.

import * as api from "./api.js";
import { AttackForm } from "./attack-form.js";
import { attachWalk } from "./dice-entry.js";
import { CampaignPage, carriedText } from "./campaign.js";
import { EndControl } from "./ending.js";
import { RevealControl } from "./reveal.js";
import { ExpiryNotice } from "./expiry.js";
import { diceText, EventFeed, feedItem } from "./feed.js";
import { FightLog } from "./fight-log.js";
import { startTheme } from "./theme.js";
import { FieldError } from "./fields.js";
import { INITIATIVE_EVENTS, InitiativePanel } from "./initiative.js";
import { SceneMap } from "./map.js";
import { MonitorControls } from "./monitor-edit.js";
import { drawMonitor, INCAPACITATED, MONITOR_EVENTS, MonitorsPanel, SERVICE_MONITORS, woundText } from "./monitors.js";
import { OddsPanel } from "./odds.js";
import { PlayerView } from "./player-view.js";
import { GONE, isGone, keepAdminKey, RememberedEncounters, rememberedAdminKey } from "./remembered.js";
import { el } from "./results.js";
import { FORMS, renderResult, resultSummary, summarize } from "./result-view.js";
import { Roster } from "./roster.js";
import { UndoControl } from "./undo.js";
import { ActionForm, actorIds, TurnControls, turnText, ZoneTestForm } from "./round.js";

const SESSION_KEY = "firefight.console.session";
const $ = (id) => document.getElementById(id);

const state = { rulesets: [], encounter: null, feed: null };
// Who applies damage (the encounter's `damage`), as the encounter's facts say it.
const DAMAGE_MODES = {
  service: "the service keeps every actor's monitor",
  confirm: "the GM or the target's player confirms each hit",
  vtt: "kept by the VTT (no monitors here)",
};

// The panels an encounter shows; the turn panel only to a GM (see setRole).
const PANELS = ["attack", "action-panel", "turn-panel", "initiative-panel", "roster-panel", "map-panel", "monitors-panel", "result-panel", "feed-panel"];

const map = new SceneMap({
  svg: $("map"),
  positions: $("positions"),
  zoneList: $("zone-list"),
  grenadeList: $("grenade-list"),
  blastSummary: $("blast-summary"),
  status: $("map-status"),
  error: $("map-error"),
  sizeSelect: $("map-size"),
  onMove: () => {
    form.refreshDistances();
    odds.schedule();
  },
  onActorsChange: () => refreshActors(),
  onTestZone: (zone) => zoneTests.open(zone),
  onZonesChange: (zones) => zoneTests.zonesChanged(zones),
  onSceneMove: async (actor, position) => {
    const answer = await api.moveActor(state.encounter.id, state.encounter.token, actor, position);
    // A move into (or in) a zone whose ruleset tests on moves opens that zone's test (Hard Life).
    const [zone] = answer?.result?.must_test || [];
    if (zone && FORMS[state.encounter.ruleset]?.testsOnMove && map.zones.has(zone)) zoneTests.open(map.zones.get(zone), actor);
    return answer;
  },
  onPick: (actor) => pickFromMap(actor),
});
const form = new AttackForm({
  fields: $("attack-fields"),
  diceSteps: $("dice-steps"),
  map,
  scene: () => roster.actors,
  playable: () => roster.playable().map(([id]) => id),
  // A player's page with one armed actor attacks with it.
  autoPick: () => state.encounter?.role === "player",
  onPick: (attacker, targets) => {
    roster.showPicked(attacker, targets);
    odds.schedule();
  },
  onTargets: () => odds.schedule(),
});
// The attack's odds, live as the form changes: the body it would send, without given dice.
const odds = new OddsPanel({
  panel: $("attack-odds"),
  read: () => form.read({ preview: true }),
  ask: (body) => api.attackOdds(state.encounter.id, state.encounter.token, body),
});
for (const type of ["input", "change"]) $("attack-fields").addEventListener(type, () => odds.schedule());
// The encounter changed (this page's attack or anyone's event): recoil, aims, defenses and the
// scene are read again by the odds.
function refreshOdds() {
  if (!state.encounter || $("attack").hidden) return;
  odds.schedule();
  zoneTests.refreshOdds();
}
const session = () => state.encounter;
const onRoundAnswer = (answer) => {
  showResult(answer.result, answer.event_id, "your request");
  showTurn(answer.changes?.turn);
  bringResultIntoView();
};
// "Roll at the table": the attack's dice walked through step by step (dice-entry.js).
attachWalk({ form: $("attack-form"), kind: "attack", id: "attack-walk", read: () => form.read(), session, onAnswer: onRoundAnswer,
  post: (body) => api.resolveAttack(state.encounter.id, state.encounter.token, body) });
const turns = new TurnControls({
  panel: $("turn-panel"),
  map,
  session,
  onAnswer: onRoundAnswer,
  // A token joined by hand turned out to be a player's: no turn controls for it.
  onForbidden: () => setRole("player"),
});
const actions = new ActionForm({ form: $("action-form"), map, session, onAnswer: onRoundAnswer });
// The monitors the service keeps (sr5, sr4, sr3, d100 unless the encounter's damage is "vtt"):
// drawn in the roster under each actor, with the GM's edits and the pending damage.
const serviceMonitors = () => Boolean(state.encounter && SERVICE_MONITORS.has(state.encounter.ruleset) && state.encounter.damage !== "vtt");
const monitorControls = new MonitorControls({
  session,
  onAnswer: (answer) => {
    showResult(answer.result, answer.event_id, "your monitor change");
    readState();
  },
  onError: (message, input) => roster.showError(message, input),
  onStale: () => readState(),
});
function decorate(id, actor) {
  const monitor = serviceMonitors() ? actor.monitor : null;
  if (!monitor) return { badges: [], parts: [], down: null };
  const ruleset = state.encounter.ruleset;
  const status = monitor.status || {};
  const condition = status.condition || "ok";
  const badges = [];
  if (status.wound_modifier) {
    badges.push(el("span", { class: "badge wound", title: status.source || undefined },
      "wounds ", el("span", { dataField: "wound_modifier", text: woundText(ruleset, status.wound_modifier) })));
  }
  if (condition !== "ok") badges.push(el("span", { class: `badge condition ${condition}`, dataField: "condition", text: condition }));
  const parts = [drawMonitor(id, ruleset, monitor), monitorControls.pending(id, actor), monitorControls.editor(id, actor, ruleset)];
  return { badges, parts: parts.filter(Boolean), down: INCAPACITATED.has(condition) ? condition : null };
}
const roster = new Roster({
  panel: $("roster-panel"),
  session,
  decorate,
  onSceneResult: (result) => applySceneResult(result),
  onPickAttacker: (id) => form.pickAttacker(id),
  onToggleTarget: (id) => form.toggleTarget(id),
});
// The initiative the service runs: every console shows the order; the GM's runs it.
const initiative = new InitiativePanel({
  panel: $("initiative-panel"),
  session,
  actors: () => roster.actors,
  onAnswer: onRoundAnswer,
  onChange: (view) => {
    const acting = view && !view.over ? view.current : null;
    roster.setActing(acting);
    map.setActing(acting);
    phone.setInitiative(view);
    // An initiative event carries no turn: the order read after it says where the turn stands.
    if (view) showTurn({ combat_turn: view.combat_turn, initiative_pass: view.initiative_pass, action_phase: acting });
  },
  // A token joined by hand turned out to be a player's: no GM controls for it.
  onForbidden: () => setRole("player"),
});
// Hard Life's monitors of every actor, live from the events.
const monitors = new MonitorsPanel({ panel: $("monitors-panel"), session, onAnswer: onRoundAnswer, actors: () => roster.actors });
// The GM's Undo of the newest change, next to the feed.
const undo = new UndoControl({
  panel: $("undo-gm"),
  feed: $("feed"),
  session,
  summarize: (event) => summarize(event),
  onAnswer: (answer) => showResult(answer.result, answer.event_id, "your undo"),
  onForbidden: () => setRole("player"),
});
// The encounters this browser opened, listed on the start page to reopen with a click.
const remembered = new RememberedEncounters({
  list: $("remembered-list"),
  section: $("remembered"),
  onOpen: (entry) => join(entry.id, entry.token, entry.tokens, entry.role, entry.player),
});
// The campaign page (campaign.js): opens its encounters here, with the campaign's token.
const campaigns = new CampaignPage({
  forms: FORMS,
  rulesets: () => state.rulesets,
  onOpenEncounter: (id, token, tokens, role, player) => join(id, token, tokens, role, player),
});
// The GM's end of the encounter; a campaign's goes back to the campaign page, saying what the
// characters took back.
const ending = new EndControl({
  session,
  onEnded: async (answer) => {
    if (!answer) {
      say($("encounter-status"), "The encounter has ended.");
      return;
    }
    const skipped = Object.entries(answer.skipped || {}).map(([actor, why]) => `; ${actor} not: ${why}`).join("");
    await backToCampaign(`${state.encounter?.name || "The encounter"} ended: ${carriedText(answer.carried)}${skipped}.`);
  },
  onForbidden: () => setRole("player"),
});
const reveal = new RevealControl({ session, onForbidden: () => setRole("player") });
// The fight's events as a file (Markdown or JSON), for any token that joined.
new FightLog({ session, summarize: (event) => summarize(event), markdown: $("export-markdown"), json: $("export-json"), status: $("export-status") });
// When the encounter expires, where it does (Redis; the durable store with a TTL set).
const expiry = new ExpiryNotice({ kept: $("expiry"), warning: $("expiry-warning") });
const zoneTests = new ZoneTestForm({ form: $("zone-test-form"), map, session, attackForm: form, onAnswer: onRoundAnswer });
// A player's own link opens the view of their actor (on a phone, or wider on a desktop).
const phone = new PlayerView({ root: $("player-view"), session, actors: () => roster.actors, attackForm: form });

// The actor lists of the round's forms follow the map.
function refreshActors() {
  const ids = actorIds(map);
  turns.refreshActors(ids);
  actions.refreshActors(ids);
  zoneTests.refreshActors(ids);
}

function say(element, text, kind = "info") {
  element.textContent = text;
  element.dataset.kind = kind;
}

// A scene actor picked on the map: the attacker first (one this page may play, with a gun),
// then each other actor a target; the attacker again puts the pick back.
function pickFromMap(actor) {
  if (!form.byNames) {
    const sheet = roster.actors.get(actor)?.sheet;
    if (sheet?.weapons?.length && roster.playable().some(([id]) => id === actor)) form.pickAttacker(actor);
    else say($("map-status"), `${actor} cannot attack from this page: pick one of your armed actors first.`);
  } else if (actor === form.pick.attacker) {
    form.pickAttacker("");
  } else {
    form.toggleTarget(actor);
  }
}

// --- rulesets -----------------------------------------------------------------------------

async function loadRulesets() {
  const select = $("create-ruleset");
  try {
    state.rulesets = await api.listRulesets();
  } catch (error) {
    say($("encounter-status"), `The rulesets could not be loaded: ${error.describe?.() || error.message}`, "error");
    return;
  }
  select.replaceChildren(...state.rulesets.map((info) => {
    const option = new Option(FORMS[info.id] ? info.title : `${info.title} (no form in this console)`, info.id);
    option.disabled = !FORMS[info.id];
    return option;
  }));
  campaigns.setRulesets(state.rulesets);
}

const rulesetInfo = (id) => state.rulesets.find((info) => info.id === id);

// --- encounter ----------------------------------------------------------------------------

async function createEncounter(event) {
  event.preventDefault();
  const key = $("create-admin-key");
  if (!key.value.trim()) {
    key.setAttribute("aria-invalid", "true");
    say($("encounter-status"), "Type the admin key to create an encounter.", "error");
    key.focus();
    return;
  }
  key.removeAttribute("aria-invalid");
  say($("encounter-status"), "Creating…");
  try {
    const created = await api.createEncounter(key.value.trim(), $("create-ruleset").value, $("create-name").value.trim(), $("create-damage").value);
    // Kept only when the GM ticked the box; otherwise it leaves the page once used.
    if ($("remember-admin-key").checked) keepAdminKey(key.value.trim());
    else key.value = "";
    await join(created.id, created.tokens.gm, created.tokens, "gm");
  } catch (error) {
    say($("encounter-status"), `Not created: ${error.describe?.() || error.message}`, "error");
  }
}

async function joinFromForm(event) {
  event.preventDefault();
  const id = $("join-encounter");
  const token = $("join-token");
  for (const input of [id, token]) {
    if (!input.value.trim()) {
      input.setAttribute("aria-invalid", "true");
      say($("encounter-status"), `${input.labels[0].textContent}: required.`, "error");
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
  }
  try {
    // A token typed in may be the GM's or a player's: the encounter's view says which.
    await join(id.value.trim(), token.value.trim(), null, "unknown");
    token.value = "";
  } catch (error) {
    say($("encounter-status"), `Not joined: ${error.describe?.() || error.message}`, "error");
  }
}

// `player`: the player id of a player's own link (its page offers only that player's actors).
async function join(id, token, tokens = null, role = "player", player = null) {
  const view = await api.getEncounter(id, token);
  // A token typed in: the service says whose it is, before any control is shown.
  if (role === "unknown" && view.role) ({ role, player } = { role: view.role, player: view.player ?? player });
  leave({ keepStatus: true });
  state.encounter = { id, token, tokens, role, player, ruleset: view.ruleset, name: view.name, damage: view.damage, version: view.version, campaign: view.campaign || null };
  campaigns.hide();
  $("back-to-campaign").hidden = !view.campaign;
  ending.reset();
  reveal.reset();
  undo.reset();
  showDamage(view.damage);
  expiry.show(id, view);
  sessionStorage.setItem(SESSION_KEY, JSON.stringify({ id, token, tokens, role, player }));
  remembered.remember({ id, token, tokens, role, player, name: view.name, ruleset: view.ruleset });
  // The GM's controls are shown (or not) before any panel is: a player never sees them.
  setRole(role);

  $("info-name").textContent = view.name || "(unnamed)";
  $("info-ruleset").textContent = rulesetInfo(view.ruleset)?.title || view.ruleset;
  $("info-id").textContent = id;
  $("info-dice").textContent = diceText(view.dice);
  showTurn(view.turn);
  $("share").hidden = !tokens;
  if (tokens) {
    const link = new URL("/", location.href);
    link.hash = new URLSearchParams({ encounter: id, token: tokens.player }).toString();
    $("share-player-link").value = link.toString();
    $("share-gm-token").value = tokens.gm;
  }
  $("encounter-info").hidden = false;
  document.querySelector(".encounter-forms").hidden = true;
  $("encounter-summary").textContent = `${view.name || "Encounter"} — ${view.ruleset}`;
  for (const panel of ["roster-panel", "map-panel", "result-panel", "feed-panel"]) $(panel).hidden = false;

  const ruleset = FORMS[view.ruleset];
  // A ruleset may draw with data the service serves (Hard Life's body map).
  if (ruleset?.loadDetail) {
    try {
      await ruleset.loadDetail(await api.getRuleset(view.ruleset));
    } catch (error) {
      say($("encounter-status"), `The ruleset's detail could not be read: ${error.describe?.() || error.message}`, "error");
    }
  }
  $("attack").hidden = !ruleset;
  $("action-panel").hidden = !ruleset;
  turns.setRuleset(ruleset);
  roster.setRuleset(ruleset);
  initiative.setRuleset(view.ruleset, rulesetInfo(view.ruleset));
  zoneTests.setRuleset(ruleset);
  monitors.setRuleset(ruleset);
  if (ruleset) {
    form.setRuleset(ruleset, rulesetInfo(view.ruleset));
    actions.setRuleset(ruleset, rulesetInfo(view.ruleset));
  }
  setRole(role);
  phone.open(view, rulesetInfo(view.ruleset));
  say($("encounter-status"), ruleset
    ? `Joined ${view.name || id}.`
    : `Joined ${view.name || id}; this console has no attack form for ${view.ruleset}: the feed still follows it.`);

  map.setZones(await api.getZones(id, token));
  setScene(view.scene || await api.getActors(id, token));
  $("feed").replaceChildren();
  state.feed = new EventFeed({
    encounter: id,
    token,
    onEvent,
    onStatus: (text, kind) => {
      say($("feed-status"), text, kind);
      $("feed-status").dataset.state = kind;
    },
  });
  state.feed.start();
  initiative.refresh({ turn: view.turn });
  monitors.refresh();
  refreshOdds();
}

function leave({ keepStatus = false } = {}) {
  odds.stop();
  phone.close();
  state.feed?.stop();
  state.feed = null;
  state.encounter = null;
  expiry.clear();
  sessionStorage.removeItem(SESSION_KEY);
  $("encounter-info").hidden = true;
  $("campaigns").hidden = false;
  document.querySelector(".encounter-forms").hidden = false;
  for (const panel of PANELS) $(panel).hidden = true;
  $("encounter-summary").textContent = "No encounter yet: create one or join one.";
  if (!keepStatus) say($("encounter-status"), "Left the encounter.");
}

// Advancing the turn is the GM's: a player's page has no turn controls.
function setRole(role) {
  if (!state.encounter) return;
  state.encounter.role = role;
  const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
  if (saved) sessionStorage.setItem(SESSION_KEY, JSON.stringify({ ...saved, role }));
  remembered.setRole(state.encounter.id, state.encounter.token, role);
  $("turn-panel").hidden = role === "player";
  // Undo is the GM's; a token joined by hand keeps it until the service refuses it.
  undo.setRole(role);
  ending.setRole(role);
  reveal.setRole(role);
  roster.setRole(role);
  initiative.setRole(role);
  monitors.setRole(role);
  if (role === "player") say($("encounter-status"), "This is a player token: only the GM advances the turn.");
}

// From an encounter of a campaign back to the campaign's page, with the token this browser keeps
// for it (the campaign's token opened the encounter too, unless its own was typed in).
async function backToCampaign(note = "") {
  const { campaign, token } = state.encounter || {};
  if (!campaign) return;
  const campaignToken = campaigns.tokenFor(campaign) || token;
  leave({ keepStatus: true });
  try {
    await campaigns.open(campaign, campaignToken, note);
  } catch (error) {
    say($("encounter-status"), `The campaign could not be opened: ${error.describe?.() || error.message}`, "error");
  }
}

function showDamage(damage) {
  $("info-damage").textContent = DAMAGE_MODES[damage] || damage || "";
}

// The encounter read again after a change (an event, an edit, an undo): the scene with its
// monitors, the turn, and the version the GM's next monitor edit is made on. Only the newest
// read is shown when two cross.
let reads = 0;
async function readState() {
  const { id, token } = state.encounter || {};
  if (!id) return;
  reads += 1;
  const read = reads;
  try {
    const view = await api.getEncounter(id, token);
    if (read !== reads || state.encounter?.id !== id) return;
    Object.assign(state.encounter, { version: view.version, damage: view.damage });
    showDamage(view.damage);
    expiry.show(id, view);
    showTurn(view.turn);
    setScene(view.scene || {});
  } catch (error) {
    if (read === reads) say($("map-status"), `The encounter could not be read: ${error.describe?.() || error.message}`, "error");
  }
}

// An undo took back a change: everything it may have changed is read again (the initiative
// and Hard Life's monitors follow it as they follow any event).
async function afterUndo() {
  const { id, token } = state.encounter || {};
  if (!id) return;
  readState();
  try {
    map.setZones(await api.getZones(id, token));
  } catch (error) {
    say($("map-status"), `The zones could not be read: ${error.describe?.() || error.message}`, "error");
  }
}

function showTurn(turn) {
  if (!turn) return;
  const text = turnText(turn, { passes: FORMS[state.encounter?.ruleset]?.hasPasses ?? true });
  $("info-turn").textContent = text;
  $("turn-now").textContent = text;
  phone.setTurn(text);
}

// --- attacks and results ------------------------------------------------------------------

async function resolve(event) {
  event.preventDefault();
  const error = $("attack-error");
  error.hidden = true;
  let body;
  try {
    body = form.read();
  } catch (problem) {
    if (!(problem instanceof FieldError)) throw problem;
    showError(problem.message, problem.input);
    return;
  }
  const button = $("resolve");
  button.disabled = true;
  $("attack-form").setAttribute("aria-busy", "true");
  try {
    const answer = await api.resolveAttack(state.encounter.id, state.encounter.token, body);
    showResult(answer.result, answer.event_id, "your attack");
    showTurn(answer.changes?.turn);
    bringResultIntoView();
  } catch (problem) {
    showError(`Not resolved: ${problem.describe?.() || problem.message}`, form.inputForPath(problem.problem?.path));
  } finally {
    button.disabled = false;
    $("attack-form").removeAttribute("aria-busy");
  }
}

function showError(message, input) {
  const error = $("attack-error");
  error.textContent = message;
  error.hidden = false;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.closest("details")?.setAttribute("open", "");
    input.focus();
  }
}

// The last grenade that went off, drawn on the map with its scatter: an attack's at once
// (airburst), or the last of those an advance, an initiative change or a held action set off.
function showBlast(result) {
  const blast = result?.blast || result?.went_off?.at(-1) || result?.attack?.blast;
  if (blast) map.showBlast(blast, result.blast ? result.scatter : null);
  else if (result?.scatter) map.showBlast(null, result.scatter);
}

function showResult(result, eventId, origin) {
  showBlast(result);
  $("result").replaceChildren(el("p", { class: "origin", text: `Event ${eventId}, ${origin}.` }), renderResult(result));
  $("result").dataset.event = eventId;
  say($("result-summary"), resultSummary(result));
}

function setScene(actors) {
  map.setScene(actors);
  roster.setScene(actors);
  monitors.sceneChanged();
  initiative.refreshActors();
  form.refreshScene();
  phone.refresh();
  refreshOdds();
}

// A scene change, from its event or from the answer to this page's own request. "hidden" says no
// more than that (the players are told nothing of it), and a player's link changes controllers
// without saying which: what this token may see of the scene now is read again.
function applySceneResult(result) {
  if (!result || result.change === "hidden") {
    refreshScene();
    return;
  }
  map.applyScene(result);
  roster.applyScene(result);
  monitors.sceneChanged();
  initiative.refreshActors();
  form.refreshScene();
  phone.refresh();
  refreshOdds();
}

async function refreshScene() {
  const { id, token } = state.encounter || {};
  if (!id) return;
  try {
    setScene(await api.getActors(id, token));
  } catch (error) {
    say($("map-status"), `The scene could not be read: ${error.describe?.() || error.message}`, "error");
  }
}

// The answer to what this page sent is where the player looks next: scrolled to, its heading
// focused (a screen reader reads on from there; the summary is announced as well).
function bringResultIntoView() {
  $("result-panel").scrollIntoView({ block: "start" });
  $("result-heading").focus({ preventScroll: true });
}

// --- the feed -----------------------------------------------------------------------------

// What may have spent Edge, which the roster shows on each actor (sr5, sr4), with the
// monitors the service keeps or without.
const EDGE_EVENTS = new Set(["attack", "action", "zone_test"]);
const spentEdge = (event) => EDGE_EVENTS.has(event.type) && ["sr5", "sr4"].includes(state.encounter?.ruleset);

function onEvent(event) {
  map.applyZoneChanges(event.zones_started || [], event.zones_ended || []);
  showBlast(event.result);
  if (event.type === "scene") applySceneResult(event.result);
  if (event.type === "players") refreshScene();
  if (event.result?.turn) showTurn(event.result.turn);
  if (event.commitment) $("info-dice").textContent = diceText(event.commitment);
  if (INITIATIVE_EVENTS.has(event.type)) initiative.refresh({ event });
  if (MONITOR_EVENTS.has(event.type)) monitors.refresh();
  // The service's monitors, and the version an edit is made on, follow every change.
  if (event.type === "undo") afterUndo();
  // A target knocked back stands elsewhere now (Hard Life): the scene is read again.
  else if (serviceMonitors() || event.type === "state_edited" || spentEdge(event) || event.result?.target?.knock_back_m) readState();
  refreshOdds();
  const item = feedItem(event, summarize(event), () => {
    showResult(event.result, event.id, `${event.type} from the feed`);
    $("result-heading").focus();
  });
  const feed = $("feed");
  feed.prepend(item);
  while (feed.children.length > 200) feed.lastElementChild.remove();
  undo.note(event);
  expiry.note(event);
  phone.onEvent(event);
  if (event.type === "encounter_ended") {
    for (const panel of ["attack", "action-panel", "turn-panel"]) $(panel).hidden = true;
    $("initiative-gm").hidden = true;
    odds.stop();
    zoneTests.close();
    ending.ended();
    reveal.ended();
    say($("encounter-status"), "The encounter has ended.");
  }
}

// --- start --------------------------------------------------------------------------------

async function start() {
  startTheme($("theme-toggle"));
  // The skip link lands on the attack form itself: focused, so Tab goes on from there.
  document.querySelector("a.skip").addEventListener("click", (event) => {
    if ($("attack").hidden) return;
    event.preventDefault();
    $("attack").focus();
  });
  $("create-form").addEventListener("submit", createEncounter);
  $("join-form").addEventListener("submit", joinFromForm);
  $("attack-form").addEventListener("submit", resolve);
  $("leave").addEventListener("click", () => {
    leave();
    campaigns.forgetSession();
  });
  $("back-to-campaign").addEventListener("click", () => backToCampaign());
  $("copy-player-link").addEventListener("click", async () => {
    const link = $("share-player-link");
    try {
      await navigator.clipboard.writeText(link.value);
      say($("encounter-status"), "Player link copied.");
    } catch {
      link.select();
      say($("encounter-status"), "Copy the selected link (the browser refused the clipboard).");
    }
  });
  $("remember-admin-key").addEventListener("change", (event) => {
    // Unticked: forgotten at once. Ticked: kept from the next encounter created.
    if (!event.target.checked) keepAdminKey(null);
  });
  const adminKey = rememberedAdminKey();
  if (adminKey) {
    $("create-admin-key").value = adminKey;
    $("remember-admin-key").checked = true;
  }
  remembered.draw();
  await loadRulesets();

  // A player link carries the encounter and its token in the fragment, which never reaches a
  // server; it is taken out of the address bar once read.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
  const campaign = campaigns.fromAddress(fragment);
  try {
    if (fragment.get("encounter") && fragment.get("token")) {
      history.replaceState(null, "", location.pathname + location.search);
      // A player link carries the player token.
      await join(fragment.get("encounter"), fragment.get("token"), null, "player", fragment.get("player"));
    } else if (campaign?.token) {
      await campaigns.openAtStart(campaign);
    } else if (!saved && campaigns.saved()) {
      await campaigns.openAtStart(campaigns.saved());
    } else if (saved) {
      await join(saved.id, saved.token, saved.tokens, saved.role || (saved.tokens ? "gm" : "unknown"), saved.player);
    }
  } catch (error) {
    sessionStorage.removeItem(SESSION_KEY);
    // This tab's own token opened it before: a refusal now means the service lost it.
    say($("encounter-status"), saved && isGone(error) ? GONE : `Not joined: ${error.describe?.() || error.message}`, "error");
  }
  document.body.dataset.ready = "true";
}

start();
