// Pods made from a controller's pod template (controller.GetPodFromTemplate): template labels,
// annotations and spec, a generateName prefix, the owner's controller reference, then admission.
import type { PodTemplateSpec } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../k8s/index.js";
import { admitPod } from "./admission.js";
import type { ControllerContext } from "./context.js";
import { controllerRef, copy, type Pod } from "./objects.js";

export function podFromTemplate(ctx: ControllerContext, template: PodTemplateSpec, owner: KubeObject, prefix: string): Pod {
  const t = copy(template);
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "",
      generateName: prefix,
      namespace: owner.metadata.namespace ?? "default",
      ...(t.metadata?.labels === undefined ? {} : { labels: t.metadata.labels }),
      ...(t.metadata?.annotations === undefined ? {} : { annotations: t.metadata.annotations }),
      ownerReferences: [controllerRef(owner)],
    },
    spec: t.spec ?? { containers: [] },
  };
  admitPod(pod, ctx.rng);
  return pod;
}
