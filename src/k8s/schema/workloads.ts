// Shapes of Deployment, ReplicaSet and DaemonSet (apps/v1).
import { checkPercent } from "../names.js";
import { labelSelector, objectMeta, typeMeta } from "./meta.js";
import { podTemplateSpec } from "./pod.js";
import { bool, int, intOrString, obj, oneOf, opaque, type Shape } from "./shape.js";

const nonNegative = (n: number): string | null => (n < 0 ? "must be greater than or equal to 0" : null);
/** maxSurge / maxUnavailable: a non-negative integer or a percentage. */
export const intOrPercent: Shape = intOrString(nonNegative, checkPercent);

const deploymentSpec = obj(
  {
    replicas: int(0),
    selector: labelSelector,
    template: podTemplateSpec,
    strategy: obj({
      type: oneOf("Recreate", "RollingUpdate"),
      rollingUpdate: obj({ maxSurge: intOrPercent, maxUnavailable: intOrPercent }),
    }),
    minReadySeconds: int(0),
    revisionHistoryLimit: int(0),
    paused: bool,
    progressDeadlineSeconds: int(0),
  },
  ["selector", "template"],
);

const replicaSetSpec = obj(
  { replicas: int(0), minReadySeconds: int(0), selector: labelSelector, template: podTemplateSpec },
  ["selector"],
);

const daemonSetSpec = obj(
  {
    selector: labelSelector,
    template: podTemplateSpec,
    updateStrategy: obj({
      type: oneOf("RollingUpdate", "OnDelete"),
      rollingUpdate: obj({ maxSurge: intOrPercent, maxUnavailable: intOrPercent }),
    }),
    minReadySeconds: int(0),
    revisionHistoryLimit: int(0),
  },
  ["selector", "template"],
);

export const deploymentShape = obj({ ...typeMeta, metadata: objectMeta, spec: deploymentSpec, status: opaque }, ["spec"]);
export const replicaSetShape = obj({ ...typeMeta, metadata: objectMeta, spec: replicaSetSpec, status: opaque }, ["spec"]);
export const daemonSetShape = obj({ ...typeMeta, metadata: objectMeta, spec: daemonSetSpec, status: opaque }, ["spec"]);
