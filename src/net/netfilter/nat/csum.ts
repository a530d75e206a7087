// The kernel's incremental checksum update names (csum_replace4 / inet_proto_csum_replace2),
// served by the wire layer's kernel-literal RFC 1624 arithmetic.
import { checksumReplace16, checksumReplace32 } from "../../../wire/checksum.js";

/** csum_replace4: the checksum after a covered 32-bit field changes from `from` to `to`. */
export const csumReplace4 = checksumReplace32;
/** inet_proto_csum_replace2: the same for a 16-bit field. */
export const csumReplace2 = checksumReplace16;
