// kube-proxy in iptables mode for one node: reads Services from the store and EndpointSlices from
// the endpoints controller, builds the ruleset and loads it into the node's Netfilter with
// iptables-restore --noflush, and re-syncs on every change. Like kube-proxy's full sync, each sync
// rewrites every service chain (cost grows with the number of rules; see bench/kubeproxy.bench.ts).
// A failed restore is reported (lastError) and may leave the tables partly written: the netfilter
// model applies restore input line by line, where iptables-restore commits a table atomically.
import type { ObjectStore } from "../k8s/index.js";
import type { Netfilter } from "../net/netfilter/index.js";
import { err, ok, type Result } from "../util/result.js";
import { proxierConfig, type ProxierConfig, type ProxierConfigInput } from "./config.js";
import { buildEndpointsMap } from "./endpoint-info.js";
import type { EndpointSliceSource } from "./endpoints/controller.js";
import { ensureJumpChains, natChainNames, restoreRuleset, type LoadError } from "./iptables/load.js";
import { buildRuleset, type Ruleset } from "./iptables/ruleset.js";
import { servicePorts, type ServicePortInfo } from "./service-port.js";

export interface KubeProxyOptions {
  readonly store: ObjectStore;
  readonly slices: EndpointSliceSource;
  /** The node's host network namespace's netfilter. */
  readonly netfilter: Netfilter;
  readonly config: ProxierConfigInput;
  /** The node's interface addresses (only read when nodePortAddresses restricts NodePorts). */
  readonly nodeAddresses?: () => readonly number[];
  /**
   * Delay from a change to the sync it causes, on simulated time (kube-proxy's minSyncPeriod
   * batching). Unset: sync at once, inside the change's event.
   */
  readonly syncDelayNs?: number;
}

export interface SyncReport {
  readonly ruleset: Ruleset;
  readonly servicePorts: number;
  /** Jump rules that had to be (re)inserted into built-in chains. */
  readonly jumpsInserted: number;
  /** Fields of Services kube-proxy ignored. */
  readonly warnings: readonly string[];
}

export type KubeProxyError = { readonly kind: "config"; readonly message: string } | ({ readonly kind: "load" } & LoadError);

export class KubeProxy {
  readonly config: ProxierConfig;
  private unwatch: (() => void)[] = [];
  private pending = -1;
  /** Completed syncs and the last one's report / error. */
  syncs = 0;
  lastReport: SyncReport | null = null;
  lastError: KubeProxyError | null = null;

  private constructor(
    private readonly options: KubeProxyOptions,
    config: ProxierConfig,
  ) {
    this.config = config;
  }

  static create(options: KubeProxyOptions): Result<KubeProxy, KubeProxyError> {
    const config = proxierConfig(options.config);
    if (!config.ok) return err({ kind: "config", message: config.error });
    return ok(new KubeProxy(options, config.value));
  }

  get nodeName(): string {
    return this.config.nodeName;
  }

  /** Syncs once, then re-syncs on Service and EndpointSlice changes. */
  start(): Result<SyncReport, KubeProxyError> {
    if (this.unwatch.length === 0) {
      this.unwatch.push(this.options.store.watch(() => this.changed(), ["Service"]));
      this.unwatch.push(this.options.slices.watch(() => this.changed()));
    }
    return this.sync();
  }

  stop(): void {
    for (const u of this.unwatch) u();
    this.unwatch = [];
    if (this.pending >= 0) this.options.netfilter.host.world.sim.cancel(this.pending);
    this.pending = -1;
  }

  /** The proxied service ports and the warnings about ignored fields. */
  servicePorts(): { ports: ServicePortInfo[]; warnings: string[] } {
    const ports: ServicePortInfo[] = [];
    const warnings: string[] = [];
    for (const svc of this.options.store.list("Service")) {
      const r = servicePorts(svc);
      ports.push(...r.ports);
      warnings.push(...r.warnings);
    }
    return { ports, warnings };
  }

  /** A full sync: build the ruleset from the current objects and load it. */
  sync(): Result<SyncReport, KubeProxyError> {
    const nf = this.options.netfilter;
    const { ports, warnings } = this.servicePorts();
    const endpoints = buildEndpointsMap(this.options.slices.list(), this.config.nodeName);
    const jumps = ensureJumpChains(nf);
    if (!jumps.ok) return this.failed({ kind: "load", ...jumps.error });
    const ruleset = buildRuleset(this.config, {
      services: ports,
      endpoints,
      existingNatChains: natChainNames(nf),
      ...(this.options.nodeAddresses !== undefined ? { nodeAddresses: this.options.nodeAddresses() } : {}),
    });
    const loaded = restoreRuleset(nf, ruleset.text);
    if (!loaded.ok) return this.failed({ kind: "load", ...loaded.error });
    this.syncs++;
    this.lastError = null;
    this.lastReport = { ruleset, servicePorts: ports.length, jumpsInserted: jumps.value, warnings };
    return ok(this.lastReport);
  }

  private failed(e: KubeProxyError): Result<SyncReport, KubeProxyError> {
    this.lastError = e;
    return err(e);
  }

  private changed(): void {
    const delay = this.options.syncDelayNs;
    if (delay === undefined) {
      this.sync();
      return;
    }
    if (this.pending >= 0) return;
    this.pending = this.options.netfilter.host.world.sim.schedule(delay, () => {
      this.pending = -1;
      this.sync();
    });
  }
}
