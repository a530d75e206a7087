// `cnisim pcap ...`: capture file commands. `inspect FILE [--json] [--lenient]` prints each packet
// (tcpdump-like text or JSON Lines) and a summary of what was read, decoded and skipped.

import type { Command } from "commander";
import { CaptureError, CaptureOpenError } from "../../pcap/errors.js";
import { openCapture } from "../../pcap/open-capture.js";
import { dissect } from "../../wire/dissect.js";
import { ExitCode, type CliCommand, type CliContext, type ExitCodeValue } from "../command.js";
import { interfaceLabel, jsonLine, skippedText, summaryLines, textLine } from "../inspect-format.js";

type InspectOptions = { json?: boolean; lenient?: boolean };

export const pcapCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    const pcap = program.command("pcap").description("read and write pcap/pcapng capture files");
    pcap
      .command("inspect")
      .description("print one line per packet (or JSON Lines with --json), then a summary")
      .argument("<file>", "a classic pcap or pcapng file")
      .option("--json", "one JSON object per packet (summary goes to stderr)")
      .option("--lenient", "skip bad records with a warning instead of stopping at the first one")
      .addHelpText(
        "after",
        "\nExit codes: 0 read to the end (in --lenient mode possibly with skipped records);\n" +
          "1 the file could not be opened or read to the end; 2 bad command line.",
      )
      .action(async (file: string, options: InspectOptions) => {
        ctx.exitCode = await inspect(file, options, ctx);
      });
  },
};

async function inspect(file: string, options: InspectOptions, ctx: CliContext): Promise<ExitCodeValue> {
  const reader = openCapture(file, { lenient: options.lenient === true });
  const summaryOut = options.json === true ? ctx.err : ctx.out;
  let undecodable = 0;
  let warned = 0;
  const warnNewSkips = async (): Promise<void> => {
    for (; warned < reader.summary.skipped.length; warned++) {
      await ctx.err.line(`cnisim: ${file}: warning: ${skippedText(reader.summary.skipped[warned]!)}`);
    }
  };
  try {
    for await (const record of reader) {
      await warnNewSkips();
      const layers = dissect(record.data, record.linkType);
      if (layers.some((layer) => layer.proto === "error")) undecodable++;
      await ctx.out.line(
        options.json === true
          ? jsonLine(record, layers)
          : textLine(record, layers, interfaceLabel(reader.summary, record.interfaceId)),
      );
    }
  } catch (e) {
    if (!(e instanceof CaptureError)) throw e;
    await ctx.out.flush();
    if (!(e instanceof CaptureOpenError)) {
      for (const line of summaryLines(reader.summary, undecodable)) await summaryOut.line(line);
      await summaryOut.flush();
    }
    const where = e instanceof CaptureOpenError ? "" : `offset ${e.offset}: `;
    await ctx.err.line(`cnisim: ${e.file}: ${where}${e.reason}`);
    return ExitCode.FAILURE;
  }
  await warnNewSkips();
  await ctx.out.flush();
  for (const line of summaryLines(reader.summary, undecodable)) await summaryOut.line(line);
  return reader.summary.stopped === null ? ExitCode.OK : ExitCode.FAILURE;
}
