// Odds previews (docs/odds.md): the body the attack form (or a zone test's form) would send, asked
// of .../odds as the form changes, and the answer drawn: per target the chance of a hit (and a
// graze), the expected boxes, a glitch, and a bar chart of the damage. Nothing is rolled or
// stored; only the answer to the latest request is shown.

import { el } from "./results.js";

const SVG = "http://www.w3.org/2000/svg";
// Long enough that typing "12" asks once, short enough to feel live.
export const DEBOUNCE_MS = 250;

// A probability as a table reads it: one decimal, and never "0.0%" for what can happen.
export function percent(p) {
  if (p > 0 && p < 0.0005) return "<0.1%";
  if (p < 1 && p >= 0.9995) return ">99.9%";
  return `${(p * 100).toFixed(1)}%`;
}

export const mean = (x) => x.toFixed(2);

// d100 counts damage points; every Shadowrun counts boxes (schemas/odds.py, DamageChance).
const unitOf = (ruleset) => (ruleset === "d100" ? "damage" : "boxes");

// One bar per distinct number of boxes: tracks, levels and locations added up.
export function damageBars(damage) {
  const bars = new Map();
  for (const entry of damage) bars.set(entry.boxes, (bars.get(entry.boxes) || 0) + entry.p);
  return [...bars.entries()].sort(([a], [b]) => a - b).map(([boxes, p]) => ({ boxes, p }));
}

function svgElement(name, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== null) element.textContent = text;
  return element;
}

// Bars of up to 32 px (a few outcomes), narrower for a long tail (Push the Limit's exploding
// sixes) so the chart stays within 360 px; every bar keeps its number in its title, and about 16
// of them are labelled below.
const CHART = { width: 360, slot: 32, height: 64, top: 14, label: 14, labels: 16 };

// The damage distribution as bars, with its text alternative (the same numbers in words).
function damageChart(target, unit) {
  const bars = damageBars(target.damage);
  const highest = Math.max(...bars.map((bar) => bar.p), 0) || 1;
  const slot = Math.min(CHART.slot, CHART.width / Math.max(1, bars.length));
  const barWidth = Math.max(2, Math.round(slot * 0.8 * 10) / 10);
  const every = Math.ceil(bars.length / CHART.labels);
  const width = Math.ceil(bars.length * slot);
  const height = CHART.top + CHART.height + CHART.label;
  const words = bars.map((bar) => `${bar.boxes} ${unit}: ${percent(bar.p)}`).join(", ");
  const svg = svgElement("svg", {
    class: "odds-chart", viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": `Damage to ${target.target}: ${words}`,
  });
  bars.forEach((bar, index) => {
    const x = index * slot + (slot - barWidth) / 2;
    const middle = x + barWidth / 2;
    const tall = Math.max(1, (bar.p / highest) * CHART.height);
    const group = svgElement("g", { class: bar.boxes === 0 ? "bar none" : "bar", "data-boxes": bar.boxes, "data-p": bar.p });
    group.append(
      svgElement("title", {}, `${bar.boxes} ${unit}: ${percent(bar.p)}`),
      svgElement("rect", { x, y: CHART.top + CHART.height - tall, width: barWidth, height: tall }),
    );
    if (slot >= 24) {
      group.appendChild(svgElement("text", { class: "share", x: middle, y: CHART.top + CHART.height - tall - 3, "text-anchor": "middle" }, `${Math.round(bar.p * 100)}%`));
    }
    if (index % every === 0 || index === bars.length - 1) {
      group.appendChild(svgElement("text", { class: "boxes", x: middle, y: height - 2, "text-anchor": "middle" }, String(bar.boxes)));
    }
    svg.appendChild(group);
  });
  return el("figure", { class: "odds-damage" }, svg, el("figcaption", { text: unit === "damage" ? "Damage points" : "Boxes of damage" }));
}

// A number shown with its exact value beside it (data-value), so a test can check both.
const value = (text, raw, field) => el("span", { dataField: field, dataValue: raw, text });

function targetOdds(target, unit) {
  const rows = [["Hit", value(percent(target.hit), target.hit, "hit")]];
  if (target.graze > 0) rows.push(["Graze", value(percent(target.graze), target.graze, "graze")]);
  rows.push([unit === "damage" ? "Expected damage" : "Expected boxes", value(mean(target.damage_mean), target.damage_mean, "damage_mean")]);
  const glitch = el("span", {}, value(percent(target.glitch), target.glitch, "glitch"));
  if (target.critical_glitch > 0) glitch.append(" (critical ", value(percent(target.critical_glitch), target.critical_glitch, "critical_glitch"), ")");
  rows.push(["Glitch", glitch]);
  const list = el("dl", { class: "facts odds-facts" });
  for (const [term, shown] of rows) list.append(el("dt", { text: term }), el("dd", {}, shown));
  const article = el("article", { class: "odds-target", dataTarget: target.target }, el("h4", { text: target.target }), list, damageChart(target, unit));
  if (target.notes?.length) article.appendChild(el("ul", { class: "notes" }, target.notes.map((note) => el("li", { text: note }))));
  return article;
}

function sampledLine(sampling) {
  if (!sampling) return null;
  return el("p", { class: "help odds-sampled", dataField: "sampling" },
    `Sampled, ${sampling.samples} samples, ±${percent(sampling.margin)} (${Math.round(sampling.confidence * 100)}% confidence): ${sampling.what}.`);
}

// An AttackOdds or a ZoneTestOdds (schemas/odds.py), drawn; and its one-line summary.
export function renderOdds(answer) {
  const unit = unitOf(answer.ruleset);
  const targets = answer.kind === "zone_test_odds" ? [answer.target] : answer.targets;
  const parts = [];
  if (answer.kind === "attack_odds" && targets.length > 1) {
    parts.push(el("p", { class: "odds-whole", dataField: "whole" },
      "The whole attack: at least one hit ", value(percent(answer.any_hit), answer.any_hit, "any_hit"),
      `, ${unit === "damage" ? "expected damage" : "expected boxes"} in all `, value(mean(answer.damage_mean), answer.damage_mean, "total_damage_mean"), "."));
  }
  parts.push(...targets.map((target) => targetOdds(target, unit)));
  const sampled = sampledLine(answer.sampling);
  if (sampled) parts.push(sampled);
  if (answer.notes?.length) parts.push(el("ul", { class: "notes odds-notes" }, answer.notes.map((note) => el("li", { text: note }))));
  const summary = targets.length
    ? targets.map((t) => `${t.target}: ${percent(t.hit)} hit, ${mean(t.damage_mean)} ${unit} expected`).join("; ")
    : answer.notes?.[0] || "No target to hit.";
  return { parts, summary: `${answer.method === "sampled" ? "Sampled odds" : "Odds"}: ${summary}.` };
}

// A refusal as a line of the panel: the service's detail, and the field it is about.
function refusalText(error) {
  const problem = error?.problem || {};
  const detail = problem.detail || problem.title || error?.message || "no answer";
  const where = problem.path ? ` (at ${problem.path})` : "";
  if (error?.status >= 500) return `No odds from the service (${error.status}): ${detail}`;
  return `No odds: ${detail}${where}`;
}

// One panel that follows one form: `read()` gives the body (it throws while the form is not
// complete), `ask(body)` sends it. `schedule()` after every change; answers to older requests
// than the last one sent are dropped.
export class OddsPanel {
  constructor({ panel, read, ask, delay = DEBOUNCE_MS }) {
    this.panel = panel;
    this.status = panel.querySelector(".odds-status");
    this.body = panel.querySelector(".odds-body");
    this.read = read;
    this.ask = ask;
    this.delay = delay;
    this.timer = null;
    this.sent = 0;
    this.answered = 0;
  }

  // A change waits `delay` for the next one; the panel says a request is due meanwhile.
  schedule() {
    clearTimeout(this.timer);
    this.panel.dataset.pending = "true";
    this.timer = setTimeout(() => this.refresh(), this.delay);
  }

  // The form went away (the zone test closed, the encounter left): nothing more is shown.
  stop() {
    clearTimeout(this.timer);
    delete this.panel.dataset.pending;
    this.sent += 1;
    this.panel.removeAttribute("aria-busy");
    this.set("idle", "");
    this.body.replaceChildren();
  }

  set(state, text) {
    this.panel.dataset.state = state;
    this.status.textContent = text;
  }

  async refresh() {
    clearTimeout(this.timer);
    delete this.panel.dataset.pending;
    let body;
    try {
      body = this.read();
    } catch (error) {
      // Not a body yet: the form says what is missing when it is sent; here, quietly.
      this.sent += 1;
      this.panel.removeAttribute("aria-busy");
      this.set("incomplete", `Odds once the form is complete (${error.message}).`);
      this.body.replaceChildren();
      return;
    }
    delete body.dice;
    this.sent += 1;
    const asked = this.sent;
    this.panel.setAttribute("aria-busy", "true");
    let answer = null;
    let refused = null;
    try {
      answer = await this.ask(body);
    } catch (error) {
      refused = error;
    }
    this.answered += 1;
    this.panel.dataset.answered = String(this.answered);
    if (asked !== this.sent) return;
    this.panel.removeAttribute("aria-busy");
    this.panel.dataset.shown = String(asked);
    if (refused) {
      this.set("problem", refusalText(refused));
      this.body.replaceChildren();
      return;
    }
    let drawn;
    try {
      drawn = renderOdds(answer);
    } catch (error) {
      // An answer this page cannot read (a newer service?): said as a refusal is.
      this.set("problem", `No odds: the answer could not be read (${error.message})`);
      this.body.replaceChildren();
      return;
    }
    this.set(answer.method === "sampled" ? "sampled" : "exact", drawn.summary);
    this.body.replaceChildren(...drawn.parts);
  }
}
