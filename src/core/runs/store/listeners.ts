/** A listener that throws disturbs neither the others nor the emitter. */
import type { Disposable } from '../types.js';

export class Listeners<E> {
  private readonly set = new Set<(event: E) => void>();

  add(listener: (event: E) => void): Disposable {
    this.set.add(listener);
    return {
      dispose: () => {
        this.set.delete(listener);
      },
    };
  }

  get size(): number {
    return this.set.size;
  }

  emit(event: E): void {
    for (const l of [...this.set]) {
      try {
        l(event);
      } catch {
        /* a listener's problem is its own */
      }
    }
  }
}
