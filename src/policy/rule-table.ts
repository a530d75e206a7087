// The ruleRef table: the opaque u32 stored with each policy map entry, mapped back to what made
// the entry (a rule of a policy, the default allow of a non-isolated pod, or the own-node rule),
// so that a datapath verdict can cite the policy that decided it. Numbers are stable while the
// compiler lives; a policy that comes back gets its old numbers.
import type { DirectionName } from "./verdict.js";

export type RuleOrigin =
  | { readonly kind: "default-allow"; readonly text: string }
  | { readonly kind: "own-node"; readonly text: string }
  | { readonly kind: "rule"; readonly policy: string; readonly direction: DirectionName; readonly ruleIndex: number; readonly text: string };

/** ruleRef of entries that allow everything because no policy isolates the pod in that direction. */
export const RULE_REF_DEFAULT_ALLOW = 1;
/** ruleRef of the ingress entries that allow the pod's own node. */
export const RULE_REF_OWN_NODE = 2;
const FIRST_RULE_REF = 3;

export class RuleTable {
  private readonly origins: RuleOrigin[] = [];
  private readonly byKey = new Map<string, number>();

  constructor() {
    this.origins[RULE_REF_DEFAULT_ALLOW] = { kind: "default-allow", text: "no policy isolates the pod in this direction" };
    this.origins[RULE_REF_OWN_NODE] = { kind: "own-node", text: "traffic from the pod's own node is always allowed" };
  }

  /** The ruleRef of a policy rule, allocated on first use. */
  refFor(policy: string, direction: DirectionName, ruleIndex: number): number {
    const key = `${policy}|${direction}|${ruleIndex}`;
    let ref = this.byKey.get(key);
    if (ref === undefined) {
      ref = Math.max(FIRST_RULE_REF, this.origins.length);
      this.byKey.set(key, ref);
      this.origins[ref] = { kind: "rule", policy, direction, ruleIndex, text: `${direction} rule #${ruleIndex} of policy ${policy}` };
    }
    return ref;
  }

  origin(ref: number): RuleOrigin | undefined {
    return this.origins[ref];
  }
}
