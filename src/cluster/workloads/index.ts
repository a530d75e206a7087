// Workloads that run on pods and hosts: nginx-like HTTP server, curl/wget-like client, ping,
// CoreDNS-like server and the pod resolver, UDP echo, and a bulk TCP transfer.

export { HttpServer, type HttpServerOptions, type HttpServerStats } from "./http/server.js";
export { httpGet, HttpTool, type HttpGetOptions, type HttpResult, type HttpTimings } from "./http/client.js";
export { NGINX_VERSION, NGINX_WELCOME_PAGE, nginxErrorPage } from "./http/nginx-pages.js";
export { Ping, PingStyle, formatIputilsRtt, type PingOptions, type PingReply, type PingResult } from "./ping.js";
export { DnsServer, type ClusterDnsData, type ClusterService, type DnsServerOptions } from "./dns/server.js";
export { Resolver, LibC, podResolvConf, type ResolvConf, type ResolveResult, type ResolverOptions } from "./dns/resolver.js";
export { decodeDns, encodeDns, DnsType, DnsClass, DnsRcode, type DnsMessage, type DnsRecord, type DnsQuestion } from "./dns/message.js";
export { UdpEcho } from "./udp-echo.js";
export { BulkSink, runBulk, type BulkOptions, type BulkResult, type BulkStreamResult } from "./tcp-bulk.js";
export { TcpWriter } from "./tcp-writer.js";
export { httpDate, DEFAULT_EPOCH_MS } from "./sim-clock.js";
