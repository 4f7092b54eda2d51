// The GM's import of a character file onto an actor of the roster: a labelled file input and
// drag and drop, the format from the file's extension (asked when it does not say), and the
// import's report (what was read from where, what was left out) shown after it.

import * as api from "./api.js";
import { el } from "./results.js";

// What each extension is; any other the GM is asked for.
const FORMATS = { chum5: "chummer5", chum: "chummer4", json: "foundry" };
const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

export function formatOf(fileName) {
  const extension = /\.([^.]+)$/.exec(fileName)?.[1]?.toLowerCase();
  return FORMATS[extension] || null;
}

// "Kestrel (final).chum5" -> "kestrel-final": a new actor's id from its file's name.
export function idFromFileName(fileName) {
  const stem = fileName.replace(/\.[^.]+$/, "").toLowerCase().replace(/[^a-z0-9_.:-]+/g, "-").replace(/^-+|-+$/g, "");
  return stem.slice(0, 60) || "imported";
}

export class CharacterImport {
  // `roster`: the Roster it belongs to (its actors, its free ids, its alert and its answer).
  constructor({ form, report, roster }) {
    this.form = form;
    this.report = report;
    this.roster = roster;
    this.target = form.querySelector("#import-target");
    this.idInput = form.querySelector("#import-id");
    this.format = form.querySelector("#import-format");
    this.fileInput = form.querySelector("#import-file");
    // A file whose format the GM is being asked for: imported once it is chosen.
    this.pending = null;
    this.target.addEventListener("change", () => { this.idInput.disabled = Boolean(this.target.value); });
    this.fileInput.addEventListener("change", () => {
      const [file] = this.fileInput.files;
      if (file) this.importFile(file, this.target.value);
    });
    this.format.addEventListener("change", () => {
      if (this.pending && this.format.value) this.importFile(this.pending.file, this.pending.actor);
    });
    form.addEventListener("submit", (event) => event.preventDefault());
  }

  // The actors on the scene as choices of "Onto", the choice kept while it is there.
  refreshTargets(ids) {
    const chosen = this.target.value;
    const options = [el("option", { value: "", text: "a new actor" }), ...ids.map((id) => el("option", { value: id, text: id }))];
    this.target.replaceChildren(...options);
    this.target.value = ids.includes(chosen) ? chosen : "";
    this.idInput.disabled = Boolean(this.target.value);
  }

  // "Import onto <actor>": that actor chosen, and the file chooser opened.
  chooseFor(actor) {
    this.target.value = actor;
    this.idInput.disabled = true;
    this.fileInput.focus();
    this.fileInput.click();
  }

  // A file dropped on the roster: onto `actor` (null: a new one); the form's own choice stays.
  dropped(file, actor) {
    this.importFile(file, actor || "");
  }

  async importFile(file, onto) {
    this.roster.hideError();
    const format = this.format.value || formatOf(file.name);
    if (!format) {
      this.pending = { file, actor: onto };
      this.roster.showError(`Which format is ${file.name}? Choose it under Format and it is imported.`, this.format);
      return;
    }
    this.pending = null;
    const actor = onto || this.newId(file.name);
    if (!ID_PATTERN.test(actor)) {
      this.roster.showError("New actor's id: letters, digits and _ . : - (up to 64).", this.idInput);
      return;
    }
    const { id, token } = this.roster.session();
    try {
      const answer = await api.importCharacter(id, token, actor, format, file);
      this.roster.onSceneResult?.(answer.result);
      this.showReport(actor, file.name, answer.report);
      this.idInput.value = "";
    } catch (problem) {
      this.roster.showError(`${file.name} not imported onto ${actor}: ${problem.describe?.() || problem.message}`, this.fileInput);
    } finally {
      this.fileInput.value = "";
    }
  }

  newId(fileName) {
    const typed = this.idInput.value.trim();
    if (typed) return typed;
    const id = idFromFileName(fileName);
    return this.roster.actors.has(id) ? this.roster.freeId(id) : id;
  }

  showReport(actor, fileName, report) {
    this.report.replaceChildren(...reportParts(report, `onto ${actor}`, fileName, "import-report-heading"));
    this.report.hidden = false;
  }
}

// An import's report: what was read (each field, its value and where in the file it came from)
// and what was left out and why; `onto` says where it went ("onto kestrel", "as kestrel").
// Also the campaign page's (campaign.js).
export function reportParts(report, onto, fileName, headingId) {
  const read = report.read.map((entry) =>
    el("li", { dataField: entry.field }, el("code", { text: entry.field }), ` = ${entry.value} `, el("small", { text: `(${entry.source})` })));
  const leftOut = report.left_out.map((entry) =>
    el("li", {}, el("code", { text: entry.source }), `: ${entry.reason}`));
  const name = report.name ? `${report.name} ` : "";
  return [
    el("h3", { id: headingId, text: `Imported ${name}${onto}` }),
    el("p", { text: `${fileName} (${report.source_format}, ${report.ruleset}): ${report.read.length} fields read, ${report.left_out.length} parts left out.` }),
    el("details", { class: "import-read" }, el("summary", { text: `Read (${report.read.length})` }), el("ul", {}, read)),
    el("details", { class: "import-left-out", open: true }, el("summary", { text: `Left out (${report.left_out.length})` }),
      leftOut.length ? el("ul", {}, leftOut) : el("p", { text: "Nothing." })),
  ];
}
