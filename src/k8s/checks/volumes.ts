// Rules of pod volumes and volumeMounts after upstream's ValidateVolumes / ValidateVolumeMounts:
// unique volume names, a configMap volume names its ConfigMap, item paths are relative without "..",
// and every container mounts only volumes the pod declares, each at one path at most once.
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import { checkConfigKey } from "./configmap.js";
import { checkDuplicates, p, type CheckContext } from "./context.js";

export function checkVolumes(spec: PodSpec, path: string, ctx: CheckContext): void {
  const vp = p.field(path, "volumes");
  checkDuplicates(spec.volumes, (v) => v.name, (i) => p.field(p.index(vp, i), "name"), ctx);
  (spec.volumes ?? []).forEach((v, i) => {
    const cm = v.configMap;
    if (cm === undefined) return;
    const cp = p.field(p.index(vp, i), "configMap");
    if (cm.name === undefined || cm.name === "") ctx.error(p.field(cp, "name"), "required value");
    (cm.items ?? []).forEach((item, j) => {
      const ip = p.index(p.field(cp, "items"), j);
      const m = checkConfigKey(item.key);
      if (m !== null) ctx.error(p.field(ip, "key"), `invalid value ${JSON.stringify(item.key)}: ${m}`);
      const bad = item.path.startsWith("/") ? "must be a relative path" : item.path.split("/").includes("..") ? "must not contain '..'" : item.path === "" ? "required value" : null;
      if (bad !== null) ctx.error(p.field(ip, "path"), bad === "required value" ? bad : `invalid value ${JSON.stringify(item.path)}: ${bad}`);
    });
  });
}

export function checkVolumeMounts(c: Container, path: string, spec: PodSpec, ctx: CheckContext): void {
  const names = new Set((spec.volumes ?? []).map((v) => v.name));
  const mp = p.field(path, "volumeMounts");
  (c.volumeMounts ?? []).forEach((m, i) => {
    if (!names.has(m.name)) ctx.error(p.field(p.index(mp, i), "name"), `not found: ${JSON.stringify(m.name)}`);
    if (!m.mountPath.startsWith("/")) ctx.warn(p.field(p.index(mp, i), "mountPath"), `${JSON.stringify(m.mountPath)} is relative: the container runtime resolves it against the working directory`);
  });
  checkDuplicates(c.volumeMounts, (m) => m.mountPath, (i) => p.field(p.index(mp, i), "mountPath"), ctx, (k) => `must be unique: ${JSON.stringify(k)}`);
}
