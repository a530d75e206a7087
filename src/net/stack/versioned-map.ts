// A Map that counts its changes: code that derives answers from its contents can keep them while the
// count stays the same, instead of asking the Map again per packet (sysctl tables such as rp_filter).

export class VersionedMap<K, V> extends Map<K, V> {
  /** Bumped by every set, delete and clear. */
  version = 0;

  override set(key: K, value: V): this {
    this.version++;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.version++;
    return super.delete(key);
  }

  override clear(): void {
    this.version++;
    super.clear();
  }
}
