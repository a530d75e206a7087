// Name and label syntax checks with the API server's wording (k8s.io/apimachinery
// pkg/util/validation), minus upstream's "(e.g. ..., regex used ...)" tails.
// Each check returns null when valid, else the message "invalid value "X": why".

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const QUALIFIED_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const maxLen = (n: number): string => `must be no more than ${n} characters`;

function invalid(value: string, reasons: string[]): string | null {
  return reasons.length === 0 ? null : `invalid value ${JSON.stringify(value)}: ${reasons.join("; ")}`;
}

function subdomainReasons(value: string): string[] {
  const r: string[] = [];
  if (value.length > 253) r.push(maxLen(253));
  if (!DNS1123_SUBDOMAIN.test(value)) r.push(SUBDOMAIN_MSG);
  return r;
}

export function checkDns1123Subdomain(value: string): string | null {
  return invalid(value, subdomainReasons(value));
}

export function checkDns1123Label(value: string): string | null {
  const r: string[] = [];
  if (value.length > 63) r.push(maxLen(63));
  if (!DNS1123_LABEL.test(value)) {
    r.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character");
  }
  return invalid(value, r);
}

/** Service names: DNS-1035 labels (must start with a letter). */
export function checkDns1035Label(value: string): string | null {
  const r: string[] = [];
  if (value.length > 63) r.push(maxLen(63));
  if (!DNS1035_LABEL.test(value)) {
    r.push("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character");
  }
  return invalid(value, r);
}

/** Label and annotation keys, taint keys, topology keys: [prefix/]name. */
export function checkQualifiedName(value: string): string | null {
  const parts = value.split("/");
  const r: string[] = [];
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) r.push("prefix part must be non-empty");
    else r.push(...subdomainReasons(prefix).map((m) => "prefix part " + m));
  } else {
    return invalid(value, [`a qualified name ${QUALIFIED_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]);
  }
  if (name.length === 0) r.push("name part must be non-empty");
  else if (name.length > 63) r.push("name part " + maxLen(63));
  if (!QUALIFIED_NAME.test(name)) r.push("name part " + QUALIFIED_MSG);
  return invalid(value, r);
}

export function checkLabelValue(value: string): string | null {
  const r: string[] = [];
  if (value.length > 63) r.push(maxLen(63));
  if (!LABEL_VALUE.test(value)) {
    r.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  return invalid(value, r);
}

/** IANA_SVC_NAME: named ports (RFC 6335, lower case only). */
export function checkPortName(value: string): string | null {
  const r: string[] = [];
  if (value.length > 15) r.push(maxLen(15));
  if (!/^[-a-z0-9]+$/.test(value)) r.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(value)) r.push("must contain at least one letter or number (a-z, 0-9)");
  if (value.includes("--")) r.push("must not contain consecutive hyphens");
  if (value.startsWith("-") || value.endsWith("-")) r.push("must not begin or end with a hyphen");
  return invalid(value, r);
}

export const PORT_RANGE_MESSAGE = "must be between 1 and 65535, inclusive";

/** "50%": upstream IsValidPercent. */
export function checkPercent(value: string): string | null {
  return /^[0-9]+%$/.test(value)
    ? null
    : invalid(value, ["a valid percent string must be a numeric string followed by an ending '%'"]);
}
