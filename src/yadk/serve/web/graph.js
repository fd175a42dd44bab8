// A workflow's graph as SVG: boxes in layers (the route gives each node its layer, the longest
// distance from START, so forward edges point down), arrows with their routes, and the node
// the running turn is in marked. Drawn by hand: the page loads nothing from elsewhere.
const SVG = "http://www.w3.org/2000/svg";
const ROW = 72; // a layer's height, box included
const BOX_H = 28;
const GAP = 16; // between boxes of one layer
const PAD = 12;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children) el.append(child);
  return el;
}

// The text width is estimated from its length: measuring it would need the panel laid out,
// and the Agent tab is often hidden when the graph is drawn.
const boxWidth = (name) => Math.max(64, name.length * 7.5 + 20);

function layout(graph) {
  const layers = [];
  for (const node of graph.nodes) (layers[node.layer] ||= []).push(node);
  const widths = layers.map((row) => (row || []).reduce((sum, n) => sum + boxWidth(n.name), 0) + GAP * ((row || []).length - 1));
  const width = Math.max(...widths, 0) + 2 * PAD;
  const at = new Map();
  layers.forEach((row, layer) => {
    let x = (width - widths[layer]) / 2;
    for (const node of row || []) {
      const w = boxWidth(node.name);
      at.set(node.name, { x, y: PAD + layer * ROW, w });
      x += w + GAP;
    }
  });
  return { at, width, height: PAD * 2 + (layers.length - 1) * ROW + BOX_H };
}

function edgePath(from, to) {
  const x1 = from.x + from.w / 2;
  const x2 = to.x + to.w / 2;
  if (to.y > from.y) {
    const y1 = from.y + BOX_H;
    const y2 = to.y;
    const mid = (y1 + y2) / 2;
    // The route is written near the target, where edges fanning out are apart.
    const label = [x1 + (x2 - x1) * 0.8, mid + (y2 - mid) * 0.55];
    return { d: `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`, label };
  }
  // A loop back up (or across): out of the right side, round, into the right side.
  const y1 = from.y + BOX_H / 2;
  const y2 = to.y + BOX_H / 2;
  const out = Math.max(from.x + from.w, to.x + to.w) + 28;
  return { d: `M${from.x + from.w},${y1} C${out},${y1} ${out},${y2} ${to.x + to.w},${y2}`, label: [out - 4, (y1 + y2) / 2] };
}

const routeText = (route) => (Array.isArray(route) ? route.join(", ") : String(route));

export function drawGraph(name, graph) {
  const { at, width, height } = layout(graph);
  const marker = `arrow-${name}`;
  const svg = s("svg", { class: "graph", role: "img", "aria-label": `Graph of workflow ${name}`, "data-workflow": name, width, height, viewBox: `0 0 ${width} ${height}` },
    s("defs", {}, s("marker", { id: marker, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }))));
  for (const edge of graph.edges) {
    const path = edgePath(at.get(edge.from), at.get(edge.to));
    const g = s("g", { class: "graph-edge", "data-from": edge.from, "data-to": edge.to },
      s("path", { d: path.d, "marker-end": `url(#${marker})` }));
    if (edge.route !== null && edge.route !== undefined) {
      g.append(s("text", { x: path.label[0], y: path.label[1], "text-anchor": "middle", class: "route" }, routeText(edge.route)));
    }
    svg.append(g);
  }
  for (const node of graph.nodes) {
    const { x, y, w } = at.get(node.name);
    svg.append(s("g", { class: node.kind === "START" ? "graph-node start" : "graph-node", "data-node": node.name },
      s("title", {}, `${node.name}: ${node.kind}`),
      s("rect", { x, y, width: w, height: BOX_H, rx: node.kind === "START" ? BOX_H / 2 : 4 }),
      s("text", { x: x + w / 2, y: y + BOX_H / 2, "text-anchor": "middle", "dominant-baseline": "central" }, node.name)));
  }
  return svg;
}

// Marks, in every drawn graph, the node a nodeInfo path (`flow@1/writer@2`) names below that
// graph's workflow; a path that names no node of it (or none at all) clears the mark.
export function markRunning(root, path) {
  const names = path ? path.split("/").map((part) => part.replace(/@\d+$/, "")) : [];
  for (const svg of root.querySelectorAll("svg.graph")) {
    const index = names.indexOf(svg.dataset.workflow);
    const running = index >= 0 ? names[index + 1] : undefined;
    for (const node of svg.querySelectorAll(".graph-node")) {
      const on = running !== undefined && node.dataset.node === running;
      if (on) node.setAttribute("data-running", "");
      else node.removeAttribute("data-running");
    }
  }
}
