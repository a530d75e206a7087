// `cnisim demo`: the seed lab this project was born from, replayed on the emulated cluster of
// examples/seed-lab: each experiment's kubectl commands with what the cluster answers. The
// scheduling experiments run from examples/lab/*.lab; the networking and metrics parts join the
// demo as their layers land (see the README's status table).

import type { Command } from "commander";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";
import { networkDemo } from "../demo-network.js";
import { runLabFile } from "../lab-file.js";

/** The project root: the nearest folder above this module holding the examples the demo replays. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "examples", "seed-lab", "cluster.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find examples/seed-lab above the cnisim installation");
    dir = parent;
  }
  return dir;
}

export const demoCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    program
      .command("demo")
      .description("replay the seed lab (examples/seed-lab, examples/lab) on the emulated cluster")
      .option("--only <name>", "\"network\" for the NetworkPolicy part only (\"network:9\" for the experiments numbered 9...), else the scheduling experiments whose script name contains this text")
      .action(async (options: { only?: string }) => {
        ctx.exitCode = await demo(options.only, ctx);
      });
  },
};

async function demo(only: string | undefined, ctx: CliContext): Promise<0 | 1> {
  const root = projectRoot();
  const labDir = join(root, "examples", "lab");
  const clusterFile = join(root, "examples", "seed-lab", "cluster.yaml");
  const scripts = readdirSync(labDir)
    .filter((name) => name.endsWith(".lab") && (only === undefined || name.includes(only)))
    .sort();
  const network = only === undefined ? "all" : only === "network" ? "all" : only.startsWith("network:") ? only.slice("network:".length) : null;
  if (scripts.length === 0 && network === null) {
    await ctx.err.line(`cnisim: demo: no experiment matches ${JSON.stringify(only)} in ${labDir}`);
    return ExitCode.FAILURE;
  }
  await ctx.out.line("cnisim demo: the seed lab on an emulated 3-node cluster (examples/seed-lab/cluster.yaml)");
  let failed = 0;
  if (network !== null) {
    await ctx.out.line("");
    await ctx.out.line("Part 1 of the lab, NetworkPolicy: real connection attempts through Calico IPIP, kube-proxy and the policy datapath.");
    failed += await networkDemo(root, ctx, network === "all" ? undefined : network);
    if (only !== undefined) return failed === 0 ? ExitCode.OK : ExitCode.FAILURE;
  }
  await ctx.out.line("");
  await ctx.out.line("Part 2 of the lab, pod scheduling: each experiment's kubectl commands and the cluster's answers.");
  for (const script of scripts) {
    await ctx.out.line("");
    await ctx.out.line(`=== ${script.replace(/\.lab$/, "")} ===`);
    const code = await runLabFile(join(labDir, script), [clusterFile], { stepNs: 10e9, warmupNs: 60e9, keepGoing: false, echo: true, network: true }, ctx);
    if (code !== ExitCode.OK) failed++;
  }
  await ctx.out.line("");
  await ctx.out.line(`${scripts.length - failed} of ${scripts.length} experiments ran to the end.`);
  return failed === 0 ? ExitCode.OK : ExitCode.FAILURE;
}
