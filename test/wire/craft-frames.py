# Builds the hand-made frames of crafted-frames.ts byte by byte (struct, no packet library), so that
# tshark 4.0.17 and tcpdump can decode them as the oracle: run it, then
#   python3 ../shared/tools/tshark-oracle.py /tmp/wire/crafted-*.pcap ; tcpdump -nn -S -t -r FILE
# The expected values in the tests are what those tools printed, not what cnisim produced.
import struct, json, sys, os
OUT = sys.argv[1] if len(sys.argv) > 1 else '/tmp/wire'
os.makedirs(OUT, exist_ok=True)
def csum(b):
    if len(b)%2: b+=b'\0'
    s=sum(struct.unpack('!%dH'%(len(b)//2),b))
    while s>0xffff: s=(s&0xffff)+(s>>16)
    return (~s)&0xffff
def mac(s): return bytes(int(x,16) for x in s.split(':'))
def ip4(s): return bytes(int(x) for x in s.split('.'))
import ipaddress
def ip6(s): return ipaddress.IPv6Address(s).packed
def eth(dst,src,t): return mac(dst)+mac(src)+struct.pack('!H',t)
def ipv4(src,dst,proto,payload,ttl=64,ident=0x1234,flags=0x4000,opts=b'',badsum=False):
    hl=20+len(opts); tl=hl+len(payload)
    h=struct.pack('!BBHHHBBH4s4s',0x40|(hl//4),0,tl,ident,flags,ttl,proto,0,ip4(src),ip4(dst))+opts
    c=csum(h)
    if badsum: c^=0x0101
    h=h[:10]+struct.pack('!H',c)+h[12:]
    return h+payload
def ps4(src,dst,proto,l): return ip4(src)+ip4(dst)+struct.pack('!BBH',0,proto,l)
def ps6(src,dst,proto,l): return ip6(src)+ip6(dst)+struct.pack('!IxxxB',l,proto)
def udp(sp,dp,data,ps=None,zero=False,bad=False):
    l=8+len(data); h=struct.pack('!HHHH',sp,dp,l,0)
    c=0
    if not zero:
        c=csum(ps(l)+h+data) if ps else 0
        if c==0: c=0xffff
        if bad: c^=0x00ff
    return struct.pack('!HHHH',sp,dp,l,c)+data
def tcp(sp,dp,seq,ack,flags,win,opts,data,ps):
    while len(opts)%4: opts+=b'\0'
    hl=20+len(opts)
    h=struct.pack('!HHIIBBHHH',sp,dp,seq,ack,(hl//4)<<4,flags,win,0,0)+opts
    c=csum(ps(hl+len(data))+h+data)
    return h[:16]+struct.pack('!H',c)+h[18:]+data
def icmp(t,c,rest,data,ps=None):
    h=struct.pack('!BBHI',t,c,0,rest)
    s=csum((ps(8+len(data)) if ps else b'')+h+data)
    return struct.pack('!BBHI',t,c,s,rest)+data
def ipv6(src,dst,nh,payload,hlim=64):
    return struct.pack('!IHBB',0x60000000,len(payload),nh,hlim)+ip6(src)+ip6(dst)+payload
def pcap(path,linktype,frames):
    with open(path,'wb') as f:
        f.write(struct.pack('<IHHiIII',0xa1b2c3d4,2,4,0,0,65535,linktype))
        for i,fr in enumerate(frames):
            f.write(struct.pack('<IIII',1000+i,0,len(fr),len(fr))); f.write(fr)

frames={}
M1,M2='02:00:00:00:00:01','02:00:00:00:00:02'
# A: QinQ + IPv4 options (router alert) + UDP
pl=b'hello'
u=udp(1234,53,pl,lambda l: ps4('10.0.0.1','10.0.0.2',17,l))
frames['qinq_ipv4opt_udp']=eth(M2,M1,0x88a8)+struct.pack('!HH',(3<<13)|100,0x8100)+struct.pack('!HH',200,0x0800)+ipv4('10.0.0.1','10.0.0.2',17,u,opts=bytes([0x94,4,0,0]))
# B: IPv6 HBH + routing + dstopts + AH + TCP SYN with options
S6,D6='2001:db8::1','2001:db8:0:1::2'
topts=bytes([2,4,0x05,0xb4, 4,2, 8,10])+struct.pack('!II',0x01020304,0)+bytes([1,3,3,7])
t=tcp(40000,443,0x11223344,0,0x02,64240,topts,b'',lambda l: ps6(S6,D6,6,l))
ah=struct.pack('!BBHII',6,4,0,0x1000,1)+bytes(12)
dst=bytes([51,0,1,4,0,0,0,0])
rt=bytes([60,0,0,0,0,0,0,0])
hbh=bytes([43,0,1,4,0,0,0,0])
frames['ipv6_ext_ah_tcp']=eth(M2,M1,0x86dd)+ipv6(S6,D6,0,hbh+rt+dst+ah+t)
# C: IPv6 fragments: first (offset 0, M) with UDP header, and a non-first
udata=bytes(range(40))
u6=udp(5000,6000,udata,lambda l: ps6(S6,D6,17,l))
frag1=struct.pack('!BBHI',17,0,0|1,0xabcdef01)+u6[:24]
frag2=struct.pack('!BBHI',17,0,(24)|0,0xabcdef01)+u6[24:]
frames['ipv6_frag_first']=eth(M2,M1,0x86dd)+ipv6(S6,D6,44,frag1)
frames['ipv6_frag_second']=eth(M2,M1,0x86dd)+ipv6(S6,D6,44,frag2)
# D: TCP with SACK blocks, unknown option, EOL
topts=bytes([1,1,5,18])+struct.pack('!IIII',1000,2000,3000,4000)+bytes([254,6,0xf9,0x89,0xaa,0xbb])+bytes([0])
t=tcp(80,50000,0xfffffff0,0x10,0x10|0x08,512,topts,b'data!',lambda l: ps4('192.0.2.1','198.51.100.7',6,l))
frames['tcp_sack_unknown']=eth(M2,M1,0x0800)+ipv4('192.0.2.1','198.51.100.7',6,t,ident=7)
# E: ICMP port unreachable quoting IPv4/UDP (first 8 bytes of UDP)
inner=ipv4('10.0.0.2','10.0.0.9',17,udp(33434,33435,bytes(12),lambda l: ps4('10.0.0.2','10.0.0.9',17,l)),ttl=1,ident=99,flags=0)
frames['icmp_unreach_quote']=eth(M2,M1,0x0800)+ipv4('10.0.0.9','10.0.0.2',1,icmp(3,3,0,inner[:28]),ident=5,flags=0)
# I: UDP checksum zero / bad UDP checksum; J: bad IPv4 header checksum
frames['udp_zero_csum']=eth(M2,M1,0x0800)+ipv4('10.1.1.1','10.1.1.2',17,udp(7,9,b'abc',zero=True))
frames['udp_bad_csum']=eth(M2,M1,0x0800)+ipv4('10.1.1.1','10.1.1.2',17,udp(7,9,b'abc',lambda l: ps4('10.1.1.1','10.1.1.2',17,l),bad=True))
frames['ipv4_bad_hdr_csum']=eth(M2,M1,0x0800)+ipv4('10.1.1.1','10.1.1.2',1,icmp(8,0,0x00010001,b'ping'),badsum=True)
# G: Geneve with an option and protocol type IPv4 (inner IP directly)
inner=ipv4('172.16.0.1','172.16.0.2',1,icmp(8,0,0x00070003,b'abcdefgh'))
gen=struct.pack('!BBHI',2,0,0x0800,(0x123456<<8))+struct.pack('!HBB',0x0102,0x80|0x05,1)+b'\x11\x22\x33\x44'
frames['geneve_ipv4_opt']=eth(M2,M1,0x0800)+ipv4('192.168.1.1','192.168.1.2',17,udp(49152,6081,gen+inner,lambda l: ps4('192.168.1.1','192.168.1.2',17,l)))
# VXLAN on 4789 with inner ipv6 icmpv6 echo
inner6=ipv6('fd00::1','fd00::2',58,icmp(128,0,0x00420001,b'xyz',lambda l: ps6('fd00::1','fd00::2',58,l)))
vx=struct.pack('!II',0x08000000,0xabcdef<<8)+eth('02:00:00:00:00:0b','02:00:00:00:00:0a',0x86dd)+inner6
frames['vxlan_inner_icmpv6']=eth(M2,M1,0x0800)+ipv4('10.0.0.1','10.0.0.2',17,udp(50000,4789,vx,zero=True),flags=0)
pcap(OUT+'/crafted-eth.pcap',1,list(frames.values()))
# F: SLL (113) IPv4/ICMP echo reply, SLL2 (276) IPv6/UDP
icm=ipv4('10.2.0.1','10.2.0.2',1,icmp(0,0,0x00050006,b'0123456789'))
sll=struct.pack('!HHH',4,1,6)+mac('02:00:00:00:00:0c')+b'\0\0'+struct.pack('!H',0x0800)+icm
u6=ipv6('fe80::1','ff02::1:2',17,udp(546,547,b'dhcp6',lambda l: ps6('fe80::1','ff02::1:2',17,l)),hlim=1)
sll2=struct.pack('!HHIHBB',0x86dd,0,7,1,2,6)+mac('02:00:00:00:00:0d')+b'\0\0'+u6
pcap(OUT+'/crafted-sll.pcap',113,[sll]); pcap(OUT+'/crafted-sll2.pcap',276,[sll2])
raw=ipv4('10.3.0.1','10.3.0.2',6,tcp(1,2,5,6,0x11,100,b'',b'',lambda l: ps4('10.3.0.1','10.3.0.2',6,l)))
pcap(OUT+'/crafted-raw.pcap',101,[raw])
json.dump({k:v.hex() for k,v in list(frames.items())+[('sll',sll),('sll2',sll2),('raw',raw)]},open(OUT+'/crafted.json','w'),indent=1)
print('ok',len(frames))
