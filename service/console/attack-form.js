// The attack form of one ruleset. With an attacker picked from the scene (the roster), it holds
// only what the scene does not: the weapon to use, the mode, the options and the given dice; the
// service fills in the rest by the actors' names. With "typed in" chosen instead, attacker, weapon
// and targets are typed in from the ruleset's specs, with distances from the map; until one of the
// two is chosen the form's typed-in actors are nowhere (not on the map, not in the round's lists).

import { buildField, buildFields, diceInputs, FieldError, readDice, readFields } from "./fields.js";
import { el } from "./results.js";

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
// Not a valid actor id (it has a space), so it never clashes with one.
const AIM = "aim point";
// The attacker select's value for the typed-in sheet ("" is nobody picked yet).
export const TYPED_IN = "typed";

// An attack by names: `ruleset`'s request naming the `attacker` (a scene actor), its `weapon`
// (the sheet's gun, named by its id) and each target by its id; the service fills in the sheets
// and the distances from the positions (`position(id)`, for what the ruleset draws from them).
// Throws the ruleset's Error when the attack cannot be asked so. The attack form and a player's
// phone view (player-view.js) both ask so.
export function requestByNames(ruleset, { attacker, weapon, mode, options = {}, targets, position = () => null, aimAt = null }) {
  const body = ruleset.request({
    attacker: {}, weapon, mode, options, targets: targets.map((id) => ({ id, fields: {}, position: position(id) })),
    attackerAt: position(attacker), aimAt,
  });
  body.attacker = attacker;
  body.weapon = weapon.id ?? "";
  if (body.targets) body.targets = targets.map((id) => ({ id }));
  // Suppressive fire without bystanders takes everyone else on the scene.
  delete body.bystanders;
  return body;
}

export class AttackForm {
  // `scene()`: the scene's actors by id; `playable()`: the ids this page may attack with;
  // `onPick(attacker, targets)`: the picks changed; `onTargets()`: a typed-in target was added
  // or removed; `autoPick()`: whether a page with one armed actor of its own attacks with it
  // (a player's page) without asking.
  constructor({ fields, diceSteps, map, scene = () => new Map(), playable = () => [], onPick = () => {}, onTargets = () => {}, autoPick = () => false }) {
    this.fields = fields;
    this.autoPick = autoPick;
    // Whether the typed-in sheet is in use, and the actor picked once by itself (not again once
    // the player put it back).
    this.typing = false;
    this.autoPicked = null;
    this.onTargets = onTargets;
    this.scene = scene;
    this.playable = playable;
    this.onPick = onPick;
    this.pick = { attacker: "", targets: [] };
    this.diceStepsContainer = diceSteps;
    this.map = map;
    this.ruleset = null;
    this.targets = [];
    this.counter = 0;
    this.givenDice = new Map();
    // What the steps roll can hang on any field (a d100 weapon's bonus dice, a passive defense).
    fields.addEventListener("change", (event) => {
      // A field the service refused is no longer marked once it is changed.
      event.target.removeAttribute?.("aria-invalid");
      if (this.ruleset && event.target !== this.modeSelect) {
        this.refreshAim();
        this.refreshDiceSteps();
      }
    });
  }

  setRuleset(ruleset, info) {
    this.ruleset = ruleset;
    this.info = info;
    this.targets = [];
    this.givenDice.clear();
    for (const actor of [...this.map.actors.keys()]) this.map.remove(actor);
    const r = ruleset;

    const attacker = el("fieldset", { class: "group", id: "attacker-fieldset" }, el("legend", { text: "Attacker" }));
    buildFields(attacker, r.attacker, "attacker");
    const weapon = el("fieldset", { class: "group", id: "weapon-fieldset" }, el("legend", { text: "Weapon" }));
    buildFields(weapon, r.weapon, "weapon");

    const modeField = buildField({ key: "mode", label: "Firing mode", type: "select", options: r.modes(info), value: r.defaultMode }, "attack");
    this.zoneHelp = el("p", { class: "help zone-help", id: "zone-help", hidden: true, text: r.zoneHelp });
    const mode = el("fieldset", { class: "group", id: "mode-fieldset" }, el("legend", { text: "Mode" }), modeField, this.zoneHelp);

    this.targetList = el("div", { class: "targets", id: "targets" });
    this.targetsLegend = el("legend", { text: "Targets" });
    const addTarget = el("button", { type: "button", id: "add-target", text: "Add target" });
    addTarget.addEventListener("click", () => {
      const target = this.addTarget();
      target.fieldset.querySelector("input").focus();
    });
    const targets = el("fieldset", { class: "group", id: "targets-fieldset" }, this.targetsLegend, this.targetList, addTarget);

    const options = el("details", { class: "group options", id: "options" }, el("summary", { text: "More options" }));
    const optionsBody = el("div", { class: "grid" });
    buildFields(optionsBody, r.options, "option");
    options.appendChild(optionsBody);

    this.sceneAttacker = el("select", { id: "scene-attacker" });
    this.sceneWeapon = el("select", { id: "scene-weapon" });
    this.sceneTargets = el("div", { class: "scene-targets", id: "scene-targets" });
    this.sceneAttacker.addEventListener("change", () => this.pickAttacker(this.sceneAttacker.value));
    this.sceneWeapon.addEventListener("change", () => this.refreshDiceSteps());
    this.pickedTargets = el("fieldset", { class: "choices", id: "scene-targets-fieldset", hidden: true },
      el("legend", { text: "Targets (from the scene)" }), this.sceneTargets);
    const fromScene = el("fieldset", { class: "group", id: "scene-fieldset" }, el("legend", { text: "From the scene" }),
      el("div", { class: "grid" },
        el("div", { class: "field" }, el("label", { for: "scene-attacker", text: "Attacker (from the roster)" }), this.sceneAttacker),
        el("div", { class: "field", id: "scene-weapon-field", hidden: true },
          el("label", { for: "scene-weapon", text: "Its weapon" }), this.sceneWeapon)),
      this.pickedTargets);
    this.typedIn = [attacker, weapon, targets];
    this.fields.replaceChildren(fromScene, attacker, weapon, mode, targets, options);
    this.pick = { attacker: "", targets: [] };
    this.typing = false;
    this.autoPicked = null;
    for (const part of this.typedIn) part.hidden = true;

    const attackerId = this.attackerIdInput();
    this.trackId(attackerId, () => this.map.attacker()?.id);
    this.modeSelect = modeField.querySelector("select");
    this.modeSelect.addEventListener("change", () => this.onModeChange());
    this.addTarget();
    // A ruleset may add to its form (Hard Life: the called shot picked on the body map).
    r.extend?.(this.fields, this);
    this.onModeChange();
    this.refreshScene();
  }

  // --- picks from the scene --------------------------------------------------------------

  // The scene changed: the lists offer what it has now, and a pick that left it goes.
  refreshScene() {
    if (!this.ruleset) return;
    const scene = this.scene();
    const armed = this.playable().filter((id) => scene.get(id)?.sheet?.weapons?.length);
    if (this.pick.attacker && !armed.includes(this.pick.attacker)) {
      // Gone from the page's hands (not put back by the player): picked again when it returns.
      this.autoPicked = null;
      this.pickAttacker("");
    }
    // A player's page with one armed actor attacks with it: nothing to pick.
    if (!this.pick.attacker && !this.typing && armed.length === 1 && this.autoPicked !== armed[0] && this.autoPick()) {
      this.autoPicked = armed[0];
      this.pickAttacker(armed[0]);
      return;
    }
    this.pick.targets = this.pick.targets.filter((id) => scene.has(id) && id !== this.pick.attacker);
    this.sceneAttacker.replaceChildren(
      new Option(armed.length ? "nobody yet: pick one here, in the roster or on the map" : "nobody on the scene to attack with yet", ""),
      new Option("typed in below (not on the scene)", TYPED_IN),
      ...armed.map((id) => new Option(scene.get(id).name ? `${scene.get(id).name} (${id})` : id, id)));
    this.sceneAttacker.value = this.typing ? TYPED_IN : this.pick.attacker;
    const weapons = scene.get(this.pick.attacker)?.sheet?.weapons || [];
    const chosen = this.sceneWeapon.value;
    this.sceneWeapon.replaceChildren(...weapons.map((weapon) => new Option(`${weapon.id} (${weapon.ammo} rounds)`, weapon.id)));
    if (weapons.some((weapon) => weapon.id === chosen)) this.sceneWeapon.value = chosen;
    const boxes = [...scene.keys()].filter((id) => id !== this.pick.attacker).map((id) => {
      const box = el("input", { type: "checkbox", id: `scene-target-${id}`, value: id });
      box.checked = this.pick.targets.includes(id);
      box.addEventListener("change", () => this.toggleTarget(id));
      return el("span", { class: "choice" }, box, el("label", { for: box.id, text: id }));
    });
    // The boxes are drawn anew: the one ticked keeps the keyboard's focus.
    const focused = this.sceneTargets.contains(document.activeElement) ? document.activeElement.id : null;
    this.sceneTargets.replaceChildren(...boxes);
    if (focused) document.getElementById(focused)?.focus();
    this.refreshDiceSteps();
  }

  // An attacker from the scene, TYPED_IN to type one in, or "" for nobody yet: the typed-in
  // attacker, weapon and targets are in the form and on the map only while typed in; the picked
  // actors take their roles on the map.
  pickAttacker(id) {
    const typing = id === TYPED_IN;
    const before = this.pick.attacker;
    if (before === (typing ? "" : id) && this.typing === typing) return;
    const picking = Boolean(id) && !typing;
    if (this.typing) {
      this.map.remove(this.attackerIdInput().value.trim());
      for (const t of this.targets) this.map.remove(t.id);
    } else if (before) {
      this.map.remove(before);
      for (const target of this.pick.targets) this.map.remove(target);
    }
    this.typing = typing;
    this.pick = { attacker: picking ? id : "", targets: picking ? this.pick.targets.filter((t) => t !== id) : [] };
    if (picking) {
      this.map.place(id, "attacker", { x: 0, y: 0 });
      for (const target of this.pick.targets) this.map.place(target, "target", { x: 0, y: 0 });
    } else if (typing) {
      this.map.place(this.attackerIdInput().value.trim(), "attacker", { x: 0, y: 0 });
      this.targets.forEach((t, index) => this.map.place(t.id, "target", { x: 12 + 4 * Math.floor(index / 3), y: [0, 4, -4][index % 3] }));
    }
    for (const part of this.typedIn) part.hidden = !typing;
    this.refreshDistances();
    this.pickedTargets.hidden = !picking;
    this.fields.querySelector("#scene-weapon-field").hidden = !picking;
    this.refreshScene();
    this.onPick(this.pick.attacker, this.pick.targets);
  }

  toggleTarget(id) {
    if (!this.pick.attacker || id === this.pick.attacker) return;
    const on = !this.pick.targets.includes(id);
    this.pick.targets = on ? [...this.pick.targets, id] : this.pick.targets.filter((t) => t !== id);
    if (on) this.map.place(id, "target", { x: 0, y: 0 });
    else this.map.remove(id);
    this.refreshScene();
    this.onPick(this.pick.attacker, this.pick.targets);
  }

  get byNames() {
    return Boolean(this.pick.attacker);
  }

  sceneWeaponSheet() {
    return (this.scene().get(this.pick.attacker)?.sheet?.weapons || []).find((w) => w.id === this.sceneWeapon.value) || {};
  }

  // The request by names: the service fills the shooter, its gun, the targets' distances and
  // defenders from the scene; the zone's geometry still comes from the map.
  readByNames({ preview = false } = {}) {
    const options = readFields(this.fields, this.ruleset.options, "option", { quiet: preview });
    if (!this.zoneMode && !this.ruleset.aimsAtPoint?.(options) && !this.pick.targets.length) {
      throw new FieldError(this.sceneTargets.querySelector("input") || this.sceneAttacker, "Pick a target from the scene");
    }
    let body;
    try {
      body = requestByNames(this.ruleset, {
        attacker: this.pick.attacker, weapon: this.sceneWeaponSheet(), mode: this.mode, options,
        targets: this.pick.targets, position: (id) => this.map.position(id), aimAt: this.map.position(AIM),
      });
    } catch (error) {
      throw new FieldError(this.modeSelect, error.message);
    }
    if (preview) return body;
    const dice = readDice(this.diceStepsContainer);
    if (Object.keys(dice).length) body.dice = dice;
    return body;
  }

  attackerIdInput() {
    return this.fields.querySelector("#attacker-id");
  }

  get mode() {
    return this.modeSelect.value;
  }

  get zoneMode() {
    return this.ruleset.isZoneMode(this.mode);
  }

  // Keeps the map's actor named as its id field says (when the new name is valid and free).
  trackId(input, currentId, onRenamed = () => {}) {
    input.addEventListener("change", () => {
      const before = currentId();
      const after = input.value.trim();
      if (!before || before === after) return;
      if (!ID_PATTERN.test(after) || !this.map.rename(before, after)) {
        input.setAttribute("aria-invalid", "true");
        return;
      }
      input.removeAttribute("aria-invalid");
      onRenamed(after);
      this.refreshDiceSteps();
      this.refreshDistances();
    });
  }

  addTarget() {
    this.counter += 1;
    const n = this.counter;
    const prefix = `target-${n}`;
    let id = `${this.ruleset.targetDefaults.prefix}-${n}`;
    while (this.map.actors.has(id)) id += "x";
    const entry = { prefix, id };
    const legend = el("legend", { text: `Target ${id}` });
    const idField = buildField({ key: "id", label: "Target id", type: "text", value: id, pattern: "[A-Za-z0-9_.:\\-]{1,64}" }, prefix);
    const distance = el("div", { class: "field field-output" },
      el("label", { for: `${prefix}-distance`, text: "Distance from the attacker (m, from the map)" }),
      el("output", { id: `${prefix}-distance`, dataField: "distance" }));
    const remove = el("button", { type: "button", class: "remove", text: "Remove target" });
    const body = el("div", { class: "grid" }, idField, distance);
    buildFields(body, this.ruleset.target, prefix);
    const fieldset = el("fieldset", { class: "target", dataTarget: id }, legend, body, remove);
    entry.fieldset = fieldset;
    entry.legend = legend;
    this.targets.push(entry);
    this.targetList.appendChild(fieldset);
    const index = this.targets.length - 1;
    if (this.typing) this.map.place(id, "target", { x: 12 + 4 * Math.floor(index / 3), y: [0, 4, -4][index % 3] });
    const idInput = idField.querySelector("input");
    this.trackId(idInput, () => entry.id, (renamed) => {
      entry.id = renamed;
      fieldset.dataset.target = renamed;
      legend.textContent = `Target ${renamed}`;
    });
    for (const field of fieldset.querySelectorAll(".zone-only")) field.hidden = !this.zoneMode;
    remove.addEventListener("click", () => this.removeTarget(entry));
    this.refreshTargets();
    return entry;
  }

  removeTarget(entry) {
    if (this.targets.length <= 1 && !this.zoneMode) return;
    this.targets = this.targets.filter((t) => t !== entry);
    entry.fieldset.remove();
    this.map.remove(entry.id);
    this.refreshTargets();
    this.fields.querySelector("#add-target").focus();
  }

  refreshTargets() {
    for (const t of this.targets) {
      t.fieldset.querySelector("button.remove").disabled = this.targets.length <= 1 && !this.zoneMode;
    }
    this.refreshDistances();
    this.refreshDiceSteps();
    this.onTargets();
  }

  onModeChange() {
    const zone = this.zoneMode;
    this.zoneHelp.hidden = !zone;
    this.targetsLegend.textContent = zone ? "Bystanders (the other actors on the map)" : "Targets";
    for (const field of this.fields.querySelectorAll(".zone-only")) field.hidden = !zone;
    // An area clicked on the map (Hard Life's suppression fire): its fields are in the options.
    if (zone && this.ruleset.zoneArea) this.fields.querySelector("#options")?.setAttribute("open", "");
    this.refreshAim();
    this.refreshTargets();
  }

  // The aim point is on the map while the attack needs one: suppressive fire, or a ruleset's
  // attack aimed at a point (an sr4 grenade); a ruleset may draw its options (barriers) too.
  refreshAim() {
    const options = this.safeOptions();
    const aimed = (this.zoneMode && !this.ruleset.zoneArea) || Boolean(this.ruleset.aimsAtPoint?.(options));
    if (aimed && !this.map.actors.has(AIM)) {
      const first = this.targets[0] && this.map.position(this.targets[0].id);
      this.map.place(AIM, "aim", first ? { x: first.x + 2, y: first.y } : { x: 15, y: 0 });
    } else if (!aimed && this.map.actors.has(AIM)) {
      this.map.remove(AIM);
    }
    this.ruleset.showOptions?.(options, this.map);
    // A ruleset without areas (or a new encounter's) draws none: clicks go to the aim point.
    if (this.ruleset.zoneArea) this.refreshArea();
    else this.map.setAreaDrawing(null);
  }

  // The area of a zone drawn by clicks on the map (each click a corner), kept in its text field.
  refreshArea() {
    const input = this.fields.querySelector("#option-suppression-area");
    if (!input) return;
    const points = () => input.value.split(";").map((p) => p.trim().split(/[\s,]+/).map(Number))
      .filter((p) => p.length === 2 && p.every(Number.isFinite)).map(([x, y]) => ({ x, y }));
    if (!this.zoneMode) {
      this.map.setAreaDrawing(null);
      return;
    }
    this.map.setAreaDrawing((point) => {
      input.value = [...points(), point].map((p) => `${p.x} ${p.y}`).join("; ");
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }, points());
  }

  refreshDistances() {
    for (const t of this.targets) {
      const output = t.fieldset.querySelector("output");
      const far = this.map.distanceFromAttacker(t.id);
      output.value = far === null ? "–" : String(far);
    }
  }

  // One input per step the attack rolls; what was typed stays with its step name.
  refreshDiceSteps() {
    for (const input of this.diceStepsContainer.querySelectorAll("input")) {
      this.givenDice.set(input.dataset.step, input.value);
    }
    const scene = this.scene();
    const steps = this.ruleset.diceSteps(this.byNames
      ? {
        mode: this.mode,
        targetIds: this.pick.targets,
        options: this.safeOptions(),
        weapon: this.sceneWeaponSheet(),
        // What a defender's sheet holds decides which defense steps roll.
        // (a number the sheet lacks comes back as null: no such step).
        targets: this.pick.targets.map((id) => ({
          id,
          fields: { defender: Object.fromEntries(Object.entries(scene.get(id)?.sheet || {}).filter(([, value]) => value !== null)) },
        })),
      }
      : {
        mode: this.mode,
        targetIds: this.targets.map((t) => t.id),
        options: this.safeOptions(),
        weapon: this.safeWeapon(),
        targets: this.targets.map((t) => ({ id: t.id, fields: this.safeRead(t.fieldset, this.ruleset.target, t.prefix) })),
      });
    const rows = diceInputs(steps, "dice-step", this.givenDice);
    this.diceStepsContainer.replaceChildren(...rows);
  }

  safeRead(container, specs, prefix) {
    try {
      return readFields(container, specs, prefix);
    } catch {
      return {};
    }
  }

  safeOptions() {
    return this.safeRead(this.fields, this.ruleset.options, "option");
  }

  safeWeapon() {
    return this.safeRead(this.fields, this.ruleset.weapon, "weapon");
  }

  // The request body, or a FieldError naming the input to fix. An odds preview's (`preview`)
  // leaves out the given dice (its odds are of dice not yet rolled) and marks no field.
  // The form input a problem's JSON path points at, where the form has one.
  inputForPath(path) {
    if (!path) return null;
    const byId = (id) => document.getElementById(id);
    if (this.byNames) {
      // By names, the attacker, its weapon and the targets are the scene pickers.
      if (path.startsWith("$.attacker")) return byId("scene-attacker");
      if (path.startsWith("$.weapon")) return byId("scene-weapon");
      if (path.startsWith("$.targets")) return byId("scene-targets").querySelector("input");
    }
    const match = /^\$\.(attacker|weapon)\.(\w+)/.exec(path) || /^\$\.targets\[(\d+)\]\.(.+)$/.exec(path);
    if (!match) return null;
    if (match[1] === "attacker" || match[1] === "weapon") return byId(`${match[1]}-${match[2]}`);
    const target = this.targets[Number(match[1])];
    if (!target) return null;
    return byId(`${target.prefix}-${match[2].replaceAll(".", "-")}`);
  }

  read({ preview = false } = {}) {
    // What the last refusal marked is judged again: a new attempt starts unmarked.
    if (!preview) for (const marked of this.fields.querySelectorAll("[aria-invalid]")) marked.removeAttribute("aria-invalid");
    if (this.byNames) return this.readByNames({ preview });
    if (!this.typing) {
      throw new FieldError(this.sceneAttacker, "Pick the attacker: Attacker in the roster, a click on the map, or choose typed in");
    }
    const quiet = { quiet: preview };
    const attacker = readFields(this.fields, this.ruleset.attacker, "attacker", quiet);
    const weapon = readFields(this.fields, this.ruleset.weapon, "weapon", quiet);
    const options = readFields(this.fields, this.ruleset.options, "option", quiet);
    const attackerAt = this.map.position(this.map.attacker().id);
    const targets = this.targets.map((t) => {
      const fields = readFields(t.fieldset, this.ruleset.target, t.prefix, quiet);
      return { id: t.id, fields, distance_m: this.map.distanceFromAttacker(t.id), position: this.map.position(t.id) };
    });
    let body;
    try {
      body = this.ruleset.request({
        attacker, weapon, mode: this.mode, options, targets, attackerAt, aimAt: this.map.position(AIM),
      });
    } catch (error) {
      throw new FieldError(this.modeSelect, error.message);
    }
    if (preview) return body;
    const dice = readDice(this.diceStepsContainer);
    if (Object.keys(dice).length) body.dice = dice;
    return body;
  }
}
