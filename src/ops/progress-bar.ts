/**
 * A terminal progress bar (cli-progress) for `parley backup` / `restore`, drawn on stderr only when
 * stderr is a terminal; otherwise nothing is drawn (logs and pipes get the final summary line only).
 */
import cliProgress from 'cli-progress';
import { NO_PROGRESS, type Progress } from './backup.js';

/** A bar on `stream` when it is a TTY, else `NO_PROGRESS`. Byte phases show MiB. */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return NO_PROGRESS;
  const bar = new cliProgress.SingleBar(
    { stream, format: '{phase} [{bar}] {percentage}% {value}/{total}{unit}', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  let scale = 1;
  let unit = '';
  return {
    startPhase(name, total) {
      if (running) bar.stop();
      running = true;
      // The store phase reports bytes; its total arrives with the first update.
      scale = name === 'store' ? 1024 * 1024 : 1;
      unit = name === 'store' ? ' MiB' : ' files';
      bar.start(total, 0, { phase: name.padEnd(9), unit });
    },
    update(done, total) {
      if (total !== undefined) bar.setTotal(Math.max(1, Math.ceil(total / scale)));
      bar.update(Math.floor(done / scale), { unit });
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}
