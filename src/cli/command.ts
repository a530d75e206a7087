// What every `cnisim` subcommand module gets and provides: output channels, the exit code, a register hook.

import type { Command } from "commander";
import type { LineOutput } from "./line-output.js";

export const ExitCode = {
  OK: 0,
  /** The input could not be read or processed completely. */
  FAILURE: 1,
  /** Bad command line. */
  USAGE: 2,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export type CliContext = {
  readonly out: LineOutput;
  readonly err: LineOutput;
  /** The code main.ts exits with once the command's action has finished. */
  exitCode: ExitCodeValue;
};

export type CliCommand = {
  /** Adds the command (and its subcommands) to the program. */
  register(program: Command, ctx: CliContext): void;
};
