#!/usr/bin/env node
// Runs the tap suite and ends with the plain summary line CI reads: "N passed, M failed".
// tap's own summary ("# { total, pass, fail }") counts assertions; we re-print it in that form.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const child = spawn('npx', ['tap', '--reporter=tap', ...process.argv.slice(2)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let summary = null;
const lines = createInterface({ input: child.stdout });
lines.on('line', (line) => {
  process.stdout.write(line + '\n');
  const m = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(line);
  if (m) summary = { pass: Number(m[2]), fail: Number(m[3] ?? 0) };
});
child.on('close', (code) => {
  const pass = summary?.pass ?? 0;
  const fail = summary ? summary.fail : 1; // no summary = the runner itself broke
  console.log(`${pass} passed, ${fail} failed`);
  process.exit(code === 0 && fail === 0 && summary ? 0 : 1);
});
