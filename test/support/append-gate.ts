/**
 * A gate for the realm actor's `afterAppend` test hook: while closed, every append waits on it
 * before it counts as durable (replies, events and durable reads hold); `open` releases them.
 */
export interface AppendGate {
  /** Pass as `afterAppend`: resolves at once while open, when the gate opens while closed. */
  hook(): Promise<void>;
  close(): void;
  open(): void;
}

/** A new, open gate. */
export function appendGate(): AppendGate {
  let release: (() => void) | null = null;
  let held: Promise<void> | null = null;
  return {
    hook: () => held ?? Promise.resolve(),
    close() {
      held = new Promise<void>((r) => (release = r));
    },
    open() {
      held = null;
      release?.();
    },
  };
}
