// The Request panel: for each model call of a turn, exactly what the model received (from
// GET /dev/apps/{app}/users/{user}/sessions/{id}/requests) and the tokens it used.
import { h, json, lazyDetails, time } from "./dom.js";

function usageText(usage) {
  if (!usage) return "usage: not reported";
  const input = usage.promptTokenCount ?? usage.prompt_token_count ?? usage.input_tokens;
  const output = usage.candidatesTokenCount ?? usage.candidates_token_count ?? usage.output_tokens;
  const total = usage.totalTokenCount ?? usage.total_token_count;
  const bits = [];
  if (input !== undefined) bits.push(`${input} in`);
  if (output !== undefined) bits.push(`${output} out`);
  if (total !== undefined) bits.push(`${total} total`);
  return `tokens: ${bits.join(", ") || json(usage)}`;
}

function partText(part) {
  if (part.function_call) return `function call: ${part.function_call.name}(${JSON.stringify(part.function_call.args || {})})`;
  if (part.function_response) return `function response: ${part.function_response.name} -> ${JSON.stringify(part.function_response.response)}`;
  if (part.inline_data) return `<inline data: ${part.inline_data.mime_type || "unknown type"}>`;
  return part.text ?? JSON.stringify(part);
}

const SHOWN_CONTENTS = 40; // longer histories open on demand

function contentsList(contents, dynamic) {
  const build = () => h("ol", { class: "contents" }, contents.map((content, i) =>
    h("li", { class: dynamic.has(i) ? "content-block dynamic" : "content-block", title: dynamic.has(i) ? "dynamic instruction block" : undefined },
      h("strong", {}, `[${content.role || "?"}]${dynamic.has(i) ? " dynamic instruction" : ""}`),
      h("pre", {}, (content.parts || []).map(partText).join("\n")))));
  if (contents.length <= SHOWN_CONTENTS) return build();
  return lazyDetails(`${contents.length} contents: show them`, build);
}

function call(record) {
  const request = record.request;
  const dynamic = new Set(record.dynamicContentIndexes || []);
  const tools = request.tools || [];
  return h("article", { class: "call", "aria-label": `model call ${record.index}` },
    h("h3", {}, `Call ${record.index} · ${record.agent} · ${request.model || "(no model)"} · `,
      h("span", { class: "usage" }, usageText(record.usage))),
    h("div", { class: "muted" }, time(record.time), record.durationMs !== undefined ? ` · ${record.durationMs} ms` : ""),
    h("h4", {}, "System instruction"),
    h("p", { class: "legend" }, "static: sent byte-for-byte on every call · dynamic: rebuilt per call"),
    h("div", { class: "system-instruction" }, (record.systemSegments || []).map((s) =>
      h("span", { class: `segment ${s.kind}`, "data-kind": s.kind, title: s.kind }, s.text))),
    h("h4", {}, `Contents (${request.contents.length})`),
    contentsList(request.contents, dynamic),
    h("h4", {}, `Tools (${tools.length})`),
    tools.length ? h("ul", { class: "tools" }, tools.map((tool) =>
      h("li", {}, lazyDetails(`${tool.name}: ${(tool.description || "").split("\n")[0]}`, () => h("pre", {}, json(tool)))))) : h("p", { class: "empty" }, "(none)"),
    h("h4", {}, "Config"),
    h("pre", {}, json(request.config || {})));
}

export class RequestPanel {
  // load(invocationId) fetches one turn with every request.
  constructor(root, load) {
    this.root = root;
    this.load = load;
  }

  async show(invocations) {
    if (!invocations.length) {
      this.root.replaceChildren(h("p", { class: "empty" }, "No model call yet in this session (since the server started)."));
      return;
    }
    const select = h("select", { id: "invocation", "aria-label": "Turn" },
      invocations.map((inv, i) => h("option", { value: String(i) }, `turn ${i + 1} · ${time(inv.started)} · ${inv.calls.length} call(s)`)));
    select.value = String(invocations.length - 1);
    const body = h("div");
    const render = async () => {
      const chosen = invocations[Number(select.value)];
      const inv = await this.load(chosen.invocationId);
      body.replaceChildren(...(inv.calls.length ? inv.calls.map(call) : [h("p", { class: "empty" }, "No model call in this turn.")]));
    };
    select.addEventListener("change", () => render().catch((e) => body.replaceChildren(h("p", { class: "empty" }, e.message))));
    this.root.replaceChildren(h("label", { class: "field" }, "Turn ", select), body);
    await render();
  }
}
