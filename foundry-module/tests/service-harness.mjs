// Starts the real firefight service for the end-to-end test: `python -m service` from the repo
// root on a free port with its embedded store, ready once /readyz answers 200. With
// FIREFIGHT_CONSTANT_DICE set (a face as a share of the die, e.g. 0.5), it runs
// `python -m tests.constant_dice_service` instead: every die the service picks rolls that one face,
// so a test that counts on luck fails every time (as `tests/constant_dice.py` does for pytest).

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { MODULE_ROOT } from "./foundry-stubs.mjs";

export const REPO_ROOT = resolve(MODULE_ROOT, "..");

/** The Python to run: $FIREFIGHT_PYTHON (relative paths from the repo root), else the repo's .venv. */
export function pythonPath() {
  const configured = process.env.FIREFIGHT_PYTHON;
  return configured ? resolve(REPO_ROOT, configured) : join(REPO_ROOT, ".venv", "bin", "python");
}

/** The service's command line: constant dice when FIREFIGHT_CONSTANT_DICE asks for them. */
export function serviceModule() {
  return process.env.FIREFIGHT_CONSTANT_DICE ? "tests.constant_dice_service" : "service";
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

export async function startService({ adminKey, timeoutMs = 20_000 }) {
  const python = pythonPath();
  if (!existsSync(python)) {
    throw new Error(`no Python at ${python}: run \`make .venv/.installed\` in ${REPO_ROOT} or set FIREFIGHT_PYTHON`);
  }
  const port = await freePort();
  const output = [];
  const child = spawn(python, ["-m", serviceModule(), "--host", "127.0.0.1", "--port", String(port)], {
    cwd: REPO_ROOT,
    env: { ...process.env, FIREFIGHT_ADMIN_KEY: adminKey, FIREFIGHT_LOG_FORMAT: "json", FIREFIGHT_REDIS_URL: "", FIREFIGHT_STORE: "memory" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  const exited = new Promise((resolveExit) => child.once("exit", (code, signal) => resolveExit({ code, signal })));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  // Readiness polling of /readyz (the service's own readiness signal).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${Buffer.concat(output)}`);
    try {
      const response = await fetch(`${baseUrl}/readyz`);
      if (response.status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the service was not ready within ${timeoutMs} ms:\n${Buffer.concat(output)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    baseUrl,
    log: () => Buffer.concat(output).toString("utf8"),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
