// `cnisim lab SCRIPT -f FILES...`: runs a lab script (kubectl commands a user types) against the
// cluster described by the files (a Cluster file plus YAML), printing what kubectl prints. With a
// Cluster file the lab runs on the emulated network (CNI addresses, kube-proxy, cluster DNS, pod
// containers), so `kubectl exec POD -- wget|curl|ping|nslookup ...` works; `--no-network` (or Node
// objects without a Cluster file) runs the control plane only. Files the script names are read
// relative to the script's folder.

import type { Command } from "commander";
import { parseGoDuration } from "../../lab/index.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";
import { runLabFile, type LabFileOptions } from "../lab-file.js";

type LabCliOptions = { file: string[]; keepGoing?: boolean; step: string; warmup: string; echo: boolean; network: boolean };

export const labCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    program
      .command("lab")
      .description("run a lab script of kubectl commands against an emulated cluster")
      .argument("<script>", "text file: one command per line, # comments, <<EOF here-documents")
      .requiredOption("-f, --file <path...>", "cluster and workload files (a cnisim Cluster file, Kubernetes YAML, folders)")
      .option("--keep-going", "continue after a line the lab cannot run")
      .option("--step <duration>", "simulated time between commands", "10s")
      .option("--warmup <duration>", "simulated time before the first command", "60s")
      .option("--no-echo", "do not print each command before its output")
      .option("--no-network", "control plane only: no datapath (kubectl exec is then unavailable)")
      .addHelpText(
        "after",
        "\nWith a Cluster file the lab runs on the emulated network: pods get CNI addresses, Services\n" +
          "and the cluster DNS work, and `kubectl exec POD -- wget|curl|ping|nslookup|cat|echo|sh -c`\n" +
          "runs in the pod's container.\n" +
          "\nExit codes: 0 every line ran; 1 a line could not be run (unknown command or flag, bad\n" +
          "manifest) or the files did not load; 2 bad command line. kubectl's own errors (NotFound,\n" +
          "a refused drain) are printed as kubectl prints them and do not stop the script.",
      )
      .action(async (script: string, options: LabCliOptions) => {
        ctx.exitCode = await lab(script, options, ctx);
      });
  },
};

async function lab(script: string, options: LabCliOptions, ctx: CliContext): Promise<0 | 1 | 2> {
  const step = parseGoDuration(options.step);
  if (!step.ok) {
    await ctx.err.line(`cnisim: --step: ${step.error}`);
    return ExitCode.USAGE;
  }
  const warmup = parseGoDuration(options.warmup);
  if (!warmup.ok) {
    await ctx.err.line(`cnisim: --warmup: ${warmup.error}`);
    return ExitCode.USAGE;
  }
  const labOptions: LabFileOptions = { stepNs: step.value, warmupNs: warmup.value, keepGoing: options.keepGoing === true, echo: options.echo, network: options.network };
  return runLabFile(script, options.file, labOptions, ctx);
}
