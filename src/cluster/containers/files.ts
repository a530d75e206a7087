// A container's files: the image's own files (nginx's html pages), files written by exec'd commands,
// and read-only volumes mounted over directories (a ConfigMap: one file per key). Paths are absolute
// or relative to the working directory "/"; a mount shadows what the image has below its path.

export interface Mount {
  /** Absolute directory, no trailing slash. */
  readonly path: string;
  /** File name (relative to the mount) -> bytes. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

export type FileError = "No such file or directory" | "Read-only file system" | "Is a directory";

const encoder = new TextEncoder();

/** "/a/./b/../c" -> "/a/c"; relative paths start at "/". */
export function normalizePath(path: string, cwd = "/"): string {
  const parts: string[] = [];
  for (const p of (path.startsWith("/") ? path : `${cwd}/${path}`).split("/")) {
    if (p === "" || p === ".") continue;
    if (p === "..") parts.pop();
    else parts.push(p);
  }
  return `/${parts.join("/")}`;
}

export class ContainerFiles {
  private readonly own = new Map<string, Uint8Array>();
  private readonly mounts: Mount[] = [];

  constructor(initial: ReadonlyMap<string, string> = new Map()) {
    for (const [p, text] of initial) this.own.set(normalizePath(p), encoder.encode(text));
  }

  mount(m: Mount): void {
    this.mounts.push({ ...m, path: normalizePath(m.path) });
  }

  private mountOf(path: string): Mount | undefined {
    // The longest mount path containing `path` wins, as the last mount over a directory does.
    let best: Mount | undefined;
    for (const m of this.mounts) if ((path === m.path || path.startsWith(`${m.path}/`)) && (best === undefined || m.path.length > best.path.length)) best = m;
    return best;
  }

  read(path: string): Uint8Array | undefined {
    const p = normalizePath(path);
    const m = this.mountOf(p);
    if (m !== undefined) return m.files.get(p.slice(m.path.length + 1));
    return this.own.get(p);
  }

  isDirectory(path: string): boolean {
    const p = normalizePath(path);
    if (p === "/" || this.mounts.some((m) => m.path === p || m.path.startsWith(`${p}/`))) return true;
    for (const k of this.own.keys()) if (k.startsWith(`${p}/`)) return true;
    return false;
  }

  write(path: string, data: Uint8Array): FileError | null {
    const p = normalizePath(path);
    if (this.isDirectory(p)) return "Is a directory";
    const m = this.mountOf(p);
    if (m !== undefined) return "Read-only file system";
    this.own.set(p, data);
    return null;
  }

  remove(path: string): FileError | null {
    const p = normalizePath(path);
    const m = this.mountOf(p);
    if (m !== undefined) return m.files.has(p.slice(m.path.length + 1)) ? "Read-only file system" : "No such file or directory";
    return this.own.delete(p) ? null : "No such file or directory";
  }
}
