// The campaign page (`#campaign=<id>`): the group's characters and the GM's templates kept between
// encounters (GET /v1/campaigns/{id}). The GM adds, edits, deletes and imports them (a file
// picked or dropped on the page), gives a player a token and a link, starts an encounter with the
// actors chosen and opens the campaign's encounters; a player's link shows that player's
// characters and the campaign's open encounters. docs/console.md, "Campaigns", says what it does.

import * as api from "./api.js";
import { CampaignEditor } from "./campaign-editor.js";
import { formatOf, idFromFileName, reportParts } from "./importer.js";
import { drawMonitor, SERVICE_MONITORS } from "./monitors.js";
import { CAMPAIGN_GONE, isGone, keepAdminKey, RememberedCampaigns } from "./remembered.js";
import { el } from "./results.js";

const SESSION_KEY = "firefight.console.campaign";
const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
const CARRIED = { monitor: "its monitor", ammo: "its rounds", edge: "its Edge spent" };
const $ = (id) => document.getElementById(id);

function say(element, text, kind = "info") {
  element.textContent = text;
  element.dataset.kind = kind;
}

const describe = (error) => error.describe?.() || error.message;

// "kestrel took back its monitor and its rounds; sam nothing": an end's `carried`.
export function carriedText(carried) {
  const parts = Object.entries(carried || {}).map(([actor, what]) =>
    `${actor} took back ${what.length ? what.map((part) => CARRIED[part] || part).join(" and ") : "nothing"}`);
  return parts.length ? parts.join("; ") : "no character took anything back";
}

export class CampaignPage {
  // `forms`: the console's ruleset forms by id; `rulesets()`: the service's list; `onOpen
  // Encounter(id, token, tokens, role, player)`: joins an encounter (rejects with an ApiError).
  constructor({ forms, rulesets, onOpenEncounter }) {
    this.forms = forms;
    this.rulesets = rulesets;
    this.onOpenEncounter = onOpenEncounter;
    this.current = null;
    this.reads = 0;
    this.panels = [$("campaign-panel"), $("campaign-gm")];
    this.status = $("campaign-status");
    this.alert = $("campaign-error");
    this.remembered = new RememberedCampaigns({
      list: $("remembered-campaigns-list"),
      section: $("remembered-campaigns"),
      onOpen: (entry) => this.open(entry.id, entry.token),
    });
    this.remembered.draw();
    this.editor = new CampaignEditor({
      form: $("campaign-editor"),
      save: (mode, id, body) => this.saveActor(mode, id, body),
      showError: (message, input) => this.showError(message, input),
    });
    $("campaign-create-form").addEventListener("submit", (event) => this.create(event));
    $("campaign-open-form").addEventListener("submit", (event) => this.openFromForm(event));
    $("campaign-reload").addEventListener("click", () => this.refresh());
    $("campaign-leave").addEventListener("click", () => this.leave());
    $("campaign-add").addEventListener("click", () => this.editor.open(this.ruleset(), null, null, new Set(Object.keys(this.view().actors))));
    $("campaign-import-file").addEventListener("change", () => {
      const [file] = $("campaign-import-file").files;
      if (file) this.importFile(file, "");
    });
    $("campaign-import-format").addEventListener("change", () => {
      if (this.pending && $("campaign-import-format").value) this.importFile(this.pending.file, this.pending.actor);
    });
    $("campaign-import").addEventListener("submit", (event) => event.preventDefault());
    $("campaign-player-form").addEventListener("submit", (event) => this.givePlayer(event));
    $("campaign-player").addEventListener("input", () => this.tickPlayersCharacters());
    $("campaign-player-copy").addEventListener("click", () => this.copyLink());
    $("campaign-start").addEventListener("submit", (event) => this.start(event));
    // Back on the tab (a player who left it open between sessions): what changed meanwhile.
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.shown) this.refresh();
    });
    // A character file dropped anywhere on the campaign page (the GM's): on a listed actor, it
    // takes that file's sheet; elsewhere a new character, its id from the file's name.
    document.addEventListener("dragover", (event) => {
      if (!this.isGm || !event.dataTransfer?.types?.includes("Files")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      document.body.classList.add("campaign-drop");
    });
    document.addEventListener("dragleave", (event) => {
      if (!event.relatedTarget) document.body.classList.remove("campaign-drop");
    });
    document.addEventListener("drop", (event) => {
      document.body.classList.remove("campaign-drop");
      const file = event.dataTransfer?.files?.[0];
      if (!this.isGm || !file) return;
      event.preventDefault();
      this.importFile(file, event.target.closest?.("#campaign-actors li[data-actor]")?.dataset.actor || "");
    });
  }

  get shown() {
    return Boolean(this.current) && !this.panels[0].hidden;
  }

  get isGm() {
    return this.shown && this.current.role === "gm";
  }

  view() {
    return this.current?.view || { actors: {}, encounters: [] };
  }

  ruleset() {
    return this.forms[this.current?.view?.ruleset] || null;
  }

  setRulesets(list) {
    $("campaign-ruleset").replaceChildren(...list.map((info) => {
      const option = new Option(this.forms[info.id] ? info.title : `${info.title} (no form in this console)`, info.id);
      option.disabled = !this.forms[info.id];
      return option;
    }));
  }

  // --- opening and leaving ---------------------------------------------------------------

  async create(event) {
    event.preventDefault();
    const key = $("create-admin-key");
    const status = $("campaigns-status");
    if (!key.value.trim()) {
      key.setAttribute("aria-invalid", "true");
      say(status, "Type the admin key (under Create, above) to create a campaign.", "error");
      key.focus();
      return;
    }
    key.removeAttribute("aria-invalid");
    say(status, "Creating…");
    try {
      const made = await api.createCampaign(key.value.trim(), $("campaign-ruleset").value, $("campaign-name").value.trim());
      if ($("remember-admin-key").checked) keepAdminKey(key.value.trim());
      else key.value = "";
      await this.open(made.id, made.token);
      say(status, "");
    } catch (error) {
      say(status, `Not created: ${describe(error)}`, "error");
    }
  }

  async openFromForm(event) {
    event.preventDefault();
    const id = $("campaign-open-id");
    const token = $("campaign-open-token");
    for (const input of [id, token]) {
      if (!input.value.trim()) {
        input.setAttribute("aria-invalid", "true");
        say($("campaigns-status"), `${input.labels[0].textContent}: required.`, "error");
        input.focus();
        return;
      }
      input.removeAttribute("aria-invalid");
    }
    try {
      await this.open(id.value.trim(), token.value.trim());
      token.value = "";
    } catch (error) {
      say($("campaigns-status"), `Not opened: ${describe(error)}`, "error");
    }
  }

  // Opens the campaign with `token` (the GM's or a player's: the service's answer says which);
  // `note`: said on the page once it shows (what an encounter's end carried back).
  async open(id, token, note = "") {
    const view = await api.getCampaign(id, token);
    const role = view.player ? "player" : "gm";
    this.current = { id, token, role, player: view.player || null, view };
    sessionStorage.setItem(SESSION_KEY, JSON.stringify({ id, token }));
    this.remembered.remember({ id, token, role, player: view.player || null, name: view.name, ruleset: view.ruleset });
    history.replaceState(null, "", `${location.pathname}${location.search}#${new URLSearchParams({ campaign: id })}`);
    for (const panel of ["encounter", "campaigns"]) $(panel).hidden = true;
    this.panels[0].hidden = false;
    this.panels[1].hidden = role !== "gm";
    $("campaign-actor-tools").hidden = role !== "gm";
    this.alert.hidden = true;
    $("campaign-import-report").hidden = true;
    $("campaign-player-output").hidden = true;
    this.editor.close();
    this.draw();
    say(this.status, note || `Opened ${view.name || id}.`);
    document.body.dataset.campaign = id;
  }

  // The page's campaign read again (after a change, or the button).
  async refresh() {
    if (!this.current) return;
    const { id, token } = this.current;
    this.reads += 1;
    const read = this.reads;
    try {
      const view = await api.getCampaign(id, token);
      if (read !== this.reads || this.current?.id !== id) return;
      this.current.view = view;
      this.draw();
    } catch (error) {
      if (read === this.reads) this.showError(`The campaign could not be read: ${describe(error)}`);
    }
  }

  // An encounter opened: the page steps aside (its session kept, for Back to the campaign).
  hide() {
    for (const panel of this.panels) panel.hidden = true;
    $("campaigns").hidden = true;
    $("encounter").hidden = false;
    delete document.body.dataset.campaign;
    if (new URLSearchParams(location.hash.slice(1)).get("campaign")) history.replaceState(null, "", location.pathname + location.search);
  }

  leave() {
    this.hide();
    this.forgetSession();
    this.current = null;
    for (const panel of ["encounter", "campaigns"]) $(panel).hidden = false;
  }

  // The start page shows (an encounter left): no campaign is this tab's any more.
  forgetSession() {
    sessionStorage.removeItem(SESSION_KEY);
  }

  // A campaign's link (`#campaign=<id>&token=...&player=anna`, a player's) or its page's own
  // address (`#campaign=<id>`: the token this browser keeps for it): {id, token}, or null.
  fromAddress(fragment) {
    const id = fragment.get("campaign");
    return id ? { id, token: fragment.get("token") || this.tokenFor(id) } : null;
  }

  // A campaign opened as the page starts; a refusal is said on the start page.
  async openAtStart({ id, token }) {
    try {
      await this.open(id, token);
    } catch (error) {
      this.forgetSession();
      history.replaceState(null, "", location.pathname + location.search);
      say($("campaigns-status"), isGone(error) ? CAMPAIGN_GONE : `Not opened: ${describe(error)}`, "error");
    }
  }

  // The campaign this tab was on ({id, token}), or null.
  saved() {
    try {
      return JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
    } catch {
      return null;
    }
  }

  // The token this browser keeps for a campaign: this tab's, else the remembered one.
  tokenFor(id) {
    const saved = this.saved();
    if (saved?.id === id) return saved.token;
    return this.remembered.tokenFor(id)?.token || null;
  }

  // --- drawing ----------------------------------------------------------------------------

  draw() {
    const view = this.view();
    const info = this.rulesets().find((r) => r.id === view.ruleset);
    $("campaign-title").textContent = view.name || view.id;
    $("campaign-info-ruleset").textContent = info?.title || view.ruleset;
    $("campaign-info-id").textContent = view.id;
    $("campaign-info-role").textContent = this.current.role === "gm" ? "the GM" : `${this.current.player} (a player)`;
    $("encounter-summary").textContent = `${view.name || "Campaign"} — ${view.ruleset}`;
    const items = Object.entries(view.actors).map(([id, actor]) => this.actorItem(id, actor));
    if (!items.length) items.push(el("li", { class: "empty", text: this.current.role === "gm" ? "No characters or templates yet: add one, or import a file." : "No character of yours yet." }));
    $("campaign-actors").replaceChildren(...items);
    this.drawEncounters();
    if (this.current.role === "gm") this.drawGmForms();
  }

  actorItem(id, actor) {
    const ruleset = this.current.view.ruleset;
    const played = actor.controller === "gm" ? "the GM's" : `played by ${actor.controller}`;
    const edge = actor.sheet?.edge;
    const guns = (actor.sheet?.weapons || []).map((weapon) => `${weapon.id} (${weapon.ammo ?? "?"} rounds)`);
    const item = el("li", { dataActor: id, dataKind: actor.kind, class: actor.hidden ? "hidden-actor" : undefined },
      el("strong", { text: actor.name ? `${actor.name} (${id})` : id }),
      el("span", { class: "badge", dataField: "kind", text: actor.kind }),
      actor.hidden ? el("span", { class: "badge", text: "hidden" }) : null,
      el("span", { class: "facts-line", dataField: "controller", text: ` — ${played}` }));
    const lines = [];
    if (edge !== undefined && edge !== null) lines.push(el("p", { class: "help", dataField: "edge", text: `Edge spent ${actor.edge_spent || 0} of ${edge}.` }));
    else if (actor.edge_spent) lines.push(el("p", { class: "help", dataField: "edge", text: `Edge spent ${actor.edge_spent}.` }));
    lines.push(el("p", { class: "help", dataField: "guns", text: guns.length ? `Guns: ${guns.join(", ")}.` : "No guns." }));
    if (actor.kind === "character") {
      lines.push(actor.monitor && SERVICE_MONITORS.has(ruleset)
        ? drawMonitor(id, ruleset, actor.monitor)
        : el("p", { class: "help", dataField: "monitor", text: "No damage kept." }));
    }
    const buttons = el("span", { class: "roster-buttons" });
    if (this.current.role === "gm") {
      const edit = el("button", { type: "button", "aria-label": `Edit ${id}`, text: "Edit" });
      edit.addEventListener("click", () => this.editor.open(this.ruleset(), id, actor));
      const remove = el("button", { type: "button", "aria-label": `Delete ${id}`, text: "Delete" });
      remove.addEventListener("click", () => this.removeActor(id));
      buttons.append(edit, remove);
    }
    item.append(" ", buttons, ...lines);
    return item;
  }

  drawEncounters() {
    const { encounters } = this.view();
    const player = this.current.role === "player";
    const listed = player ? encounters.filter((encounter) => !encounter.ended) : encounters;
    const items = listed.map((encounter) => {
      const title = encounter.name || encounter.id;
      const created = new Date(encounter.created_at);
      const when = Number.isNaN(created.valueOf()) ? "" : `, started ${created.toLocaleString()}`;
      const state = encounter.ended ? `ended: ${carriedText(encounter.carried)}` : "open";
      const note = el("p", { class: "status", role: "status" });
      const item = el("li", { dataCampaignEncounter: encounter.id, dataEnded: String(Boolean(encounter.ended)) },
        el("strong", { text: title }), el("p", { class: "help", dataField: "state", text: `${state}${when}.` }), note);
      if (!encounter.ended) {
        const open = el("button", { type: "button", class: "open", text: `Open ${title}` });
        open.addEventListener("click", async () => {
          open.disabled = true;
          try {
            await this.onOpenEncounter(encounter.id, this.current.token, null, this.current.role, this.current.player);
          } catch (error) {
            say(note, `Not opened: ${describe(error)}`, "error");
          } finally {
            open.disabled = false;
          }
        });
        item.insertBefore(open, note);
      }
      return item;
    });
    if (!items.length) items.push(el("li", { class: "empty", text: player ? "No open encounter." : "None started yet." }));
    $("campaign-encounters").replaceChildren(...items);
  }

  drawGmForms() {
    const actors = Object.entries(this.view().actors);
    const label = (id, actor) => (actor.name ? `${actor.name} (${id})` : id);
    const characters = actors.filter(([, actor]) => actor.kind === "character");
    const templates = actors.filter(([, actor]) => actor.kind === "template");
    const checkbox = (prefix, id, actor) => el("span", { class: "choice" },
      el("input", { type: "checkbox", id: `${prefix}-${id}`, value: id }),
      el("label", { for: `${prefix}-${id}`, text: label(id, actor) }));
    const players = $("campaign-player-characters");
    const ticked = new Set([...players.querySelectorAll("input:checked")].map((input) => input.value));
    players.replaceChildren(el("legend", { text: "Their characters" }), ...characters.map(([id, actor]) => checkbox("campaign-player-character", id, actor)));
    for (const input of players.querySelectorAll("input")) input.checked = ticked.has(input.value);
    const bring = $("campaign-bring-characters");
    const brought = new Set([...bring.querySelectorAll("input:checked")].map((input) => input.value));
    bring.replaceChildren(el("legend", { text: "Characters brought" }), ...characters.map(([id, actor]) => checkbox("campaign-bring", id, actor)));
    for (const input of bring.querySelectorAll("input")) input.checked = brought.has(input.value);
    if (!characters.length) bring.append(el("p", { class: "help", text: "No characters yet." }));
    const copies = $("campaign-bring-templates");
    const counts = new Map([...copies.querySelectorAll("input")].map((input) => [input.dataset.template, input.value]));
    copies.replaceChildren(el("legend", { text: "Copies of each template (0: none)" }), ...templates.map(([id, actor]) =>
      el("div", { class: "field" },
        el("label", { for: `campaign-copies-${id}`, text: `Copies of ${label(id, actor)}` }),
        el("input", { type: "number", id: `campaign-copies-${id}`, dataTemplate: id, min: 0, max: 20, step: 1, inputmode: "numeric", value: counts.get(id) || "0" }))));
    if (!templates.length) copies.append(el("p", { class: "help", text: "No templates yet." }));
  }

  showError(message, input = null) {
    this.alert.textContent = message;
    this.alert.hidden = false;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  }

  // --- the GM's changes -------------------------------------------------------------------

  // A change sent with the campaign's token; the campaign read again after it. True once done.
  async change(what, send, field = () => null) {
    this.alert.hidden = true;
    try {
      const answer = await send(this.current.id, this.current.token);
      await this.refresh();
      return answer || true;
    } catch (error) {
      this.showError(`${what}: ${describe(error)}`, field(error.problem?.path));
      return false;
    }
  }

  async saveActor(mode, id, body) {
    const send = mode === "add"
      ? (campaign, token) => api.putCampaignActor(campaign, token, id, body)
      : (campaign, token) => api.patchCampaignActor(campaign, token, id, body);
    const done = await this.change(`${id} not saved`, send, (path) => (path ? this.editor.fieldFor(path) : null));
    if (done) say(this.status, `${id} saved.`);
    return Boolean(done);
  }

  async removeActor(id) {
    if (await this.change(`${id} not deleted`, (campaign, token) => api.deleteCampaignActor(campaign, token, id))) say(this.status, `${id} deleted.`);
  }

  // A character file onto `onto` (empty: the id typed, or one from the file's name).
  async importFile(file, onto) {
    const formatInput = $("campaign-import-format");
    const format = formatInput.value || formatOf(file.name);
    if (!format) {
      this.pending = { file, actor: onto };
      this.showError(`Which format is ${file.name}? Choose it under "Read the file as" and it is imported.`, formatInput);
      return;
    }
    this.pending = null;
    const idInput = $("campaign-import-id");
    const actor = onto || idInput.value.trim() || idFromFileName(file.name);
    if (!ID_PATTERN.test(actor)) {
      this.showError("Character id: letters, digits and _ . : - (up to 64).", idInput);
      return;
    }
    const answer = await this.change(`${file.name} not imported as ${actor}`,
      (campaign, token) => api.importCampaignActor(campaign, token, actor, format, file), () => $("campaign-import-file"));
    $("campaign-import-file").value = "";
    if (!answer) return;
    idInput.value = "";
    const report = $("campaign-import-report");
    report.replaceChildren(...reportParts(answer.report, `as ${actor}`, file.name, "campaign-import-report-heading"));
    report.hidden = false;
    say(this.status, `${file.name} imported as ${actor}.`);
  }

  // The characters a player already plays, ticked when that player's id is typed.
  tickPlayersCharacters() {
    const player = $("campaign-player").value.trim();
    const actors = this.view().actors;
    for (const input of $("campaign-player-characters").querySelectorAll("input")) input.checked = Boolean(player) && actors[input.value]?.controller === player;
  }

  async givePlayer(event) {
    event.preventDefault();
    const input = $("campaign-player");
    const player = input.value.trim();
    if (!ID_PATTERN.test(player)) {
      this.showError("Player: letters, digits and _ . : - (up to 64).", input);
      return;
    }
    const characters = [...$("campaign-player-characters").querySelectorAll("input:checked")].map((box) => box.value);
    const answer = await this.change(`No token for ${player}`,
      (campaign, token) => api.issueCampaignPlayer(campaign, token, player, characters), () => input);
    if (!answer) return;
    const link = new URL("/", location.href);
    link.hash = new URLSearchParams({ campaign: this.current.id, token: answer.token, player }).toString();
    const output = $("campaign-player-link");
    output.value = link.toString();
    $("campaign-player-link-label").textContent = `${player}'s link (their own token: it replaces any given before)`;
    $("campaign-player-output").hidden = false;
    output.focus();
    output.select();
  }

  async copyLink() {
    const link = $("campaign-player-link");
    try {
      await navigator.clipboard.writeText(link.value);
      say(this.status, "The player's link is copied.");
    } catch {
      link.select();
      say(this.status, "Copy the selected link (the browser refused the clipboard).");
    }
  }

  async start(event) {
    event.preventDefault();
    const bring = [];
    const inputs = [];
    for (const box of $("campaign-bring-characters").querySelectorAll("input:checked")) {
      bring.push({ actor: box.value });
      inputs.push(box);
    }
    for (const input of $("campaign-bring-templates").querySelectorAll("input[data-template]")) {
      input.removeAttribute("aria-invalid");
      const count = Number(input.value || 0);
      if (!Number.isInteger(count) || count < 0 || count > 20) {
        this.showError(`${input.labels[0].textContent}: a whole number from 0 to 20.`, input);
        return;
      }
      if (count) {
        bring.push({ actor: input.dataset.template, count });
        inputs.push(input);
      }
    }
    const body = { name: $("campaign-start-name").value.trim(), bring, damage: $("campaign-start-damage").value };
    const field = (path) => {
      const at = /^\$\.bring\[(\d+)\]/.exec(path || "");
      return at ? inputs[Number(at[1])] : path === "$.name" ? $("campaign-start-name") : null;
    };
    const button = $("campaign-start-submit");
    button.disabled = true;
    try {
      const made = await this.change("Not started", (campaign, token) => api.startCampaignEncounter(campaign, token, body), field);
      if (!made) return;
      $("campaign-start-name").value = "";
      // Opened with the campaign's own GM token (it is the encounter's GM too); the encounter's
      // own tokens are in its share panel.
      await this.onOpenEncounter(made.id, this.current.token, made.tokens, "gm", null);
    } catch (error) {
      this.showError(`Started, not opened: ${describe(error)}`);
    } finally {
      button.disabled = false;
    }
  }
}
