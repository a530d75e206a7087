// Size limits the capture reader and writers enforce.

/** Largest caplen accepted in a record (tcpdump's and libpcap's MAXIMUM_SNAPLEN, 256 KiB). */
export const MAX_CAPLEN = 262144;
