# Sends one crafted IPv4 packet from namespace A for kernel-golden.sh through a raw socket, with
# every checksum computed here (a local UDP/TCP socket would leave the L4 checksum to the veth offload).
import socket, struct, sys

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF

SRC, DST = "10.1.0.2", "10.2.0.2"

def ip(proto, payload, tos, ident):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), ident, 0x4000, 64, proto, 0,
                    socket.inet_aton(SRC), socket.inet_aton(DST))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload

def l4(proto, seg):
    ph = socket.inet_aton(SRC) + socket.inet_aton(DST) + struct.pack("!BBH", 0, proto, len(seg))
    return ph

def tcp(sport, dport, seq, ack, flags, data):
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 0x50, flags, 1024, 0, 0) + data
    c = csum(l4(6, seg) + seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]

kind = sys.argv[1]
if kind == "udp":
    seg = struct.pack("!HHHH", 40001, 9999, 8 + 5, 0) + b"hello"
    c = csum(l4(17, seg) + seg)
    pkt = ip(17, seg[:6] + struct.pack("!H", c) + seg[8:], 0x0B, 0x1111)
elif kind == "syn":
    pkt = ip(6, tcp(40002, 9998, 1000, 0, 0x02, b""), 0x0B, 0x2222)
elif kind == "ack":
    pkt = ip(6, tcp(40003, 9998, 5000, 7000, 0x18, b"data"), 0x00, 0x3333)
elif kind == "fin":
    pkt = ip(6, tcp(40004, 9998, 9000, 0, 0x09, b"bytes"), 0x00, 0x4444)
elif kind == "bursts":
    import time
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for ttl, dst, pause in ((1, DST, 2.5), (64, "10.9.9.8", 0)):
        for i in range(10):
            icmp = struct.pack("!BBHHH", 8, 0, 0, 77, i) + b"x" * 8
            icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
            h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 0x5000 + i, 0x4000, ttl, 1, 0,
                            socket.inet_aton(SRC), socket.inet_aton(dst))
            s.sendto(h[:10] + struct.pack("!H", csum(h)) + h[12:] + icmp, (dst, 0))
        time.sleep(pause)
    raise SystemExit(0)
else:
    raise SystemExit("unknown kind " + kind)
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
s.sendto(pkt, (DST, 0))
