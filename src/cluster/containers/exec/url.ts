// A URL as wget and curl take it: "web1", "web1.web:8080/x", "http://10.1.8.30:30790/".
export interface HttpTarget {
  readonly host: string;
  readonly port: number;
  readonly path: string;
}

export function parseHttpUrl(url: string): HttpTarget | string {
  let rest = url;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(rest);
  if (scheme !== null) {
    if (scheme[1]!.toLowerCase() !== "http") return `unsupported URL scheme ${scheme[1]} (cnisim's pods speak plain HTTP)`;
    rest = rest.slice(scheme[0].length);
  }
  const slash = rest.indexOf("/");
  const hostPort = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? "/" : rest.slice(slash);
  const colon = hostPort.lastIndexOf(":");
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon);
  const port = colon < 0 ? 80 : Number(hostPort.slice(colon + 1));
  if (host === "" || !Number.isInteger(port) || port < 1 || port > 65535) return `bad URL '${url}'`;
  return { host, port, path };
}
