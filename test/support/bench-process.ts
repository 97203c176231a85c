/**
 * Runs the bench harness (`bench/run.ts`) as a child process, as a user would, for the bench tests.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './server-process.js';

/** What the bench process printed and how it ended (`code` null: killed). */
export interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node --import=tsx bench/run.ts ...args` in the repository; resolves when it exits. `env`
 * (default: this process's) is the child's whole environment; it is killed after `timeoutMs`.
 */
export function runBench(args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<BenchRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import=tsx', join(REPO_ROOT, 'bench', 'run.ts'), ...args], {
      cwd: REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
