// The files a lab script works with: written by the script itself (cat > f <<EOF, ... > f) into
// a virtual folder, else read through the reader the CLI passes in (relative to the script).
import { err, ok, type Result } from "../util/result.js";

/** Reads a file the script names; returns its text or an error message. The CLI provides it. */
export type FileReader = (path: string) => Result<string, string>;

export class LabFiles {
  private readonly written = new Map<string, string>();

  constructor(private readonly reader?: FileReader) {}

  write(path: string, text: string, append: boolean): void {
    this.written.set(path, append ? (this.written.get(path) ?? "") + text : text);
  }

  read(path: string): Result<string, string> {
    const mine = this.written.get(path);
    if (mine !== undefined) return ok(mine);
    if (this.reader === undefined) return err(`open ${path}: no such file or directory`);
    return this.reader(path);
  }

  remove(path: string): boolean {
    return this.written.delete(path);
  }
}
