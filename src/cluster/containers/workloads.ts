// PodWorkloads (`ClusterRuntime.workloads`): every wired pod's containers, started when the pod gets
// its network namespace, restarted when it gets a new one (a new address), stopped when the pod goes.
// A container keeps its files (what `kubectl exec` wrote) while its pod (same uid) lives.
import type { Pod } from "kubernetes-types/core/v1.js";
import type { ObjectStore } from "../../k8s/store.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import type { ClusterDnsData } from "../workloads/dns/server.js";
import { ContainerFiles } from "./files.js";
import { ImageKind, imageKind } from "./image.js";
import { PodServers } from "./pod-servers.js";
import { servedPorts, type PortProtocol } from "./ports.js";
import { mountVolumes } from "./volumes.js";
import { NGINX_WELCOME_PAGE, nginxErrorPage } from "../workloads/http/nginx-pages.js";

/** The pod as the runtime wired it. */
export interface WiredPod {
  readonly key: string;
  readonly ns: NetNamespace;
  readonly hostNetwork: boolean;
}

interface PodState {
  readonly uid: string;
  readonly files: Map<string, ContainerFiles>;
  ns: NetNamespace | null;
  servers: PodServers | null;
  /** Requests served by servers already stopped. */
  servedBefore: number;
}

/** nginx's 50x.html (the stock image's second page). */
const NGINX_50X = nginxErrorPage("An error occurred.");

function imageFiles(image: string | undefined): Map<string, string> {
  if (imageKind(image) !== ImageKind.NGINX) return new Map();
  return new Map([
    ["/usr/share/nginx/html/index.html", NGINX_WELCOME_PAGE],
    ["/usr/share/nginx/html/50x.html", NGINX_50X],
  ]);
}

export class PodWorkloads {
  private readonly pods = new Map<string, PodState>();
  /** Problems met starting containers (a port already in use, a ConfigMap that does not exist). */
  readonly problems: string[] = [];

  constructor(
    private readonly store: ObjectStore,
    private readonly dns: ClusterDnsData,
  ) {}

  /** Brings pod `key`'s containers in line with its wiring: undefined = not wired (stop them). */
  sync(key: string, wired: WiredPod | undefined): void {
    const [namespace, name] = splitKey(key);
    const pod = this.store.get("Pod", namespace, name);
    let state = this.pods.get(key);
    const uid = pod?.metadata.uid ?? "";
    if (wired === undefined || pod === undefined) {
      if (state !== undefined) this.stopServers(state);
      this.pods.delete(key);
      return;
    }
    if (state !== undefined && state.uid !== uid) {
      this.stopServers(state);
      this.pods.delete(key);
      state = undefined;
    }
    if (state === undefined) {
      state = { uid, files: this.containerFiles(pod, key), ns: null, servers: null, servedBefore: 0 };
      this.pods.set(key, state);
    }
    // hostNetwork containers would listen on the node itself: cnisim runs no servers there.
    if (wired.hostNetwork) return;
    if (state.ns === wired.ns && state.servers !== null) return;
    this.stopServers(state);
    const files = state.files;
    const servers = new PodServers({ ns: wired.ns, files: (c) => files.get(c), dns: this.dns }, servedPorts(pod));
    for (const p of servers.start()) this.problems.push(`pod ${key}: ${p}`);
    state.ns = wired.ns;
    state.servers = servers;
  }

  private containerFiles(pod: Pod, key: string): Map<string, ContainerFiles> {
    const out = new Map<string, ContainerFiles>();
    for (const c of pod.spec?.containers ?? []) {
      const files = new ContainerFiles(imageFiles(c.image));
      for (const p of mountVolumes(this.store, pod, c, files)) this.problems.push(`pod ${key}: container ${c.name}: ${p}`);
      out.set(c.name, files);
    }
    return out;
  }

  private stopServers(state: PodState): void {
    if (state.servers === null) return;
    state.servedBefore += state.servers.requestsServed();
    state.servers.stop();
    state.servers = null;
    state.ns = null;
  }

  /** HTTP requests + DNS queries answered + datagrams echoed by pod `podKey` ("ns/name") so far. */
  requestsServed(podKey: string): number {
    const s = this.pods.get(podKey);
    return s === undefined ? 0 : s.servedBefore + (s.servers?.requestsServed() ?? 0);
  }

  /** The log lines pod `podKey`'s running servers wrote to stdout (nginx's access log): `kubectl logs`. */
  logs(podKey: string): string[] {
    return this.pods.get(podKey)?.servers?.accessLog() ?? [];
  }

  /** True when pod `podKey` listens on protocol/port. */
  serves(podKey: string, protocol: PortProtocol, port: number): boolean {
    return this.pods.get(podKey)?.servers?.listening.has(`${protocol}/${port}`) ?? false;
  }

  /** The files of one container of a running pod (the first container when `container` is omitted). */
  files(podKey: string, container?: string): ContainerFiles | undefined {
    const s = this.pods.get(podKey);
    if (s === undefined) return undefined;
    return container === undefined ? s.files.values().next().value : s.files.get(container);
  }

  /** Stops every pod's servers. */
  stopAll(): void {
    for (const s of this.pods.values()) this.stopServers(s);
  }
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf("/");
  return [key.slice(0, i), key.slice(i + 1)];
}
