/**
 * The worker threads that render large messages off the realm actor's thread (issue 12: a realm's
 * actor is never blocked by one render for more than a few ms; plain markdown-it alone needs ~8 ms
 * for 10,000 characters of list items, so large contents must leave the thread). A bounded piscina
 * pool running markdown/render-worker.ts: one process-wide pool, since threads are a process
 * resource shared by every realm, sized to leave a core to the actors and HTTP.
 *
 * A task that fails (worker crash, queue full, timeout, pool closed) resolves to `undefined`, and
 * the caller renders in-thread as it would without a pool: the pool can make a render faster for
 * the actor, never make it fail or hang.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { RenderTask, RenderTaskResult } from '../markdown/render-worker.js';
import { log } from '../log.js';

/** Renders tasks off the actor's thread. */
export interface RenderPool {
  /** The task's result, or `undefined` when the pool could not render it (render in-thread then). */
  render(task: RenderTask): Promise<RenderTaskResult | undefined>;
  /** Ends the worker threads; later tasks resolve to `undefined`. */
  close(): Promise<void>;
}

/** Options of {@link WorkerRenderPool}. */
export interface WorkerRenderPoolOptions {
  /** Worker threads at most (default: cores − 1, between 1 and 2). */
  maxThreads?: number;
  /** Milliseconds a task may take, queueing included, before it is abandoned (default 5,000: Zulip's render timeout). */
  timeoutMs?: number;
  /** Tasks waiting for a thread at most; more resolve to `undefined` (default 64). */
  maxQueue?: number;
  /** The worker module (default markdown/render-worker, .ts under tsx, .js when built). */
  filename?: string;
}

/** The worker module beside this one: `.ts` when running from source (tsx), `.js` when built. */
function defaultWorkerFile(): string {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`../markdown/render-worker.${ext}`, import.meta.url).href;
}

/** A {@link RenderPool} of piscina worker threads; threads start on first use and stop after 60 s idle. */
export class WorkerRenderPool implements RenderPool {
  readonly #pool: Piscina<RenderTask, RenderTaskResult>;
  readonly #timeoutMs: number;
  #closed = false;
  /** Aborted when a worker dies outside a task: the tasks waiting for it give up at once. */
  #workerDied = new AbortController();

  constructor(options: WorkerRenderPoolOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#pool = new Piscina({
      filename: options.filename ?? defaultWorkerFile(),
      minThreads: 0,
      maxThreads: options.maxThreads ?? Math.min(2, Math.max(1, availableParallelism() - 1)),
      maxQueue: options.maxQueue ?? 64,
      idleTimeout: 60_000,
      name: 'default',
    });
    // A worker that dies outside a task (e.g. cannot load) is reported here; unheard, the pool's
    // 'error' event would be an uncaught exception that ends the server.
    this.#pool.on('error', (error: unknown) => {
      log.warn({ err: error }, 'render worker failed');
      this.#workerDied.abort(error);
      this.#workerDied = new AbortController();
    });
  }

  async render(task: RenderTask): Promise<RenderTaskResult | undefined> {
    if (this.#closed) return undefined;
    try {
      return await this.#pool.run(task, { signal: AbortSignal.any([AbortSignal.timeout(this.#timeoutMs), this.#workerDied.signal]) });
    } catch (error) {
      if (!this.#closed) log.warn({ err: error }, 'render worker failed; rendering in-thread');
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.destroy();
  }
}

let shared: RenderPool | undefined;

/** The process-wide pool (created on first use). */
export function renderPool(): RenderPool {
  return (shared ??= new WorkerRenderPool());
}

/** Replaces the process-wide pool (a server's start option; tests pass a gated or broken pool). */
export function setRenderPool(pool: RenderPool | undefined): void {
  shared = pool;
}

/** Closes the process-wide pool (server shutdown); the next use creates a new one. */
export async function closeRenderPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
