// Public surface of the datapath maps (re-exports only).
export { MapError, isMapError, newMapStats, resetStats } from "./errors.js";
export type { MapErrorCode, MapStats } from "./errors.js";
export { fmix32, fmix32i, hashWords, hashWordsI } from "./hash.js";
export { HashMap } from "./hashmap.js";
export type { HashMapOptions } from "./hashmap.js";
export { LruHashMap } from "./lru.js";
export { ArrayMap } from "./array.js";
export type { ArrayMapOptions } from "./array.js";
export { LpmTrieMap } from "./lpm.js";
export type { LpmTrieMapOptions } from "./lpm.js";
export { Direction, PolicyMap, PolicyVerdict } from "./policy.js";
export type { PolicyEntry } from "./policy.js";
export { IpCache, IpCacheFlag } from "./ipcache.js";
export type { IpCacheShare } from "./ipcache.js";
export { CT_VALUE_WORDS, ConntrackMap, CtFlag, CtTupleFlag, CtValue } from "./conntrack.js";
export type { ConntrackMapOptions } from "./conntrack.js";
export { addU32ToU64, addU64, readU64, writeU64 } from "./words.js";
export { forEachPortBlock, portBlockCount, portBlockLen, portMask } from "./portblocks.js";
