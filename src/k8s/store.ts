// In-memory object store, the emulator's API server: typed collections per kind, a monotonic
// revision stamped into metadata.resourceVersion, and change events delivered in order to
// listeners (controllers, the policy compiler) so they can react incrementally.
// Stored objects are deep-frozen: copy before changing (modify() does it for you).
import { err, ok, type Result } from "../util/result.js";
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { CLUSTER_SCOPED, KIND_NAMES, type KindName, type KubeObject } from "./types.js";

export type StoreEventType = "added" | "modified" | "deleted";

export interface StoreEvent<K extends KindName = KindName> {
  readonly kind: K;
  readonly type: StoreEventType;
  /** The object before the change (modified, deleted). */
  readonly old?: KubeObject<K>;
  /** The object after the change (added, modified). */
  readonly new?: KubeObject<K>;
  readonly revision: number;
}

export type StoreListener = (event: StoreEvent) => void;

export const StoreErrorCode = {
  ALREADY_EXISTS: "AlreadyExists",
  NOT_FOUND: "NotFound",
  CONFLICT: "Conflict",
} as const;
export type StoreErrorCode = (typeof StoreErrorCode)[keyof typeof StoreErrorCode];

export interface StoreError {
  readonly code: StoreErrorCode;
  readonly kind: KindName;
  readonly namespace: string | undefined;
  readonly name: string;
  /** The API server's wording, e.g. `pods "web1" already exists`. */
  readonly message: string;
}

/** Resource names as the API server prints them in errors ("deployments.apps"). */
export const RESOURCE_NAMES: Readonly<Record<KindName, string>> = {
  Namespace: "namespaces",
  Node: "nodes",
  Pod: "pods",
  Deployment: "deployments.apps",
  ReplicaSet: "replicasets.apps",
  DaemonSet: "daemonsets.apps",
  Service: "services",
  Endpoints: "endpoints",
  NetworkPolicy: "networkpolicies.networking.k8s.io",
  PodDisruptionBudget: "poddisruptionbudgets.policy",
  Event: "events",
  ConfigMap: "configmaps",
};

export interface ListOptions<K extends KindName> {
  readonly namespace?: string;
  /** A label predicate, e.g. compileSelector(sel).matches. */
  readonly labels?: (labels: Readonly<Record<string, string>>) => boolean;
  readonly where?: (obj: KubeObject<K>) => boolean;
}

export interface StoreOptions {
  /** Stamps metadata.creationTimestamp on added objects (simulated time); left unset without it. */
  readonly timestamp?: () => string;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** kubernetes-types marks server-set metadata read-only; the store is the server that sets it. */
type ServerMeta = { -readonly [P in keyof ObjectMeta]: ObjectMeta[P] };

const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ""}\u0000${name}`;

/** Deep equality of JSON-like values, ignoring key order. */
function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameContent((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function withoutVersion(obj: KubeObject): unknown {
  const { resourceVersion: _rv, ...meta } = obj.metadata;
  return { ...obj, metadata: meta };
}

export class ObjectStore {
  private rev = 0;
  private readonly collections = new Map<KindName, Map<string, KubeObject>>();
  private readonly sortedKeys = new Map<KindName, string[]>();
  private readonly listeners: { fn: StoreListener; kinds: ReadonlySet<KindName> | null }[] = [];
  private readonly queue: StoreEvent[] = [];
  private dispatching = false;

  constructor(private readonly options: StoreOptions = {}) {
    for (const k of KIND_NAMES) this.collections.set(k, new Map());
  }

  /** The revision of the last change (0 for an empty store). */
  get revision(): number {
    return this.rev;
  }

  get<K extends KindName>(kind: K, namespace: string | undefined, name: string): KubeObject<K> | undefined {
    return this.collection(kind).get(keyOf(this.scope(kind, namespace), name)) as KubeObject<K> | undefined;
  }

  /** Objects of a kind sorted by namespace then name, optionally filtered. */
  list<K extends KindName>(kind: K, options: ListOptions<K> = {}): KubeObject<K>[] {
    const coll = this.collection(kind);
    let keys = this.sortedKeys.get(kind);
    if (keys === undefined) {
      keys = [...coll.keys()].sort();
      this.sortedKeys.set(kind, keys);
    }
    const out: KubeObject<K>[] = [];
    for (const k of keys) {
      const obj = coll.get(k) as KubeObject<K>;
      if (options.namespace !== undefined && obj.metadata.namespace !== options.namespace) continue;
      if (options.labels !== undefined && !options.labels(obj.metadata.labels ?? {})) continue;
      if (options.where !== undefined && !options.where(obj)) continue;
      out.push(obj);
    }
    return out;
  }

  count(kind: KindName): number {
    return this.collection(kind).size;
  }

  /** Creates an object; AlreadyExists when one with the same kind, namespace and name exists. */
  add<K extends KindName>(obj: KubeObject<K>): Result<KubeObject<K>, StoreError> {
    const kind = obj.kind as K;
    const ns = this.scope(kind, obj.metadata.namespace);
    const key = keyOf(ns, obj.metadata.name);
    const coll = this.collection(kind);
    if (coll.has(key)) return err(this.error(StoreErrorCode.ALREADY_EXISTS, kind, ns, obj.metadata.name, "already exists"));
    const rev = ++this.rev;
    const copy = structuredClone(obj) as KubeObject<K>;
    const meta = copy.metadata as ServerMeta;
    meta.resourceVersion = String(rev);
    meta.uid ??= `00000000-0000-4000-8000-${rev.toString(16).padStart(12, "0")}`;
    meta.generation ??= 1;
    const ts = this.options.timestamp?.();
    if (ts !== undefined) meta.creationTimestamp ??= ts;
    if (ns === undefined) delete meta.namespace;
    deepFreeze(copy);
    coll.set(key, copy);
    this.sortedKeys.delete(kind);
    this.emit({ kind, type: "added", new: copy, revision: rev });
    return ok(copy);
  }

  /**
   * Replaces an object. NotFound when absent; Conflict when the given metadata.resourceVersion is
   * set and stale. An update that changes nothing returns the stored object and emits no event.
   */
  update<K extends KindName>(obj: KubeObject<K>): Result<KubeObject<K>, StoreError> {
    const kind = obj.kind as K;
    const ns = this.scope(kind, obj.metadata.namespace);
    const key = keyOf(ns, obj.metadata.name);
    const coll = this.collection(kind);
    const old = coll.get(key) as KubeObject<K> | undefined;
    if (old === undefined) return err(this.error(StoreErrorCode.NOT_FOUND, kind, ns, obj.metadata.name, "not found"));
    const given = obj.metadata.resourceVersion;
    if (given !== undefined && given !== old.metadata.resourceVersion) {
      return err(
        this.error(
          StoreErrorCode.CONFLICT,
          kind,
          ns,
          obj.metadata.name,
          "the object has been modified; please apply your changes to the latest version and try again",
        ),
      );
    }
    const copy = structuredClone(obj) as KubeObject<K>;
    const meta = copy.metadata as ServerMeta;
    if (old.metadata.uid !== undefined) meta.uid = old.metadata.uid;
    if (old.metadata.creationTimestamp !== undefined) meta.creationTimestamp = old.metadata.creationTimestamp;
    if (ns === undefined) delete meta.namespace;
    const oldSpec = (old as { spec?: unknown }).spec;
    const newSpec = (copy as { spec?: unknown }).spec;
    meta.generation = (old.metadata.generation ?? 1) + (sameContent(oldSpec, newSpec) ? 0 : 1);
    if (sameContent(withoutVersion(copy), withoutVersion(old))) return ok(old);
    const rev = ++this.rev;
    meta.resourceVersion = String(rev);
    deepFreeze(copy);
    coll.set(key, copy);
    this.emit({ kind, type: "modified", old, new: copy, revision: rev });
    return ok(copy);
  }

  /** Adds or updates (kubectl apply). */
  apply<K extends KindName>(obj: KubeObject<K>): Result<KubeObject<K>, StoreError> {
    const exists = this.get(obj.kind as K, obj.metadata.namespace, obj.metadata.name) !== undefined;
    if (!exists) return this.add(obj);
    const { resourceVersion: _rv, ...meta } = obj.metadata;
    return this.update({ ...obj, metadata: meta } as KubeObject<K>);
  }

  /** Copies the stored object, lets `mutate` change the copy, and stores it. */
  modify<K extends KindName>(
    kind: K,
    namespace: string | undefined,
    name: string,
    mutate: (draft: KubeObject<K>) => void,
  ): Result<KubeObject<K>, StoreError> {
    const current = this.get(kind, namespace, name);
    if (current === undefined) return err(this.error(StoreErrorCode.NOT_FOUND, kind, this.scope(kind, namespace), name, "not found"));
    const draft = structuredClone(current) as KubeObject<K>;
    mutate(draft);
    return this.update(draft);
  }

  delete<K extends KindName>(kind: K, namespace: string | undefined, name: string): Result<KubeObject<K>, StoreError> {
    const ns = this.scope(kind, namespace);
    const key = keyOf(ns, name);
    const coll = this.collection(kind);
    const old = coll.get(key) as KubeObject<K> | undefined;
    if (old === undefined) return err(this.error(StoreErrorCode.NOT_FOUND, kind, ns, name, "not found"));
    coll.delete(key);
    this.sortedKeys.delete(kind);
    const rev = ++this.rev;
    this.emit({ kind, type: "deleted", old, revision: rev });
    return ok(old);
  }

  /**
   * Calls `listener` for every later change of the given kinds (all kinds when omitted), in
   * revision order. Changes made by a listener are delivered after the current event has reached
   * every listener. Returns a function that removes the listener.
   */
  watch(listener: StoreListener, kinds?: readonly KindName[]): () => void {
    const entry = { fn: listener, kinds: kinds === undefined ? null : new Set(kinds) };
    this.listeners.push(entry);
    return () => {
      const i = this.listeners.indexOf(entry);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  private emit(event: StoreEvent): void {
    this.queue.push(event);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let e = this.queue.shift(); e !== undefined; e = this.queue.shift()) {
        for (const l of [...this.listeners]) if (l.kinds === null || l.kinds.has(e.kind)) l.fn(e);
      }
    } finally {
      this.dispatching = false;
      this.queue.length = 0;
    }
  }

  private collection(kind: KindName): Map<string, KubeObject> {
    const c = this.collections.get(kind);
    if (c === undefined) throw new TypeError(`ObjectStore: unknown kind ${String(kind)}`);
    return c;
  }

  private scope(kind: KindName, namespace: string | undefined): string | undefined {
    return CLUSTER_SCOPED.has(kind) ? undefined : (namespace ?? "default");
  }

  private error(code: StoreErrorCode, kind: KindName, namespace: string | undefined, name: string, what: string): StoreError {
    const resource = RESOURCE_NAMES[kind];
    const message =
      code === StoreErrorCode.CONFLICT ? `Operation cannot be fulfilled on ${resource} ${JSON.stringify(name)}: ${what}` : `${resource} ${JSON.stringify(name)} ${what}`;
    return { code, kind, namespace, name, message };
  }
}
