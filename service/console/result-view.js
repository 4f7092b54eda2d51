// Any result the console shows, rendered and said in words by the ruleset form of its kind (the
// round's own for advances, initiative and actions; plainly for a kind no form knows). The full
// table and a player's phone view show results the same way.

import { summarizeEvent } from "./feed.js";
import { renderInitiative } from "./initiative.js";
import { genericResult } from "./results.js";
import { renderAction, renderAdvance } from "./round.js";
import d100 from "./rulesets/d100.js";
import sr3 from "./rulesets/sr3.js";
import sr3hl from "./rulesets/sr3hl.js";
import sr4 from "./rulesets/sr4.js";
import sr5 from "./rulesets/sr5.js";

// The forms this console has; a ruleset the service lists without one here can still be joined
// and followed, but not attacked with.
export const FORMS = { sr5, d100, sr3, sr4, "sr3-hardlife": sr3hl };

export function formFor(kind) {
  return Object.values(FORMS).find((ruleset) => ruleset.kinds.includes(kind)) || null;
}

// An event in words (feed.js), with this console's ruleset forms.
export const summarize = (event) => summarizeEvent(event, formFor);

// A result in one line: its ruleset form's summary, or the feed's words for its kind.
export function resultSummary(result) {
  const ruleset = formFor(result.kind);
  return ruleset ? ruleset.summary(result) : summarize({ result, type: result.kind, actor: result.actor });
}

export function renderResult(result) {
  const rendered = renderOne(result);
  // Grenades the change set off when the turn reached their moment (sr4's `went_off`).
  for (const blast of result.went_off || []) rendered.appendChild((formFor(blast.kind)?.render || genericResult)(blast));
  return rendered;
}

function renderOne(result) {
  if (result.kind === "advance") return renderAdvance(result);
  if (result.kind === "initiative") return renderInitiative(result);
  if (result.kind === "action") {
    return renderAction(result, (attack) => (formFor(attack.kind)?.render || genericResult)(attack));
  }
  const ruleset = formFor(result.kind);
  return ruleset ? ruleset.render(result) : genericResult(result);
}
