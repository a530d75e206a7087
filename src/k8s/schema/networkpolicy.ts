// Shape of NetworkPolicy (networking.k8s.io/v1).
import { isCidr } from "../addresses.js";
import { checkPortName, PORT_RANGE_MESSAGE } from "../names.js";
import { labelSelector, objectMeta, typeMeta } from "./meta.js";
import { PROTOCOLS } from "./pod.js";
import { int, intOrString, list, obj, oneOf, opaque, str } from "./shape.js";

const cidr = str((v) => (isCidr(v) ? null : `invalid value ${JSON.stringify(v)}: must be a valid CIDR`));

const peer = obj({
  podSelector: labelSelector,
  namespaceSelector: labelSelector,
  ipBlock: obj({ cidr, except: list(cidr) }, ["cidr"]),
});

const port = obj({
  protocol: oneOf(...PROTOCOLS),
  port: intOrString((n) => (n >= 1 && n <= 65535 ? null : PORT_RANGE_MESSAGE), checkPortName),
  endPort: int(1, 65535, PORT_RANGE_MESSAGE),
});

const spec = obj({
  podSelector: labelSelector,
  policyTypes: list(oneOf("Ingress", "Egress")),
  ingress: list(obj({ from: list(peer), ports: list(port) })),
  egress: list(obj({ to: list(peer), ports: list(port) })),
});

export const networkPolicyShape = obj({ ...typeMeta, metadata: objectMeta, spec, status: opaque });
