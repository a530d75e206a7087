// Charts of a comparison with vega-lite, rendered headlessly to SVG by vega's scenegraph (renderer
// "none", no browser or canvas): throughput per CNI grouped by test, and CPU per node for the
// single-stream TCP test. `-o svg` is the throughput chart; `-o html` a self-contained report.
import type { TopLevelSpec } from "vega-lite";
import type { CellResult } from "./cell.js";
import { columnsOf } from "./columns.js";
import { explain } from "./explain.js";
import type { Comparison } from "./runner.js";
import { formatComparison } from "./table.js";

function order(results: readonly CellResult[]): string[] {
  return [...new Set(results.map((r) => r.spec.flavour.name))];
}

export function throughputSpec(c: Comparison): TopLevelSpec {
  const cols = columnsOf(c.results, c.options.protocols).filter((x) => x.protocol !== "TCP_RR");
  const values = c.results
    .filter((r) => r.spec.protocol !== "TCP_RR")
    .map((r) => ({
      cni: r.spec.flavour.name,
      hostMtu: `host MTU ${r.spec.hostMtu}`,
      test: cols.find((x) => x.path === r.spec.path && x.protocol === r.spec.protocol && x.streams === r.spec.streams)?.title ?? "",
      gbps: Math.round(r.gbps * 1000) / 1000,
    }));
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: `Throughput at the receiver, ${c.options.linkGbps} Gbit/s links`,
    data: { values },
    facet: { row: { field: "hostMtu", type: "nominal", title: null } },
    spec: {
      width: 640,
      height: 240,
      mark: "bar",
      encoding: {
        x: { field: "cni", type: "nominal", sort: order(c.results), title: null, axis: { labelAngle: -30 } },
        xOffset: { field: "test", type: "nominal", sort: cols.map((x) => x.title) },
        y: { field: "gbps", type: "quantitative", title: "Gbit/s" },
        color: { field: "test", type: "nominal", sort: cols.map((x) => x.title), title: "test" },
        tooltip: [{ field: "cni" }, { field: "test" }, { field: "gbps" }],
      },
    },
  };
}

export function cpuSpec(c: Comparison): TopLevelSpec {
  const values = c.results
    .filter((r) => r.spec.protocol === "TCP" && r.spec.streams === Math.min(...c.options.streams) && r.spec.path === "pod-to-pod")
    .flatMap((r) => [
      { cni: r.spec.flavour.name, hostMtu: `host MTU ${r.spec.hostMtu}`, node: "client (sender)", busy: Math.round(r.client.coreBusy * 1000) / 10 },
      { cni: r.spec.flavour.name, hostMtu: `host MTU ${r.spec.hostMtu}`, node: "server (receiver)", busy: Math.round(r.server.coreBusy * 1000) / 10 },
    ]);
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "Busy share of the flow's core, pod-to-pod TCP",
    data: { values },
    facet: { row: { field: "hostMtu", type: "nominal", title: null } },
    spec: {
      width: 640,
      height: 200,
      mark: "bar",
      encoding: {
        x: { field: "cni", type: "nominal", sort: order(c.results), title: null, axis: { labelAngle: -30 } },
        xOffset: { field: "node", type: "nominal" },
        y: { field: "busy", type: "quantitative", title: "% of the core", scale: { domain: [0, 100] } },
        color: { field: "node", type: "nominal", title: "node" },
      },
    },
  };
}

/** Renders a vega-lite spec to an SVG document (vega and vega-lite load on first use). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const vega = await import("vega");
  const vegaLite = await import("vega-lite");
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const escapeHtml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A self-contained HTML report: both charts inline as SVG, the tables and the explanations. */
export async function renderHtml(c: Comparison): Promise<string> {
  const charts = [await renderSvg(throughputSpec(c))];
  if (c.results.some((r) => r.spec.protocol === "TCP")) charts.push(await renderSvg(cpuSpec(c)));
  const why = explain(c.results, c.model);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>cnisim bench cni</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}pre{font-size:12px;background:#f6f6f6;padding:1em;overflow-x:auto}figure{margin:1em 0}</style>
</head>
<body>
<h1>CNI comparison (emulated)</h1>
${charts.map((s) => `<figure>${s}</figure>`).join("\n")}
<h2>Tables</h2>
<pre>${escapeHtml(formatComparison(c))}</pre>
<h2>Why</h2>
<ul>
${why.map((w) => `<li>${escapeHtml(w)}</li>`).join("\n")}
</ul>
</body>
</html>
`;
}
