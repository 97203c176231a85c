/**
 * bench/server-cpu.ts against this very process: CPU burnt on the main thread shows in both the
 * main-thread and the process figures; CPU burnt on a worker thread only in the process figure
 * (what tells a CPU-bound main thread from busy helper threads); unavailable samples give no figure.
 */
import t from 'tap';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuBetween, sampleCpu } from '../../bench/server-cpu.js';

/**
 * Spins the calling thread until it has used `ticks` clock ticks (10 ms) of its own CPU time, read
 * from /proc/thread-self/stat: the same CPU however loaded the machine is (a wall-clock spin got a
 * quarter of a core while the whole suite ran). A string, so a worker can run it too.
 */
const SPIN_SOURCE = `
  const { readFileSync } = require('node:fs');
  const cpuTicks = () => {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const spinTicks = (ticks) => {
    const until = cpuTicks() + ticks;
    while (cpuTicks() < until) for (let i = 0; i < 1e5; i++);
  };`;
const spinTicks = new Function('require', `${SPIN_SOURCE}; return spinTicks;`)(createRequire(import.meta.url)) as (ticks: number) => void;

t.test('main-thread CPU counts in both figures', async (t) => {
  const before = sampleCpu(process.pid);
  t.ok(before, '/proc is readable');
  spinTicks(40);
  const cpu = cpuBetween(before, sampleCpu(process.pid), 1000)!;
  t.ok(cpu.mainThreadBusy > 0 && cpu.mainThreadBusy <= 1.1, `main thread busy ${cpu.mainThreadBusy.toFixed(2)}`);
  t.ok(cpu.mainUsPerRequest >= 390, `≥ 390 µs per request of 400 ms of CPU over 1000 requests (${cpu.mainUsPerRequest})`);
  t.ok(cpu.processUsPerRequest >= cpu.mainUsPerRequest, 'the process includes its main thread');
});

t.test('a worker thread counts in the process figure only', async (t) => {
  const worker = new Worker(`${SPIN_SOURCE}; spinTicks(30);`, { eval: true });
  const before = sampleCpu(process.pid);
  await new Promise((resolve) => worker.once('exit', resolve));
  await sleep(50);
  const cpu = cpuBetween(before, sampleCpu(process.pid), 1)!;
  const mainSec = cpu.mainUsPerRequest / 1e6;
  const processSec = cpu.processUsPerRequest / 1e6;
  t.ok(processSec - mainSec >= 0.29, `the worker's 300 ms spin is in the process figure (${processSec.toFixed(2)} s) and not the main thread's (${mainSec.toFixed(2)} s)`);
  t.ok(cpu.mainThreadBusy < 0.5, `the waiting main thread is mostly idle (${cpu.mainThreadBusy.toFixed(2)})`);
});

t.test('no figure without samples or requests', async (t) => {
  const gone = 2 ** 22 + 12345; // above the default pid_max: never a live process
  t.equal(sampleCpu(gone), undefined, 'no such process');
  const sample = sampleCpu(process.pid);
  t.equal(cpuBetween(undefined, sample, 10), undefined);
  t.equal(cpuBetween(sample, undefined, 10), undefined);
  t.equal(cpuBetween(sample, sample, 0), undefined, 'nothing answered');
});
