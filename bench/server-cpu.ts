/**
 * Server CPU during a measured run, from Linux `/proc` (bench/PROFILE.md §9): the whole process
 * (every thread: LMDB's writer, V8's GC helpers, the render pool) and its main thread alone, which
 * runs uWS, every realm actor and every handler. The main thread's busy share says whether a
 * scenario is CPU-bound (near 100 %) or waiting (commits, the client); its CPU per request is the
 * figure that survives a shared machine, where req/s moves by ±30 % between identical runs.
 *
 * A V8 `.cpuprofile` cannot answer this: it counts uWS's native socket work (recv, HTTP parsing,
 * epoll) as "(idle)" because no JavaScript is on the stack. A bare uWS server at 96 % thread CPU
 * shows 34 % "(idle)" in its profile.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on every Linux build parley runs on). */
const USER_HZ = 100;

/** Cumulative CPU of a process at one instant. */
export interface CpuSample {
  /** User + system CPU seconds of all threads so far. */
  processSec: number;
  /** User + system CPU seconds of the main thread (tid = pid) so far. */
  mainThreadSec: number;
  /** `performance.now()` at the sample, ms. */
  atMs: number;
}

/** CPU used by the server between two samples, per request. */
export interface ServerCpu {
  /** Main-thread CPU over wall time, 0–1 (1: CPU-bound on the main thread). */
  mainThreadBusy: number;
  /** Main-thread CPU per answered request, µs. */
  mainUsPerRequest: number;
  /** CPU of all threads per answered request, µs. */
  processUsPerRequest: number;
}

/** utime + stime in seconds from a `/proc/.../stat` line (fields 14 and 15, after the `comm` field). */
function statSeconds(path: string): number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/** The process's and its main thread's CPU so far; undefined where `/proc` is unavailable or the process is gone. */
export function sampleCpu(pid: number): CpuSample | undefined {
  try {
    return { processSec: statSeconds(`/proc/${pid}/stat`), mainThreadSec: statSeconds(`/proc/${pid}/task/${pid}/stat`), atMs: performance.now() };
  } catch {
    return undefined;
  }
}

/**
 * CPU between `before` and `after` for `requests` answered requests. Undefined when either sample
 * is missing or nothing was answered. Tick resolution is 10 ms, so runs of a few seconds give
 * figures to about 1 %.
 */
export function cpuBetween(before: CpuSample | undefined, after: CpuSample | undefined, requests: number): ServerCpu | undefined {
  if (before === undefined || after === undefined || requests <= 0) return undefined;
  const wallSec = (after.atMs - before.atMs) / 1000;
  const main = after.mainThreadSec - before.mainThreadSec;
  return {
    mainThreadBusy: wallSec > 0 ? main / wallSec : NaN,
    mainUsPerRequest: (main * 1e6) / requests,
    processUsPerRequest: ((after.processSec - before.processSec) * 1e6) / requests,
  };
}
