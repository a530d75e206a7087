// pod-template-hash as the deployment controller computes it (controller.ComputeHash): FNV-32a of
// the go-spew "%#v" text of the PodTemplateSpec, then the collision count as 8 little-endian bytes
// when set, then rand.SafeEncodeString of the decimal value.
import type { PodTemplateSpec } from "kubernetes-types/core/v1.js";
import { Fnv32a } from "./fnv.js";
import { POD_TEMPLATE_SPEC_1_30 } from "./pod-template-type.js";
import { spewGoValue } from "./spew.js";

/** apimachinery util/rand: consonants and digits that cannot spell words. */
export const SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** rand.SafeEncodeString: each byte of `text` maps to SAFE_ALPHANUMS[byte % 27]. */
export function safeEncodeString(text: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(text)) out += SAFE_ALPHANUMS[b % SAFE_ALPHANUMS.length];
  return out;
}

export interface TemplateHash {
  readonly hash: string;
  /** False when the template uses fields cnisim cannot render as the Go struct (see pod-template-type.ts). */
  readonly exact: boolean;
}

export function computeTemplateHash(template: PodTemplateSpec, collisionCount?: number): TemplateHash {
  const rendered = spewGoValue(POD_TEMPLATE_SPEC_1_30, template);
  const hasher = new Fnv32a().writeString(rendered.text);
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hasher.writeBytes(bytes);
  }
  return { hash: safeEncodeString(String(hasher.sum32())), exact: rendered.exact };
}
