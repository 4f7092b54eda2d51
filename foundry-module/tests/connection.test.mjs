// The settings' connection check, against a fetch that answers like the service.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { format, localize } from "./foundry-stubs.mjs";
import { checkConnection, isMixedContent } from "../src/connection.mjs";
import { FirefightClient, FirefightError } from "../src/client.mjs";

function json(status, body) {
  return { status, ok: status >= 200 && status < 300, text: async () => (body === undefined ? "" : JSON.stringify(body)) };
}

/** A fetch answering by "METHOD path", recording what it was asked. */
function fakeFetch(routes) {
  const calls = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    calls.push({ method: init.method ?? "GET", path, headers: init.headers ?? {}, body: init.body });
    const answer = routes[`${init.method ?? "GET"} ${path}`];
    if (answer instanceof Error) throw answer;
    if (typeof answer === "function") return answer(init);
    if (!answer) return json(404, { detail: "not found" });
    return answer;
  };
  return { fetch, calls };
}

const ready = { "GET /readyz": json(200, { status: "ok", store: "memory" }) };

test("mixed content: an https page cannot call an http service, except on loopback", () => {
  assert.equal(isMixedContent("https://vtt.example.org/game", "http://ff.example.org"), true);
  assert.equal(isMixedContent("https://vtt.example.org/game", "http://localhost:8080"), false);
  assert.equal(isMixedContent("https://vtt.example.org/game", "http://127.0.0.1:8080"), false);
  assert.equal(isMixedContent("https://vtt.example.org/game", "https://ff.example.org"), false);
  assert.equal(isMixedContent("http://vtt.example.org/game", "http://ff.example.org"), false);
});

test("each failure has its own message", async () => {
  const cases = [
    [{ serviceUrl: "ff.example.org" }, "badUrl"],
    [{ serviceUrl: "ftp://ff.example.org" }, "badUrl"],
    [{ serviceUrl: "http://ff.example.org", pageUrl: "https://vtt.example.org/game" }, "mixedContent"],
    [{ serviceUrl: "http://ff.example.org", fetch: fakeFetch({ "GET /readyz": new TypeError("Failed to fetch") }).fetch }, "unreachable"],
    [{ serviceUrl: "http://ff.example.org", fetch: fakeFetch({ "GET /readyz": json(503, { status: "unavailable" }) }).fetch }, "notReady"],
    [{ serviceUrl: "http://ff.example.org", encounterId: "e1", token: "bad", fetch: fakeFetch({ ...ready, "GET /v1/encounters/e1": json(401, { detail: "no" }) }).fetch }, "unauthorized"],
    [{ serviceUrl: "http://ff.example.org", encounterId: "e1", token: "p", fetch: fakeFetch({ ...ready, "GET /v1/encounters/e1": json(403, { detail: "no" }) }).fetch }, "forbidden"],
    [{ serviceUrl: "http://ff.example.org", encounterId: "e1", token: "gm", fetch: fakeFetch({ ...ready, "GET /v1/encounters/e1": json(200, { id: "e1" }) }).fetch }, "ok"],
    [{ serviceUrl: "http://ff.example.org", fetch: fakeFetch(ready).fetch }, "okNoToken"],
    [{ serviceUrl: "http://ff.example.org", adminKey: "wrong", fetch: fakeFetch({ ...ready, "POST /v1/encounters": json(401, { detail: "no" }) }).fetch }, "adminRejected"],
    [{ serviceUrl: "http://ff.example.org", adminKey: "right", fetch: fakeFetch({ ...ready, "POST /v1/encounters": json(400, { detail: "Object missing required field `ruleset`" }) }).fetch }, "adminOk"],
  ];
  for (const [options, key] of cases) {
    const result = await checkConnection({ fetch: async () => assert.fail("no request expected"), ...options });
    assert.equal(result.key, key, JSON.stringify(options.serviceUrl));
    assert.equal(result.ok, key.startsWith("ok") || key === "adminOk");
    assert.notEqual(localize(`FIREFIGHT.Check.${key}`), `FIREFIGHT.Check.${key}`, `message for ${key}`);
  }
});

test("an https service that does not answer: the message says how to tell a certificate the browser does not trust from a service that is down", async () => {
  const failing = fakeFetch({ "GET /readyz": new TypeError("Failed to fetch") }).fetch;
  const result = await checkConnection({ serviceUrl: "https://ff.example.org/", pageUrl: "https://vtt.example.org/game", fetch: failing });
  assert.equal(result.key, "unreachableHttps");
  assert.deepEqual(result.data, { url: "https://ff.example.org", origin: "https://vtt.example.org", detail: "Failed to fetch", check: "https://ff.example.org/readyz" });
  const message = format(`FIREFIGHT.Check.${result.key}`, result.data);
  assert.doesNotMatch(message, /\{\w+\}/, "every placeholder is filled");
  // What the GM does: open the service's /readyz in a tab, where the browser shows the warning.
  assert.match(message, /open https:\/\/ff\.example\.org\/readyz in a new browser tab/);
  assert.match(message, /certificate/);
  assert.match(message, /Your connection is not private/); // Chrome's words
  assert.match(message, /Potential Security Risk/); // Firefox's
  assert.match(message, /FIREFIGHT_CORS_ORIGINS must list https:\/\/vtt\.example\.org exactly/);

  // The same failure later in the check (the admin key, the encounter's token) says the same.
  for (const options of [{ adminKey: "k" }, { encounterId: "e1", token: "t" }]) {
    const later = fakeFetch({ ...ready, "POST /v1/encounters": new TypeError("Failed to fetch"), "GET /v1/encounters/e1": new TypeError("Failed to fetch") }).fetch;
    const answer = await checkConnection({ serviceUrl: "https://ff.example.org", fetch: later, ...options });
    assert.equal(answer.key, "unreachableHttps", JSON.stringify(options));
  }
  // An http service has no certificate: its message does not send the GM looking for one.
  const plain = await checkConnection({ serviceUrl: "http://ff.example.org", pageUrl: "http://vtt.example.org/game", fetch: failing });
  assert.equal(plain.key, "unreachable");
  assert.doesNotMatch(format("FIREFIGHT.Check.unreachable", plain.data), /certificate/);
});

test("the mixed-content message says what to give the module instead", () => {
  const message = format("FIREFIGHT.Check.mixedContent", { url: "http://ff.example.org" });
  assert.match(message, /the service address, http:\/\/ff\.example\.org, is not \(http\)/);
  assert.match(message, /Give the module the service's https address/);
  assert.match(message, /open Foundry over http/);
});

/** A real https server on loopback whose certificate no one trusts (made by the openssl CLI). */
async function untrustedHttpsServer() {
  const directory = mkdtempSync(join(tmpdir(), "firefight-tls-"));
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { cwd: directory, stdio: "ignore" });
  const server = createServer({ key: readFileSync(join(directory, "key.pem")), cert: readFileSync(join(directory, "cert.pem")) }, (request, response) => {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify({ status: "ok", store: "memory" }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, port: server.address().port, cleanup: () => rmSync(directory, { recursive: true, force: true }) };
}

test("a real certificate failure and a real refused connection reach the check as the same error, and get the same message", async () => {
  const { server, port, cleanup } = await untrustedHttpsServer();
  try {
    // The certificate is refused: fetch rejects with a TypeError, as a browser's does.
    const untrusted = await checkConnection({ serviceUrl: `https://127.0.0.1:${port}`, pageUrl: "https://vtt.example.org/game" });
    assert.equal(untrusted.key, "unreachableHttps", JSON.stringify(untrusted));
    // Nothing listening any more: the same key (the module cannot tell them apart).
    server.close();
    await once(server, "close");
    const refused = await checkConnection({ serviceUrl: `https://127.0.0.1:${port}`, pageUrl: "https://vtt.example.org/game" });
    assert.equal(refused.key, "unreachableHttps", JSON.stringify(refused));
    assert.equal(untrusted.data.detail, refused.data.detail, "fetch says the same for both");
  } finally {
    server.close();
    cleanup();
  }
});

test("the unreachable message names the page's origin for FIREFIGHT_CORS_ORIGINS", async () => {
  const result = await checkConnection({ serviceUrl: "http://localhost:8080", pageUrl: "http://localhost:30000/game", fetch: fakeFetch({ "GET /readyz": new TypeError("Failed to fetch") }).fetch });
  assert.equal(result.data.origin, "http://localhost:30000");
});

test("a state-changing POST keeps its Idempotency-Key across retries; errors carry the problem's detail and path", async () => {
  let attempts = 0;
  const { fetch, calls } = fakeFetch({
    "POST /v1/encounters/e/attacks": () => {
      attempts += 1;
      if (attempts === 1) throw new TypeError("connection reset");
      if (attempts === 2) return json(503, { detail: "store unavailable" });
      return json(201, { event_id: "1-0", result: {} });
    },
    "POST /v1/encounters/e/actions": json(422, { detail: "no Edge left", path: "$.attacker.edge" }),
  });
  let key = 0;
  const client = new FirefightClient({ baseUrl: "http://ff/", fetch, newKey: () => `key-${++key}`, wait: async () => {} });
  const answer = await client.attack("e", "tok", { mode: "SA" });
  assert.equal(answer.event_id, "1-0");
  assert.deepEqual(calls.map((c) => c.headers["Idempotency-Key"]), ["key-1", "key-1", "key-1"]);
  assert.equal(calls[0].headers.Authorization, "Bearer tok");
  assert.deepEqual(JSON.parse(calls[0].body), { mode: "SA" });
  await assert.rejects(client.action("e", "tok", {}), (error) => error instanceof FirefightError && error.status === 422 && error.message === "no Edge left ($.attacker.edge)");
  assert.equal(calls.length, 4);
});
