// Rules of a ConfigMap after upstream's ValidateConfigMap: keys are config keys (alphanumerics, '-',
// '_', '.'; not "." or ".."; at most 253 characters), no key in both data and binaryData, binaryData
// values are base64, and the whole payload stays within 1 MiB.
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { p, type CheckContext } from "./context.js";

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** corev1.MaxSecretSize, which ConfigMaps share. */
const MAX_SIZE = 1024 * 1024;

export function checkConfigKey(key: string): string | null {
  if (key.length > 253) return "must be no more than 253 characters";
  if (!CONFIG_KEY.test(key)) return "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
  if (key === "." || key === "..") return `must not be '${key}'`;
  return null;
}

export function checkConfigMap(cm: ConfigMap, ctx: CheckContext): void {
  let size = 0;
  for (const [key, value] of Object.entries(cm.data ?? {})) {
    const m = checkConfigKey(key);
    if (m !== null) ctx.error(p.key("data", key), `invalid value ${JSON.stringify(key)}: ${m}`);
    size += key.length + value.length;
  }
  for (const [key, value] of Object.entries(cm.binaryData ?? {})) {
    const path = p.key("binaryData", key);
    const m = checkConfigKey(key);
    if (m !== null) ctx.error(path, `invalid value ${JSON.stringify(key)}: ${m}`);
    if (cm.data?.[key] !== undefined) ctx.error(path, `invalid value ${JSON.stringify(key)}: duplicate of key present in data`);
    if (!BASE64.test(value)) ctx.error(path, "invalid value: must be base64-encoded bytes");
    size += key.length + Math.floor((value.length * 3) / 4);
  }
  if (size > MAX_SIZE) ctx.error("data", `too long: must have at most ${MAX_SIZE} bytes`);
}
