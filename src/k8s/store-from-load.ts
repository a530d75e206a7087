// Fills an ObjectStore from a LoadResult the way a fresh cluster would hold it: the built-in
// namespaces, namespaces objects refer to, merged Node objects, then the loaded objects.
import type { Node } from "kubernetes-types/core/v1.js";
import { BUILTIN_NAMESPACES } from "./cross-checks.js";
import { defaultNamespace } from "./defaults.js";
import type { LoadResult } from "./load.js";
import { clusterNodeObjects } from "./node-merge.js";
import { ObjectStore, type StoreOptions } from "./store.js";
import type { KubeObject } from "./types.js";

function namespaceObject(name: string): KubeObject<"Namespace"> {
  const ns: KubeObject<"Namespace"> = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
  defaultNamespace(ns);
  return ns;
}

export function storeFromLoad(result: LoadResult, options: StoreOptions = {}): ObjectStore {
  const store = new ObjectStore(options);
  const objects = result.objects.map((o) => o.object);
  const loadedNamespaces = new Set(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name));
  const wanted = new Set<string>(BUILTIN_NAMESPACES);
  for (const o of objects) if (o.metadata.namespace !== undefined) wanted.add(o.metadata.namespace);
  for (const name of [...wanted].sort()) if (!loadedNamespaces.has(name)) store.add(namespaceObject(name));
  for (const o of objects) if (o.kind === "Namespace") store.add(o);
  const nodes = objects.filter((o): o is KubeObject<"Node"> => o.kind === "Node") as Node[];
  for (const n of clusterNodeObjects(result.cluster?.object, nodes)) store.add(n);
  for (const o of objects) if (o.kind !== "Namespace" && o.kind !== "Node") store.add(o);
  return store;
}
