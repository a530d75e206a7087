// Incremental HTTP/1.1 message parsing for the workloads: a request or response head (start line +
// headers up to the blank line), then a body by Content-Length, chunked encoding, or until close.
// Malformed input yields an error value naming what was wrong.

export interface HttpHead {
  /** Request: [method, target, version]; response: [version, status, reason]. */
  readonly startLine: readonly [string, string, string];
  /** Header names lower-cased, in order. */
  readonly headers: readonly (readonly [string, string])[];
}

export function header(head: HttpHead, name: string): string | undefined {
  const lower = name.toLowerCase();
  return head.headers.find(([n]) => n === lower)?.[1];
}

const decoder = new TextDecoder("latin1");
const MAX_HEAD = 64 * 1024;

/** Accumulates bytes until a complete head is available. */
export class HeadReader {
  private text = "";

  /** Adds bytes; returns the head and the bytes after it, null while incomplete, or an error. */
  push(data: Uint8Array): { head: HttpHead; rest: Uint8Array } | null | { error: string } {
    const before = this.text.length;
    this.text += decoder.decode(data);
    const end = this.text.indexOf("\r\n\r\n");
    if (end < 0) return this.text.length > MAX_HEAD ? { error: `head longer than ${MAX_HEAD} bytes` } : null;
    const lines = this.text.slice(0, end).split("\r\n");
    const first = lines[0]!.split(" ");
    if (first.length < 3 && !(first.length === 2 && first[0]!.startsWith("HTTP/"))) return { error: `malformed start line "${lines[0]}"` };
    const startLine: [string, string, string] = [first[0]!, first[1]!, first.slice(2).join(" ")];
    const headers: [string, string][] = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0) return { error: `malformed header line "${line}"` };
      headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
    }
    const consumed = end + 4 - before;
    return { head: { startLine, headers }, rest: data.subarray(consumed) };
  }
}

/** Collects a response body by Content-Length, chunked encoding, or until the connection closes. */
export class BodyReader {
  private readonly parts: Uint8Array[] = [];
  private received = 0;
  private chunkLeft = 0;
  private chunkText = "";
  private state: "length" | "chunk-size" | "chunk-data" | "chunk-crlf" | "until-close" | "done";
  private readonly length: number;

  constructor(head: HttpHead, headOnly: boolean) {
    const te = header(head, "transfer-encoding");
    const cl = header(head, "content-length");
    const status = Number(head.startLine[1]);
    if (headOnly || status === 204 || status === 304 || (status >= 100 && status < 200)) {
      this.state = "done";
      this.length = 0;
    } else if (te !== undefined && te.toLowerCase().includes("chunked")) {
      this.state = "chunk-size";
      this.length = -1;
    } else if (cl !== undefined) {
      this.length = Number(cl);
      this.state = this.length === 0 ? "done" : "length";
    } else {
      this.state = "until-close";
      this.length = -1;
    }
  }

  get done(): boolean {
    return this.state === "done";
  }

  /** The connection ended: a body read until close is complete. */
  end(): boolean {
    if (this.state === "until-close") this.state = "done";
    return this.done;
  }

  push(data: Uint8Array): void {
    let i = 0;
    while (i < data.length && this.state !== "done") {
      switch (this.state) {
        case "length": {
          const take = Math.min(this.length - this.received, data.length - i);
          this.keep(data.subarray(i, i + take));
          i += take;
          if (this.received === this.length) this.state = "done";
          break;
        }
        case "until-close":
          this.keep(data.subarray(i));
          i = data.length;
          break;
        case "chunk-size": {
          const c = String.fromCharCode(data[i++]!);
          this.chunkText += c;
          if (this.chunkText.endsWith("\r\n")) {
            this.chunkLeft = parseInt(this.chunkText, 16);
            this.chunkText = "";
            this.state = this.chunkLeft > 0 ? "chunk-data" : "done";
          }
          break;
        }
        case "chunk-data": {
          const take = Math.min(this.chunkLeft, data.length - i);
          this.keep(data.subarray(i, i + take));
          i += take;
          this.chunkLeft -= take;
          if (this.chunkLeft === 0) this.state = "chunk-crlf";
          break;
        }
        case "chunk-crlf":
          this.chunkText += String.fromCharCode(data[i++]!);
          if (this.chunkText.length === 2) {
            this.chunkText = "";
            this.state = "chunk-size";
          }
          break;
      }
    }
  }

  body(): Uint8Array {
    const out = new Uint8Array(this.received);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  private keep(view: Uint8Array): void {
    this.parts.push(view.slice());
    this.received += view.length;
  }
}
