// Volumes the kubelet mounts into a container: a configMap volume becomes a read-only directory at
// the mount's path with one file per key (or per `items` entry, at its path), binaryData decoded from
// base64. Other volume sources mount nothing cnisim models. Problems are returned as the kubelet's
// MountVolume.SetUp messages.
import type { ConfigMap, Container, Pod } from "kubernetes-types/core/v1.js";
import type { ObjectStore } from "../../k8s/store.js";
import type { ContainerFiles } from "./files.js";

const encoder = new TextEncoder();

/** The files of a ConfigMap as a volume shows them: name (relative) -> bytes. */
export function configMapFiles(cm: ConfigMap, items?: readonly { key: string; path: string }[]): Map<string, Uint8Array> {
  const all = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(cm.data ?? {})) all.set(k, encoder.encode(v));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) all.set(k, Uint8Array.from(Buffer.from(v, "base64")));
  if (items === undefined || items.length === 0) return all;
  const out = new Map<string, Uint8Array>();
  for (const item of items) {
    const bytes = all.get(item.key);
    if (bytes !== undefined) out.set(item.path, bytes);
  }
  return out;
}

/** Mounts container `c`'s volumes into `files`; returns the problems (kubelet wording). */
export function mountVolumes(store: ObjectStore, pod: Pod, c: Container, files: ContainerFiles): string[] {
  const problems: string[] = [];
  const namespace = pod.metadata?.namespace ?? "default";
  for (const m of c.volumeMounts ?? []) {
    const v = (pod.spec?.volumes ?? []).find((x) => x.name === m.name);
    const source = v?.configMap;
    if (source === undefined) continue;
    if (m.subPath !== undefined && m.subPath !== "") {
      problems.push(`volume "${m.name}": subPath mounts are not modelled: nothing mounted at ${m.mountPath}`);
      continue;
    }
    const cm = store.get("ConfigMap", namespace, source.name ?? "");
    if (cm === undefined) {
      if (source.optional !== true) problems.push(`MountVolume.SetUp failed for volume "${m.name}" : configmap "${source.name ?? ""}" not found`);
      continue;
    }
    files.mount({ path: m.mountPath, files: configMapFiles(cm, source.items) });
  }
  return problems;
}
