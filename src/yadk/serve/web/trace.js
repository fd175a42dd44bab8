// The Trace panel: each invocation of the session as a waterfall of its spans (the invocation,
// agents, model calls, tools, workflow nodes), with durations, tokens, errors, and the content
// when capture is on (GET /dev/apps/{app}/users/{user}/sessions/{id}/traces). Clicking an event's
// "trace" opens its invocation here.
import { h, jsonBlock, lazyDetails } from "./dom.js";

const KINDS = {
  invoke_workflow: "workflow", invoke_agent: "agent", generate_content: "model",
  execute_tool: "tool", invoke_node: "node",
};
// Captured content: on a span (SPAN_ONLY, SPAN_AND_EVENT) or in its details event (EVENT_ONLY).
const CONTENT = [
  ["gen_ai.system_instructions", "system instructions"],
  ["gen_ai.input.messages", "input messages"],
  ["gen_ai.output.messages", "output messages"],
  ["gen_ai.tool.call.arguments", "arguments"],
  ["gen_ai.tool.call.result", "result"],
];
const DETAILS_EVENT = "gen_ai.client.inference.operation.details";
const CAPTURE_HINT = "Content is not captured: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY before yadk web starts to see messages, arguments and results here.";

const ms = (ns) => ns / 1e6;
const duration = (ns) => {
  const m = ms(ns);
  return m >= 1000 ? `${(m / 1000).toFixed(2)} s` : m >= 10 ? `${Math.round(m)} ms` : `${m.toFixed(1)} ms`;
};

function kindOf(span) {
  return KINDS[span.attributes["gen_ai.operation.name"]];
}

// yadk's spans only (the HTTP server's own are left out), each under its nearest kept
// ancestor, depth first in start order: [{span, depth}].
function rowsOf(spans) {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const kept = spans.filter(kindOf);
  const keptIds = new Set(kept.map((s) => s.spanId));
  const parentOf = (span) => {
    let id = span.parentId;
    while (id && !keptIds.has(id)) id = byId.has(id) ? byId.get(id).parentId : null;
    return id;
  };
  const children = new Map();
  const roots = [];
  for (const span of kept) {
    const parent = parentOf(span);
    if (parent) (children.get(parent) || children.set(parent, []).get(parent)).push(span);
    else roots.push(span);
  }
  const rows = [];
  const walk = (span, depth) => {
    rows.push({ span, depth });
    for (const child of children.get(span.spanId) || []) walk(child, depth + 1);
  };
  roots.forEach((root) => walk(root, 0));
  return rows;
}

function tokens(span) {
  const input = span.attributes["gen_ai.usage.input_tokens"];
  const output = span.attributes["gen_ai.usage.output_tokens"];
  return input === undefined && output === undefined ? null : { input: input || 0, output: output || 0 };
}

function content(span) {
  const found = [];
  const details = (span.events || []).find((e) => e.name === DETAILS_EVENT);
  for (const [key, label] of CONTENT) {
    const value = span.attributes[key] ?? (details && details.attributes[key]);
    if (value !== undefined) found.push([label, value]);
  }
  return found;
}

function pretty(value) {
  if (typeof value !== "string") return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

// What failed, for the badge: the span's error.type (tool and model-call spans carry it, as
// google-adk's do), else the class of the exception it recorded (agent, node and invocation
// spans: google-adk sets no error.type there), else plain "error".
function errorType(span) {
  if (span.attributes["error.type"]) return span.attributes["error.type"];
  const raised = span.events.find((event) => event.name === "exception");
  const type = raised && raised.attributes["exception.type"];
  return type ? String(type).split(".").pop() : "error";
}

function spanDetails(span) {
  const shown = content(span).map(([label, value]) => h("div", { class: "trace-content" }, h("h4", {}, label), h("pre", {}, pretty(value))));
  const error = span.status === "ERROR" ? h("p", { class: "trace-error" }, span.statusDescription || errorType(span)) : null;
  return h("div", { class: "span-details" }, error, shown, lazyDetails("attributes", () => jsonBlock(span.attributes)),
    span.events.length ? lazyDetails(`${span.events.length} span events`, () => jsonBlock(span.events)) : null);
}

function spanRow({ span, depth }, start, total) {
  const kind = kindOf(span);
  const name = span.name.slice(span.name.indexOf(" ") + 1) || span.name;
  const used = tokens(span);
  const failed = span.status === "ERROR";
  const bar = h("span", { class: `trace-bar ${kind}` });
  // Positions through the CSSOM (the page's CSP refuses style attributes).
  bar.style.left = `${((span.start - start) / total) * 100}%`;
  bar.style.width = `${Math.max(((span.end - span.start) / total) * 100, 0.4)}%`;
  const label = h("span", { class: "trace-label" },
    h("span", { class: `badge kind-${kind}` }, kind), " ", h("span", { class: "trace-name" }, name));
  label.style.paddingLeft = `${depth * 14}px`;
  const facts = h("span", { class: "trace-facts" },
    h("span", { class: "trace-duration" }, duration(span.end - span.start)),
    used ? h("span", { class: "trace-tokens" }, `${used.input} in · ${used.output} out`) : null,
    failed ? h("span", { class: "badge error" }, errorType(span)) : null);
  return h("li", { class: failed ? "trace-row failed" : "trace-row", "data-kind": kind, "data-span-id": span.spanId },
    lazyDetails([label, h("span", { class: "trace-track" }, bar), facts], () => spanDetails(span)));
}

function invocationView(invocation, index) {
  const rows = rowsOf(invocation.spans);
  const spans = rows.map((r) => r.span);
  const start = Math.min(...spans.map((s) => s.start));
  const total = Math.max(Math.max(...spans.map((s) => s.end)) - start, 1);
  const sum = spans.map(tokens).filter(Boolean).reduce((a, t) => ({ input: a.input + t.input, output: a.output + t.output }), { input: 0, output: 0 });
  const errors = spans.filter((s) => s.status === "ERROR").length;
  const summary = [
    h("strong", {}, `turn ${index + 1}`),
    h("span", { class: "trace-duration" }, duration(total)),
    h("span", {}, `${spans.length} spans`),
    sum.input || sum.output ? h("span", { class: "trace-tokens" }, `${sum.input} in · ${sum.output} out`) : null,
    errors ? h("span", { class: "badge error" }, `${errors} ${errors === 1 ? "error" : "errors"}`) : null,
    invocation.dropped ? h("span", { class: "badge" }, `${invocation.dropped} spans not kept`) : null,
    h("code", { class: "muted" }, invocation.invocationId || invocation.traceId),
  ];
  const section = h("details", { class: "trace", "data-invocation-id": invocation.invocationId || "", "aria-label": `trace of turn ${index + 1}` },
    h("summary", {}, summary),
    h("ol", { class: "waterfall", "aria-label": `spans of turn ${index + 1}` }, rows.map((row) => spanRow(row, start, total))));
  return section;
}

export class TracePanel {
  constructor(root) {
    this.root = root;
    this.invocations = [];
    this.enabled = false;
  }

  // answer: {"enabled", "hint", "invocations": [{traceId, invocationId, eventIds, spans}]}.
  show(answer) {
    this.invocations = answer.invocations;
    this.enabled = answer.enabled;
    if (!answer.enabled) {
      this.root.replaceChildren(h("p", { class: "empty trace-off" }, answer.hint));
      return;
    }
    if (!answer.invocations.length) {
      this.root.replaceChildren(h("p", { class: "empty" }, "No traces yet: send a message and each turn's spans show here (yadk web keeps those of the latest turns)."));
      return;
    }
    const captured = answer.invocations.some((inv) => inv.spans.some((s) => content(s).length));
    const views = answer.invocations.map(invocationView);
    views[views.length - 1].open = true;
    this.root.replaceChildren(captured ? "" : h("p", { class: "legend" }, CAPTURE_HINT), ...views);
  }

  // Opens the trace of the invocation that produced `event`; false when none is kept.
  open(event) {
    const index = this.invocations.findIndex((inv) => (event.invocationId && inv.invocationId === event.invocationId) || inv.eventIds.includes(event.id));
    const sections = [...this.root.querySelectorAll("details.trace")];
    for (const old of this.root.querySelectorAll(".trace-missing")) old.remove();
    if (!this.enabled) return false; // the tab already says how to turn tracing on
    if (index < 0 || !sections[index]) {
      this.root.prepend(h("p", { class: "empty trace-missing" }, `No trace kept for invocation ${event.invocationId || event.id}: it ran before tracing started or is older than the turns yadk web keeps.`));
      return false;
    }
    for (const [i, section] of sections.entries()) section.open = i === index;
    requestAnimationFrame(() => sections[index].scrollIntoView({ block: "start" }));
    return true;
  }

  unavailable(message) {
    this.root.replaceChildren(h("p", { class: "empty" }, `Traces unavailable: ${message}`));
  }
}
