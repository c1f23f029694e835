// transitd's views talk to their host with this: JSON-RPC 2.0 over
// postMessage, as the MCP Apps extension (2026-01-26) describes it. Only
// the host (the parent window) is listened to. Nothing here reaches the
// network: a view asks for data through the host (tools/call).
"use strict";
const host = (() => {
  const protocolVersion = "2026-01-26";
  let nextId = 1;
  let capabilities = {};
  let context = {};
  const pending = new Map();
  const listeners = {};
  const post = (message) => window.parent.postMessage(message, "*");

  function request(method, params, timeoutMs = 20000) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(method + ": the host did not answer in time"));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      post({ jsonrpc: "2.0", id, method, params });
    });
  }

  function notify(method, params) {
    post(params === undefined ? { jsonrpc: "2.0", method }
                              : { jsonrpc: "2.0", method, params });
  }

  function emit(name, value) {
    for (const fn of listeners[name] || []) {
      try { fn(value); } catch (e) { console.error(e); }
    }
  }

  function applyContext(changed) {
    if (!changed || typeof changed !== "object") return;
    context = Object.assign({}, context, changed);
    const root = document.documentElement;
    if (changed.theme === "light" || changed.theme === "dark")
      root.dataset.theme = changed.theme;
    const vars = changed.styles && changed.styles.variables;
    if (vars && typeof vars === "object")
      for (const [name, value] of Object.entries(vars))
        if (/^--[a-z0-9-]+$/i.test(name) && typeof value === "string"
            && !/[;{}<>]/.test(value))
          root.style.setProperty(name, value);
    const size = changed.containerDimensions;
    if (size && typeof size === "object") {
      const px = (v) => (typeof v === "number" && v > 0 ? v + "px" : "");
      root.style.maxHeight = px(size.maxHeight) || px(size.height);
      root.style.maxWidth = px(size.maxWidth) || px(size.width);
    }
    emit("context", context);
  }

  const requests = {
    "ping": () => ({}),
    "ui/resource-teardown": () => { emit("teardown"); return {}; },
  };
  const notifications = {
    "ui/notifications/tool-input": (p) => emit("input", p.arguments || {}),
    "ui/notifications/tool-result": (p) => emit("result", p),
    "ui/notifications/tool-cancelled": (p) => emit("cancelled", p),
    "ui/notifications/host-context-changed": (p) => applyContext(p),
  };

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && m.id !== undefined) {
      const waiting = pending.get(m.id);
      if (!waiting) return;
      pending.delete(m.id);
      clearTimeout(waiting.timer);
      if (m.error) waiting.reject(new Error(m.error.message || "host error"));
      else waiting.resolve(m.result);
    } else if (m.id !== undefined) {
      const handler = requests[m.method];
      post(handler ? { jsonrpc: "2.0", id: m.id, result: handler(m.params) }
                   : { jsonrpc: "2.0", id: m.id,
                       error: { code: -32601,
                                message: "Method not found: " + m.method } });
    } else if (notifications[m.method]) {
      notifications[m.method](m.params || {});
    }
  });

  function reportSize() {
    const root = document.documentElement;
    const before = root.style.height;
    root.style.height = "max-content";
    const height = Math.ceil(root.getBoundingClientRect().height);
    root.style.height = before;
    notify("ui/notifications/size-changed",
           { width: Math.ceil(root.scrollWidth), height });
  }

  return {
    on(name, fn) { (listeners[name] = listeners[name] || []).push(fn); },
    context: () => context,
    /// Whether the host forwards tools/call to the server.
    canCallTools: () => Boolean(capabilities.serverTools),
    /// A tool's result through the host; rejects on a protocol error.
    callTool: (name, args) => request("tools/call", { name, arguments: args }),
    async start(name) {
      const init = await request("ui/initialize", {
        protocolVersion,
        appInfo: { name: "transitd-" + name, version: "1" },
        appCapabilities: { availableDisplayModes: ["inline"] },
      });
      capabilities = (init && init.hostCapabilities) || {};
      applyContext((init && init.hostContext) || {});
      notify("ui/notifications/initialized", {});
      reportSize();
      new ResizeObserver(reportSize).observe(document.body);
    },
  };
})();

/// Starts the view; a host that does not answer is `fail`ed with a message.
function startView(name, fail) {
  host.start(name).catch((e) =>
    fail("the host did not start the view (" + e.message + ")"));
}

/// Calls `tool` again through the host: its result goes to `take`, a
/// failure's message to `fail`.
async function callAgain(tool, args, take, fail) {
  try {
    take(await host.callTool(tool, args));
  } catch (e) {
    fail(e.message);
  }
}

// -- what every view draws with ---------------------------------------------

/// An element with text (never markup) and attributes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {}))
    if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v);
  for (const child of children.flat())
    if (child !== undefined && child !== null && child !== false)
      node.append(child instanceof Node ? child : String(child));
  return node;
}

/// "#RRGGBB" of a feed's colour, or the fallback when it is not one.
function colour(value, fallback) {
  return typeof value === "string" && /^[0-9a-f]{6}$/i.test(value)
    ? "#" + value.toUpperCase() : fallback;
}

/// Black or white, whichever reads on `background` ("#RRGGBB").
function contrastOn(background) {
  const n = parseInt(background.slice(1), 16);
  const [r, g, b] = [n >> 16, (n >> 8) & 255, n & 255].map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? "#000000" : "#FFFFFF";
}

/// A line's badge: its name on its colour.
function lineBadge(line, color, textColor) {
  const bg = colour(color, "#5B6770");
  const fg = colour(textColor, contrastOn(bg));
  const badge = el("span", { class: "badge" }, line || "?");
  badge.style.background = bg;
  badge.style.color = fg;
  return badge;
}

/// "08:14" of an ISO 8601 time as written (the stop's own local time).
function clock(iso) {
  const m = typeof iso === "string" && /T(\d\d:\d\d)/.exec(iso);
  return m ? m[1] : "";
}

/// "08:14" of the instant `ms` at the UTC offset an ISO 8601 `sample`
/// carries ("...-08:00"); UTC when it carries none.
function clockAt(ms, sample) {
  const m = /([+-])(\d\d):(\d\d)$/.exec(sample || "");
  const offset = m ? (m[1] === "-" ? -1 : 1) * (+m[2] * 60 + +m[3]) : 0;
  return new Date(ms + offset * 60000).toISOString().slice(11, 16);
}

/// The tool result's structured content, or its text parsed, or null.
function structured(result) {
  if (!result || typeof result !== "object") return null;
  if (result.structuredContent && typeof result.structuredContent === "object")
    return result.structuredContent;
  for (const block of result.content || [])
    if (block && block.type === "text")
      try { return JSON.parse(block.text); } catch (e) { /* not JSON */ }
  return null;
}

/// The error a failed tool result carries ("code: message"), or "".
function failureOf(result) {
  if (!result || !result.isError) return "";
  const body = structured(result);
  const e = body && body.error;
  return e ? (e.message || e.code || "the tool failed") : "the tool failed";
}

/// Replaces what `parent` shows.
function show(parent, ...children) {
  parent.replaceChildren(...children.flat().filter((c) => c));
}
