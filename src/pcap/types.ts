// Plain records the capture reader produces: one packet record, one interface, the reading summary.

export type CaptureFormat = "pcap" | "pcapng";

export type CaptureRecord = {
  /** 1-based position among the packet records of the file (skipped records keep their number). */
  readonly index: number;
  /** Index into `summary.interfaces` (unique across pcapng sections); always 0 for classic pcap. */
  readonly interfaceId: number;
  /** LINKTYPE_* value of the record's interface (1 Ethernet, 101 raw IP, 113 SLL, 276 SLL2; see wire/layers.ts LinkType). */
  readonly linkType: number;
  /** Capture time in nanoseconds since the Unix epoch (0n for pcapng Simple Packet Blocks, which carry none). */
  readonly tsNs: bigint;
  /** Bytes stored in the file (= data.length). */
  readonly caplen: number;
  /** Original length of the packet on the wire. */
  readonly len: number;
  /**
   * The captured bytes: a view into the chunk the reader read them with. The reader never writes to it
   * again, so it may be kept, but it keeps its chunk (up to 64 KiB) alive: copy it to keep many records.
   */
  readonly data: Uint8Array;
  /** Byte offset of the record header (classic) or block (pcapng) in the file. */
  readonly fileOffset: number;
};

export type TimestampResolution = {
  /** 10 for if_tsresol powers of ten, 2 for powers of two. */
  readonly base: 10 | 2;
  /** Units per second = base ** exponent (6 = microseconds, 9 = nanoseconds). */
  readonly exponent: number;
};

export type CaptureInterface = {
  /** Global id, as used in CaptureRecord.interfaceId. */
  readonly id: number;
  /** 0-based pcapng section number (always 0 for classic pcap). */
  readonly section: number;
  /** Interface number inside its section (what pcapng packet blocks refer to). */
  readonly idInSection: number;
  readonly linkType: number;
  /** Maximum bytes stored per packet; 0 means no limit was given. */
  readonly snaplen: number;
  /** if_name option (pcapng), or null. */
  readonly name: string | null;
  /** if_description option (pcapng), or null. */
  readonly description: string | null;
  readonly tsResolution: TimestampResolution;
  /** if_tsoffset option: seconds added to every timestamp of this interface. */
  readonly tsOffsetSeconds: bigint;
};

export type SkippedRecord = {
  /** 1-based packet record number, or 0 when the bad item was not a packet block (e.g. a broken IDB). */
  readonly index: number;
  readonly offset: number;
  readonly reason: string;
};

export type CaptureSummary = {
  format: CaptureFormat | null;
  /** Packet records found in the file, good or bad. */
  read: number;
  /** Packet records handed to the caller. */
  decoded: number;
  /** Bad records and blocks that were skipped (lenient mode), each with its reason. */
  readonly skipped: SkippedRecord[];
  readonly interfaces: CaptureInterface[];
  /** pcapng blocks that carry no packets and were passed over, counted by name (e.g. "ISB", "unknown 0x00000bad"). */
  readonly otherBlocks: Record<string, number>;
  /** Lenient mode: where and why reading ended early because the file could not be resynchronised. */
  stopped: { offset: number; reason: string } | null;
};

export type OpenCaptureOptions = {
  /** Skip bad records with a summary entry instead of throwing (where the format allows resynchronising). */
  readonly lenient?: boolean;
  /** Read chunk size in bytes (default 64 KiB). */
  readonly chunkSize?: number;
};
