// Binds datapath programs to device hooks of the network model: an AttachedProgram adapter builds the
// ctx for each packet (time and a seeded random value from the device's world), runs the program, maps
// its Verdict to the kernel's TC_ACT_* codes, turns trace events into hop records, and fills the drop
// fields the device records (reason, site, and the policy explanation from an injected explainer).
import type { AttachedProgram, HookPoint } from "../src/net/hook.js";
import type { NetDevice } from "../src/net/device.js";
import type { SkBuff } from "../src/skb/skbuff.js";
import { DatapathCtx, EventKind, Verdict, type DatapathEvent, type DatapathProgram, type PolicyDropRef } from "./ctx.js";
import type { DatapathConfig } from "./lib/config.js";
import type { DatapathMaps } from "./lib/maps.js";
import { describeEvent } from "./lib/trace.js";
import { fromContainer, toContainer } from "./programs/lxc.js";
import { fromNetdev, toNetdev } from "./programs/host.js";
import { fromOverlay, toOverlay } from "./programs/overlay.js";

/** The kernel's TC_ACT_OK / TC_ACT_SHOT / TC_ACT_REDIRECT (the values of src/net/hook TcVerdict). */
const TC_ACT_OK = 0;
const TC_ACT_SHOT = 2;
const TC_ACT_REDIRECT = 7;

/** Text explaining a policy drop (the policy compiler's explainer), or undefined when it has none. */
export type PolicyExplainer = (ref: PolicyDropRef, nodeName: string) => string | undefined;

/** Observer of every event a program emits (the event object is reused: copy what you keep). */
export type DatapathEventObserver = (event: DatapathEvent, dev: NetDevice, point: HookPoint) => void;

export interface AttachOptions {
  readonly maps: DatapathMaps;
  readonly config: DatapathConfig;
  /** Seeded u32 source for the per-packet random value (e.g. `() => sim.rng.nextU32()`). */
  readonly random: () => number;
  readonly explain?: PolicyExplainer;
  readonly onEvent?: DatapathEventObserver;
}

export class DatapathAttachment implements AttachedProgram {
  readonly name: string;
  readonly ctx: DatapathCtx;
  dropReason = 0;
  dropSite = "";
  dropExplanation: string | undefined = undefined;
  /** Destination identity of the last drop (the device's drop record takes it once it passes it on). */
  dropDstIdentity = 0;
  redirectIfindex = 0;
  redirectIngress = false;
  private dev: NetDevice | null = null;
  private point: HookPoint = "tc-ingress";

  constructor(
    readonly program: DatapathProgram,
    private readonly options: AttachOptions,
  ) {
    this.name = program.name;
    this.ctx = new DatapathCtx(options.maps, options.config);
    this.ctx.emit = (event) => this.onEmit(event);
  }

  run(skb: SkBuff, dev: NetDevice, point: HookPoint): number {
    const ctx = this.ctx;
    const world = dev.world;
    this.dev = dev;
    this.point = point;
    ctx.traceEnabled = world.tracer.hops || this.options.onEvent !== undefined;
    ctx.begin(skb, dev.ifindex, dev.l2, dev.mac, world.sim.now, this.options.random());
    const verdict = this.program.run(ctx);
    if (verdict === Verdict.PASS) return TC_ACT_OK;
    if (verdict === Verdict.REDIRECT) {
      this.redirectIfindex = ctx.redirectIfindex;
      this.redirectIngress = ctx.redirectIngress;
      return TC_ACT_REDIRECT;
    }
    this.dropReason = ctx.dropReason;
    this.dropSite = ctx.site;
    this.dropDstIdentity = ctx.dstIdentity;
    const explanation = ctx.hasPolicyRef && this.options.explain ? this.options.explain(ctx.policyRef, ctx.config.nodeName) : undefined;
    this.dropExplanation = explanation;
    return TC_ACT_SHOT;
  }

  private onEmit(event: DatapathEvent): void {
    const dev = this.dev;
    if (dev === null) return;
    if (event.kind === EventKind.TRACE && dev.world.tracer.hops) {
      dev.world.hop(this.ctx.skb, dev.site(this.point), event.point, describeEvent(event), this.ctx.l2);
    }
    this.options.onEvent?.(event, dev, this.point);
  }
}

/** Attaches `program` at `point` of `dev` (replacing what was there); returns the adapter. */
export function attachProgram(dev: NetDevice, point: HookPoint, program: DatapathProgram, options: AttachOptions): DatapathAttachment {
  const attachment = new DatapathAttachment(program, options);
  if (point === "xdp") dev.xdp = attachment;
  else if (point === "tc-ingress") dev.tcIngress = attachment;
  else dev.tcEgress = attachment;
  return attachment;
}

export function detachProgram(dev: NetDevice, point: HookPoint): void {
  if (point === "xdp") dev.xdp = null;
  else if (point === "tc-ingress") dev.tcIngress = null;
  else dev.tcEgress = null;
}

/** A pod's host-side veth: from-container at tc ingress, to-container at tc egress. */
export function attachEndpoint(hostVeth: NetDevice, options: AttachOptions): void {
  attachProgram(hostVeth, "tc-ingress", fromContainer, options);
  attachProgram(hostVeth, "tc-egress", toContainer, options);
}

/** The node's uplink: from-netdev at tc ingress, to-netdev at tc egress. */
export function attachHost(uplink: NetDevice, options: AttachOptions): void {
  attachProgram(uplink, "tc-ingress", fromNetdev, options);
  attachProgram(uplink, "tc-egress", toNetdev, options);
}

/** An overlay device (vxlan / tunl0): from-overlay at tc ingress, to-overlay at tc egress. */
export function attachOverlay(tunnel: NetDevice, options: AttachOptions): void {
  attachProgram(tunnel, "tc-ingress", fromOverlay, options);
  attachProgram(tunnel, "tc-egress", toOverlay, options);
}
