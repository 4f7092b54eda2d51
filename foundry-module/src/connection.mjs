// The settings' connection check: says in the table's words why the module cannot talk to the
// service (a URL that is not one, a blocked mixed-content request, no answer, a refused token).
//
// "No answer" is one error for several causes: a fetch the browser does not complete (nothing
// listening, a certificate it does not trust, an origin the service does not allow) rejects
// with the same TypeError, and the page may not learn which. So the check tells the causes
// apart where it can before asking (an http service from an https page), and for an https
// service says how the GM tells them apart: open its /readyz in a tab, where the browser shows
// a certificate warning if the certificate is the cause.

import { FirefightClient, FirefightError, normaliseBaseUrl } from "./client.mjs";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Browsers let an https page call http only on loopback (it is "potentially trustworthy"). */
export function isMixedContent(pageUrl, serviceUrl) {
  const page = new URL(pageUrl);
  const service = new URL(serviceUrl);
  if (page.protocol !== "https:" || service.protocol !== "http:") return false;
  const host = service.hostname.toLowerCase();
  return !(LOOPBACK.has(host) || host.endsWith(".localhost") || host.startsWith("127."));
}

/** What a request that got no answer means: for an https service the certificate is a suspect too. */
function unreachable(base, origin, error) {
  const key = new URL(base).protocol === "https:" ? "unreachableHttps" : "unreachable";
  return { ok: false, key, data: { url: base, origin, detail: error.message, check: `${base}/readyz` } };
}

/**
 * Check the service: {ok, key, data} where key names the lang/en.json message
 * (FIREFIGHT.Check.<key>) and data fills it. With `encounterId` and `token` the token is
 * checked against that encounter; with `adminKey` the key is checked without creating anything
 * (an empty creation body is a 400 once the key is accepted, a 401 before).
 */
export async function checkConnection({ serviceUrl, pageUrl, fetch = globalThis.fetch, encounterId = null, token = null, adminKey = null }) {
  let base;
  try {
    base = normaliseBaseUrl(serviceUrl);
  } catch {
    return { ok: false, key: "badUrl", data: { url: String(serviceUrl ?? "") } };
  }
  if (pageUrl && isMixedContent(pageUrl, base)) return { ok: false, key: "mixedContent", data: { url: base } };
  const client = new FirefightClient({ baseUrl: base, fetch, retries: 0 });
  const origin = pageUrl ? new URL(pageUrl).origin : "";
  try {
    await client.readyz();
  } catch (error) {
    if (error instanceof FirefightError && error.status > 0) return { ok: false, key: "notReady", data: { status: error.status } };
    return unreachable(base, origin, error);
  }
  if (adminKey) {
    try {
      await client.request("POST", "/v1/encounters", { token: adminKey, body: {} });
    } catch (error) {
      if (error instanceof FirefightError && (error.status === 401 || error.status === 403)) return { ok: false, key: "adminRejected", data: {} };
      if (!(error instanceof FirefightError && error.status === 400)) return unreachable(base, origin, error);
    }
    if (!encounterId) return { ok: true, key: "adminOk", data: {} };
  }
  if (!encounterId || !token) return { ok: true, key: "okNoToken", data: { url: base } };
  try {
    await client.getEncounter(encounterId, token);
  } catch (error) {
    if (error instanceof FirefightError && error.status === 401) return { ok: false, key: "unauthorized", data: {} };
    if (error instanceof FirefightError && error.status === 403) return { ok: false, key: "forbidden", data: {} };
    return unreachable(base, origin, error);
  }
  return { ok: true, key: "ok", data: {} };
}
