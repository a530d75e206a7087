// wget (busybox 1.36) and curl over the emulated network, through the pod's resolver. busybox wget
// prints to stderr "Connecting to HOST (IP:PORT)", "saving to 'FILE'" (or "writing to stdout"), the
// progress line (file name in 20 columns, a 32-star bar for the 80-column width it assumes without a
// terminal, size, elapsed time) and "'FILE' saved"; without -O it refuses to overwrite a file.
// curl writes the body to stdout and, unless -s, its error line to stderr (progress meter omitted).
import { formatIPv4 } from "../../../util/ip.js";
import { httpGet, HttpTool, type HttpResult } from "../../workloads/http/client.js";
import type { Tool, ToolContext } from "./tool-context.js";
import { text } from "./tool-context.js";
import { parseHttpUrl } from "./url.js";

const BAR = 32;
const REASONS: Record<number, string> = { 200: "OK", 301: "Moved Permanently", 302: "Found", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Not Allowed", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable" };

/** busybox's progress line once a transfer of `size` bytes completed after `elapsedNs`. */
export function wgetProgressLine(file: string, size: number, elapsedNs: number): string {
  const secs = Math.floor(elapsedNs / 1e9);
  const hms = `${String(Math.floor(secs / 3600)).padStart(2)}:${String(Math.floor(secs / 60) % 60).padStart(2, "0")}:${String(secs % 60).padStart(2, "0")}`;
  return `${file.padEnd(20).slice(0, 20)} 100% |${"*".repeat(BAR)}|${String(size).padStart(6)} ${hms} ETA`;
}

function seconds(v: string | undefined): number | null {
  const n = Number(v);
  return v === undefined || !Number.isFinite(n) || n < 0 ? null : Math.round(n * 1e9);
}

export const wget: Tool = (ctx, args, done) => {
  let quiet = false;
  let output: string | null = null;
  let timeoutNs: number | null = null;
  const urls: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-q") quiet = true;
    else if (a === "-O") output = args[++i] ?? "";
    else if (a.startsWith("-O")) output = a.slice(2);
    else if (a === "-T") timeoutNs = seconds(args[++i]);
    else if (a.startsWith("-")) {
      ctx.stderr(`wget: unrecognized option '${a}'`);
      return done(1);
    } else urls.push(a);
  }
  const url = urls[0];
  if (url === undefined) {
    ctx.stderr("BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y on/off]\n\t[--no-check-certificate] [-P DIR] [-U AGENT] [-T SEC] URL...");
    return done(1);
  }
  const target = parseHttpUrl(url);
  if (typeof target === "string") {
    ctx.stderr(`wget: ${target}`);
    return done(1);
  }
  const file = output ?? (target.path.split("/").pop() || "index.html");
  if (output === null && ctx.files.read(file) !== undefined) {
    ctx.stderr(`wget: can't open '${file}': File exists`);
    return done(1);
  }
  const started = ctx.ns.world.sim.now;
  httpGet(
    ctx.ns,
    {
      host: target.host,
      port: target.port,
      path: target.path,
      tool: HttpTool.WGET,
      ...(ctx.resolver === null ? {} : { resolver: ctx.resolver }),
      ...(timeoutNs === null ? {} : { connectTimeoutNs: timeoutNs }),
      onConnecting: (address) => {
        if (!quiet) ctx.stderr(`Connecting to ${target.host} (${formatIPv4(address)}:${target.port})`);
      },
    },
    (r) => {
      if (r.kind !== "response") {
        ctx.stderr(r.message);
        return done(1);
      }
      if (r.status < 200 || r.status > 299) {
        ctx.stderr(`wget: server returned error: HTTP/1.1 ${r.status} ${REASONS[r.status] ?? ""}`.trimEnd());
        return done(1);
      }
      const toStdout = file === "-";
      if (!quiet) ctx.stderr(toStdout ? "writing to stdout" : `saving to '${file}'`);
      if (toStdout) ctx.stdout(text(r.body));
      else {
        const e = ctx.files.write(file, r.body.slice());
        if (e !== null) {
          ctx.stderr(`wget: can't open '${file}': ${e}`);
          return done(1);
        }
      }
      if (!quiet) {
        ctx.stderr(wgetProgressLine(toStdout ? "-" : file, r.body.length, ctx.ns.world.sim.now - started));
        ctx.stderr(toStdout ? "written to stdout" : `'${file}' saved`);
      }
      done(0);
    },
  );
};

const CURL_EXIT: Record<Exclude<HttpResult["kind"], "response">, number> = { refused: 7, unreachable: 7, timeout: 28, reset: 56, dns: 6 };

export const curl: Tool = (ctx: ToolContext, args, done) => {
  let silent = false;
  let showErrors = false;
  let output: string | null = null;
  let connectTimeoutNs: number | null = null;
  let maxTimeNs: number | null = null;
  const urls: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-s" || a === "--silent") silent = true;
    else if (a === "-S" || a === "--show-error") showErrors = true;
    else if (a === "-sS" || a === "-Ss") silent = showErrors = true;
    else if (a === "-o" || a === "--output") output = args[++i] ?? "";
    else if (a === "--connect-timeout") connectTimeoutNs = seconds(args[++i]);
    else if (a === "-m" || a === "--max-time") maxTimeNs = seconds(args[++i]);
    else if (a.startsWith("-")) {
      ctx.stderr(`curl: option ${a}: is unknown`);
      ctx.stderr("curl: try 'curl --help' or 'curl --manual' for more information");
      return done(2);
    } else urls.push(a);
  }
  const url = urls[0];
  if (url === undefined) {
    ctx.stderr("curl: try 'curl --help' or 'curl --manual' for more information");
    return done(2);
  }
  const target = parseHttpUrl(url);
  if (typeof target === "string") {
    ctx.stderr(`curl: (3) URL rejected: ${target}`);
    return done(3);
  }
  httpGet(
    ctx.ns,
    {
      host: target.host,
      port: target.port,
      path: target.path,
      tool: HttpTool.CURL,
      ...(ctx.resolver === null ? {} : { resolver: ctx.resolver }),
      ...(connectTimeoutNs === null ? {} : { connectTimeoutNs }),
      ...(maxTimeNs === null ? {} : { maxTimeNs }),
    },
    (r) => {
      if (r.kind !== "response") {
        if (!silent || showErrors) ctx.stderr(r.message);
        return done(CURL_EXIT[r.kind]);
      }
      if (output === null || output === "-") ctx.stdout(text(r.body));
      else {
        const e = ctx.files.write(output, r.body.slice());
        if (e !== null) {
          if (!silent || showErrors) ctx.stderr(`curl: (23) Failure writing output to destination`);
          return done(23);
        }
      }
      done(0);
    },
  );
};
