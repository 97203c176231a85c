/**
 * `parley verify --data-dir D` (README): checks a data directory (storage/verify.ts), drawing a
 * progress bar on a terminal (stderr, only when it is a TTY), then prints a summary and every
 * problem. Exit code 0 for a sound store, 1 if anything is damaged.
 */
import { verifyDataDir, type VerifyProgress } from './verify.js';

const BAR_WIDTH = 30;

function bar({ done, total }: VerifyProgress): string {
  const fraction = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(fraction * BAR_WIDTH);
  return `\r[${'#'.repeat(filled)}${' '.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% ${done}/${total} records and bodies`;
}

/** Runs the check and returns the process exit code. */
export async function runVerify(dataDir: string, out: (line: string) => void = console.log): Promise<number> {
  const tty = process.stderr.isTTY === true;
  const report = await verifyDataDir(dataDir, (p) => {
    if (tty) process.stderr.write(bar(p));
  });
  if (tty) process.stderr.write('\n');
  out(
    `verified ${dataDir}: ${report.realms} realm(s), ${report.snapshots} snapshot(s), ` +
      `${report.records} log record(s), ${report.bodies} message bodies`,
  );
  if (report.problems.length === 0) {
    out('no damage found');
    return 0;
  }
  out(`DAMAGED: ${report.problems.length} problem(s):`);
  for (const problem of report.problems) out(`  - ${problem}`);
  out('Restore the data directory from a backup.');
  return 1;
}
