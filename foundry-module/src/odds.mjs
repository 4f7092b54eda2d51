// The attack dialog's odds (docs/odds.md): the body the attack would send, without its given
// dice, asked of POST .../attacks/odds as the dialog's fields change, and the answer drawn with
// templates/odds-panel.hbs: per target the chance of a hit (and of a graze), the expected boxes,
// a glitch, and a bar chart of the damage. Only the answer to the latest request is shown.

export const ODDS_TEMPLATE = "modules/firefight/templates/odds-panel.hbs";
// Long enough that typing "12" asks once, short enough to feel live.
export const ODDS_DELAY_MS = 250;

/** A probability as a table reads it: one decimal, never "0.0%" for what can happen. */
export function percent(p) {
  if (p > 0 && p < 0.0005) return "<0.1%";
  if (p < 1 && p >= 0.9995) return ">99.9%";
  return `${(p * 100).toFixed(1)}%`;
}

export const mean = (x) => x.toFixed(2);

/** One bar per distinct number of boxes: tracks, levels and locations added up. */
export function damageBars(damage) {
  const bars = new Map();
  for (const entry of damage) bars.set(entry.boxes, (bars.get(entry.boxes) ?? 0) + entry.p);
  return [...bars.entries()].sort(([a], [b]) => a - b).map(([boxes, p]) => ({ boxes, p }));
}

// Bars of up to 28 px (a few outcomes), narrower for a long tail (Push the Limit's exploding
// sixes) so the chart stays within 300 px; every bar keeps its number in its title, and about
// 14 of them are labelled below.
const CHART = { width: 300, slot: 28, height: 48, top: 12, label: 12, labels: 14 };

/**
 * What odds-panel.hbs draws from an AttackOdds or a ZoneTestOdds (schemas/odds.py), in this
 * user's language: `localize(key, data)` as game.i18n's, `nameOf(id)` a token's name.
 */
export function oddsView(answer, { localize, nameOf = (id) => id }) {
  const damagePoints = answer.ruleset === "d100";
  const unitKey = damagePoints ? "FIREFIGHT.Odds.BarDamage" : "FIREFIGHT.Odds.BarBoxes";
  const list = answer.kind === "zone_test_odds" ? [answer.target] : answer.targets;
  const targets = list.map((t) => {
    const bars = damageBars(t.damage);
    const highest = Math.max(...bars.map((b) => b.p), 0) || 1;
    const slot = Math.min(CHART.slot, CHART.width / Math.max(1, bars.length));
    const width = Math.max(2, Math.round(slot * 0.8 * 10) / 10);
    const every = Math.ceil(bars.length / CHART.labels);
    const round = (n) => Math.round(n * 10) / 10;
    const drawn = bars.map((bar, index) => {
      const height = Math.max(1, round((bar.p / highest) * CHART.height));
      const x = round(index * slot + (slot - width) / 2);
      return {
        boxes: bar.boxes,
        p: bar.p,
        percent: percent(bar.p),
        // The share above a bar where there is room for it; the number of boxes below every few.
        share: slot >= 22 ? `${Math.round(bar.p * 100)}%` : null,
        labelled: index % every === 0 || index === bars.length - 1,
        none: bar.boxes === 0,
        x,
        y: round(CHART.top + CHART.height - height),
        width,
        height,
        middle: round(x + width / 2),
        shareY: round(CHART.top + CHART.height - height - 2),
        labelY: CHART.top + CHART.height + CHART.label - 2,
        title: localize(unitKey, { boxes: bar.boxes, percent: percent(bar.p) }),
      };
    });
    const name = nameOf(t.target);
    return {
      id: t.target,
      name,
      hit: percent(t.hit),
      hitP: t.hit,
      graze: t.graze > 0 ? percent(t.graze) : null,
      grazeP: t.graze,
      damageMean: mean(t.damage_mean),
      damageMeanValue: t.damage_mean,
      glitch: percent(t.glitch),
      glitchP: t.glitch,
      criticalGlitch: t.critical_glitch > 0 ? percent(t.critical_glitch) : null,
      bars: drawn,
      chart: {
        width: Math.ceil(drawn.length * slot),
        height: CHART.top + CHART.height + CHART.label,
        // The chart's text alternative: every bar in words.
        label: localize("FIREFIGHT.Odds.Chart", { name, bars: drawn.map((b) => b.title).join(", ") }),
      },
      notes: t.notes ?? [],
    };
  });
  const whole = answer.kind === "attack_odds" && list.length > 1
    ? { anyHit: percent(answer.any_hit), anyHitP: answer.any_hit, damageMean: mean(answer.damage_mean), damageMeanValue: answer.damage_mean }
    : null;
  const sampling = answer.sampling
    ? { ...answer.sampling, text: localize("FIREFIGHT.Odds.Sampled", { samples: answer.sampling.samples, margin: percent(answer.sampling.margin), what: answer.sampling.what }) }
    : null;
  return { damagePoints, targets, whole, sampling, notes: answer.notes ?? [], none: targets.length === 0 };
}

/**
 * The odds of one open dialog. `read()` gives the attack's body (it throws while the dialog
 * cannot make one), `ask(body)` posts it, `draw(answer)` gives the panel's HTML, `say(key,
 * data)` a line of the panel in this user's language; `describe(error)` a failure's text.
 * `schedule()` after each change; `stop()` when the dialog closes. An answer to a request older
 * than the last one sent is dropped.
 */
export class OddsPreview {
  constructor({ panel, read, ask, draw, say, describe, delay = ODDS_DELAY_MS, timers = globalThis }) {
    Object.assign(this, { panel, read, ask, draw, say, describe, delay, timers });
    this.timer = null;
    this.sent = 0;
    this.stopped = false;
    this.current = Promise.resolve();
    // Resolves when the pending timer fires (or is cleared).
    this.due = Promise.resolve();
    this.fireDue = null;
  }

  schedule() {
    if (this.stopped) return;
    if (this.timer === null) this.due = new Promise((resolve) => { this.fireDue = resolve; });
    this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => this.refresh(), this.delay);
  }

  #clearTimer() {
    this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.fireDue?.();
    this.fireDue = null;
  }

  stop() {
    this.stopped = true;
    this.#clearTimer();
    this.sent += 1;
  }

  /** Resolves once nothing is pending: the latest change asked and its answer drawn (or dropped). */
  async settled() {
    for (;;) {
      const seen = this.sent;
      await this.due;
      await this.current;
      if (this.timer === null && seen === this.sent) return;
    }
  }

  show(state, html) {
    this.panel.dataset.state = state;
    this.panel.innerHTML = html;
  }

  refresh() {
    if (this.stopped) return this.current;
    this.#clearTimer();
    this.sent += 1;
    const asked = this.sent;
    this.current = this.#ask(asked);
    return this.current;
  }

  async #ask(asked) {
    let body;
    try {
      body = this.read();
    } catch (error) {
      this.show("incomplete", this.say("FIREFIGHT.Odds.Incomplete", { detail: this.describe(error) }));
      return;
    }
    delete body.dice;
    this.panel.dataset.state = "asking";
    let html;
    let state;
    try {
      const answer = await this.ask(body);
      if (asked !== this.sent) return;
      html = await this.draw(answer);
      state = answer.method;
    } catch (error) {
      html = this.say("FIREFIGHT.Odds.Refused", { detail: this.describe(error) });
      state = "refused";
    }
    if (asked === this.sent) this.show(state, html);
  }
}
