// A classic little-endian pcap file (microsecond timestamps, Ethernet) in memory, for handing frames
// to tshark from synchronous tests: frame i is stamped i+1 seconds.
export function classicPcapBytes(frames: readonly Uint8Array[], snaplen = 262144): Uint8Array {
  const out = new Uint8Array(24 + frames.reduce((n, f) => n + 16 + f.length, 0));
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0xa1b2c3d4, true);
  dv.setUint16(4, 2, true);
  dv.setUint16(6, 4, true);
  dv.setUint32(16, snaplen, true);
  dv.setUint32(20, 1, true); // LINKTYPE_ETHERNET
  let at = 24;
  frames.forEach((f, i) => {
    dv.setUint32(at, i + 1, true);
    dv.setUint32(at + 8, f.length, true);
    dv.setUint32(at + 12, f.length, true);
    out.set(f, at + 16);
    at += 16 + f.length;
  });
  return out;
}
