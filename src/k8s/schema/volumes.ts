// Shapes of pod volumes and container volumeMounts: configMap volumes are modelled (their keys become
// files in the container); the other volume sources are valid Kubernetes and kept without inspection.
import { checkDns1123Label, checkDns1123Subdomain } from "../names.js";
import { bool, int, list, obj, oneOf, opaque, str } from "./shape.js";

const keyToPath = obj({ key: str(), path: str(), mode: int(0, 0o777) }, ["key", "path"]);

export const configMapVolumeSource = obj({
  name: str(checkDns1123Subdomain),
  items: list(keyToPath),
  defaultMode: int(0, 0o777),
  optional: bool,
});

/** Volume sources cnisim keeps but does not model. */
const OPAQUE_SOURCES = [
  "emptyDir", "hostPath", "secret", "projected", "persistentVolumeClaim", "downwardAPI", "ephemeral", "csi", "nfs",
  "iscsi", "image", "awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker",
  "gcePersistentDisk", "gitRepo", "glusterfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO",
  "storageos", "vsphereVolume",
] as const;

export const volume = obj(
  {
    name: str(checkDns1123Label),
    configMap: configMapVolumeSource,
    ...Object.fromEntries(OPAQUE_SOURCES.map((s) => [s, opaque])),
  },
  ["name"],
);

export const volumeMount = obj(
  {
    name: str(),
    mountPath: str(),
    readOnly: bool,
    recursiveReadOnly: oneOf("Disabled", "IfPossible", "Enabled"),
    subPath: str(),
    subPathExpr: str(),
    mountPropagation: oneOf("None", "HostToContainer", "Bidirectional"),
  },
  ["name", "mountPath"],
);
