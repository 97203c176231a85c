/**
 * Interns strings that repeat across many messages (topic names, client names) so the message
 * index stores one int32 per message instead of a string (src/README.md: persistence). Id 0 is always ''.
 */
export class Interner {
  private readonly values: string[] = [''];
  private readonly ids = new Map<string, number>([['', 0]]);

  /** Id for `value`, adding it if new. */
  intern(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }

  /** The string for `id` ('' for unknown ids). */
  value(id: number): string {
    return this.values[id] ?? '';
  }

  /** Id of an already-interned string, or undefined. */
  lookup(value: string): number | undefined {
    return this.ids.get(value);
  }

  /** All values in id order (for snapshots). */
  toArray(): readonly string[] {
    return this.values;
  }

  /** Rebuilds from `toArray()` output. */
  static fromArray(values: readonly string[]): Interner {
    const interner = new Interner();
    for (let i = 1; i < values.length; i++) interner.intern(values[i]!);
    return interner;
  }
}
