// Physical dice first (issue 27): the table walked through the dice a request rolls, one step at
// a time, as the service says them (POST .../dice, docs/api.md "What to roll, before rolling").
// Each step is entered as its faces or, where its rules read no more, as its hits (successes)
// and ones; the service is asked again after each, so a step that follows from the dice before
// it (a soak after the net hits, Hard Life's damage test, d100's bonus dice) is asked for in its
// turn, and the request is sent once every die is in. Used by the attack, action and zone test
// forms (attachWalk) and by any view that builds a request (DiceWalk).

import * as api from "./api.js";
import { FieldError, parseFaces } from "./fields.js";
import { el } from "./results.js";

// How long a step is asked again while the token's previews are all in flight (a 429), and the
// wait between two asks: on a slow machine a Hard Life preview in flight takes seconds, and a
// walk that gave up after a few asks left the table stuck on its prompt.
const BUSY_GIVE_UP_MS = 15000;
const BUSY_WAIT_MS = 300;
const BUSY_WAIT_MAX_MS = 1500;

const counted = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// What to roll for one step, as said at the table: "Sam: roll 11 dice", "sam: roll 4 dice
// against 4", "Vex: roll 1d100"; a step partly given (an exploding pool's sixes) "roll 2 more
// dice". `who`: the actor's name as this page may see it.
export function promptFor(step, who) {
  const left = Math.max(step.count - step.given_dice, 0);
  const more = step.given_dice > 0 ? " more" : "";
  let dice;
  if (step.sides === 6) dice = `${left}${more} ${left === 1 ? "die" : "dice"}`;
  else dice = more ? `${left} more d${step.sides}` : `${left}d${step.sides}`;
  let text = `${who}: roll ${dice}`;
  if (step.target_number !== null && step.target_number !== undefined) text += ` against ${step.target_number}`;
  if (step.explodes) text += " (each six adds a die)";
  if (!step.certain) text += " (if it comes to it)";
  return text;
}

// What the table read off a step's dice: a pool's hits (5s and 6s) and ones, a target-number
// test's successes and ones as given, else the faces as typed. `step`: its need, when listed.
export function readingOf(step, given) {
  if (Array.isArray(given)) {
    const faces = given.join(" ");
    if (!step?.counts?.includes("hits")) return faces;
    const hits = given.filter((face) => face >= 5).length;
    const ones = given.filter((face) => face === 1).length;
    return `${faces}: ${counted(hits, "hit")}, ${counted(ones, "one")}`;
  }
  const first = given.hits !== undefined ? counted(given.hits, "hit") : counted(given.successes, "success", "successes");
  return `${first}, ${counted(given.ones ?? 0, "one")}`;
}

// The step a problem's path names (`$.attack.dice["soak:goon-1"].hits`, `$.dice["attack"][3]`).
const stepOfPath = (path) => /dice\["([^"]+)"\]/.exec(path || "")?.[1] ?? null;

// One number with a button either side (a thumb's width on a phone), labelled.
function stepper(id, label, { max, value = 0 }) {
  const input = el("input", { id, type: "number", inputmode: "numeric", min: 0, max, step: 1, required: true });
  input.value = String(value);
  const nudge = (by, words) => {
    const button = el("button", { type: "button", class: "nudge", "aria-label": `${label}: ${words}`, "aria-controls": id, text: by > 0 ? "+" : "−" });
    button.addEventListener("click", () => {
      const next = Math.max(0, (Number(input.value) || 0) + by);
      input.value = String(max === undefined ? next : Math.min(next, Number(max)));
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    return button;
  };
  return el("div", { class: "field stepper" },
    el("label", { for: id, text: label }),
    el("div", { class: "stepper-row" }, nudge(-1, "one fewer"), input, nudge(1, "one more")));
}

export class DiceWalk {
  // `container`: an empty element outside any form, drawn into and shown while walking;
  // `session()`: {id, token, role, player}; `ask(dice)`: the POST .../dice answer for the
  // request with those dice; `send(dice)`: the request itself sent with them; `onAnswer`: its
  // answer; `onClose`: the walk closed (the focus goes back); `id`: the prefix of its ids.
  constructor({ container, session, ask, send, onAnswer, onClose = () => {}, id = "dice-walk" }) {
    Object.assign(this, { container, session, ask, send, onAnswer, onClose, id });
    Object.assign(this, { busy: false, encounter: null, dice: {}, order: [], forms: new Map(), drafts: new Map() });
    // The form the table last used: the next step offers it first.
    this.preferred = "counts";
    const heading = el("h3", { id: `${id}-heading`, tabindex: "-1", text: "Rolling at the table" });
    this.prompt = el("p", { id: `${id}-prompt`, class: "walk-prompt", role: "status", "aria-live": "polite", "aria-atomic": "true" });
    this.whose = el("p", { id: `${id}-whose`, class: "help", hidden: true });
    this.entry = el("form", { id: `${id}-entry`, class: "dice-entry", novalidate: true, "aria-labelledby": `${id}-prompt` });
    this.error = el("p", { id: `${id}-error`, class: "error", role: "alert", hidden: true });
    this.backButton = el("button", { type: "button", id: `${id}-back`, text: "Back a step" });
    this.restButton = el("button", { type: "button", id: `${id}-rest`, text: "Let the service roll the rest" });
    const cancel = el("button", { type: "button", id: `${id}-cancel`, text: "Cancel" });
    this.soFar = el("ol", { id: `${id}-so-far`, class: "walk-so-far", "aria-labelledby": `${id}-so-far-heading` });
    this.later = el("p", { id: `${id}-later`, class: "help" });
    container.classList.add("dice-walk");
    container.setAttribute("aria-labelledby", heading.id);
    container.replaceChildren(heading, this.prompt, this.whose, this.entry, this.error,
      el("div", { class: "row walk-buttons" }, this.backButton, this.restButton, cancel),
      el("h4", { id: `${id}-so-far-heading`, text: "So far" }), this.soFar, this.later);
    container.hidden = true;
    this.heading = heading;
    this.entry.addEventListener("submit", (event) => {
      event.preventDefault();
      this.enter();
    });
    this.backButton.addEventListener("click", () => this.back());
    this.restButton.addEventListener("click", () => this.sendNow());
    cancel.addEventListener("click", () => this.close());
  }

  get open() {
    return !this.container.hidden;
  }

  // Starts on `request` (without dice) with `dice` already given, `acting` its acting actor.
  async start({ request, dice = {}, acting = null }) {
    const { id, token } = this.session();
    this.encounter = id;
    Object.assign(this, { request, acting, needs: null, drafts: new Map() });
    this.dice = { ...dice };
    this.order = Object.keys(this.dice);
    this.forms = new Map(this.order.map((step) => [step, Array.isArray(this.dice[step]) ? "faces" : "counts"]));
    this.container.hidden = false;
    this.entry.replaceChildren();
    this.soFar.replaceChildren();
    this.later.textContent = "";
    this.heading.focus();
    // Whose dice this page gives, and the names it may see, as the encounter is now.
    try {
      const view = await api.getEncounter(id, token);
      this.policy = view.dice_policy || "own";
      this.scene = view.scene || {};
    } catch (problem) {
      this.showError(`The encounter could not be read: ${problem.describe?.() || problem.message}`);
      return;
    }
    await this.refresh();
  }

  // The request could not be read from its form: the walk says why, at the field to fix.
  refuse(message, input) {
    this.encounter = null;
    this.container.hidden = false;
    this.entry.replaceChildren();
    this.soFar.replaceChildren();
    this.prompt.textContent = "Fix the form first, then roll at the table again.";
    this.later.textContent = "";
    this.backButton.disabled = true;
    this.restButton.disabled = true;
    this.showError(message, input);
  }

  close() {
    if (!this.open) return;
    this.container.hidden = true;
    this.entry.replaceChildren();
    this.onClose();
  }

  // The walk belongs to the encounter it started in: another one joined since closes it.
  stale() {
    if (this.session()?.id === this.encounter) return false;
    this.close();
    return true;
  }

  who(step) {
    return this.scene[step.actor]?.name || step.actor || step.step;
  }

  // The GM (or one client under the "any" dice policy) gives every step; a player only its
  // own actors' (the service refuses any other with a 403 naming the step).
  mayGive(step) {
    const { role, player } = this.session();
    if (role !== "player" || this.policy === "any") return true;
    if (!player) return step.actor === this.acting;
    return this.scene[step.actor]?.controller === player;
  }

  setBusy(busy) {
    this.busy = busy;
    this.container.setAttribute("aria-busy", String(busy));
    for (const control of this.container.querySelectorAll("button, input")) control.disabled = busy;
  }

  // The focus goes to the input to fix, else to the walk's heading (the alert is read out).
  showError(message, input = null) {
    this.error.textContent = message;
    this.error.hidden = false;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    } else {
      this.heading.focus();
    }
  }

  // The input a problem's path points at: a count by its name, else the faces shown.
  inputFor(path) {
    const count = /\.(hits|successes|ones)$/.exec(path || "")?.[1];
    const named = count && this.entry.querySelector(`#${CSS.escape(`${this.id}-${count}`)}`);
    if (named && !named.closest("[hidden]")) return named;
    return [...this.entry.querySelectorAll(".walk-faces input, .walk-counts input")].find((input) => !input.closest("[hidden]")) || null;
  }

  // Asks the service what the request rolls with the dice given so far, and draws the next
  // step; every die in, the request goes. A refusal takes back the step it names (or the last
  // one entered) and asks it again.
  async refresh() {
    if (this.stale()) return;
    this.setBusy(true);
    let needs;
    try {
      needs = await this.asked({ ...this.dice });
    } catch (problem) {
      this.setBusy(false);
      const step = stepOfPath(problem.problem?.path) || this.order.at(-1);
      if (step && step in this.dice && this.needs) {
        this.takeBack(step);
        this.draw(this.needs);
      }
      this.showError(`Not taken: ${problem.describe?.() || problem.message}`, this.inputFor(problem.problem?.path));
      return;
    }
    this.setBusy(false);
    if (this.stale()) return;
    this.needs = needs;
    this.error.hidden = true;
    this.draw(needs);
    if (needs.ready) await this.sendNow();
  }

  // The answer of POST .../dice; asked again a little later while the token has its previews
  // in flight (a 429: the odds panel's count too), for up to BUSY_GIVE_UP_MS.
  async asked(dice) {
    const giveUpAt = Date.now() + BUSY_GIVE_UP_MS;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.ask(dice);
      } catch (problem) {
        const wait = Math.min(BUSY_WAIT_MS * attempt, BUSY_WAIT_MAX_MS);
        if (problem.status !== 429 || Date.now() + wait > giveUpAt) throw problem;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  // Takes a step out of the dice given (and any entered after it, which may hang on it).
  takeBack(step) {
    const at = this.order.indexOf(step);
    for (const later of this.order.splice(at < 0 ? this.order.length : at)) {
      delete this.dice[later];
      this.forms.delete(later);
    }
    delete this.dice[step];
  }

  draw(needs) {
    const byStep = new Map(needs.steps.map((step) => [step.step, step]));
    this.soFar.replaceChildren(...this.order.map((name) => {
      const step = byStep.get(name);
      const form = this.forms.get(name);
      const who = step ? `${this.who(step)}, ` : "";
      return el("li", { dataStep: name, dataForm: form },
        `${who}`, el("code", { text: name }), ` (${form}): ${readingOf(step, this.dice[name])}`);
    }));
    if (!this.order.length) this.soFar.appendChild(el("li", { class: "empty", text: "No dice yet." }));
    const waiting = needs.steps.filter((step) => !step.given);
    this.current = waiting[0] || null;
    const then = waiting.slice(1).map((step) => promptFor(step, this.who(step)));
    this.later.textContent = then.length ? `Then: ${then.join("; ")}${needs.more ? "; then more, once these are known" : ""}.` : "";
    this.whose.hidden = true;
    this.backButton.disabled = !this.order.length;
    if (needs.ready) {
      this.prompt.textContent = "Every die is in: sending.";
      this.entry.replaceChildren();
      return;
    }
    if (!this.current) {
      this.prompt.textContent = "The service names no more dice to give: let it roll the rest.";
      this.entry.replaceChildren();
      this.restButton.focus();
      return;
    }
    const who = this.who(this.current);
    if (!this.mayGive(this.current)) {
      this.prompt.textContent = `Waiting for ${who}'s dice: not this page's to give. Let the service roll the rest.`;
      this.entry.replaceChildren();
      this.restButton.focus();
      return;
    }
    this.prompt.textContent = promptFor(this.current, who);
    const controller = this.scene[this.current.actor]?.controller;
    if (this.session().role !== "player" && controller && controller !== "gm") {
      this.whose.textContent = `${who} is played by ${controller}: ask what they rolled.`;
      this.whose.hidden = false;
    }
    this.drawEntry(this.current);
  }

  // The entry of one step: faces, or its counts with steppers where it takes them.
  drawEntry(step) {
    const id = this.id;
    const takesCounts = step.forms.includes("counts");
    const draft = this.drafts.get(step.step) || {};
    const given = this.dice[step.step];
    const form = takesCounts ? draft.form || this.preferred : "faces";
    const [first, second] = step.counts.length ? step.counts : ["hits", "ones"];
    const facesText = draft.faces ?? (Array.isArray(given) ? given.join(" ") : "");
    const facesField = el("div", { class: "field walk-faces" },
      el("label", { for: `${id}-faces`, text: `Faces rolled (${step.count} ${step.count === 1 ? "die" : "dice"}, d${step.sides})` }),
      el("input", { id: `${id}-faces`, type: "text", inputmode: "numeric", autocomplete: "off", spellcheck: "false", "aria-describedby": `${id}-faces-help` }),
      el("small", { id: `${id}-faces-help`, class: "help", text: "In any order, separated by spaces: 6 5 2 1" }));
    facesField.querySelector("input").value = facesText;
    const parts = [];
    let countsField = null;
    if (takesCounts) {
      const max = step.explodes ? 200 : step.count;
      const word = (name) => name[0].toUpperCase() + name.slice(1);
      countsField = el("div", { class: "walk-counts" },
        stepper(`${id}-${first}`, word(first), { max, value: draft[first] ?? 0 }),
        stepper(`${id}-${second}`, word(second), { max, value: draft[second] ?? 0 }));
      const choice = (value, text) => {
        const radio = el("input", { type: "radio", name: `${id}-form`, id: `${id}-as-${value}`, value });
        radio.checked = value === form;
        radio.addEventListener("change", () => this.showForm(value));
        return el("span", { class: "choice" }, radio, el("label", { for: radio.id, text }));
      };
      parts.push(el("fieldset", { class: "choices walk-forms" }, el("legend", { text: "Enter them as" }),
        choice("counts", `${word(first)} and ${second}`), choice("faces", "Faces")));
    }
    parts.push(facesField);
    if (countsField) parts.push(countsField);
    parts.push(el("div", { class: "actions" }, el("button", { type: "submit", class: "primary", id: `${id}-enter`, text: "Enter dice" })));
    this.entry.replaceChildren(...parts);
    this.showForm(form);
  }

  showForm(form) {
    const faces = this.entry.querySelector(".walk-faces");
    const counts = this.entry.querySelector(".walk-counts");
    if (faces) faces.hidden = form !== "faces";
    if (counts) counts.hidden = form !== "counts";
    this.entry.querySelector(form === "faces" ? ".walk-faces input" : ".walk-counts input")?.focus();
  }

  // The dice of the step shown, as typed; or a FieldError at the input to fix.
  readEntry(step) {
    const form = this.entry.querySelector(`input[name="${this.id}-form"]:checked`)?.value || "faces";
    for (const input of this.entry.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
    const draft = { form };
    if (form === "faces") {
      const input = this.entry.querySelector(".walk-faces input");
      draft.faces = input.value;
      this.drafts.set(step.step, draft);
      let faces;
      try {
        faces = parseFaces(input.value, step.sides);
      } catch (error) {
        throw new FieldError(input, `Faces: ${error.message}`);
      }
      if (!faces.length) throw new FieldError(input, "Faces: type the faces rolled, e.g. 6 5 2 1");
      return { form, dice: faces };
    }
    const dice = {};
    for (const input of this.entry.querySelectorAll(".walk-counts input")) {
      const name = input.id.slice(this.id.length + 1);
      draft[name] = input.value;
      if (!input.checkValidity() || input.value.trim() === "") {
        this.drafts.set(step.step, draft);
        throw new FieldError(input, `${input.labels[0].textContent}: ${input.validationMessage || "a whole number"}`);
      }
      dice[name] = Number(input.value);
    }
    this.drafts.set(step.step, draft);
    return { form, dice };
  }

  async enter() {
    if (this.busy || !this.current) return;
    const step = this.current;
    let entered;
    try {
      entered = this.readEntry(step);
    } catch (problem) {
      if (!(problem instanceof FieldError)) throw problem;
      this.showError(problem.message, problem.input);
      return;
    }
    this.preferred = entered.form;
    if (!(step.step in this.dice)) this.order.push(step.step);
    this.dice[step.step] = entered.dice;
    this.forms.set(step.step, entered.form);
    await this.refresh();
  }

  async back() {
    if (this.busy || !this.order.length) return;
    this.takeBack(this.order.at(-1));
    await this.refresh();
  }

  // The request with the dice given so far; the steps not given are rolled by the service.
  async sendNow() {
    if (this.stale()) return;
    this.setBusy(true);
    try {
      const answer = await this.send({ ...this.dice });
      this.setBusy(false);
      this.close();
      this.onAnswer(answer);
    } catch (problem) {
      this.setBusy(false);
      const step = stepOfPath(problem.problem?.path);
      if (step && step in this.dice) {
        this.takeBack(step);
        await this.refresh();
      }
      this.showError(`Not resolved: ${problem.describe?.() || problem.message}`, this.inputFor(problem.problem?.path));
    }
  }
}

// A "Roll at the table" button in `form`'s actions and its walk right after the form: the
// request as `read()` fills it (a FieldError points at its input), asked about as `kind`
// ("attack", "action", "zone_test" with `zone()`), sent with `post(body)`; `label`: the button's.
export function attachWalk({ form, kind, read, post, session, onAnswer, zone = () => null, id, label = "Roll at the table" }) {
  const button = el("button", { type: "button", id: `${id}-start`, class: "roll-at-table", text: label });
  (form.querySelector(".actions") || form).appendChild(button);
  const container = el("section", { id, hidden: true });
  form.after(container);
  const withDice = (request, dice) => (Object.keys(dice).length ? { ...request, dice } : { ...request });
  const walk = new DiceWalk({
    container,
    session,
    id,
    ask: (dice) => {
      const { id: encounter, token } = session();
      const body = { [kind]: withDice(walk.request, dice) };
      if (kind === "zone_test") body.zone = zone();
      return api.diceNeeds(encounter, token, body);
    },
    send: (dice) => post(withDice(walk.request, dice)),
    onAnswer,
    onClose: () => button.focus(),
  });
  button.addEventListener("click", () => {
    let body;
    try {
      body = read();
    } catch (problem) {
      if (!(problem instanceof FieldError)) throw problem;
      walk.refuse(problem.message, problem.input);
      return;
    }
    const { dice = {}, ...request } = body;
    const attacker = request.attacker;
    const acting = request.actor ?? (typeof attacker === "string" ? attacker : attacker?.id) ?? null;
    walk.start({ request, dice, acting });
  });
  return walk;
}
