#!/usr/bin/env node
// The `cnisim` executable: builds the command tree from one module per command, runs it, and turns
// errors into `cnisim: ...` lines and exit codes. The only place that touches process, argv and stdio.

import { Command, CommanderError } from "commander";
import { ExitCode, type CliCommand, type CliContext } from "./command.js";
import { attachCommand } from "./commands/attach.js";
import { captureCommand } from "./commands/capture.js";
import { demoCommand } from "./commands/demo.js";
import { labCommand } from "./commands/lab.js";
import { pcapCommand } from "./commands/pcap.js";
import { reachCommand } from "./commands/reach.js";
import { serveCommand } from "./commands/serve.js";
import { topCommand } from "./commands/top.js";
import { traceCommand } from "./commands/trace.js";
import { scheduleCommand } from "./commands/schedule.js";
import { replayCommand } from "./commands/replay.js";
import { benchCommand } from "./commands/bench.js";
import { LineOutput } from "./line-output.js";

/** The commands' file lists: variadic, so they take every argument after them. */
const FILE_FLAGS = new Set(["-f", "--file", "--filename"]);

/** Every subcommand module, in the order `cnisim --help` lists them. */
const COMMANDS: readonly CliCommand[] = [demoCommand, pcapCommand, labCommand, scheduleCommand, attachCommand, captureCommand, serveCommand, topCommand, reachCommand, traceCommand, replayCommand, benchCommand];

async function main(argv: readonly string[]): Promise<number> {
  const ctx: CliContext = { out: new LineOutput(process.stdout), err: new LineOutput(process.stderr), exitCode: ExitCode.OK };
  const program = new Command("cnisim")
    .description("packet-level Kubernetes network emulator")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)");
  for (const command of COMMANDS) command.register(program, ctx);
  try {
    await program.parseAsync([...argv], { from: "node" });
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version displays arrive here as "errors" with exit code 0.
      if (e.exitCode === 0) return ExitCode.OK;
      if (e.code === "commander.missingArgument" && argv.some((a) => FILE_FLAGS.has(a))) {
        // `cnisim top -f DIR node`: the variadic -f took the argument as one more path.
        await ctx.err.line("cnisim: -f takes every path after it: give the command's arguments before -f (e.g. cnisim top node -f FILES..., cnisim lab SCRIPT -f FILES...)");
        await ctx.err.flush();
      }
      return ExitCode.USAGE;
    }
    await ctx.out.flush();
    await ctx.err.line(`cnisim: internal error: ${e instanceof Error ? e.message : String(e)}`);
    await ctx.err.flush();
    return ExitCode.FAILURE;
  }
  await ctx.out.flush();
  await ctx.err.flush();
  return ctx.exitCode;
}

// A reader that closes the pipe early (`cnisim ... | head`) ends the output, not in a crash.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? ExitCode.OK);
  process.stderr.write(`cnisim: cannot write output: ${e.message}\n`);
  process.exit(ExitCode.FAILURE);
});

process.exitCode = await main(process.argv);
