// echo, cat and rm as busybox (and coreutils, whose messages differ only in quoting) run them on a
// container's files.
import type { Tool } from "./tool-context.js";
import { text } from "./tool-context.js";

export const echo: Tool = (ctx, args, done) => {
  const noNewline = args[0] === "-n";
  ctx.stdout(`${(noNewline ? args.slice(1) : args).join(" ")}${noNewline ? "" : "\n"}`);
  done(0);
};

export const cat: Tool = (ctx, args, done) => {
  let exit = 0;
  for (const f of args) {
    const data = ctx.files.read(f);
    if (data === undefined) {
      ctx.stderr(ctx.files.isDirectory(f) ? `cat: read error: Is a directory` : ctx.libc === "musl" ? `cat: can't open '${f}': No such file or directory` : `cat: ${f}: No such file or directory`);
      exit = 1;
    } else ctx.stdout(text(data));
  }
  done(exit);
};

export const rm: Tool = (ctx, args, done) => {
  const force = args.includes("-f") || args.includes("-rf") || args.includes("-fr");
  let exit = 0;
  for (const f of args.filter((a) => !a.startsWith("-"))) {
    const e = ctx.files.remove(f);
    if (e === null || (force && e === "No such file or directory")) continue;
    ctx.stderr(ctx.libc === "musl" ? `rm: can't remove '${f}': ${e}` : `rm: cannot remove '${f}': ${e}`);
    exit = 1;
  }
  done(exit);
};
