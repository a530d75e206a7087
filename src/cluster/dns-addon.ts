// The cluster DNS add-on as kubeadm installs it: the kube-system/kube-dns Service at the tenth address
// of the service CIDR (53/UDP, 53/TCP, 9153/TCP, selector k8s-app=kube-dns) and the coredns Deployment
// (2 replicas, CoreDNS v1.11.1, tolerating the control-plane taint, preferring one replica per node).
// When the runtime plays the kubelet, it also makes the Deployment's ReplicaSet and pods (names as the
// controllers make them) and has the scheduler place them; with the lab's controllers those do it.
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { PodTemplateSpec } from "kubernetes-types/core/v1.js";
import { admitPod, computeTemplateHash, generateName, POD_TEMPLATE_HASH_LABEL } from "../controllers/index.js";
import type { ObjectStore } from "../k8s/store.js";
import type { KubeObject } from "../k8s/types.js";
import { Scheduler } from "../scheduler/index.js";
import { formatIPv4 } from "../util/ip.js";
import type { SeededRng } from "../util/rng.js";

export const DNS_NAMESPACE = "kube-system";
export const DNS_SERVICE = "kube-dns";
export const COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.11.1";
const LABELS = { "k8s-app": "kube-dns" };

/** The kube-dns ClusterIP kubeadm picks: the tenth address of the service CIDR (10.96.0.10). */
export function clusterDnsAddress(serviceCidrBase: number): number {
  return (serviceCidrBase + 10) >>> 0;
}

function template(): PodTemplateSpec {
  return {
    metadata: { labels: { ...LABELS } },
    spec: {
      priorityClassName: "system-cluster-critical",
      priority: 2000000000,
      serviceAccountName: "coredns",
      dnsPolicy: "Default",
      nodeSelector: { "kubernetes.io/os": "linux" },
      tolerations: [
        { key: "CriticalAddonsOnly", operator: "Exists" },
        { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
      ],
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: "k8s-app", operator: "In", values: ["kube-dns"] }] }, topologyKey: "kubernetes.io/hostname" } },
          ],
        },
      },
      containers: [
        {
          name: "coredns",
          image: COREDNS_IMAGE,
          imagePullPolicy: "IfNotPresent",
          args: ["-conf", "/etc/coredns/Corefile"],
          resources: { limits: { memory: "170Mi" }, requests: { cpu: "100m", memory: "70Mi" } },
          ports: [
            { name: "dns", containerPort: 53, protocol: "UDP" },
            { name: "dns-tcp", containerPort: 53, protocol: "TCP" },
            { name: "metrics", containerPort: 9153, protocol: "TCP" },
          ],
        },
      ],
    },
  };
}

/** True when the store already has a kube-system/kube-dns Service (the user brought their own DNS). */
export function hasClusterDns(store: ObjectStore): boolean {
  return store.get("Service", DNS_NAMESPACE, DNS_SERVICE) !== undefined;
}

/** True when kube-system already runs DNS pods of its own (labelled k8s-app=kube-dns, as kubeadm's are). */
export function hasDnsPods(store: ObjectStore): boolean {
  return store.list("Pod", { namespace: DNS_NAMESPACE }).some((p) => p.metadata.labels?.["k8s-app"] === LABELS["k8s-app"]);
}

/** Adds the kube-dns Service and, unless the cluster already has DNS pods, the coredns Deployment to the store. */
export function addDnsObjects(store: ObjectStore, clusterIP: number, withDeployment = true): void {
  const ip = formatIPv4(clusterIP);
  store.add({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: DNS_SERVICE,
      namespace: DNS_NAMESPACE,
      labels: { ...LABELS, "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS" },
      annotations: { "prometheus.io/port": "9153", "prometheus.io/scrape": "true" },
    },
    spec: {
      type: "ClusterIP",
      clusterIP: ip,
      clusterIPs: [ip],
      selector: { ...LABELS },
      ports: [
        { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
        { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
        { name: "metrics", port: 9153, protocol: "TCP", targetPort: 9153 },
      ],
      sessionAffinity: "None",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    },
  });
  if (!withDeployment) return;
  const deployment: Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "coredns", namespace: DNS_NAMESPACE, labels: { ...LABELS } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { ...LABELS } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: template(),
    },
  };
  store.add(deployment as KubeObject<"Deployment">);
}

/**
 * Without the lab's controllers: the coredns ReplicaSet and its pods as the controllers name them
 * (coredns-<pod-template-hash>-<5 random>), placed by kube-scheduler's default profile.
 * Returns the pods' keys and the problems (a replica the scheduler could not place).
 */
export function placeDnsPods(store: ObjectStore, rng: SeededRng, kubernetesVersion: string): { pods: string[]; problems: string[] } {
  const deployment = store.get("Deployment", DNS_NAMESPACE, "coredns");
  if (deployment === undefined) return { pods: [], problems: [] };
  const tmpl = deployment.spec!.template;
  const hash = computeTemplateHash(tmpl).hash;
  const rsName = `coredns-${hash}`;
  const labels = { ...LABELS, [POD_TEMPLATE_HASH_LABEL]: hash };
  const rsTemplate: PodTemplateSpec = { ...tmpl, metadata: { ...tmpl.metadata, labels } };
  const replicas = deployment.spec?.replicas ?? 1;
  const rs: ReplicaSet = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: rsName,
      namespace: DNS_NAMESPACE,
      labels,
      annotations: { "deployment.kubernetes.io/desired-replicas": String(replicas), "deployment.kubernetes.io/max-replicas": String(replicas + 1), "deployment.kubernetes.io/revision": "1" },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "coredns", uid: deployment.metadata.uid ?? "", controller: true, blockOwnerDeletion: true }],
    },
    spec: { replicas, selector: { matchLabels: labels }, template: rsTemplate },
  };
  const owner = store.add(rs as KubeObject<"ReplicaSet">);
  const rsUid = owner.ok ? (owner.value.metadata.uid ?? "") : "";
  const keys: string[] = [];
  for (let i = 0; i < replicas; i++) {
    const pod: KubeObject<"Pod"> = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: generateName(rng, `${rsName}-`),
        namespace: DNS_NAMESPACE,
        labels: { ...labels },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: rsName, uid: rsUid, controller: true, blockOwnerDeletion: true }],
      },
      spec: JSON.parse(JSON.stringify(rsTemplate.spec)) as NonNullable<KubeObject<"Pod">["spec"]>,
    };
    admitPod(pod, rng);
    store.add(pod);
    keys.push(`${DNS_NAMESPACE}/${pod.metadata.name}`);
  }
  const scheduler = new Scheduler(store, { rng, kubernetesVersion });
  const problems: string[] = [];
  for (const key of keys) {
    const r = scheduler.scheduleOne(key);
    if (r?.node == null) problems.push(`cluster DNS: pod ${key} could not be scheduled: ${r?.message ?? "not pending"}`);
  }
  scheduler.dispose();
  return { pods: keys, problems };
}
