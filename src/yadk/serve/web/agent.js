// The Agent panel: agents, tools, skills (with resources) and example providers, each with the
// file and line that defines it (GET /dev/apps/{app}/agent); a workflow's graph drawn, with the
// node the running turn is in marked.
import { h, where } from "./dom.js";
import { drawGraph, markRunning } from "./graph.js";

function loc(node) {
  const text = where(node.file, node.line);
  if (!text) return null;
  const name = text.split("/").slice(-2).join("/");
  return h("code", { class: "location", title: text }, name);
}

function item(label, kind, node, extra = []) {
  return h("li", {}, h("strong", {}, label), " ", h("span", { class: "kind" }, kind), " ", loc(node), extra);
}

function resources(skill) {
  const res = skill.resources || {};
  const all = [...(res.references || []).map((r) => `references/${r}`), ...(res.assets || []).map((a) => `assets/${a}`), ...(res.scripts || []).map((s) => `scripts/${s}`)];
  return all.length ? h("ul", {}, all.map((r) => h("li", {}, h("code", {}, r)))) : null;
}

function agentNode(node) {
  const parts = [];
  if (node.tools && node.tools.length) parts.push(h("li", {}, "tools", h("ul", {}, node.tools.map((t) => item(t.name, t.kind, t)))));
  if (node.skills && node.skills.length) parts.push(h("li", {}, "skills", h("ul", {}, node.skills.map((s) => item(s.name, "skill", s, [resources(s)])))));
  if (node.examples && node.examples.length) parts.push(h("li", {}, "examples", h("ul", {}, node.examples.map((e) => item(e.kind === "static" ? `${e.count} examples` : e.kind, "examples", e)))));
  if (node.sub_agents && node.sub_agents.length) parts.push(h("li", {}, "sub-agents", h("ul", {}, node.sub_agents.map(agentNode))));
  return h("li", { "data-agent": node.name },
    h("strong", {}, node.name), " ", h("span", { class: "kind" }, node.kind + (node.model ? ` · ${node.model}` : "")), " ", loc(node),
    node.description ? h("div", { class: "muted" }, node.description) : null,
    node.graph && node.graph.nodes.length ? h("div", { class: "graph-box" }, drawGraph(node.name, node.graph)) : null,
    parts.length ? h("ul", {}, parts) : null);
}

export class AgentPanel {
  constructor(root) {
    this.root = root;
  }

  show(tree) {
    this.root.replaceChildren(h("ul", { class: "tree", "aria-label": "Agent tree" }, agentNode(tree.root)));
  }

  // The node a streamed event's nodeInfo path names (none: the turn ended).
  running(path) {
    markRunning(this.root, path);
  }

  unavailable(message) {
    this.root.replaceChildren(h("p", { class: "empty" }, message));
  }
}
