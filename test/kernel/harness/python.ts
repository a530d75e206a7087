// Small python3 programs the kernel lab runs inside namespaces (`python3 -c CODE ARGS...`): raw frame
// injection through AF_PACKET, transmit checksum offload off through SIOCETHTOOL (no ethtool needed),
// and a TCP listener + UDP echo server standing in for a workload.

/**
 * A long-lived injector: reads lines "DEV HEX [HEX...]" on stdin, sends each frame as is out of DEV
 * through an AF_PACKET socket, answers "ok" (or "error ...") per line. Prints "ready" first.
 */
export const PY_INJECTOR = `
import socket, sys
socks = {}
print("ready", flush=True)
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    try:
        s = socks.get(parts[0])
        if s is None:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            s.bind((parts[0], 0))
            socks[parts[0]] = s
        for h in parts[1:]:
            s.send(bytes.fromhex(h))
        print("ok", flush=True)
    except Exception as e:
        print("error " + repr(e), flush=True)
`;

/** argv: TCP_PORT UDP_PORT; listens on TCP (keeps accepted connections open), echoes UDP; prints "ready". */
export const PY_SERVE = `
import select, socket, sys
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("0.0.0.0", int(sys.argv[1])))
t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("0.0.0.0", int(sys.argv[2])))
print("ready", flush=True)
kept = []
while True:
    ready, _, _ = select.select([t, u], [], [])
    for s in ready:
        if s is t:
            kept.append(t.accept()[0])
        else:
            data, addr = u.recvfrom(4096)
            u.sendto(data, addr)
`;
