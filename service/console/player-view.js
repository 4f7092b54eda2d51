// A player's own view (issue 27): what a player's own link opens, made for a phone and the same,
// wider, on a desktop. Their actor's condition monitor and wound modifier, its guns and rounds,
// whose phase it is and what it has left, a one-tap attack on a target picked from a list or the
// map, their own dice rolled at the table (the console's dice walk, dice-entry.js), the result,
// and the feed of what happened to them; a switcher when they play several actors. The full
// table (every panel of the console) stays one tap away.
// It shows what the page already follows (the scene as this token sees it, the initiative, the
// events): a hidden actor never reaches it. It asks the service only to attack, and what an
// attack rolls while the player rolls it at the table.

import * as api from "./api.js";
import { requestByNames } from "./attack-form.js";
import { DiceWalk } from "./dice-entry.js";
import { FieldError } from "./fields.js";
import { leftText, nowText } from "./initiative.js";
import { distance } from "./geometry.js";
import { drawMonitor, INCAPACITATED, SERVICE_MONITORS, woundText } from "./monitors.js";
import { TargetMap } from "./player-map.js";
import { FORMS, renderResult, resultSummary, summarize } from "./result-view.js";
import { el, outcomeBadge } from "./results.js";

// Whether this tab shows the player's view or the full table, kept across a reload.
const VIEW_KEY = "firefight.console.view";
// The feed keeps the newest few: a phone's page stays short.
const FEED_ITEMS = 8;
// How deep an event's result is searched for an actor's name (results nest targets, damage, dice).
const MENTION_DEPTH = 6;
const words = (text) => String(text).replaceAll("_", " ");
const nameOf = (id, actor) => (actor?.name ? `${actor.name} (${id})` : id);

// Whether an event is about one of `ids`: it names one as its actor, or anywhere in its result
// (the attacker, a target, a defender, an actor of the initiative's order...).
export function mentions(event, ids) {
  if (ids.has(event.actor)) return true;
  const seen = (value, depth) => {
    if (typeof value === "string") return ids.has(value);
    if (!value || typeof value !== "object" || depth > MENTION_DEPTH) return false;
    return Object.values(value).some((inner) => seen(inner, depth + 1));
  };
  return seen(event.result, 0);
}

// A target's condition in a line ("9/10 physical, 0/9 stun; wounds -3"), from the monitor the
// service keeps (or "" when it keeps none).
function conditionLine(ruleset, monitor) {
  if (!monitor) return "";
  const status = monitor.status || {};
  const tracks = [];
  const track = (marked, size, name) => tracks.push(`${marked || 0}${size ? `/${size}` : ""} ${name}`);
  track(monitor.physical, status.physical_max, ruleset === "d100" ? "hit points lost" : "physical");
  if (ruleset !== "d100") track(monitor.stun, status.stun_max, "stun");
  const wound = status.wound_modifier ? `; wounds ${woundText(ruleset, status.wound_modifier)}` : "";
  const condition = status.condition && status.condition !== "ok" ? `; ${status.condition}` : "";
  return `${tracks.join(", ")}${wound}${condition}`;
}

// "heavy pistol, 8P, AP -1, SA": what a gun of the sheet is, in its ruleset's own numbers.
function weaponLine(weapon) {
  const parts = [];
  if (weapon.category) parts.push(words(weapon.category));
  if (weapon.damage !== undefined && weapon.damage !== null) parts.push(`${weapon.damage}${weapon.damage_type || ""}`);
  if (weapon.ap) parts.push(`AP ${weapon.ap}`);
  if (weapon.modes?.length) parts.push(weapon.modes.join("/"));
  return parts.join(", ");
}

export class PlayerView {
  // `session()`: the encounter joined ({id, token, role, player, damage}); `actors()`: the scene
  // as this token sees it (id -> actor); `attackForm`: the full table's attack form, opened on
  // this view's actor and target by "Full attack form".
  constructor({ root, session, actors, attackForm }) {
    this.root = root;
    this.session = session;
    this.actors = actors;
    this.attackForm = attackForm;
    this.active = false;
    this.current = null;
    this.picked = null;
    this.weapons = new Map();
    this.initiative = null;
    this.turn = "";
    this.lastResult = null;
    this.played = new Set();
    // Built when a player's own link first opens it: a GM's page never has it.
    this.parts = null;
  }

  part(name) {
    return this.parts.get(name);
  }

  build() {
    const part = (name, tag, attributes = {}, ...children) => el(tag, { ...attributes, dataPart: name }, ...children);
    this.toggle = part("toggle", "button", { type: "button", id: "pv-toggle", text: "The full table" });
    this.toggle.addEventListener("click", () => this.showTable(document.body.dataset.view !== "table"));
    this.mode = el("select", { id: "pv-mode" });
    this.mode.addEventListener("change", () => this.drawAttack());
    this.fire = el("button", { type: "submit", id: "pv-fire", class: "primary", text: "Attack" });
    this.rollButton = el("button", { type: "button", id: "pv-roll", "aria-describedby": "pv-roll-help", text: "Roll at the table" });
    this.rollButton.addEventListener("click", () => this.rollAtTable());
    const full = el("button", { type: "button", id: "pv-full-form", text: "Full attack form" });
    full.addEventListener("click", () => this.openFullForm());
    const attack = el("form", { class: "pv-attack-form", novalidate: true, "aria-labelledby": "pv-attack-heading" },
      el("h3", { id: "pv-attack-heading", text: "Attack" }),
      this.mapSvg(),
      el("h4", { id: "pv-targets-heading", text: "Targets" }),
      part("targets", "ul", { class: "pv-targets", "aria-labelledby": "pv-targets-heading" }),
      el("div", { class: "pv-field" }, el("label", { for: "pv-mode", text: "Firing mode" }), this.mode),
      part("turn-note", "p", { class: "pv-help", hidden: true }),
      part("error", "p", { class: "error", role: "alert", hidden: true }),
      el("div", { class: "pv-buttons" }, this.fire, this.rollButton, full),
      part("fire-help", "p", { class: "pv-help" }),
      el("p", { class: "pv-help", id: "pv-roll-help", text: "Roll at the table walks you through your own dice, step by step (faces, or hits and ones); the service rolls the rest." }));
    attack.addEventListener("submit", (event) => {
      event.preventDefault();
      this.attack();
    });
    // The walk through the dice, under the form while the player rolls (dice-entry.js).
    const walk = part("walk", "section", { id: "pv-walk", hidden: true });
    const result = part("result", "section", { class: "pv-card pv-result", hidden: true, "aria-labelledby": "pv-result-heading" },
      el("h3", { id: "pv-result-heading", tabindex: "-1", text: "Your attack" }),
      part("result-summary", "p", { class: "pv-summary", role: "status", "aria-live": "polite" }),
      part("result-targets", "ul", { class: "pv-result-targets" }),
      part("result-detail", "details", { class: "pv-detail" }, el("summary", { text: "Every number and die" })));
    const bar = el("div", { class: "pv-bar" }, part("bar-label", "p", { class: "pv-bar-label", text: "Your actor" }), this.toggle);
    const body = el("div", { class: "pv-body", dataPart: "body" },
        el("div", { class: "pv-column" },
          el("header", { class: "pv-card pv-actor" },
            part("heading", "h2", { id: "pv-heading", text: "Your actor" }),
            part("switcher", "div", { class: "pv-switcher", role: "group", "aria-label": "Your actors", hidden: true }),
            part("none", "p", { class: "pv-help", hidden: true, text: "None of your actors is on the scene: the GM gives them to you." })),
          el("section", { class: "pv-card pv-now", "aria-label": "The turn" },
            part("now", "p", { class: "pv-now-text", role: "status", "aria-live": "polite" }),
            part("left", "p", { class: "pv-help" })),
          el("section", { class: "pv-card", "aria-labelledby": "pv-monitor-heading" },
            el("h3", { id: "pv-monitor-heading", text: "Condition" }),
            part("wound", "p", { class: "pv-wound" }),
            part("monitor", "div", { class: "pv-monitor" })),
          el("section", { class: "pv-card", "aria-labelledby": "pv-weapons-heading" },
            el("h3", { id: "pv-weapons-heading", text: "Weapons" }),
            part("weapons", "fieldset", { class: "pv-weapons" })),
          // Last on a phone (after the attack and its result), under the actor on a desktop.
          el("section", { class: "pv-card pv-feed-card", "aria-labelledby": "pv-feed-heading" },
            part("feed-heading", "h3", { id: "pv-feed-heading", text: "What happened to you" }),
            el("div", { role: "log", "aria-live": "polite", "aria-labelledby": "pv-feed-heading" },
              part("feed", "ol", { class: "pv-feed" })))),
        el("div", { class: "pv-column" },
          part("attack", "section", { class: "pv-card" }, attack, walk),
          result));
    this.parts = new Map([body, ...bar.querySelectorAll("[data-part]"), ...body.querySelectorAll("[data-part]")].map((e) => [e.dataset.part, e]));
    this.root.replaceChildren(bar, body);
    this.map = new TargetMap({ svg: this.part("map"), onPick: (id) => this.pick(id) });
    this.walk = this.diceWalk(walk);
  }

  // The map's drawing (player-map.js); an SVG element, which `el` does not make.
  mapSvg() {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "pv-map");
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", "Map: tap another actor to pick it as the target");
    svg.dataset.part = "map";
    return svg;
  }

  // --- joining, leaving, the view shown ---------------------------------------------------

  // An encounter joined (`view`: its GET answer; `info`: its ruleset's entry in the ruleset
  // list): shown for a player's own link, a token bound to its actors; the full table otherwise.
  open(view, info) {
    const session = this.session();
    this.active = Boolean(session?.role === "player" && session.player);
    this.root.hidden = !this.active;
    if (!this.active) {
      delete document.body.dataset.view;
      return;
    }
    if (!this.parts) this.build();
    this.ruleset = FORMS[view.ruleset] || null;
    this.rulesetId = view.ruleset;
    this.info = info;
    this.walk.close();
    this.current = null;
    this.picked = null;
    this.weapons = new Map();
    this.initiative = null;
    this.lastResult = null;
    this.ended = false;
    // Every actor this player played since the page joined: the feed's replay of the
    // encounter's start passes through scenes where they were not theirs yet.
    this.played = new Set();
    this.part("feed").replaceChildren();
    this.part("result").hidden = true;
    this.part("error").hidden = true;
    this.part("attack").hidden = !this.ruleset;
    this.showTable(sessionStorage.getItem(VIEW_KEY) === "table");
    this.refresh();
  }

  close() {
    this.active = false;
    this.root.hidden = true;
    delete document.body.dataset.view;
  }

  // The full table (every panel) or this view; the page's other panels hide behind this one.
  // The view's body leaves the page while the table shows: its fields are not the table's.
  showTable(table) {
    if (!this.active) return;
    document.body.dataset.view = table ? "table" : "player";
    if (table) this.part("body").remove();
    else if (!this.part("body").isConnected) this.root.appendChild(this.part("body"));
    sessionStorage.setItem(VIEW_KEY, table ? "table" : "player");
    this.toggle.textContent = table ? `Back to ${this.current || "your actor"}` : "The full table";
    this.part("bar-label").textContent = table ? "The full table" : `Playing as ${this.session()?.player}`;
    if (!table) this.map.render();
  }

  openFullForm() {
    this.showTable(true);
    if (this.current) {
      this.attackForm.pickAttacker(this.current);
      if (this.picked && !this.attackForm.pick.targets.includes(this.picked)) this.attackForm.toggleTarget(this.picked);
    }
    const form = document.getElementById("attack");
    form?.scrollIntoView({ block: "start" });
    document.getElementById("attack-heading")?.setAttribute("tabindex", "-1");
    document.getElementById("attack-heading")?.focus({ preventScroll: true });
  }

  // --- what the page follows --------------------------------------------------------------

  // The actors this player plays, in the scene's order.
  own() {
    const player = this.session()?.player;
    return [...this.actors()].filter(([, actor]) => actor.controller === player);
  }

  // The scene changed (or was read again): everything drawn from it follows.
  refresh() {
    if (!this.active) return;
    const own = this.own();
    for (const [id] of own) this.played.add(id);
    if (!own.some(([id]) => id === this.current)) this.current = own[0]?.[0] || null;
    this.drawSwitcher(own);
    this.drawActor();
    this.drawTargets();
    this.drawResultTargets();
    this.drawNow();
  }

  // The initiative the service runs (null: none), as the initiative panel last read it.
  setInitiative(view) {
    this.initiative = view;
    this.drawNow();
  }

  // The turn in words (round.js turnText), as the encounter's facts show it.
  setTurn(text) {
    this.turn = text;
    this.drawNow();
  }

  onEvent(event) {
    if (!this.active) return;
    if (event.type === "encounter_ended") {
      this.ended = true;
      this.fire.disabled = true;
      this.part("fire-help").textContent = "The encounter has ended.";
    }
    if (event.type !== "encounter_ended" && !mentions(event, this.played)) return;
    const time = new Date(event.at);
    const item = el("li", { dataEventId: event.id, dataType: event.type },
      el("time", { datetime: event.at, text: Number.isNaN(time.valueOf()) ? event.at : time.toLocaleTimeString() }),
      " ",
      el("span", { class: "summary", text: summarize(event) }));
    const feed = this.part("feed");
    feed.prepend(item);
    while (feed.children.length > FEED_ITEMS) feed.lastElementChild.remove();
  }

  // --- drawing ----------------------------------------------------------------------------

  drawSwitcher(own) {
    const switcher = this.part("switcher");
    switcher.hidden = own.length < 2;
    switcher.replaceChildren(...own.map(([id, actor]) => {
      const button = el("button", { type: "button", dataActor: id, "aria-pressed": String(id === this.current), text: nameOf(id, actor) });
      button.addEventListener("click", () => {
        // A walk rolls the attack of the actor it started with: another actor starts again.
        if (id !== this.current) this.walk.close();
        this.current = id;
        this.picked = null;
        this.refresh();
        this.part("switcher").querySelector(`[data-actor="${CSS.escape(id)}"]`)?.focus();
      });
      return button;
    }));
    this.part("none").hidden = own.length > 0;
  }

  drawActor() {
    const id = this.current;
    const actor = id ? this.actors().get(id) : null;
    this.root.dataset.actor = id || "";
    this.part("heading").textContent = actor ? nameOf(id, actor) : "Your actor";
    this.part("feed-heading").textContent = actor ? `What happened to ${actor.name || id}` : "What happened to you";
    if (document.body.dataset.view === "table") this.toggle.textContent = `Back to ${id || "your actor"}`;
    const session = this.session();
    const kept = SERVICE_MONITORS.has(this.rulesetId) && session?.damage !== "vtt";
    const monitor = kept ? actor?.monitor : null;
    const status = monitor?.status || {};
    const wound = this.part("wound");
    const edge = actor?.sheet?.edge;
    const edgeText = edge !== undefined && edge !== null ? [" · Edge ", el("strong", { dataField: "edge", text: `${Math.max(0, edge - (actor.edge_spent || 0))}/${edge}` })] : [];
    if (monitor) {
      wound.replaceChildren("Wound modifier ", el("strong", { dataField: "wound_modifier", text: woundText(this.rulesetId, status.wound_modifier || 0) }),
        " · ", el("span", { dataField: "condition", text: status.condition || "ok" }), ...edgeText);
    } else {
      const why = !actor ? "" : this.rulesetId === "sr3-hardlife"
        ? "Hard Life's monitors are in the full table's Condition monitors panel."
        : "The VTT keeps the condition monitors.";
      wound.replaceChildren(why, ...edgeText);
    }
    this.part("monitor").replaceChildren(...(monitor ? [drawMonitor(id, this.rulesetId, monitor)] : []));
    this.drawWeapons(actor);
  }

  drawWeapons(actor) {
    const fieldset = this.part("weapons");
    const weapons = actor?.sheet?.weapons || [];
    const chosen = weapons.some((w) => w.id === this.weapons.get(this.current)) ? this.weapons.get(this.current) : weapons[0]?.id;
    if (chosen) this.weapons.set(this.current, chosen);
    const rows = weapons.map((weapon) => {
      const input = el("input", { type: "radio", name: "pv-weapon", id: `pv-weapon-${weapon.id}`, value: weapon.id });
      input.checked = weapon.id === chosen;
      input.addEventListener("change", () => {
        this.weapons.set(this.current, weapon.id);
        this.drawAttack();
      });
      return el("label", { class: "pv-weapon", for: input.id, dataWeapon: weapon.id }, input,
        el("span", { class: "pv-weapon-name", text: weapon.name || weapon.id }),
        el("span", { class: "pv-weapon-line", text: weaponLine(weapon) }),
        el("span", { class: "pv-ammo" }, el("span", { dataField: "ammo", text: String(weapon.ammo ?? "—") }), " rounds"));
    });
    fieldset.replaceChildren(el("legend", { class: "visually-hidden", text: "The gun to attack with" }),
      ...(rows.length ? rows : [el("p", { class: "pv-help", text: "No gun on this actor's sheet." })]));
  }

  weapon() {
    const weapons = this.actors().get(this.current)?.sheet?.weapons || [];
    return weapons.find((w) => w.id === this.weapons.get(this.current)) || null;
  }

  // The firing modes of the ruleset this gun has (zones are the full table's: they need an aim
  // point); the ruleset's default first where the gun has it.
  modes(weapon) {
    if (!this.ruleset) return [];
    const all = this.ruleset.modes(this.info).filter(([mode]) => !this.ruleset.isZoneMode(mode));
    const gun = weapon?.modes?.length ? all.filter(([mode]) => weapon.modes.includes(mode)) : all;
    const modes = gun.length ? gun : all;
    const first = modes.findIndex(([mode]) => mode === this.ruleset.defaultMode);
    return first > 0 ? [modes[first], ...modes.slice(0, first), ...modes.slice(first + 1)] : modes;
  }

  // The other actors this token sees, nearest first, each with its distance from this actor.
  others() {
    const scene = this.actors();
    const own = new Set(this.own().map(([id]) => id));
    const from = scene.get(this.current)?.position;
    return [...scene].filter(([id]) => !own.has(id)).map(([id, actor]) => ({
      id, actor, distance: from && actor.position ? distance(from, actor.position) : null,
    })).sort((a, b) => (a.distance ?? Infinity) - (b.distance ?? Infinity) || a.id.localeCompare(b.id));
  }

  drawTargets() {
    const others = this.others();
    const down = (actor) => INCAPACITATED.has(actor.monitor?.status?.condition);
    if (!others.some((o) => o.id === this.picked)) {
      // The nearest of the GM's actors still standing, or the nearest at all.
      const foe = others.find((o) => o.actor.controller === "gm" && !down(o.actor)) || others[0];
      this.picked = foe?.id || null;
    }
    const list = this.part("targets");
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.target : null;
    list.replaceChildren(...(others.length ? others.map(({ id, actor, distance: far }) => {
      const button = el("button", { type: "button", class: "pv-target", dataTarget: id, "aria-pressed": String(id === this.picked) },
        el("span", { class: "pv-target-name", text: nameOf(id, actor) }),
        el("span", { class: "pv-target-far", dataField: "distance", text: far === null ? "" : `${Math.round(far * 10) / 10} m` }),
        el("span", { class: "pv-target-state", dataField: "condition", text: conditionLine(this.rulesetId, actor.monitor) }));
      button.addEventListener("click", () => this.pick(id));
      return el("li", {}, button);
    }) : [el("li", { class: "pv-help", text: "Nobody else is on the scene you see." })]));
    if (focused) list.querySelector(`[data-target="${CSS.escape(focused)}"]`)?.focus();
    const scene = this.actors();
    this.map.draw([...scene].map(([id, actor]) => ({
      id,
      x: actor.position?.x || 0,
      y: actor.position?.y || 0,
      mine: actor.controller === this.session()?.player,
      current: id === this.current,
      picked: id === this.picked,
      down: down(actor) ? actor.monitor.status.condition : null,
      distance: others.find((o) => o.id === id)?.distance ?? null,
    })));
    this.drawAttack();
  }

  pick(id) {
    if (!this.others().some((o) => o.id === id)) return;
    this.picked = id;
    this.drawTargets();
  }

  // The firing mode and the buttons follow the actor, its gun and the target; while the player
  // rolls at the table, the walk's attack is the one under way.
  drawAttack() {
    const weapon = this.weapon();
    const before = this.mode.value;
    const modes = this.modes(weapon);
    this.mode.replaceChildren(...modes.map(([mode, label]) => new Option(label, mode)));
    if (modes.some(([mode]) => mode === before)) this.mode.value = before;
    this.fire.textContent = this.picked ? `Attack ${this.picked}` : "Attack";
    const ready = Boolean(this.ruleset && weapon && this.picked && this.current) && !this.ended;
    this.fire.disabled = !ready || this.walk.open;
    this.rollButton.disabled = !ready || this.walk.open;
    this.part("fire-help").textContent = this.ended
      ? "The encounter has ended."
      : weapon ? `With ${weapon.name || weapon.id} (${this.mode.value || "—"}), ${weapon.ammo ?? "—"} rounds loaded.` : "";
  }

  drawNow() {
    if (!this.active) return;
    const view = this.initiative;
    const own = new Set(this.own().map(([id]) => id));
    const now = this.part("now");
    const yours = Boolean(view && !view.over && own.has(view.current));
    now.dataset.yours = String(yours);
    if (view) {
      now.textContent = yours ? `Your phase: ${nowText(view)}` : nowText(view);
      this.part("left").textContent = leftText(view) || "The GM starts the next combat turn.";
    } else {
      now.textContent = this.turn ? `Now: ${this.turn}.` : "";
      this.part("left").textContent = "The GM runs the turn.";
    }
    const note = this.part("turn-note");
    const waiting = Boolean(view && !view.over && view.current && this.current && view.current !== this.current);
    note.hidden = !waiting;
    note.textContent = waiting ? `It is ${view.current}'s phase: ${this.current} attacks in its own.` : "";
  }

  // --- the attack -------------------------------------------------------------------------

  // The attack by names, as the view holds it (no dice: the service rolls what is not given);
  // null, the problem said at its field, when it cannot be read.
  request() {
    const weapon = this.weapon();
    this.part("error").hidden = true;
    if (!this.session() || !weapon || !this.picked) return null;
    try {
      return requestByNames(this.ruleset, {
        attacker: this.current, weapon, mode: this.mode.value, targets: [this.picked],
        position: (id) => this.actors().get(id)?.position || null,
      });
    } catch (problem) {
      this.showError(problem.message, problem instanceof FieldError ? problem.input : this.mode);
      return null;
    }
  }

  // One tap: the attack, every die rolled by the service.
  async attack() {
    const session = this.session();
    const body = this.request();
    if (!body) return;
    this.fire.disabled = true;
    this.root.setAttribute("aria-busy", "true");
    try {
      this.showResult(await api.resolveAttack(session.id, session.token, body));
    } catch (problem) {
      this.showError(`Not resolved: ${problem.describe?.() || problem.message}`, null);
    } finally {
      this.root.removeAttribute("aria-busy");
      this.drawAttack();
    }
  }

  // The same attack rolled at the table: the walk asks the service what it rolls and prompts the
  // steps that are this player's to give ("Sam: roll 8 dice"), each as faces or as hits and
  // ones; the others are the service's to roll (or every step, where the GM's dice policy lets
  // players give any), and the attack goes once the dice are in.
  diceWalk(container) {
    const withDice = (request, dice) => (Object.keys(dice).length ? { ...request, dice } : { ...request });
    const walk = new DiceWalk({
      container,
      session: this.session,
      id: "pv-walk",
      ask: (dice) => {
        const { id, token } = this.session();
        return api.diceNeeds(id, token, { attack: withDice(walk.request, dice) });
      },
      send: (dice) => {
        const { id, token } = this.session();
        return api.resolveAttack(id, token, withDice(walk.request, dice));
      },
      onAnswer: (answer) => this.showResult(answer),
      onClose: () => {
        this.drawAttack();
        this.rollButton.focus();
      },
    });
    return walk;
  }

  rollAtTable() {
    const request = this.request();
    if (!request) return;
    this.walk.start({ request, acting: this.current });
    this.drawAttack();
  }

  showError(message, input) {
    const alert = this.part("error");
    alert.textContent = message;
    alert.hidden = false;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  }

  showResult(answer) {
    const result = answer.result;
    this.lastResult = result;
    const section = this.part("result");
    section.hidden = false;
    section.dataset.event = answer.event_id;
    this.part("result-summary").textContent = resultSummary(result);
    const detail = this.part("result-detail");
    detail.open = false;
    detail.replaceChildren(detail.querySelector("summary"), renderResult(result));
    this.drawResultTargets();
    section.scrollIntoView({ block: "nearest" });
    section.querySelector("h3").focus({ preventScroll: true });
  }

  // Each target of the last attack: its outcome, the damage, and its monitor as the scene shows
  // it now (drawn again as the scene follows).
  drawResultTargets() {
    const result = this.lastResult;
    if (!result) return;
    const hits = result.targets || (result.target ? [result.target] : []);
    const scene = this.actors();
    const kept = SERVICE_MONITORS.has(this.rulesetId) && this.session()?.damage !== "vtt";
    this.part("result-targets").replaceChildren(...hits.map((hit) => {
      const damage = hit.damage;
      const boxes = damage?.boxes !== undefined
        ? [" · ", el("span", { dataField: "boxes", text: String(damage.boxes) }), ` ${damage.track || ""} boxes`]
        : [];
      const monitor = kept ? scene.get(hit.target)?.monitor : null;
      return el("li", { dataTarget: hit.target },
        el("p", {}, el("strong", { text: hit.target }), " ", outcomeBadge(hit.outcome), ...boxes),
        monitor ? drawMonitor(hit.target, this.rulesetId, monitor) : null);
    }));
  }
}
