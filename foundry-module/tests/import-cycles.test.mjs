// No module in src/ may import one that imports it back, however long the way round: a circle
// makes the order ES modules are evaluated in decide what a binding holds when the code runs
// (a `const` read before its module ran throws), and it ties the modules together.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** Every module under src/ (sub-folders too), as a path relative to src/. */
function modules(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith(".mjs") || entry.name.endsWith(".js") ? [relative(SRC, path)] : [];
  });
}

/**
 * The relative modules a source imports: static `import ... from "./x.mjs"`, bare
 * `import "./x.mjs"`, `export ... from "./x.mjs"` and `import("./x.mjs")`. Comments are
 * left out first, so a path named in one is no import.
 */
export function importsOf(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const found = [];
  const patterns = [
    /\b(?:import|export)\s[^;'"]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.push(m[1]);
  return found.filter((path) => path.startsWith("./") || path.startsWith("../"));
}

/** The import graph of src/: module -> the src/ modules it imports. */
function graph() {
  const all = modules();
  const known = new Set(all);
  return new Map(all.map((file) => {
    const source = readFileSync(join(SRC, file), "utf8");
    const targets = importsOf(source).map((path) => normalize(join(dirname(file), path))).filter((path) => known.has(path));
    return [file, [...new Set(targets)]];
  }));
}

/** Every circle in a graph, each once, as the modules round it from its first back to it. */
export function cycles(edges) {
  const found = new Map();
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") {
        const circle = stack.slice(stack.indexOf(next));
        // One key per circle, whichever module the search entered it by.
        const key = [...circle].sort().join(" ");
        if (!found.has(key)) found.set(key, [...circle, next]);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return [...found.values()];
}

test("the cycle finder sees a circle of two, one of three, and none in a tree", () => {
  assert.deepEqual(cycles(new Map([["a", ["b"]], ["b", ["a"]]])), [["a", "b", "a"]]);
  assert.deepEqual(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]])), [["a", "b", "c", "a"]]);
  assert.deepEqual(cycles(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]])), []);
  assert.deepEqual(
    importsOf('import { x } from "./x.mjs";\nimport * as y from "./y.mjs";\nexport { z } from "./z.mjs";\n// import { no } from "./no.mjs";\nconst w = await import("./w.mjs");\nimport "./side.mjs";\nimport h from "handlebars";'),
    ["./x.mjs", "./y.mjs", "./z.mjs", "./side.mjs", "./w.mjs"],
  );
});

test("no module in src/ imports one that imports it back", () => {
  const edges = graph();
  assert.ok(edges.size > 20, `src/ read (${edges.size} modules)`);
  assert.ok(edges.get("module.mjs").includes("foundry-app.mjs"), "imports are read");
  const found = cycles(edges);
  assert.deepEqual(found.map((c) => c.join(" -> ")), []);
});
