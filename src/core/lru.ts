/** The one bounded LRU map: a Map keeps insertion order, so its first key is the least recently used. */
export interface LruBounds<V> {
  readonly maxEntries?: number;
  readonly maxWeight?: number;
  readonly weigh?: (value: V) => number;
  /** Never evict the entry just set, even when it alone is over `maxWeight`. */
  readonly keepNewest?: boolean;
}

export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private weight = 0;
  private readonly maxEntries: number;
  private readonly maxWeight: number;
  private readonly weigh: (value: V) => number;
  private readonly keepNewest: boolean;

  constructor(bounds: LruBounds<V>) {
    this.maxEntries = bounds.maxEntries ?? Infinity;
    this.maxWeight = bounds.maxWeight ?? Infinity;
    this.weigh = bounds.weigh ?? (() => 0);
    this.keepNewest = bounds.keepNewest ?? false;
  }

  get size(): number {
    return this.map.size;
  }

  get totalWeight(): number {
    return this.weight;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  /** Does not count as a use. */
  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    this.weight += this.weigh(value);
    while (this.map.size > this.maxEntries || this.weight > this.maxWeight) {
      const oldest = this.map.keys().next().value as K;
      if (this.keepNewest && oldest === key) break;
      this.delete(oldest);
    }
  }

  delete(key: K): void {
    if (!this.map.has(key)) return;
    this.weight -= this.weigh(this.map.get(key) as V);
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
    this.weight = 0;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }
}
