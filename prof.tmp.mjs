import { zulipRenderer } from './dist/markdown/zulip-renderer.js';
import { fixtureContext, TEST_REALM_URL } from './dist/markdown/conformance.js';
const unit = process.argv[2].replace(/\\n/g, '\n');
const input = unit.repeat(Math.floor(10000 / unit.length));
const env = () => ({ realmUrl: TEST_REALM_URL, zulip: fixtureContext(true), work: { used: 0, limit: Infinity } });
for (let i = 0; i < 5; i++) zulipRenderer.render(input, env());
let best = Infinity;
for (let i = 0; i < 40; i++) { const c = process.cpuUsage(); zulipRenderer.render(input, env()); const d = process.cpuUsage(c); best = Math.min(best, (d.user + d.system) / 1000); }
console.log(JSON.stringify(unit), 'best cpu-ms/render', best.toFixed(2));
