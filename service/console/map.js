// The scene map: actors placed in metres (dragged, or moved with the arrow keys), the live
// suppression zones drawn on it, and who stands inside each. y points up, as on the scene plane.

import { blastRings, distance, insideZone, isGrenade, round1 } from "./geometry.js";
import { INCAPACITATED } from "./monitors.js";

const SVG = "http://www.w3.org/2000/svg";
const ROLE_NAMES = { attacker: "attacker", target: "target", aim: "suppressive fire aim point", scene: "on the scene" };

function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

// Unconscious, dying or dead: marked on the map.
const isDown = (actor) => INCAPACITATED.has(actor.scene?.condition);

export class SceneMap {
  // `onActorsChange()`: actors were placed, renamed or removed; `onTestZone(zone)`: the
  // zone list's Test button of that zone; `onZonesChange(zones)`: zones started or ended;
  // `onSceneMove(id, position)`: a scene actor was dropped somewhere, a promise of the service's
  // answer (a refusal puts it back where it was).
  // `onPick(id)`: a scene actor clicked (not dragged), or Enter on it: picked for the attack.
  constructor({ svg, positions, zoneList, grenadeList, blastSummary, status, error, sizeSelect, onMove, onActorsChange, onTestZone, onZonesChange, onSceneMove, onPick }) {
    this.svg = svg;
    this.grenadeList = grenadeList;
    this.blastSummary = blastSummary;
    // The last grenade that went off (SR4BlastResult) and the scatter that put it there; the
    // barriers the attack form gives, drawn before they are sent.
    this.blast = null;
    this.scatter = null;
    this.barriers = [];
    this.onPick = onPick;
    this.error = error;
    this.onSceneMove = onSceneMove;
    this.onTestZone = onTestZone;
    this.positions = positions;
    this.zoneList = zoneList;
    this.status = status;
    this.onMove = onMove;
    this.actors = new Map();
    this.zones = new Map();
    this.elements = new Map();
    // Whose phase it is in the initiative the service runs, drawn ringed.
    this.acting = null;
    // An area being drawn (Hard Life's suppression fire): each click on the map is a corner.
    this.areaDrawing = null;
    this.draftArea = [];
    // A click on the map itself (not on an actor) puts the aim point there, when there is one,
    // or the next corner of the area being drawn.
    svg.addEventListener("click", (event) => {
      if (event.target.closest?.(".actor")) return;
      const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(this.svg.getScreenCTM().inverse());
      const snap = this.step / 2;
      const at = { x: Math.round(point.x / snap) * snap, y: Math.round(-point.y / snap) * snap };
      if (this.areaDrawing) {
        this.areaDrawing(at);
        return;
      }
      const aim = [...this.actors.values()].find((actor) => actor.role === "aim");
      if (!aim) return;
      this.move(aim.id, at);
    });
    this.width = Number(sizeSelect.value);
    sizeSelect.addEventListener("change", () => {
      this.width = Number(sizeSelect.value);
      this.render();
    });
    this.render();
    // Set after the first drawing: the page's other parts do not exist yet.
    this.onActorsChange = onActorsChange;
    this.onZonesChange = onZonesChange;
  }

  get height() {
    return this.width * 0.6;
  }

  get bounds() {
    const minX = -0.1 * this.width;
    return { minX, maxX: minX + this.width, minY: -this.height / 2, maxY: this.height / 2 };
  }

  setActing(id) {
    if (id === this.acting) return;
    this.acting = id;
    for (const [actorId, element] of this.elements) {
      element.classList.toggle("acting", actorId === id);
      this.update(this.actors.get(actorId));
    }
  }

  // One arrow key press moves this far; Shift moves five times as far.
  get step() {
    return Math.max(1, this.width / 100);
  }

  attacker() {
    return [...this.actors.values()].find((actor) => actor.role === "attacker") || null;
  }

  position(id) {
    const actor = this.actors.get(id);
    return actor ? { x: actor.x, y: actor.y } : null;
  }

  distanceFromAttacker(id) {
    const attacker = this.attacker();
    const actor = this.actors.get(id);
    if (!attacker || !actor) return null;
    return round1(distance(attacker, actor));
  }

  // Puts an actor on the map (or keeps it where it is when it is already there).
  place(id, role, at) {
    const existing = this.actors.get(id);
    if (existing) {
      existing.role = role;
    } else {
      const { x, y } = this.clamp(at);
      this.actors.set(id, { id, role, x, y });
    }
    this.render();
  }

  rename(oldId, newId) {
    const actor = this.actors.get(oldId);
    if (!actor || oldId === newId || this.actors.has(newId)) return false;
    if (actor.scene) {
      // A typed-in actor renamed away from a scene actor's id: the scene actor stays as it is.
      this.actors.set(newId, { id: newId, role: actor.role, x: actor.x, y: actor.y });
      actor.role = "scene";
      this.render();
      return true;
    }
    actor.id = newId;
    // Same place in the order: the positions table does not jump about.
    this.actors = new Map([...this.actors].map(([id, each]) => [id === oldId ? newId : id, each]));
    this.render();
    return true;
  }

  // A form's actor that is also on the scene stays on the map: only its role in the attack goes.
  remove(id) {
    const actor = this.actors.get(id);
    if (actor?.scene) {
      actor.role = "scene";
      this.render();
    } else if (this.actors.delete(id)) {
      this.render();
    }
  }

  // --- the scene: the encounter's actors, the same on every console --------------------------

  // The scene as `GET .../actors` answers it, replacing the scene actors drawn before.
  setScene(actors) {
    for (const [id, actor] of [...this.actors]) {
      if (actor.scene && !(id in actors)) this.dropSceneActor(id);
    }
    for (const [id, state] of Object.entries(actors)) this.setSceneActor(id, state);
    this.render();
  }

  // One `scene` event's result: an actor set, patched, moved, hidden from players or removed.
  applyScene(result) {
    if (!result?.actor) return;
    if (result.change === "removed" || !result.state) this.dropSceneActor(result.actor);
    else this.setSceneActor(result.actor, result.state);
    this.render();
  }

  setSceneActor(id, state) {
    // Its condition as its monitor says (schemas/monitor.py): "ok" unless the service keeps one.
    const condition = state.monitor?.status?.condition || "ok";
    const scene = { name: state.name || "", controller: state.controller || "gm", hidden: Boolean(state.hidden), condition };
    const existing = this.actors.get(id);
    const at = state.position ? { x: round1(state.position.x), y: round1(state.position.y) } : null;
    if (existing) {
      existing.scene = scene;
      if (at) Object.assign(existing, at);
    } else {
      this.actors.set(id, { id, role: "scene", scene, ...(at || this.clamp({ x: 0, y: 0 })) });
    }
  }

  dropSceneActor(id) {
    const actor = this.actors.get(id);
    if (!actor) return;
    if (actor.role === "scene") this.actors.delete(id);
    else delete actor.scene;
  }

  sceneActors() {
    return [...this.actors.values()].filter((actor) => actor.scene);
  }

  // A scene actor was dropped, moved by a key or typed in: the service is asked to move it, and
  // every console (this one too) follows its event. Refused, it goes back.
  async commitMove(id, before) {
    const actor = this.actors.get(id);
    if (!actor?.scene || !this.onSceneMove) return;
    const to = { x: actor.x, y: actor.y };
    if (to.x === before.x && to.y === before.y) return;
    if (this.error) this.error.hidden = true;
    try {
      await this.onSceneMove(id, to);
    } catch (problem) {
      const now = this.actors.get(id);
      if (now && now.x === to.x && now.y === to.y) this.move(id, before, { announce: false });
      if (this.error) {
        this.error.textContent = `${id} was not moved: ${problem.describe?.() || problem.message}`;
        this.error.hidden = false;
      }
    }
  }

  // The zones the encounter has now, replacing what was drawn.
  setZones(zones) {
    this.zones = new Map(zones.map((zone) => [zone.id, zone]));
    this.zoneList.replaceChildren();
    this.render();
    this.onZonesChange?.(this.zones);
  }

  applyZoneChanges(started = [], ended = []) {
    for (const zone of started) this.zones.set(zone.id, zone);
    for (const id of ended) this.zones.delete(id);
    if (started.length || ended.length) {
      this.render();
      this.onZonesChange?.(this.zones);
    }
  }

  whoIsInside(zone) {
    return [...this.actors.values()]
      // The shooter stands at the apex of its own triangle: on its edge, but not under its fire.
      .filter((actor) => actor.role !== "aim" && actor.id !== zone.shooter && insideZone(zone, actor))
      .map((actor) => actor.id);
  }

  clamp({ x, y }) {
    const b = this.bounds;
    return {
      x: round1(Math.min(b.maxX, Math.max(b.minX, x))),
      y: round1(Math.min(b.maxY, Math.max(b.minY, y))),
    };
  }

  move(id, to, { announce = true } = {}) {
    const actor = this.actors.get(id);
    if (!actor) return;
    Object.assign(actor, this.clamp(to));
    this.update(actor);
    if (announce) this.status.textContent = this.describe(actor);
    this.onMove?.(id);
  }

  describe(actor) {
    const hidden = actor.scene?.hidden ? ", hidden from the players" : "";
    const acting = actor.id === this.acting ? ", acting now" : "";
    const down = isDown(actor) ? `, ${actor.scene.condition}` : "";
    let text = `${actor.id} (${ROLE_NAMES[actor.role] || actor.role}${hidden}${down}${acting}) at x ${actor.x} m, y ${actor.y} m`;
    const attacker = this.attacker();
    if (attacker && actor !== attacker && actor.role !== "aim") {
      text += `, ${round1(distance(attacker, actor))} m from ${attacker.id}`;
    }
    return `${text}.`;
  }

  // --- drawing ---------------------------------------------------------------------------

  render() {
    const b = this.bounds;
    const svg = this.svg;
    const focused = document.activeElement?.dataset?.actor;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `${b.minX} ${-b.maxY} ${this.width} ${this.height}`);
    svg.appendChild(this.grid());
    const zoneLayer = svgElement("g", { class: "zones", "aria-hidden": "true" });
    for (const zone of this.zones.values()) zoneLayer.appendChild(this.zoneShape(zone));
    svg.appendChild(zoneLayer);
    if (this.draftArea.length) {
      const points = this.draftArea.map((p) => `${p.x},${-p.y}`).join(" ");
      const draft = svgElement(this.draftArea.length >= 3 ? "polygon" : "polyline", { class: "draft-area", points, "aria-hidden": "true" });
      svg.appendChild(draft);
    }
    svg.appendChild(this.blastLayer());
    this.elements.clear();
    const actorLayer = svgElement("g", { class: "actors" });
    for (const actor of this.actors.values()) {
      const element = this.actorElement(actor);
      this.elements.set(actor.id, element);
      actorLayer.appendChild(element);
    }
    svg.appendChild(actorLayer);
    for (const actor of this.actors.values()) this.update(actor);
    if (focused && this.elements.has(focused)) this.elements.get(focused).focus();
    this.renderPositions();
    this.renderZoneList();
    this.renderGrenades();
    this.onActorsChange?.();
  }

  // --- grenades (sr4): the held ones are zones of kind "grenade (...)"; the last blast -----

  // A blast that went off, with the scatter that brought it there (an attack's), or none.
  showBlast(blast, scatter = null) {
    this.blast = blast;
    this.scatter = scatter;
    this.render();
  }

  // `onPoint(point)`: a click on the map adds that corner (null: no area is drawn); `points`: the
  // corners so far, drawn dashed.
  setAreaDrawing(onPoint, points = []) {
    const before = JSON.stringify(this.draftArea);
    this.areaDrawing = onPoint;
    this.draftArea = onPoint ? points : [];
    if (JSON.stringify(this.draftArea) !== before) this.render();
  }

  setBarriers(barriers) {
    this.barriers = barriers || [];
    this.render();
  }

  blastLayer() {
    const g = svgElement("g", { class: "blast", "aria-hidden": "true" });
    const fell = new Set((this.blast?.barriers || []).filter((b) => !b.holds).map((b) => b.barrier));
    for (const barrier of this.blast?.barriers?.length ? this.barriersOfBlast() : this.barriers) {
      g.appendChild(svgElement("line", {
        class: `barrier${fell.has(barrier.id) ? " fell" : ""}`, "data-barrier": barrier.id,
        x1: barrier.start.x, y1: -barrier.start.y, x2: barrier.end.x, y2: -barrier.end.y,
      }));
    }
    const s = this.scatter;
    if (s) {
      const arm = this.width / 80;
      const aimed = svgElement("g", { class: "aimed", "data-point": "aimed", transform: `translate(${s.aimed_at.x} ${-s.aimed_at.y})` });
      aimed.append(svgElement("line", { x1: -arm, y1: -arm, x2: arm, y2: arm }), svgElement("line", { x1: -arm, y1: arm, x2: arm, y2: -arm }));
      g.appendChild(aimed);
      g.appendChild(svgElement("line", { class: "scatter", x1: s.aimed_at.x, y1: -s.aimed_at.y, x2: s.landed.x, y2: -s.landed.y }));
      g.appendChild(svgElement("circle", { class: "landed", "data-point": "landed", cx: s.landed.x, cy: -s.landed.y, r: this.width / 150 }));
    }
    const b = this.blast;
    if (b) {
      for (const ring of blastRings(b)) {
        g.appendChild(svgElement("circle", {
          class: `ring${ring.outer ? " outer" : ""}`, "data-dv": ring.dv, "data-radius": round1(ring.radius_m),
          cx: b.point.x, cy: -b.point.y, r: ring.radius_m,
        }));
      }
    }
    return g;
  }

  // The barriers the blast met, where the form gave them (the result names them only).
  barriersOfBlast() {
    const named = new Set(this.blast.barriers.map((b) => b.barrier));
    return this.barriers.filter((b) => named.has(b.id));
  }

  renderGrenades() {
    if (!this.grenadeList) return;
    const held = [...this.zones.values()].filter(isGrenade);
    const items = held.map((zone) => {
      const item = document.createElement("li");
      item.dataset.grenade = zone.id;
      const title = document.createElement("strong");
      title.textContent = `${zone.id}: ${zone.kind} by ${zone.shooter}`;
      item.append(title, ` — at (${round1(zone.center.x)}, ${round1(zone.center.y)}), reaches ${round1(zone.radius_m)} m; goes off ${zone.lasts.replace(/^until it goes off: /, "")}. `);
      const who = document.createElement("span");
      who.className = "inside";
      const inside = this.whoIsInside(zone);
      who.textContent = `Within reach now: ${inside.length ? inside.join(", ") : "nobody"}.`;
      item.appendChild(who);
      return item;
    });
    if (!items.length) {
      const empty = document.createElement("li");
      empty.className = "empty";
      empty.textContent = "None held.";
      items.push(empty);
    }
    this.grenadeList.replaceChildren(...items);
    const hit = new Set((this.blast?.hits || []).filter((h) => h.dv > 0).map((h) => h.actor));
    for (const [id, element] of this.elements) element.classList.toggle("blast-hit", hit.has(id));
    if (this.blastSummary) {
      this.blastSummary.hidden = !this.blast;
      if (this.blast) {
        const b = this.blast;
        const who = b.hits.map((h) => `${h.actor} ${h.boxes}${h.track === "stun" ? "S" : "P"}`).join(", ");
        this.blastSummary.textContent = `Last blast: ${b.grenade} (${b.type}, ${b.dv}${b.damage_type}) at (${round1(b.point.x)}, ${round1(b.point.y)}): ${who || "nobody hit"}.`;
      }
    }
  }

  grid() {
    const b = this.bounds;
    const g = svgElement("g", { class: "grid", "aria-hidden": "true" });
    const spacing = this.width <= 40 ? 1 : this.width <= 100 ? 5 : this.width <= 200 ? 10 : 50;
    const major = spacing * 5;
    for (let x = Math.ceil(b.minX / spacing) * spacing; x <= b.maxX; x += spacing) {
      g.appendChild(svgElement("line", {
        x1: x, y1: -b.maxY, x2: x, y2: -b.minY, class: x % major === 0 ? "major" : "minor",
      }));
    }
    for (let y = Math.ceil(b.minY / spacing) * spacing; y <= b.maxY; y += spacing) {
      g.appendChild(svgElement("line", {
        x1: b.minX, y1: -y, x2: b.maxX, y2: -y, class: y % major === 0 ? "major" : "minor",
      }));
    }
    const label = svgElement("text", {
      x: b.minX + this.width * 0.01, y: -b.minY - this.width * 0.012, class: "scale",
      "font-size": this.width / 45,
    });
    label.textContent = `grid ${spacing} m`;
    g.appendChild(label);
    return g;
  }

  zoneShape(zone) {
    const g = svgElement("g", { class: `zone${isGrenade(zone) ? " grenade" : ""}`, "data-zone": zone.id });
    let anchor;
    if (zone.shape === "circle" && zone.center) {
      g.appendChild(svgElement("circle", { cx: zone.center.x, cy: -zone.center.y, r: zone.radius_m }));
      // The label sits on the rim, clear of the aim point at the centre.
      anchor = { x: zone.center.x - zone.radius_m * 0.3, y: zone.center.y + zone.radius_m * 0.75 };
    } else {
      const points = zone.points || [];
      g.appendChild(svgElement("polygon", { points: points.map((p) => `${p.x},${-p.y}`).join(" ") }));
      anchor = points.length
        ? { x: points.reduce((s, p) => s + p.x, 0) / points.length, y: points.reduce((s, p) => s + p.y, 0) / points.length }
        : { x: 0, y: 0 };
    }
    const text = svgElement("text", { x: anchor.x, y: -anchor.y, "font-size": this.width / 40, class: "zone-label" });
    text.textContent = zone.id;
    g.appendChild(text);
    return g;
  }

  actorElement(actor) {
    const radius = this.width / 70;
    const g = svgElement("g", {
      class: `actor ${actor.role}${actor.scene ? " on-scene" : ""}${actor.scene?.hidden ? " hidden-actor" : ""}${actor.id === this.acting ? " acting" : ""}${isDown(actor) ? ` down ${actor.scene.condition}` : ""}`,
      tabindex: 0,
      role: "button",
      "aria-roledescription": "movable actor",
      "data-actor": actor.id,
    });
    if (actor.role === "aim") {
      g.appendChild(svgElement("circle", { r: radius, class: "aim-ring" }));
      g.appendChild(svgElement("line", { x1: -radius * 1.6, y1: 0, x2: radius * 1.6, y2: 0 }));
      g.appendChild(svgElement("line", { x1: 0, y1: -radius * 1.6, x2: 0, y2: radius * 1.6 }));
    } else {
      g.appendChild(svgElement("circle", { r: radius }));
    }
    if (isDown(actor)) {
      // Out of the fight: a cross over the token, its condition in the label (and in the
      // aria-label, through describe).
      const arm = radius * 1.3;
      g.appendChild(svgElement("line", { class: "down-mark", x1: -arm, y1: -arm, x2: arm, y2: arm }));
      g.appendChild(svgElement("line", { class: "down-mark", x1: -arm, y1: arm, x2: arm, y2: -arm }));
    }
    const label = svgElement("text", { x: radius * 1.4, y: -radius * 1.2, "font-size": this.width / 40 });
    label.textContent = isDown(actor) ? `${actor.id} (${actor.scene.condition})` : actor.id;
    g.appendChild(label);
    g.addEventListener("keydown", (event) => this.onKey(event, actor.id));
    g.addEventListener("pointerdown", (event) => this.onPointerDown(event, actor.id, g));
    return g;
  }

  update(actor) {
    const element = this.elements.get(actor.id);
    if (element) {
      element.setAttribute("transform", `translate(${actor.x} ${-actor.y})`);
      const pick = actor.scene && this.onPick ? " Enter picks it for the attack." : "";
      element.setAttribute("aria-label", `${this.describe(actor)} Arrow keys move it.${pick}`);
    }
    this.renderPositions();
    this.renderZoneList();
  }

  onKey(event, id) {
    if ((event.key === "Enter" || event.key === " ") && this.actors.get(id)?.scene && this.onPick) {
      event.preventDefault();
      this.onPick(id);
      return;
    }
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    const delta = moves[event.key];
    if (!delta) return;
    event.preventDefault();
    const actor = this.actors.get(id);
    const step = this.step * (event.shiftKey ? 5 : 1);
    const before = { x: actor.x, y: actor.y };
    this.move(id, { x: actor.x + delta[0] * step, y: actor.y + delta[1] * step });
    this.commitMove(id, before);
  }

  onPointerDown(event, id, element) {
    if (event.button !== 0) return;
    event.preventDefault();
    element.focus();
    element.setPointerCapture(event.pointerId);
    const snap = this.step / 2;
    const before = { x: this.actors.get(id).x, y: this.actors.get(id).y };
    const at = (e) => {
      const matrix = this.svg.getScreenCTM().inverse();
      const point = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix);
      return { x: Math.round(point.x / snap) * snap, y: Math.round(-point.y / snap) * snap };
    };
    // A press that does not travel is a click: it picks a scene actor instead of moving it.
    const from = { x: event.clientX, y: event.clientY };
    let dragged = false;
    const onMoveEvent = (e) => {
      dragged ||= Math.hypot(e.clientX - from.x, e.clientY - from.y) > 4;
      if (dragged) this.move(id, at(e), { announce: false });
    };
    const onUp = (e) => {
      element.removeEventListener("pointermove", onMoveEvent);
      element.removeEventListener("pointerup", onUp);
      element.removeEventListener("pointercancel", onUp);
      if (!dragged && Math.hypot(e.clientX - from.x, e.clientY - from.y) <= 4) {
        if (this.actors.get(id)?.scene) this.onPick?.(id);
        return;
      }
      this.move(id, at(e));
      this.commitMove(id, before);
    };
    element.addEventListener("pointermove", onMoveEvent);
    element.addEventListener("pointerup", onUp);
    element.addEventListener("pointercancel", onUp);
  }

  // The table under the map: exact positions, typed in, for a keyboard or a long range.
  renderPositions() {
    const rows = [];
    for (const actor of this.actors.values()) {
      let row = this.positions.querySelector(`tr[data-actor="${CSS.escape(actor.id)}"]`);
      if (!row) row = this.positionRow(actor);
      for (const axis of ["x", "y"]) {
        const input = row.querySelector(`input[data-axis="${axis}"]`);
        if (document.activeElement !== input) input.value = actor[axis];
      }
      const far = this.distanceFromAttacker(actor.id);
      row.querySelector("output").value =
        actor.role === "attacker" || actor.role === "aim" || far === null ? "–" : `${far} m`;
      rows.push(row);
    }
    // Rows already in their place stay attached: the GM may be typing a coordinate as the scene
    // changes (another actor moves), and detaching that row would take the field's focus, and
    // leaving the field would then send nothing.
    rows.forEach((row, i) => {
      if (this.positions.children[i] !== row) this.positions.insertBefore(row, this.positions.children[i] || null);
    });
    while (this.positions.children.length > rows.length) this.positions.lastElementChild.remove();
  }

  positionRow(actor) {
    const row = document.createElement("tr");
    row.dataset.actor = actor.id;
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = actor.id;
    row.appendChild(name);
    for (const axis of ["x", "y"]) {
      const cell = document.createElement("td");
      const inputId = `pos-${actor.id}-${axis}`;
      const label = document.createElement("label");
      label.className = "visually-hidden";
      label.htmlFor = inputId;
      label.textContent = `${actor.id} ${axis} (m)`;
      const input = document.createElement("input");
      Object.assign(input, { id: inputId, type: "number", step: "0.5", inputMode: "decimal" });
      input.dataset.axis = axis;
      input.addEventListener("change", () => {
        const value = Number(input.value);
        const current = this.actors.get(actor.id);
        if (!current || !Number.isFinite(value)) return;
        const before = { x: current.x, y: current.y };
        this.move(actor.id, { ...current, [axis]: value });
        this.commitMove(actor.id, before);
      });
      cell.append(label, input);
      row.appendChild(cell);
    }
    const far = document.createElement("td");
    far.appendChild(document.createElement("output"));
    row.appendChild(far);
    return row;
  }

  // One item per live zone, kept while the zone lives (its Test button keeps the focus as the
  // actors move); who stands inside is updated in place.
  renderZoneList() {
    const items = [];
    for (const zone of this.zones.values()) {
      if (isGrenade(zone)) continue;
      let item = this.zoneList.querySelector(`li[data-zone="${CSS.escape(zone.id)}"]`);
      if (!item) item = this.zoneItem(zone);
      const inside = this.whoIsInside(zone);
      item.querySelector(".inside").textContent = `Inside now: ${inside.length ? inside.join(", ") : "nobody"}.`;
      items.push(item);
    }
    if (!items.length) {
      const empty = document.createElement("li");
      empty.className = "empty";
      empty.textContent = "None.";
      items.push(empty);
    }
    const focused = this.zoneList.contains(document.activeElement) ? document.activeElement : null;
    this.zoneList.replaceChildren(...items);
    if (focused && this.zoneList.contains(focused)) focused.focus();
  }

  zoneItem(zone) {
    const item = document.createElement("li");
    item.dataset.zone = zone.id;
    const shape = zone.shape === "circle"
      ? `circle of ${round1(zone.radius_m)} m around (${round1(zone.center.x)}, ${round1(zone.center.y)})`
      : `${zone.shape === "polygon" ? "area" : "triangle"} ${zone.points.map((p) => `(${round1(p.x)}, ${round1(p.y)})`).join(" ")}`;
    const title = document.createElement("strong");
    title.textContent = `${zone.id}: ${zone.kind} by ${zone.shooter}`;
    const facts = document.createElement("span");
    facts.textContent = zone.shape === "polygon"
      ? ` — ${zone.hits} bullets per m², ${shape}; lasts ${zone.lasts}. `
      : ` — ${zone.hits} hits, penalty ${zone.penalty}, ${shape}; lasts ${zone.lasts}. `;
    const who = document.createElement("span");
    who.className = "inside";
    item.append(title, facts, who);
    if (this.onTestZone) {
      const test = document.createElement("button");
      test.type = "button";
      test.className = "test-zone";
      test.textContent = "Test";
      test.setAttribute("aria-label", `Test an actor against ${zone.id}`);
      test.addEventListener("click", () => this.onTestZone(this.zones.get(zone.id) || zone));
      item.append(" ", test);
    }
    return item;
  }
}
