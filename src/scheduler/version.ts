// The Kubernetes version whose kube-scheduler behaviour and wording cnisim emulates ("v1.30.2"),
// and the wording switches that depend on it.

export interface KubeVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** The seed lab's cluster runs v1.30.2. */
export const DEFAULT_KUBE_VERSION: KubeVersion = { major: 1, minor: 30, patch: 2 };

/** Parses "v1.30.2", "1.30" or "v1.35.0-rc.1"; null when the text is not a version. */
export function parseKubeVersion(text: string): KubeVersion | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (m === null) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] === undefined ? 0 : Number(m[3]) };
}

export function formatKubeVersion(v: KubeVersion): string {
  return `v${v.major}.${v.minor}.${v.patch}`;
}

/**
 * Whether TaintToleration's Filter reason names the taint ("node(s) had untolerated taint {CPU: L1}")
 * or hides it ("node(s) had untolerated taint(s)"). kubernetes/kubernetes#134740 made the change in
 * v1.35.0; its cherry-pick #135023 shipped in v1.34.2 (CHANGELOG-1.34.md).
 */
export function hidesTaintInReason(v: KubeVersion): boolean {
  if (v.major !== 1) return v.major > 1;
  return v.minor >= 35 || (v.minor === 34 && v.patch >= 2);
}
