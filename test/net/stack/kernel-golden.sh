#!/usr/bin/env bash
# Captures the golden frames test/net/stack/kernel-golden.ts is generated from: three namespaces
# A (10.1.0.2) -- R (10.1.0.1 | 10.2.0.1, ip_forward=1, vrb mtu 1400) -- B (10.2.0.2), fixed MACs,
# IPv6 off. Needs root, iproute2, tcpdump, python3. Usage: kernel-golden.sh OUTDIR
# (writes va.pcap, vb.pcap, lo-a.pcap and snmp-{a,r,b}.txt there; then run kernel-golden.py OUTDIR > kernel-golden.ts).
set -euo pipefail
out=${1:?output directory}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
for ns in gld-a gld-r gld-b; do ip netns del "$ns" 2>/dev/null || true; done
cleanup() { for ns in gld-a gld-r gld-b; do ip netns del "$ns" 2>/dev/null || true; done; }
trap cleanup EXIT
for ns in gld-a gld-r gld-b; do
  ip netns add "$ns"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add va address 02:00:00:01:00:02 netns gld-a type veth peer name vra address 02:00:00:01:00:01 netns gld-r
ip link add vb address 02:00:00:02:00:02 netns gld-b type veth peer name vrb address 02:00:00:02:00:01 netns gld-r
ip -n gld-a addr add 10.1.0.2/24 dev va
ip -n gld-r addr add 10.1.0.1/24 dev vra
ip -n gld-r addr add 10.2.0.1/24 dev vrb
ip -n gld-b addr add 10.2.0.2/24 dev vb
for l in "gld-a va" "gld-a lo" "gld-r vra" "gld-r vrb" "gld-b vb" "gld-b lo"; do set -- $l; ip -n "$1" link set "$2" up; done
ip -n gld-r link set vrb mtu 1400
ip -n gld-a route add default via 10.1.0.1
ip -n gld-b route add default via 10.2.0.1
ip -n gld-r route add 169.254.0.0/16 via 10.2.0.2
ip netns exec gld-r sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.vra.proxy_arp=1 net.ipv4.neigh.vra.proxy_delay=0
ip -n gld-a route add 10.77.0.0/16 via 169.254.1.1 dev va onlink

ip netns exec gld-a tcpdump -U -i va -w "$out/va.pcap" 2>/dev/null & p1=$!
ip netns exec gld-b tcpdump -U -i vb -w "$out/vb.pcap" 2>/dev/null & p2=$!
ip netns exec gld-a tcpdump -U -i lo -w "$out/lo-a.pcap" 2>/dev/null & p3=$!
sleep 1
A() { ip netns exec gld-a "$@"; }
A ping -c1 -W1 -Q 0x0b 10.2.0.2 >/dev/null; sleep 0.3
# Before any frag-needed teaches A the path MTU: R fragments (B's 1478-byte reply then dies at vrb,
# whose MTU is 1400: veth drops frames longer than the receiving end's MTU).
A ping -c1 -W1 -M dont -s 1450 10.2.0.2 >/dev/null || true; sleep 0.3
A ping -c1 -W1 -t 1 10.2.0.2 >/dev/null || true; sleep 0.3
A ping -c1 -W1 10.9.9.9 >/dev/null || true; sleep 0.3
A ping -c1 -W1 -M do -s 1450 10.2.0.2 >/dev/null || true; sleep 0.3
A python3 "$here/kernel-golden-send.py" udp; sleep 0.3
A python3 "$here/kernel-golden-send.py" syn; sleep 0.3
A python3 "$here/kernel-golden-send.py" ack; sleep 0.3
A python3 "$here/kernel-golden-send.py" fin; sleep 0.3
A ping -c1 -W1 10.77.0.1 >/dev/null || true; sleep 0.3
A ping -c1 -W5 10.1.0.99 >/dev/null || true; sleep 1
ip -n gld-r route add unreachable 10.60.0.0/16
ip -n gld-r route add prohibit 10.61.0.0/16
ip -n gld-r route add blackhole 10.62.0.0/16
ip -n gld-a route add 10.1.0.3/32 via 10.1.0.1
for d in 10.60.0.1 10.61.0.1 10.62.0.1; do A ping -c1 -W1 "$d" >/dev/null || true; sleep 0.3; done
# R sends a redirect, then fails to resolve 10.1.0.3 and answers host unreachable after 3 s.
A ping -c1 -W5 10.1.0.3 >/dev/null || true; sleep 6.5
# Rate limits: 10 TTL-1 pings at once, 2.5 s later 10 pings to a net R has no route for.
A python3 "$here/kernel-golden-send.py" bursts; sleep 1
kill $p1 $p2 $p3; wait 2>/dev/null || true
for ns in a r b; do
  { ip netns exec "gld-$ns" cat /proc/net/snmp; ip netns exec "gld-$ns" cat /proc/net/netstat | grep '^IpExt:'; } > "$out/snmp-$ns.txt"
done
