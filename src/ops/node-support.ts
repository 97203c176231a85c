/**
 * Which Node.js versions parley runs on (issue 13 §4). The limit is uWebSockets.js: the uws-pack
 * build ships one native binary per platform, CPU and Node ABI (`process.versions.modules`):
 * 108 (Node 18), 115 (Node 20), 120 (Node 21), 127 (Node 22), for Linux x64/arm64/arm, macOS
 * x64/arm64 and Windows x64 (`node_modules/uWebSockets.js/dist/bin/uws_<platform>_<arch>_<abi>.node`).
 * parley itself needs Node 20 or newer, so it runs on Node 20, 21 and 22 — `engines` in
 * package.json says the same. Checked before anything loads uWS, so an unsupported Node gets one
 * clear line instead of a native-module stack trace.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Oldest Node.js major parley's own code supports. */
export const MIN_NODE_MAJOR = 20;

/** Node ABI versions the bundled uWebSockets.js has binaries for, with their Node major. */
export const UWS_NODE_ABIS: Readonly<Record<string, number>> = { '108': 18, '115': 20, '120': 21, '127': 22 };

/** What the check looks at (the real process by default; tests pass their own). */
export interface NodeRuntime {
  /** `process.versions.node`, e.g. `20.20.2`. */
  node: string;
  /** `process.versions.modules`, the native ABI, e.g. `115`. */
  modules: string;
  platform: string;
  arch: string;
}

/** Path of the uWS binary this runtime would load, or null when the package is not installed. */
function uwsBinary(runtime: NodeRuntime): string | null {
  try {
    const entry = fileURLToPath(import.meta.resolve('uWebSockets.js'));
    return join(dirname(entry), 'bin', `uws_${runtime.platform}_${runtime.arch}_${runtime.modules}.node`);
  } catch {
    return null;
  }
}

/**
 * Returns one line explaining why this Node.js cannot run parley, or null when it can: Node older
 * than 20, or no uWebSockets.js binary for this platform, CPU and Node ABI.
 */
export function nodeSupportProblem(runtime: NodeRuntime = { ...process.versions, platform: process.platform, arch: process.arch } as NodeRuntime): string | null {
  const major = Number.parseInt(runtime.node, 10);
  const supported = Object.values(UWS_NODE_ABIS)
    .filter((m) => m >= MIN_NODE_MAJOR)
    .join(', ');
  if (major < MIN_NODE_MAJOR) return `Node.js ${runtime.node} is too old: parley runs on Node.js ${supported}`;
  const binary = uwsBinary(runtime);
  if (binary !== null && !existsSync(binary)) {
    return (
      `Node.js ${runtime.node} (ABI ${runtime.modules}) on ${runtime.platform}/${runtime.arch} is not supported: ` +
      `uWebSockets.js ships binaries only for Node.js ${supported} (Linux, macOS, Windows)`
    );
  }
  return null;
}
