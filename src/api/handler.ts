// One API request to one response, independent of the HTTP server: routing of discovery, resource
// and metrics paths, selectors, JSON or Table bodies, and Status errors for everything refused.
import type { KubeObject } from "../k8s/index.js";
import { negotiate, type Negotiated } from "./accept.js";
import type { ApiBackend } from "./backend.js";
import { aggregatedContentType, aggregatedDiscovery, apiGroupDoc, apiGroupList, apiResourceList, apiVersions, versionInfo } from "./discovery.js";
import { metricsRequest } from "./metrics-api.js";
import { findResource, groupVersion, type ApiResource } from "./resources.js";
import { fieldMatcher, parseFieldSelector, parseLabelSelector } from "./selectors.js";
import { ApiError, badRequest, methodNotAllowed, objectNotFound, pathNotFound, StatusReason } from "./status.js";
import { tableContext, toTable } from "./table.js";

export interface ApiRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly accept: string | undefined;
  /** host:port the client used (discovery echoes it). */
  readonly host: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

const JSON_TYPE = "application/json";

const json = (body: unknown, contentType = JSON_TYPE, status = 200): ApiResponse => ({ status, contentType, body: JSON.stringify(body) });

function errorResponse(e: ApiError): ApiResponse {
  return json(e.body(), JSON_TYPE, e.code);
}

const notAcceptable = (): ApiError => new ApiError(406, StatusReason.NOT_ACCEPTABLE, "only the following media types are accepted: application/json, application/json;as=Table;g=meta.k8s.io");

/** What a resource path names: the resource, the namespace (null: all or cluster-scoped) and the object name. */
export interface ResourcePath {
  readonly resource: ApiResource;
  readonly namespace: string | null;
  readonly name: string | null;
}

/** Reads `.../RESOURCE[/NAME]` or `.../namespaces/NS/RESOURCE[/NAME]` after the group version prefix. */
function resourcePath(group: string, version: string, rest: readonly string[]): ResourcePath | null {
  const [a, b, c, d, ...more] = rest;
  if (a === undefined || more.length > 0) return null;
  if (a === "namespaces" && b !== undefined && c !== undefined) {
    const resource = findResource(group, version, c);
    if (resource === undefined || !resource.namespaced) return null;
    return { resource, namespace: b, name: d ?? null };
  }
  if (c !== undefined) return null;
  const resource = findResource(group, version, a);
  if (resource === undefined) return null;
  if (b !== undefined && resource.namespaced) return null;
  return { resource, namespace: null, name: b ?? null };
}

function selectors(req: ApiRequest, resource: ApiResource): { labels: (l: Readonly<Record<string, string>>) => boolean; fields: (o: KubeObject) => boolean } {
  const labels = parseLabelSelector(req.query.get("labelSelector"));
  if (!labels.ok) throw badRequest(labels.error);
  const terms = parseFieldSelector(req.query.get("fieldSelector"));
  if (!terms.ok) throw badRequest(terms.error);
  const fields = fieldMatcher(resource.storeKind, terms.value);
  if (!fields.ok) throw badRequest(fields.error);
  return { labels: labels.value, fields: fields.value };
}

function storeRequest(backend: ApiBackend, req: ApiRequest, p: ResourcePath, n: Negotiated): ApiResponse {
  const kind = p.resource.storeKind!;
  const { labels, fields } = selectors(req, p.resource);
  let objects: KubeObject[];
  if (p.name !== null) {
    const obj = backend.store.get(kind, p.namespace ?? undefined, p.name);
    if (obj === undefined) throw objectNotFound(p.resource.resource, p.resource.group, p.name);
    objects = [obj];
  } else {
    objects = backend.store.list(kind, { ...(p.namespace === null ? {} : { namespace: p.namespace }), labels, where: fields });
  }
  if (n.table !== null) return json(toTable(p.resource, objects, tableContext(backend, req.query, n.table)));
  if (p.name !== null) return json(objects[0]);
  const apiVersion = groupVersion(p.resource.group, p.resource.version);
  return json({ kind: `${p.resource.kind}List`, apiVersion, metadata: { resourceVersion: String(backend.store.revision) }, items: objects });
}

function discovery(req: ApiRequest, segments: readonly string[], n: Negotiated, backend: ApiBackend): ApiResponse | null {
  const [first, group, version, extra] = segments;
  if (first === "version" && segments.length === 1) return json(versionInfo(backend.kubernetesVersion));
  if (first === "api" && segments.length === 1) return n.aggregated !== null ? json(aggregatedDiscovery(true, n.aggregated), aggregatedContentType(n.aggregated)) : json(apiVersions(req.host));
  if (first === "apis" && segments.length === 1) return n.aggregated !== null ? json(aggregatedDiscovery(false, n.aggregated), aggregatedContentType(n.aggregated)) : json(apiGroupList());
  if (first === "api" && segments.length === 2) {
    const list = apiResourceList("", group!);
    return list === undefined ? null : json(list);
  }
  if (first === "apis" && segments.length === 2) {
    const doc = apiGroupDoc(group!);
    return doc === undefined ? null : json(doc);
  }
  if (first === "apis" && segments.length === 3 && extra === undefined) {
    const list = apiResourceList(group!, version!);
    return list === undefined ? null : json(list);
  }
  return null;
}

/** Answers one request; never throws (every failure is a Status response). */
export async function handleRequest(backend: ApiBackend, req: ApiRequest): Promise<ApiResponse> {
  try {
    return await route(backend, req);
  } catch (e) {
    if (e instanceof ApiError) return errorResponse(e);
    return errorResponse(new ApiError(500, StatusReason.INTERNAL_ERROR, `internal error: ${e instanceof Error ? e.message : String(e)}`));
  }
}

async function route(backend: ApiBackend, req: ApiRequest): Promise<ApiResponse> {
  if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed(req.method);
  let segments: string[];
  try {
    segments = req.path.split("/").filter((s) => s !== "").map(decodeURIComponent);
  } catch {
    throw badRequest(`malformed path: ${JSON.stringify(req.path)}`);
  }
  const [first] = segments;
  if (segments.length === 1 && (first === "healthz" || first === "livez" || first === "readyz")) return { status: 200, contentType: "text/plain; charset=utf-8", body: "ok" };
  if (segments.length === 1 && first === "metrics") {
    if (backend.prometheus === null) throw pathNotFound();
    return { status: 200, contentType: backend.prometheus.contentType, body: await backend.prometheus.metrics() };
  }
  const n = negotiate(req.accept);
  const doc = discovery(req, segments, n, backend);
  if (doc !== null) {
    if (!n.json && n.aggregated === null) throw notAcceptable();
    return doc;
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (first === "api" && segments.length >= 3) [group, version, rest] = ["", segments[1]!, segments.slice(2)];
  else if (first === "apis" && segments.length >= 4) [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
  else throw pathNotFound();
  const p = resourcePath(group, version, rest);
  if (p === null) throw pathNotFound();
  if (!n.json && n.table === null) throw notAcceptable();
  const watch = req.query.get("watch");
  if (watch === "true" || watch === "1") throw new ApiError(405, StatusReason.METHOD_NOT_ALLOWED, "watch is not supported: cnisim serves list and get only");
  if (p.resource.storeKind === null) {
    if (backend.metrics === null) throw pathNotFound();
    return json(metricsRequest(backend, backend.metrics, req, p, n, selectors(req, p.resource)));
  }
  return storeRequest(backend, req, p, n);
}
