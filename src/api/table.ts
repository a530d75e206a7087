// The meta.k8s.io Table form of lists (what kubectl get asks for): the server-side columns of each
// kind (the lab's printers, which follow pkg/printers/internalversion), wide columns at priority 1,
// each row with the object's metadata (or the whole object) for kubectl's NAMESPACE and label columns.
import type { KubeObject } from "../k8s/index.js";
import { humanDuration } from "../lab/kubectl/format.js";
import { tablePrinter } from "../lab/kubectl/printers.js";
import type { ApiBackend } from "./backend.js";
import type { ApiResource } from "./resources.js";
import { badRequest } from "./status.js";

/** What the Accept header asked for: a Table (v1 or v1beta1) or plain JSON. */
export type TableVersion = "v1" | "v1beta1";
export type IncludeObject = "None" | "Metadata" | "Object";

export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** "NOMINATED NODE" -> "Nominated Node" (kubectl upper-cases column names again when printing). */
function columnName(header: string): string {
  return header
    .toLowerCase()
    .split(" ")
    .map((w) => (w === "ip" ? "IP" : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(" ");
}

function columns(header: readonly string[], wide: readonly string[]): TableColumn[] {
  const col = (h: string, priority: number, i: number): TableColumn => ({
    name: columnName(h),
    type: "string",
    format: i === 0 && priority === 0 ? "name" : "",
    description: h,
    priority,
  });
  return [...header.map((h, i) => col(h, 0, i)), ...wide.map((h, i) => col(h, 1, i + header.length))];
}

export interface TableContext {
  /** Wall-clock ms now (for the Age columns). */
  readonly nowMs: number;
  readonly resourceVersion: string;
  readonly version: TableVersion;
  readonly include: IncludeObject;
}

function includeObject(query: URLSearchParams): IncludeObject {
  const v = query.get("includeObject");
  if (v === null || v === "") return "Metadata";
  if (v === "None" || v === "Metadata" || v === "Object") return v;
  throw badRequest(`includeObject: unsupported value "${v}" (None, Metadata or Object)`);
}

/** The Table settings of a request (throws a 400 ApiError for a bad includeObject). */
export function tableContext(backend: ApiBackend, query: URLSearchParams, version: TableVersion | null): TableContext {
  return {
    nowMs: backend.epochMs + backend.nowNs() / 1e6,
    resourceVersion: String(backend.store.revision),
    version: version ?? "v1",
    include: includeObject(query),
  };
}

function partialMetadata(obj: KubeObject, version: TableVersion): unknown {
  return { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

/** A Table of objects of one resource; resources without a printer get Name and Age columns. */
export function toTable(resource: ApiResource, objects: readonly KubeObject[], ctx: TableContext): unknown {
  const printer = resource.storeKind === null ? undefined : tablePrinter(resource.storeKind);
  const age = (ts: string | undefined): string => {
    const t = ts === undefined ? NaN : Date.parse(ts);
    return Number.isNaN(t) ? "<unknown>" : humanDuration((ctx.nowMs - t) / 1000);
  };
  const header = printer?.header ?? ["NAME", "AGE"];
  const wide = printer?.wideHeader ?? [];
  const rows = objects.map((obj) => {
    const cells = printer !== undefined ? printer.row(obj, { age }, true) : [obj.metadata.name, age(obj.metadata.creationTimestamp)];
    const row: Record<string, unknown> = { cells };
    if (ctx.include === "Metadata") row.object = partialMetadata(obj, ctx.version);
    else if (ctx.include === "Object") row.object = obj;
    return row;
  });
  return {
    kind: "Table",
    apiVersion: `meta.k8s.io/${ctx.version}`,
    metadata: { resourceVersion: ctx.resourceVersion },
    columnDefinitions: columns(header, wide),
    rows,
  };
}

/** A Table with explicit columns and cells (for computed resources such as metrics). */
export function cellsTable(header: readonly string[], rows: readonly { cells: readonly string[]; object: { readonly metadata: unknown } }[], ctx: TableContext): unknown {
  return {
    kind: "Table",
    apiVersion: `meta.k8s.io/${ctx.version}`,
    metadata: { resourceVersion: ctx.resourceVersion },
    columnDefinitions: columns(header, []),
    rows: rows.map((r) => ({
      cells: r.cells,
      ...(ctx.include === "None"
        ? {}
        : { object: ctx.include === "Object" ? r.object : { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${ctx.version}`, metadata: r.object.metadata } }),
    })),
  };
}
