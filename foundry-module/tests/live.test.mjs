// Following the encounter's socket: reconnect with backoff and resume from the last event.

import { test } from "node:test";
import assert from "node:assert/strict";
import { backoffDelay, compareEventIds, EncounterFeed, socketUrl } from "../src/live.mjs";

/** A WebSocket as the browser's behaves (addEventListener open/message/close), driven by the test. */
class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.listeners = { open: [], message: [], close: [], error: [] };
    this.closedWith = null;
    FakeSocket.all.push(this);
  }
  addEventListener(type, fn) {
    this.listeners[type].push(fn);
  }
  emit(type, event) {
    for (const fn of this.listeners[type]) fn(event);
  }
  open() {
    this.readyState = 1;
    this.emit("open", {});
  }
  send(event) {
    this.emit("message", { data: JSON.stringify(event) });
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.emit("error", {});
    this.emit("close", { code });
  }
  close(code) {
    this.closedWith = code;
    this.readyState = 3;
  }
}

function harness(options = {}) {
  FakeSocket.all = [];
  const timers = [];
  const handled = [];
  const statuses = [];
  const feed = new EncounterFeed({
    baseUrl: "https://ff.example.org/",
    encounterId: "enc1",
    token: "tok en",
    after: options.after ?? null,
    WebSocketImpl: FakeSocket,
    onEvent: async (event) => {
      handled.push(event.id);
    },
    onStatus: (s) => statuses.push(s),
    schedule: (fn, ms) => {
      timers.push({ fn, ms });
      return timers.length;
    },
    cancel: () => {},
    random: () => 1,
    backoff: { initialMs: 100, maxMs: 1000, factor: 2 },
  });
  return { feed, timers, handled, statuses, socket: () => FakeSocket.all.at(-1) };
}

const ev = (id, type = "attack") => ({ id, type, encounter: "enc1", at: "t" });

test("socket URLs: wss for https, the token and where to resume", () => {
  assert.equal(socketUrl("https://ff.example.org/", "enc1", "a b", null), "wss://ff.example.org/v1/encounters/enc1/ws?token=a+b");
  assert.equal(socketUrl("http://localhost:8080", "e", "t", "17-2"), "ws://localhost:8080/v1/encounters/e/ws?token=t&after=17-2");
});

test("event ids order by milliseconds, then sequence", () => {
  assert.equal(compareEventIds("1000-2", "1000-10"), -1);
  assert.equal(compareEventIds("999-5", "1000-0"), -1);
  assert.equal(compareEventIds("1796030840007-0", "1796030840007-0"), 0);
  assert.equal(compareEventIds("1796030840008-0", "1796030840007-9"), 1);
});

test("backoff grows, is capped, and is jittered between half and all of it", () => {
  const opts = { initialMs: 100, maxMs: 1000, factor: 2 };
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, opts, () => 1)), [100, 200, 400, 800, 1000, 1000]);
  assert.equal(backoffDelay(2, opts, () => 0), 200);
});

test("after a drop it reconnects with backoff and resumes after the last event it handled", async () => {
  const h = harness({ after: "10-0" });
  h.feed.start();
  assert.match(h.socket().url, /after=10-0/);
  h.socket().open();
  h.socket().send(ev("11-0"));
  h.socket().send(ev("12-0"));
  await h.feed.idle();
  assert.deepEqual(h.handled, ["11-0", "12-0"]);

  h.socket().drop(1006);
  assert.equal(h.timers.length, 1);
  assert.equal(h.timers[0].ms, 100);
  h.socket().drop(1006); // a late close of an old socket changes nothing
  assert.equal(h.timers.length, 1);
  h.timers[0].fn();
  assert.equal(FakeSocket.all.length, 2);
  assert.match(h.socket().url, /after=12-0/);

  // The next failure waits longer, until a connection opens again.
  h.socket().drop(1013);
  assert.equal(h.timers[1].ms, 200);
  h.timers[1].fn();
  h.socket().open();
  // The replay may repeat what was handled: each event once, in order.
  h.socket().send(ev("12-0"));
  h.socket().send(ev("13-0"));
  await h.feed.idle();
  assert.deepEqual(h.handled, ["11-0", "12-0", "13-0"]);
  h.socket().drop(1001);
  assert.equal(h.timers[2].ms, 100);
  assert.ok(h.statuses.some((s) => s.state === "reconnecting" && s.after === "13-0"));
});

test("events are handled one after the other, even when handling is slow", async () => {
  FakeSocket.all = [];
  const order = [];
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const feed = new EncounterFeed({
    baseUrl: "http://x", encounterId: "e", token: "t", WebSocketImpl: FakeSocket, schedule: () => 0, cancel: () => {},
    onEvent: async (event) => {
      order.push(`start ${event.id}`);
      if (event.id === "1-0") await gate;
      order.push(`end ${event.id}`);
    },
  });
  feed.start();
  const socket = FakeSocket.all.at(-1);
  socket.open();
  socket.send(ev("1-0"));
  socket.send(ev("2-0"));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ["start 1-0"]);
  release();
  await feed.idle();
  assert.deepEqual(order, ["start 1-0", "end 1-0", "start 2-0", "end 2-0"]);
});

test("the end of the encounter stops it; stop() closes the socket and cancels the retry", async () => {
  const h = harness();
  h.feed.start();
  h.socket().open();
  h.socket().send(ev("5-0", "encounter_ended"));
  h.socket().drop(1000);
  await h.feed.idle();
  assert.equal(h.timers.length, 0);
  assert.equal(h.statuses.at(-1).state, "ended");

  const g = harness();
  g.feed.start();
  const socket = g.socket();
  socket.open();
  g.feed.stop();
  assert.equal(socket.closedWith, 1000);
  socket.drop(1000);
  assert.equal(g.timers.length, 0);
});

test("a handler's failure is reported and does not stop the events after it", async () => {
  FakeSocket.all = [];
  const statuses = [];
  const seen = [];
  const feed = new EncounterFeed({
    baseUrl: "http://x", encounterId: "e", token: "t", WebSocketImpl: FakeSocket, schedule: () => 0, cancel: () => {},
    onEvent: async (event) => {
      seen.push(event.id);
      if (event.id === "1-0") throw new Error("chat failed");
    },
    onStatus: (s) => statuses.push(s),
  });
  feed.start();
  const socket = FakeSocket.all.at(-1);
  socket.open();
  socket.send(ev("1-0"));
  socket.emit("message", { data: "not json" });
  socket.send(ev("2-0"));
  await feed.idle();
  assert.deepEqual(seen, ["1-0", "2-0"]);
  assert.equal(statuses.find((s) => s.state === "error").error.message, "chat failed");
});
