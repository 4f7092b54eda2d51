// Which line of a game system's data model the running release is. Each mapped system keeps
// its own table of data paths with one entry per version line (SR5_PATHS in sr5-actor.mjs,
// SR4E_PATHS in sr4-actor.mjs, SR3E_PATHS in sr3-actor.mjs); the running release is
// `game.system.version` (foundry.packages.BaseSystem: `version`, the manifest's version string).

/** A version string as its numbers and its pre-release identifiers ("0.0.3-beta.2"). */
function parts(version) {
  const [core, pre = ""] = String(version ?? "").trim().replace(/^v/i, "").split(/-(.*)/s);
  const numbers = core.split(".").map((n) => Number.parseInt(n, 10) || 0);
  return { numbers, pre: pre ? pre.split(".") : [] };
}

/**
 * -1, 0 or 1 as `a` is before, the same as or after `b`, as Foundry's
 * foundry.utils.isNewerVersion orders them and semver orders pre-releases: numbers part by
 * part, then a pre-release ("0.0.3-beta.0") before its release ("0.0.3"), identifiers numeric
 * by number and the others alphabetically ("alpha.6" before "beta.0").
 */
export function compareVersions(a, b) {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.numbers.length, y.numbers.length); i += 1) {
    const d = (x.numbers[i] ?? 0) - (y.numbers[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (!x.pre.length || !y.pre.length) return Math.sign(y.pre.length - x.pre.length);
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i += 1) {
    if (x.pre[i] === undefined) return -1;
    if (y.pre[i] === undefined) return 1;
    const [p, q] = [x.pre[i], y.pre[i]];
    const numeric = /^\d+$/.test(p) && /^\d+$/.test(q);
    const d = numeric ? Number(p) - Number(q) : p.localeCompare(q);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * The entry of `lines` (each with `since`, the first release of its line, oldest first) that
 * `version` runs. A version not given or not read (a test, a system that names none) is the
 * newest line, the one current releases run.
 */
export function versionLine(lines, version) {
  if (version === undefined || version === null || version === "") return lines.at(-1);
  let found = lines[0];
  for (const line of lines) if (compareVersions(version, line.since) >= 0) found = line;
  return found;
}

/** The value at a dotted data path (foundry.utils.getProperty). */
export function read(object, path) {
  if (!path) return undefined;
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), object);
}
