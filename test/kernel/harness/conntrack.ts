// Conntrack tables side by side: the kernel's `conntrack -L` of a lab namespace and the model's
// Conntrack listing, both normalized to the same text (timeout left out: the kernel's counts down in
// real time; mark/use/zone dropped) and sorted, so they compare as lists of entries.

import type { Conntrack } from "../../../src/net/netfilter/conntrack/conntrack.js";
import type { KernelLab } from "./lab.js";

/** "tcp 6 T ESTABLISHED src=.. dst=.. sport=.. dport=.. src=.. ... [ASSURED]" */
export function normalizeCtLine(line: string): string {
  const words = line.trim().split(/\s+/).filter((w) => !/^(mark|use|zone|secctx)=/.test(w));
  if (words.length >= 3) words[2] = "T";
  return words.join(" ");
}

export function kernelConntrack(lab: KernelLab, ns: string): string[] {
  return lab
    .exec(ns, "conntrack", ["-L"])
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(normalizeCtLine)
    .sort();
}

export function modelConntrack(ct: Conntrack): string[] {
  return ct
    .list()
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(normalizeCtLine)
    .sort();
}
