// Interarrival jitter as RFC 1889 (section 6.3.1, A.8) defines it and iperf3 computes it for UDP
// tests: the transit time of each datagram (arrival minus the sender's timestamp), and a running
// estimate J += (|D| - J) / 16 where D is the change in transit time between consecutive datagrams.

export class JitterEstimator {
  private prevTransitNs = 0;
  private seen = false;
  /** Current estimate in ns. */
  jitterNs = 0;

  /** Adds one datagram sent at sentNs and received at arrivalNs. */
  add(sentNs: number, arrivalNs: number): void {
    const transit = arrivalNs - sentNs;
    if (this.seen) {
      const d = Math.abs(transit - this.prevTransitNs);
      this.jitterNs += (d - this.jitterNs) / 16;
    }
    this.prevTransitNs = transit;
    this.seen = true;
  }
}
