// kubectl's label selector syntax (-l, --selector, --pod-selector): "k=v", "k==v", "k!=v",
// "k in (a,b)", "k notin (a)", "k", "!k", comma-separated, read into a metav1.LabelSelector.
import type { LabelSelector, LabelSelectorRequirement } from "kubernetes-types/meta/v1.js";
import { err, ok, type Result } from "../../util/result.js";

function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const c of text) {
    if (c === "(") depth++;
    if (c === ")") depth--;
    if (c === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== "");
}

export function parseSelectorText(text: string): Result<LabelSelector, string> {
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const part of splitTop(text)) {
    let m = /^([^\s=!]+)\s*(==|=|!=)\s*([^\s=!]*)$/.exec(part);
    if (m !== null) {
      const [, key, op, value] = m;
      matchExpressions.push({ key: key!, operator: op === "!=" ? "NotIn" : "In", values: [value!] });
      continue;
    }
    m = /^([^\s!]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
    if (m !== null) {
      const values = m[3]!.split(",").map((v) => v.trim()).filter((v) => v !== "");
      matchExpressions.push({ key: m[1]!, operator: m[2] === "in" ? "In" : "NotIn", values });
      continue;
    }
    m = /^(!?)([A-Za-z0-9][-A-Za-z0-9_./]*)$/.exec(part);
    if (m !== null) {
      matchExpressions.push({ key: m[2]!, operator: m[1] === "!" ? "DoesNotExist" : "Exists" });
      continue;
    }
    return err(`unable to parse requirement: ${JSON.stringify(part)}`);
  }
  return ok({ matchExpressions });
}
