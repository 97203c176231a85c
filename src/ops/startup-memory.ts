/**
 * Hands start-up's garbage back to the operating system once, when the server is ready (issue 17:
 * idle RSS). Loading ~1,200 modules, recovering the realms and creating the demo organization
 * grow V8's young generation to its maximum (two 16 MiB semi-spaces) and leave the old generation
 * full of dead parse and compile data; an idle server would keep those ~30 MiB resident until
 * V8's memory reducer notices the idleness (8 s after the last major GC at the earliest, ~20 s in
 * practice). This asks V8 for the same memory-reducing collection at once.
 *
 * The in-process inspector session (no port is opened) is the one public way to reach it: the
 * Chrome DevTools Protocol's `HeapProfiler.collectGarbage`
 * (https://chromedevtools.github.io/devtools-protocol/tot/HeapProfiler/#method-collectGarbage)
 * runs V8's `Isolate::LowMemoryNotification` (repeated full GCs that shrink the new space and
 * release free pages). A plain `global.gc()` (`--expose-gc`) keeps the grown semi-spaces.
 */

/**
 * Runs one memory-reducing full garbage collection; resolves when it is done (~100–250 ms of
 * blocked main thread on a fresh demo organization, so only at start-up). Never rejects: without an
 * inspector (a Node.js built without it) or on a protocol error it resolves without collecting.
 */
export async function releaseStartupGarbage(): Promise<void> {
  let Session: typeof import('node:inspector').Session;
  try {
    ({ Session } = await import('node:inspector'));
  } catch {
    return;
  }
  const session = new Session();
  try {
    session.connect();
  } catch {
    return;
  }
  await new Promise<void>((resolve) => {
    session.post('HeapProfiler.collectGarbage', () => {
      // Disconnecting inside the protocol callback leaves Node 20's event loop stuck (the
      // session's message pump is still on the stack): leave the callback first.
      setImmediate(() => {
        session.disconnect();
        resolve();
      });
    });
  });
}
