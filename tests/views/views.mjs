// transitd's views (MCP Apps) in a real browser: each view document, read
// from the daemon with resources/read, is shown in headless Chromium by a
// test host built on the official host bridge (@modelcontextprotocol/
// ext-apps, app-bridge; nobody here wrote it). The view must initialise,
// take the tool's input and result, render, call a tool through the host,
// follow the host's theme, reach nothing on the network, and show hostile
// text as text. Screenshots (New York subway) are compared with the ones
// in docs/tools/views/ within a tolerance.
//
//   node views.mjs http://127.0.0.1:PORT/mcp DOCS_VIEWS_DIR OUT_DIR
//   (UPDATE_VIEW_SCREENSHOTS=1 rewrites the stored screenshots)

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { PNG } from "pngjs";
import pixelmatch from "pixelmatch";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [endpoint, shotsDir, outDir] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const update = process.env.UPDATE_VIEW_SCREENSHOTS === "1";
fs.mkdirSync(outDir, { recursive: true });

let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}\n     ${(e && e.stack) || e}`);
  }
}

// -- the daemon, through the official MCP client ------------------------------
const client = new Client({ name: "transitd-views-test", version: "1" });
await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
const call = (name, args) => client.callTool({ name, arguments: args });

// -- the host page: served from here and the installed packages ---------------
const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript",
                ".mjs": "text/javascript", ".json": "application/json" };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  const name = decodeURIComponent(url.pathname);
  const file = name.startsWith("/node_modules/")
    ? path.join(here, name) : path.join(here, "host.html");
  if (!file.startsWith(here + path.sep)) {
    res.writeHead(403).end();
    return;
  }
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404).end(); return; }
    res.writeHead(200, { "content-type": types[path.extname(file)] || "application/octet-stream" });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync",
         "--font-render-hinting=none", "--force-color-profile=srgb"],
});
const requests = [];

/// A host page in its own browser context; `clock`: Playwright's clock
/// installed, standing still at `clock` until the test moves it.
async function openHost(clock) {
  const context = await browser.newContext({ viewport: { width: 640, height: 560 },
                                             deviceScaleFactor: 1 });
  if (clock) await context.clock.install({ time: new Date(Date.parse(clock) - 60000) });
  const p = await context.newPage();
  if (clock) await p.clock.pauseAt(new Date(clock));
  p.on("request", (r) => requests.push({ url: r.url(), frame: r.frame() }));
  p.on("pageerror", (e) => console.log("page error:", e.message));
  await p.exposeFunction("callServerTool", (params) => call(params.name, params.arguments ?? {}));
  await p.goto(origin + "/");
  await p.waitForFunction(() => window.hostReady === true);
  return p;
}

// The daemon runs on a simulated clock (2026-09-15, from 10:51 in New
// York); a board counts on the daemon's time, so it looks the same
// whatever the browser's clock says. The refresh is checked on a page of
// its own whose clock the test moves.
let page = await openHost();

const views = {};
const frame = () => page.frames().find((f) => f.parentFrame() === page.mainFrame());
/// Runs `fn` on another host page (`page` is that page meanwhile).
async function onPage(other, fn) {
  const saved = page;
  page = other;
  try { await fn(); } finally { page = saved; await other.context().close(); }
}
const view = () => page.frameLocator("iframe[title=view]");

async function mount(uri, args, result, theme = "light") {
  await page.evaluate(() => { window.viewCalls = []; });
  await page.evaluate((m) => window.mountView(m),
                      { html: views[uri], args, result, theme });
  await view().locator("main[aria-busy=false]").waitFor({ timeout: 10000 });
}

/// The view's screenshot against docs/tools/views/NAME.png: at most 1.5 %
/// of its pixels may differ (fonts and antialiasing), a changed layout does.
async function screenshot(name) {
  const file = path.join(shotsDir, name + ".png");
  const actual = await page.locator("iframe[title=view]").screenshot({ animations: "disabled" });
  fs.writeFileSync(path.join(outDir, name + ".png"), actual);
  if (update || !fs.existsSync(file)) {
    assert.ok(update, `no stored screenshot ${file}: run with UPDATE_VIEW_SCREENSHOTS=1`);
    fs.mkdirSync(shotsDir, { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  const a = PNG.sync.read(actual), b = PNG.sync.read(fs.readFileSync(file));
  assert.equal(`${a.width}x${a.height}`, `${b.width}x${b.height}`, `${name}: size`);
  const diff = new PNG({ width: a.width, height: a.height });
  const differing = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold: 0.15 });
  fs.writeFileSync(path.join(outDir, name + ".diff.png"), PNG.sync.write(diff));
  const share = differing / (a.width * a.height);
  assert.ok(share <= 0.015, `${name}: ${(share * 100).toFixed(2)} % of pixels differ from ${file} (see ${outDir})`);
}

async function followsTheme() {
  const light = await view().locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
  await page.evaluate(() => window.setTheme("dark"));
  await view().locator("html[data-theme=dark]").waitFor();
  const dark = await view().locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
  assert.notEqual(dark, light, "the background follows the theme");
}

const textOf = async () => view().locator("body").innerText();

/// Waits (polling from here: the page's clock stands still) until the host
/// page has seen `count` tool calls from the view; returns them.
async function viewCallsReach(count, ms = 10000) {
  for (let waited = 0; waited < ms; waited += 100) {
    const made = await page.evaluate(() => window.viewCalls);
    if (made.length >= count) return made;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the view made fewer than ${count} tool calls in ${ms} ms`);
}

try {
  await check("tools link their views; resources/list and resources/read serve them", async () => {
    const { tools } = await client.listTools();
    const linked = Object.fromEntries(tools.filter((t) => t._meta?.ui?.resourceUri)
                                           .map((t) => [t.name, t._meta.ui.resourceUri]));
    // service_alerts is listed with a realtime feed only (this one has none);
    // the C++ tests see it linked.
    assert.deepEqual(linked, {
      get_departures: "ui://transitd/departures", plan_trip: "ui://transitd/trip",
      get_trip: "ui://transitd/trip", line_status: "ui://transitd/lines" });
    for (const t of tools.filter((t) => t._meta?.ui))
      assert.equal(t._meta["ui/resourceUri"], t._meta.ui.resourceUri, "the flat key agrees");
    const caps = client.getServerCapabilities();
    assert.ok(caps.resources, "resources capability");
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(),
                     ["ui://transitd/departures", "ui://transitd/lines", "ui://transitd/trip"]);
    for (const r of resources) {
      assert.equal(r.mimeType, "text/html;profile=mcp-app");
      const { contents } = await client.readResource({ uri: r.uri });
      assert.equal(contents.length, 1);
      assert.equal(contents[0].mimeType, "text/html;profile=mcp-app");
      const html = contents[0].text;
      assert.match(html, /http-equiv="Content-Security-Policy" content="default-src 'none'/);
      assert.doesNotMatch(html, /(src|href)\s*=\s*["']?(https?:)?\/\//i, "no outside document");
      assert.doesNotMatch(html, /url\(\s*["']?https?:|@import|@include/i, "nothing fetched, every part included");
      views[r.uri] = html;
    }
  });

  // -- departure board ---------------------------------------------------------
  const depArgs = { stop: { type: "id", value: "nyc:127" }, limit: 8 };
  const departures = await call("get_departures", depArgs);
  await check("departure board: lines in colour, minutes to go", async () => {
    assert.ok(!departures.isError, JSON.stringify(departures).slice(0, 300));
    await mount("ui://transitd/departures", depArgs, departures);
    const rows = view().locator("tbody tr");
    assert.equal(await rows.count(), departures.structuredContent.departures.length);
    assert.match(await view().locator("h1").innerText(), /Times Sq-42 St/);
    const first = departures.structuredContent.departures[0];
    const badge = rows.first().locator(".badge");
    assert.equal(await badge.innerText(), first.line);
    const hex = first.color.toUpperCase();
    const rgb = `rgb(${parseInt(hex.slice(0, 2), 16)}, ${parseInt(hex.slice(2, 4), 16)}, ${parseInt(hex.slice(4, 6), 16)})`;
    assert.equal(await badge.evaluate((b) => getComputedStyle(b).backgroundColor), rgb);
    const minutes = Math.floor((Date.parse(first.scheduledTime) - Date.parse(departures.structuredContent.dataFreshness)) / 60000);
    // Counted on the daemon's time from when the board arrived (a second
    // or so ago).
    const shown = await rows.first().locator(".mins").evaluate((c) => c.firstChild.textContent);
    assert.ok([minutes, minutes - 1].map((m) => (m <= 0 ? "now" : `${m} min`)).includes(shown),
              `${shown} for ${minutes} min`);
    await screenshot("departures-light");
  });
  await check("departure board: refreshes itself through the host every minute, and stops when torn down", async () => {
    await onPage(await openHost("2026-09-15T14:51:00Z"), async () => {
      await mount("ui://transitd/departures", depArgs, departures);
      // A minute on, the board asks the host for fresh departures by
      // itself. Playwright's clock moves a sandboxed frame's timers on most
      // runs, not all: then the test waits the real minute.
      let made = [];
      for (let minute = 0; minute < 2 && made.length === 0; minute++) {
        await page.clock.runFor(61000);
        made = await viewCallsReach(1, 2000).catch(() => []);
      }
      if (made.length === 0) {
        await page.clock.resume();
        made = await viewCallsReach(1, 70000).catch(() => []);
      }
      assert.ok(made.length >= 1, "the board made no tools/call in a minute");
      assert.equal(made[0].name, "get_departures");
      assert.deepEqual(made[0].arguments, depArgs);
      await view().locator("main[aria-busy=false] tbody tr").first().waitFor();
      // Torn down by the host, the board asks for nothing more.
      await page.evaluate(() => window.teardown());
      const before = (await page.evaluate(() => window.viewCalls)).length;
      await page.clock.runFor(181000);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal((await page.evaluate(() => window.viewCalls)).length, before);
    });
  });
  await check("departure board follows the host's theme", async () => {
    await mount("ui://transitd/departures", depArgs, departures);
    await followsTheme();
    await screenshot("departures-dark");
  });

  await check("departure board: delays, cancellations and platforms as realtime gives them", async () => {
    const board = { stopId: "nyc:127", stopName: "Times Sq-42 St", realtimeUsed: true,
      dataFreshness: "2026-09-15T14:51:00Z",
      warnings: [{ code: "simulated-time", message: "computed for the engine's simulated clock" }],
      departures: [
        { line: "1", mode: "SUBWAY", destination: "South Ferry", color: "EE352E",
          scheduledTime: "2026-09-15T10:53:00-04:00", realtimeTime: "2026-09-15T10:58:30-04:00",
          delaySeconds: 300, status: "delayed", platform: "2" },
        { line: "2", mode: "SUBWAY", destination: "Flatbush Av", color: "EE352E",
          scheduledTime: "2026-09-15T10:55:00-04:00", status: "cancelled" }] };
    await mount("ui://transitd/departures", {}, { content: [], structuredContent: board });
    const rows = view().locator("tbody tr");
    assert.match(await rows.nth(0).innerText(), /\+5 min late/);
    assert.equal(await rows.nth(0).locator(".mins").evaluate((c) => c.firstChild.textContent), "7 min");
    assert.equal(await rows.nth(0).locator(".platform").innerText(), "2");
    assert.equal(await rows.nth(1).getAttribute("class"), "cancelled");
    assert.match(await rows.nth(1).innerText(), /Cancelled/);
    assert.match(await rows.nth(1).locator(".mins").getAttribute("aria-label"), /cancelled/);
    assert.match(await view().locator("#sub").innerText(), /Live times/);
  });

  // -- trip map ----------------------------------------------------------------
  const planArgs = { origin: { type: "stop", value: "nyc:127" },
                     destination: { type: "stop", value: "nyc:L08" }, limit: 3,
                     when: { type: "depart", time: "2026-09-15T10:51:00-04:00" } };
  const plan = await call("plan_trip", planArgs);
  await check("trip map: legs in their line colours, walks dashed, alternatives switchable", async () => {
    assert.ok(!plan.isError, JSON.stringify(plan).slice(0, 300));
    const its = plan.structuredContent.itineraries;
    assert.ok(its.length >= 2, "several itineraries");
    await mount("ui://transitd/trip", planArgs, plan);
    const tabs = view().locator("[role=tab]");
    assert.equal(await tabs.count(), its.length);
    const rides = its[0].legs.filter((l) => l.mode !== "WALK");
    assert.equal(await view().locator("svg polyline.ride").count(), rides.length);
    const strokes = await view().locator("svg polyline.ride").evaluateAll(
      (ls) => ls.map((l) => l.getAttribute("stroke")));
    assert.deepEqual(strokes, rides.map((l) => "#" + l.color.toUpperCase()));
    assert.equal(await view().locator("ol[aria-label=Legs] > li").count(), its[0].legs.filter((l) => !(l.mode === "WALK" && l.distance === 0)).length);
    assert.ok(await view().locator("svg circle.change").count() >= 1, "the change is marked");
    await screenshot("trip-light");
    await tabs.nth(1).click();
    assert.equal(await tabs.nth(1).getAttribute("aria-selected"), "true");
    assert.equal(await tabs.nth(0).getAttribute("aria-selected"), "false");
    const second = its[1].legs.filter((l) => l.mode !== "WALK");
    assert.equal(await view().locator("svg polyline.ride").count(), second.length);
  });
  await check("trip map follows the host's theme", async () => {
    await mount("ui://transitd/trip", planArgs, plan);
    await followsTheme();
    await screenshot("trip-dark");
  });
  await check("trip map of get_trip: every call with its time, the way drawn along shapes.txt", async () => {
    const leg = plan.structuredContent.itineraries[0].legs.find((l) => l.tripId);
    const args = { tripId: leg.tripId, serviceDate: leg.serviceDate };
    const trip = await call("get_trip", args);
    assert.ok(!trip.isError);
    await mount("ui://transitd/trip", args, trip);
    const calls = trip.structuredContent.calls;
    assert.equal(await view().locator("ol[aria-label=Stops] > li").count(), calls.length);
    assert.match(await view().locator("ol > li").first().innerText(),
                 new RegExp(calls[0].scheduledDeparture.slice(11, 16)));
    // The hostile feed's line bends between its stops (shapes.txt): its
    // drawn way has more points than its three stops.
    const bent = await call("get_trip", { tripId: "hostile:t1@28800" });
    await mount("ui://transitd/trip", {}, bent);
    const points = await view().locator("svg polyline.ride").getAttribute("points");
    assert.ok(points.split(" ").length > 3, `drawn through ${points}`);
  });

  await check("trip map: a cancelled leg and skipped calls say so", async () => {
    const at = (lat, lon) => ({ lat, lon });
    await mount("ui://transitd/trip", {}, { content: [], structuredContent: {
      origin: { name: "A" }, destination: { name: "B" }, itineraries: [{
        start: "2026-09-15T10:53:00-04:00", end: "2026-09-15T11:03:00-04:00", transfers: 0,
        legs: [{ mode: "SUBWAY", line: "1", color: "EE352E", status: "cancelled",
                 from: { name: "A", coordinate: at(40.75, -73.98) },
                 to: { name: "B", coordinate: at(40.73, -73.99) },
                 scheduledStart: "2026-09-15T10:53:00-04:00",
                 scheduledEnd: "2026-09-15T11:03:00-04:00" }] }] } });
    assert.match(await textOf(), /Cancelled/);
    await mount("ui://transitd/trip", {}, { content: [], structuredContent: {
      tripId: "nyc:x", line: "1", headsign: "South Ferry", state: "running", calls: [
        { stopName: "A", coordinate: at(40.75, -73.98), scheduledDeparture: "2026-09-15T10:53:00-04:00" },
        { stopName: "B", coordinate: at(40.74, -73.985), scheduledDeparture: "2026-09-15T10:55:00-04:00", skipped: true },
        { stopName: "C", coordinate: at(40.73, -73.99), scheduledArrival: "2026-09-15T10:58:00-04:00",
          realtimeArrival: "2026-09-15T11:01:00-04:00", delaySeconds: 180 }] } });
    const calls = view().locator("ol[aria-label=Stops] > li");
    assert.equal(await calls.nth(1).getAttribute("class"), "skipped");
    assert.match(await calls.nth(1).innerText(), /skipped/);
    assert.match(await calls.nth(2).innerText(), /11:01 C/);
    assert.equal(await calls.nth(2).locator(".time").getAttribute("class"), "time late");
    // No geometry: drawn through the calls.
    assert.equal((await view().locator("svg polyline.ride").getAttribute("points")).split(" ").length, 3);
  });

  // -- line status -------------------------------------------------------------
  const statusArgs = { feed: "nyc" };
  const status = await call("line_status", statusArgs);
  await check("line status: a board of lines, refreshed through the host", async () => {
    assert.ok(!status.isError, JSON.stringify(status).slice(0, 300));
    await mount("ui://transitd/lines", statusArgs, status);
    assert.equal(await view().locator("tbody tr").count(), status.structuredContent.lines.length);
    await screenshot("lines-light");
    await view().locator("#refresh").click();
    const made = await viewCallsReach(1);
    assert.equal(made[0].name, "line_status");
    assert.deepEqual(made[0].arguments, statusArgs);
  });
  await check("line status follows the host's theme", async () => {
    await mount("ui://transitd/lines", statusArgs, status);
    await followsTheme();
    await screenshot("lines-dark");
  });
  await check("service alerts: each alert's texts, lines and periods", async () => {
    const alerts = { content: [], structuredContent: { alerts: [
      { id: "a1", header: "No 1 trains between 14 St and South Ferry",
        description: "Take the 2 or 3 instead.\nShuttle buses run.",
        severity: "severe", effect: "no-service", cause: "maintenance",
        activePeriods: [{ start: "2026-09-15T06:00:00-04:00", end: "2026-09-15T22:00:00-04:00" }],
        affected: [{ type: "route", id: "nyc:1", name: "1" }] }], at: "2026-09-15T08:00:00-04:00" } };
    await mount("ui://transitd/lines", {}, alerts);
    assert.equal(await view().locator("article.alert").count(), 1);
    const text = await textOf();
    assert.match(text, /Shuttle buses run\./);
    assert.match(text, /2026-09-15 06:00 – 2026-09-15 22:00/);
  });

  // -- hostile and empty data ----------------------------------------------------
  const pwned = () => frame().evaluate(() => window.__pwned);
  const injected = () => frame().evaluate(() => document.querySelectorAll(
    "img, iframe, script:not(:first-of-type), body svg[onload], b").length
    + document.querySelectorAll("script").length - 1);
  await check("hostile texts from the feed stay text on every view", async () => {
    const args = { stop: { type: "id", value: "hostile:S1" } };
    const dep = await call("get_departures", args);
    await mount("ui://transitd/departures", args, dep);
    assert.match(await textOf(), /<img src=x onerror="window.__pwned=1">Start/);
    assert.match(await textOf(), /<iframe src="http:\/\/example.invalid\/"><\/iframe>Away/);
    assert.equal(await pwned(), undefined);
    assert.equal(await injected(), 0);
    const tripArgs = { origin: { type: "stop", value: "hostile:S1" },
                       destination: { type: "stop", value: "hostile:S3" },
                       constraints: { maxWalkingDistance: 500 } };
    const trip = await call("plan_trip", tripArgs);
    await mount("ui://transitd/trip", tripArgs, trip);
    assert.match(await textOf(), /<b>X<\/b>/);
    const long = await call("get_trip", { tripId: "hostile:t1@28800" });
    await mount("ui://transitd/trip", {}, long);
    assert.match(await textOf(), /<script>window.__pwned=2<\/script>Middle very long name/);
    assert.ok(await frame().evaluate(() => document.documentElement.scrollWidth
                                           <= document.documentElement.clientWidth + 1),
              "a very long name wraps instead of widening the view");
    const evil = "<img src=x onerror=window.__pwned=5>";
    await mount("ui://transitd/lines", {}, { content: [], structuredContent: {
      lines: [{ routeId: "x", line: evil, color: "\" onmouseover=\"x", status: "severe-delays",
                reasons: [{ kind: "alert", text: evil + "</li><script>window.__pwned=6</script>", status: "severe-delays" }] }] } });
    assert.match(await textOf(), /<img src=x onerror=window.__pwned=5><\/li><script>/);
    await mount("ui://transitd/lines", {}, { content: [], structuredContent: {
      alerts: [{ id: "e", header: evil, description: evil, url: "javascript:window.__pwned=7",
                 severity: "severe", affected: [{ type: "route", name: evil }, { type: "stop", name: evil }] }] } });
    assert.equal(await pwned(), undefined);
    assert.equal(await injected(), 0);
  });
  await check("empty results and failures say so", async () => {
    const empty = [
      ["ui://transitd/departures", { stopId: "nyc:1", departures: [] }, /No departures/],
      ["ui://transitd/trip", { itineraries: [] }, /No way found/],
      ["ui://transitd/lines", { lines: [] }, /No lines/],
      ["ui://transitd/lines", { alerts: [] }, /No alerts in force/],
    ];
    for (const [uri, content, says] of empty) {
      await mount(uri, {}, { content: [{ type: "text", text: JSON.stringify(content) }], structuredContent: content });
      assert.match(await textOf(), says, uri);
    }
    const failed = await call("get_departures", { stop: { type: "id", value: "nyc:nope" } });
    assert.ok(failed.isError);
    for (const uri of Object.keys(views)) {
      await mount(uri, {}, failed);
      assert.match(await view().locator("[role=alert]").innerText(), /nyc:nope|unknown|not/i, uri);
    }
  });

  await check("the views reached nothing on the network", async () => {
    const fromViews = requests.filter((r) => r.frame.parentFrame() !== null);
    assert.deepEqual(fromViews.map((r) => r.url), []);
    const elsewhere = requests.filter((r) => !r.url.startsWith(origin + "/"));
    assert.deepEqual(elsewhere.map((r) => r.url), []);
  });
} finally {
  await browser.close();
  server.close();
  await client.close();
}
console.log(failures === 0 ? "views: all checks passed" : `views: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
