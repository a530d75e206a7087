// ping and nslookup through the pod's resolver. ping prints busybox's text in musl images and
// iputils' elsewhere (the name as typed for busybox, the canonical name for iputils); without -c it
// sends 4 requests (a lab has no Ctrl-C to stop it). nslookup prints busybox's "Server:/Address:"
// header, then the answer or its error.
import { formatIPv4, parseIPv4 } from "../../../util/ip.js";
import type { ResolveResult } from "../../workloads/dns/resolver.js";
import { Ping, PingStyle } from "../../workloads/ping.js";
import type { Tool, ToolContext } from "./tool-context.js";

function resolve(ctx: ToolContext, name: string, done: (r: ResolveResult) => void): void {
  const literal = parseIPv4(name);
  if (literal !== null) return done({ kind: "address", name, addresses: [literal], queries: 0 });
  if (ctx.resolver === null) return done({ kind: "nxdomain", name, queries: 0 });
  ctx.resolver.resolve(name, done);
}

const DEFAULT_COUNT = 4;

export const ping: Tool = (ctx, args, done) => {
  let count: number | undefined;
  let lingerNs: number | undefined;
  let intervalNs: number | undefined;
  let host: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = (): number => Number(a.length > 2 ? a.slice(2) : args[++i]);
    if (a.startsWith("-c")) count = value();
    else if (a.startsWith("-W")) lingerNs = value() * 1e9;
    else if (a.startsWith("-i")) intervalNs = value() * 1e9;
    else if (a === "-n" || a === "-q") continue;
    else if (a.startsWith("-")) {
      ctx.stderr(`ping: invalid option -- '${a.slice(1)}'`);
      return done(2);
    } else host = a;
  }
  if (host === undefined || (count !== undefined && !(count > 0))) {
    ctx.stderr(ctx.libc === "musl" ? "ping: usage: ping [OPTIONS] HOST" : "ping: usage error: Destination address required");
    return done(ctx.libc === "musl" ? 1 : 2);
  }
  const busybox = ctx.libc === "musl";
  const name = host;
  resolve(ctx, name, (r) => {
    if (r.kind !== "address") {
      ctx.stderr(busybox ? `ping: bad address '${name}'` : `ping: ${name}: ${r.kind === "timeout" ? "Temporary failure in name resolution" : "Name or service not known"}`);
      return done(busybox ? 1 : 2);
    }
    const shown = parseIPv4(name) !== null ? undefined : busybox ? name : r.name;
    new Ping(ctx.ns, r.addresses[0]!, {
      style: busybox ? PingStyle.BUSYBOX : PingStyle.IPUTILS,
      count: count ?? DEFAULT_COUNT,
      ...(lingerNs === undefined ? {} : { lingerNs }),
      ...(intervalNs === undefined ? {} : { intervalNs }),
      ...(shown === undefined ? {} : { displayName: shown }),
    }, (result) => {
      ctx.stdout(`${result.lines.join("\n")}\n`);
      done(result.received > 0 ? 0 : 1);
    }).start();
  });
};

export const nslookup: Tool = (ctx, args, done) => {
  const name = args.find((a) => !a.startsWith("-"));
  if (name === undefined) {
    ctx.stderr("Usage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]");
    return done(1);
  }
  const server = ctx.nameserver === null ? "127.0.0.53" : formatIPv4(ctx.nameserver);
  resolve(ctx, name, (r) => {
    if (r.kind === "timeout") {
      ctx.stdout(";; connection timed out; no servers could be reached\n\n");
      return done(1);
    }
    ctx.stdout(`Server:\t\t${server}\nAddress:\t${server}:53\n\n`);
    if (r.kind !== "address") {
      ctx.stdout(`** server can't find ${name}: ${r.kind === "servfail" ? "SERVFAIL" : r.kind === "refused" ? "REFUSED" : "NXDOMAIN"}\n\n`);
      return done(1);
    }
    ctx.stdout(`${r.addresses.map((a) => `Name:\t${r.name}\nAddress: ${formatIPv4(a)}\n`).join("")}\n`);
    done(0);
  });
};
