// What the API server does to a pod it is asked to create: a name from generateName, the
// defaults and the Priority / DefaultTolerationSeconds admission plugins (k8s defaultPod), and
// the ServiceAccount plugin: serviceAccountName "default" and the projected token volume
// kube-api-access-XXXXX mounted read-only into every container.
import type { Volume } from "kubernetes-types/core/v1.js";
import { defaultPod, type KubeObject } from "../k8s/index.js";
import type { SeededRng } from "../util/rng.js";
import { generateName, randomString } from "./names.js";

export const SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
export const API_ACCESS_VOLUME_PREFIX = "kube-api-access-";

function tokenVolume(name: string): Volume {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    },
  };
}

/** Admits a new pod in place; `pod.metadata.name` may be empty when generateName is set. */
export function admitPod(pod: KubeObject<"Pod">, rng: SeededRng): void {
  const meta = pod.metadata;
  if ((meta.name ?? "") === "" && meta.generateName !== undefined) meta.name = generateName(rng, meta.generateName);
  meta.namespace ??= "default";
  defaultPod(pod);
  const spec = pod.spec!;
  spec.serviceAccountName ??= "default";
  spec.serviceAccount ??= spec.serviceAccountName;
  if (spec.automountServiceAccountToken === false) return;
  const containers = [...(spec.initContainers ?? []), ...spec.containers];
  if (containers.some((c) => c.volumeMounts?.some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH))) return;
  const volumeName = API_ACCESS_VOLUME_PREFIX + randomString(rng, 5);
  spec.volumes = [...(spec.volumes ?? []), tokenVolume(volumeName)];
  for (const c of containers) c.volumeMounts = [...(c.volumeMounts ?? []), { name: volumeName, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }];
}
