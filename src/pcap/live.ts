// Live capture and injection on real interfaces (issue 9): the only module that loads the optional
// `cap` package, lazily, when an interface is opened. Everything here is about real I/O; the
// emulator side (ExternalPort, the real-time driver) lives in net/ and engine/.

export { LiveInterface, LIVE_MAX_FRAME, composeFilter, type LiveOpenOptions, type LiveFrameHandler, type LiveStats } from "./live/live-interface.js";
export { LiveErrorKind, formatLiveError, type LiveError } from "./live/errors.js";
export { loadCap } from "./live/load-cap.js";
