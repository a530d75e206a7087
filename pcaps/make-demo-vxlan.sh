#!/usr/bin/env bash
# Records pcaps/demo-vxlan.pcap with the real Linux kernel: two network namespaces joined by a veth
# (the "underlay"), a VXLAN device on each side (VNI 42, UDP port 8472 as flannel uses), ping and a
# small TCP exchange and a UDP echo across the overlay, captured with tcpdump on the underlay veth of namespace A.
# Needs root, iproute2, tcpdump, ping, python3. Traffic never leaves the two namespaces made here.
# Usage: sudo pcaps/make-demo-vxlan.sh [OUTPUT.pcap]   (default: pcaps/demo-vxlan.pcap beside this script)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/demo-vxlan.pcap}"
ns_a="cnisim-demo-a-$$"
ns_b="cnisim-demo-b-$$"
python="$(command -v /usr/bin/python3 || command -v python3)"
tcpdump_pid=""

cleanup() {
  if [[ -n "$tcpdump_pid" ]]; then kill "$tcpdump_pid" 2>/dev/null || true; fi
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
}
trap cleanup EXIT

in_a() { ip netns exec "$ns_a" "$@"; }
in_b() { ip netns exec "$ns_b" "$@"; }

ip netns add "$ns_a"
ip netns add "$ns_b"
for ns in "$ns_a" "$ns_b"; do
  # No IPv6 (router solicitations, MLD) so that the capture holds only the traffic below.
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
done

# Underlay: 192.0.2.0/24 (TEST-NET-1, RFC 5737), fixed MACs so reruns differ only in timing.
ip link add ul-a netns "$ns_a" address 02:00:c0:00:02:01 type veth peer name ul-b netns "$ns_b" address 02:00:c0:00:02:02
ip -n "$ns_a" addr add 192.0.2.1/24 dev ul-a
ip -n "$ns_b" addr add 192.0.2.2/24 dev ul-b
ip -n "$ns_a" link set ul-a up
ip -n "$ns_b" link set ul-b up

# Overlay: VXLAN VNI 42 on UDP 8472 with a fixed remote (no multicast), 198.51.100.0/24 (TEST-NET-2).
ip -n "$ns_a" link add vxlan42 address 02:00:c6:33:64:01 type vxlan id 42 dstport 8472 local 192.0.2.1 remote 192.0.2.2 dev ul-a
ip -n "$ns_b" link add vxlan42 address 02:00:c6:33:64:02 type vxlan id 42 dstport 8472 local 192.0.2.2 remote 192.0.2.1 dev ul-b
ip -n "$ns_a" addr add 198.51.100.1/24 dev vxlan42
ip -n "$ns_b" addr add 198.51.100.2/24 dev vxlan42
ip -n "$ns_a" link set vxlan42 up
ip -n "$ns_b" link set vxlan42 up

# Turn off transmit checksum offload on the VXLAN devices and the underlay veths (what `ethtool -K DEV tx off`
# does, through the SIOCETHTOOL ioctl so that ethtool need not be installed): the kernel then fills in the
# inner TCP/UDP and the outer UDP checksums in software, instead of leaving them partial for a NIC to
# finish (tcpdump would record such unfinished checksums, and veth never finishes them).
tx_csum_off() {
  ip netns exec "$1" "$python" -c '
import array, fcntl, socket, struct, sys
SIOCETHTOOL, ETHTOOL_STXCSUM = 0x8946, 0x17
value = array.array("I", [ETHTOOL_STXCSUM, 0])
ifreq = struct.pack("16sP16x", sys.argv[1].encode(), value.buffer_info()[0])
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifreq)
' "$2"
}
tx_csum_off "$ns_a" vxlan42
tx_csum_off "$ns_b" vxlan42
tx_csum_off "$ns_a" ul-a
tx_csum_off "$ns_b" ul-b

tmp="$(mktemp -d)"
# (timeout: a safety net so that tcpdump can never outlive this script by more than a minute)
ip netns exec "$ns_a" timeout 60 tcpdump -i ul-a --immediate-mode -U -s 0 -w "$tmp/capture.pcap" 2>"$tmp/tcpdump.log" &
tcpdump_pid=$!
for _ in $(seq 50); do grep -q "listening on" "$tmp/tcpdump.log" 2>/dev/null && break; sleep 0.1; done

# 1. ping across the overlay (the first one also resolves the underlay and overlay neighbours by ARP).
in_a ping -c 4 -i 0.2 -W 1 198.51.100.2 >/dev/null

# 2. a small TCP exchange: B listens on 198.51.100.2:8080, A sends a line, B answers, both close.
in_b "$python" -c '
import socket
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("198.51.100.2", 8080)); srv.listen(1); srv.settimeout(10)
conn, _ = srv.accept(); data = conn.recv(100)
conn.sendall(b"hello from B, you said: " + data); conn.close(); srv.close()
' &
server_pid=$!
sleep 0.3
in_a "$python" -c '
import socket
c = socket.create_connection(("198.51.100.2", 8080), timeout=5)
c.sendall(b"hello from A\n"); reply = c.recv(100); c.close()
assert reply.startswith(b"hello from B"), reply
'
wait "$server_pid"

# 3. one UDP datagram each way: A asks B on 198.51.100.2:5005, B echoes it back in upper case.
in_b "$python" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("198.51.100.2", 5005)); s.settimeout(10)
data, peer = s.recvfrom(100); s.sendto(data.upper(), peer)
' &
server_pid=$!
sleep 0.3
in_a "$python" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
s.sendto(b"udp over vxlan", ("198.51.100.2", 5005)); assert s.recv(100) == b"UDP OVER VXLAN"
'
wait "$server_pid"
sleep 1

kill -TERM "$tcpdump_pid"; wait "$tcpdump_pid" || true; tcpdump_pid=""
cp "$tmp/capture.pcap" "$out"
rm -rf "$tmp"
echo "wrote $out"

# tshark oracles beside the capture: the shared tool as is (it does not map UDP 8472 to VXLAN, so tshark
# shows only the outer headers), and the same tool with `-d udp.port==8472,vxlan` added to its tshark call,
# saved as OUT.tshark-d8472.json, which also decodes the inner frames.
oracle="$here/../../shared/tools/tshark-oracle.py"
if [[ -f "$oracle" ]] && command -v tshark >/dev/null; then
  "$python" - "$oracle" "$out" <<'PY'
import importlib.util, os, subprocess, sys
spec = importlib.util.spec_from_file_location("tshark_oracle", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
capture, plain_run = sys.argv[2], subprocess.run
subprocess.run = lambda cmd, **kw: plain_run(cmd[:3] + ["-d", "udp.port==8472,vxlan"] + cmd[3:], **kw)
tool.oracle(capture)
os.replace(capture + ".tshark.json", capture + ".tshark-d8472.json")
subprocess.run = plain_run
tool.oracle(capture)
print(f"wrote {capture}.tshark.json and {capture}.tshark-d8472.json")
PY
else
  echo "tshark or $oracle missing: no oracle written" >&2
fi
