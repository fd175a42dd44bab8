// A workflow's graph as SVG: boxes in layers (the route gives each node its layer, the longest
// distance from START, so forward edges point down), arrows with their routes, and the node
// the running turn is in marked. A nested workflow is a group box holding its own graph, drawn
// the same way (and marked the same way). Drawn by hand: the page loads nothing from elsewhere.
const SVG = "http://www.w3.org/2000/svg";
const ROW = 72; // a layer's height, box included
const BOX_H = 28;
const GAP = 16; // between boxes of one layer
const PAD = 12;
const HEAD = 24; // a nested workflow's title band

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children) el.append(child);
  return el;
}

// The text width is estimated from its length: measuring it would need the panel laid out,
// and the Agent tab is often hidden when the graph is drawn.
const boxWidth = (name) => Math.max(64, name.length * 7.5 + 20);

const nested = (node) => Boolean(node.graph && node.graph.nodes.length);

// A node's box: a plain box, or a nested workflow's group sized to hold its laid-out graph.
function measure(node) {
  if (!nested(node)) return { w: boxWidth(node.name), h: BOX_H };
  const inner = layout(node.graph);
  const w = Math.max(boxWidth(node.name) + 16, inner.width);
  return { w, h: HEAD + inner.height, inner, innerX: (w - inner.width) / 2 };
}

function layout(graph) {
  const layers = [];
  const size = new Map(graph.nodes.map((node) => [node.name, measure(node)]));
  for (const node of graph.nodes) (layers[node.layer] ||= []).push(node);
  const rows = Array.from(layers, (row) => row || []);
  const widths = rows.map((row) => row.reduce((sum, n) => sum + size.get(n.name).w, 0) + GAP * Math.max(row.length - 1, 0));
  const heights = rows.map((row) => Math.max(BOX_H, ...row.map((n) => size.get(n.name).h)));
  const width = Math.max(...widths, 0) + 2 * PAD;
  const at = new Map();
  let y = PAD;
  rows.forEach((row, layer) => {
    let x = (width - widths[layer]) / 2;
    for (const node of row) {
      const box = size.get(node.name);
      at.set(node.name, { ...box, x, y });
      x += box.w + GAP;
    }
    y += heights[layer] + (ROW - BOX_H);
  });
  return { at, width, height: rows.length ? y - (ROW - BOX_H) + PAD : 2 * PAD };
}

function edgePath(from, to) {
  const x1 = from.x + from.w / 2;
  const x2 = to.x + to.w / 2;
  if (to.y > from.y) {
    const y1 = from.y + from.h;
    const y2 = to.y;
    const mid = (y1 + y2) / 2;
    // The route is written near the target, where edges fanning out are apart.
    const label = [x1 + (x2 - x1) * 0.8, mid + (y2 - mid) * 0.55];
    return { d: `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`, label };
  }
  // A loop back up (or across): out of the right side, round, into the right side.
  const y1 = from.y + from.h / 2;
  const y2 = to.y + to.h / 2;
  const out = Math.max(from.x + from.w, to.x + to.w) + 28;
  return { d: `M${from.x + from.w},${y1} C${out},${y1} ${out},${y2} ${to.x + to.w},${y2}`, label: [out - 4, (y1 + y2) / 2] };
}

const routeText = (route) => (Array.isArray(route) ? route.join(", ") : String(route));

export function drawGraph(name, graph) {
  const { at, width, height } = layout(graph);
  const marker = `arrow-${name}`;
  const svg = s("svg", { class: "graph", role: "img", "aria-label": `Graph of workflow ${name}`, "data-workflow": name, "data-chain": name, width, height, viewBox: `0 0 ${width} ${height}` },
    s("defs", {}, s("marker", { id: marker, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }))));
  drawInto(svg, graph, at, marker, name);
  return svg;
}

// Edges first, then nodes over them; a nested workflow's group holds its graph, moved into it.
// ``chain`` names the workflows from the drawn one down to this graph's (``flow/inner``).
function drawInto(parent, graph, at, marker, chain) {
  for (const edge of graph.edges) {
    const path = edgePath(at.get(edge.from), at.get(edge.to));
    const g = s("g", { class: "graph-edge", "data-from": edge.from, "data-to": edge.to },
      s("path", { d: path.d, "marker-end": `url(#${marker})` }));
    if (edge.route !== null && edge.route !== undefined) {
      g.append(s("text", { x: path.label[0], y: path.label[1], "text-anchor": "middle", class: "route" }, routeText(edge.route)));
    }
    parent.append(g);
  }
  for (const node of graph.nodes) {
    const { x, y, w, h, inner, innerX } = at.get(node.name);
    const kind = node.kind === "START" ? "graph-node start" : inner ? "graph-node nested" : "graph-node";
    const g = s("g", { class: kind, "data-node": node.name },
      s("title", {}, `${node.name}: ${node.kind}`),
      s("rect", { x, y, width: w, height: h, rx: node.kind === "START" ? BOX_H / 2 : inner ? 8 : 4 }),
      inner
        ? s("text", { x: x + 8, y: y + HEAD / 2, "dominant-baseline": "central" }, node.name)
        : s("text", { x: x + w / 2, y: y + BOX_H / 2, "text-anchor": "middle", "dominant-baseline": "central" }, node.name));
    if (inner) {
      const own = `${chain}/${node.name}`;
      const box = s("g", { class: "graph-nested", "data-workflow": node.name, "data-chain": own, transform: `translate(${x + innerX},${y + HEAD})` });
      drawInto(box, node.graph, inner.at, marker, own);
      g.append(box);
    }
    parent.append(g);
  }
}

// The node a path's names (run ids dropped) name right below the workflows of ``chain``
// (``flow/inner``), wherever that run of workflows sits in the path.
function runningIn(names, chain) {
  const want = chain.split("/");
  for (let i = names.indexOf(want[0]); i >= 0; i = names.indexOf(want[0], i + 1)) {
    if (want.every((name, k) => names[i + k] === name)) return names[i + want.length];
  }
  return undefined;
}

// Marks, in every drawn graph and nested graph, the node a nodeInfo path (`flow@1/writer@2`)
// names below that graph's workflow; a path that names no node of it (or none at all) clears
// the mark. A nested workflow running is marked in its parent graph, and its node in its own.
export function markRunning(root, path) {
  const names = path ? path.split("/").map((part) => part.replace(/@[^@]*$/, "")) : [];
  for (const graph of root.querySelectorAll("svg.graph, .graph-nested")) {
    const running = runningIn(names, graph.dataset.chain);
    for (const node of graph.querySelectorAll(":scope > .graph-node")) {
      const on = running !== undefined && node.dataset.node === running;
      if (on) node.setAttribute("data-running", "");
      else node.removeAttribute("data-running");
    }
  }
}
