/**
 * Scenario files (bench/scenario-file.ts): the shipped ones load; malformed ones are refused with
 * a message naming the file and the offending field; templates fill placeholders and the mix
 * follows its weights.
 */
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarios, parseScenario, requestPicker, ScenarioFileError } from '../../bench/scenario-file.js';
import { REPO_ROOT } from '../support/server-process.js';

const valid = { name: 'x', description: 'd', mode: 'closed', requests: [{ method: 'GET', path: '/api/v1/x' }] };
const refused = (value: unknown, pattern: RegExp, why: string) => {
  t.throws(() => parseScenario(typeof value === 'string' ? value : JSON.stringify(value), 'bad.json'), pattern, why);
  try {
    parseScenario(typeof value === 'string' ? value : JSON.stringify(value), 'bad.json');
  } catch (error) {
    t.ok(error instanceof ScenarioFileError && error.message.startsWith('bad.json: '), `${why}: the message names the file`);
  }
};

t.test('the shipped scenario files are valid', async (t) => {
  const scenarios = loadScenarios(join(REPO_ROOT, 'bench', 'scenarios'));
  const names = scenarios.map((s) => s.name);
  for (const name of ['ceiling', 'send', 'send-wide', 'fetch', 'list', 'search', 'mix-open']) t.ok(names.includes(name), `${name} is there`);
  t.equal(scenarios[0]!.name, 'ceiling', 'files run in name order: the ceiling first');
  t.ok(scenarios.some((s) => s.mode === 'open'), 'an open-loop scenario is shipped');
  t.equal(scenarios.find((s) => s.name === 'send-wide')!.channelSubscribers, 1000, 'send-wide sends to a channel with 1,000 subscribers');
});

t.test('validation errors', async (t) => {
  t.same(parseScenario(JSON.stringify(valid), 'ok.json').name, 'x', 'a minimal file is valid');
  refused('{"name": ', /bad\.json: not JSON/, 'broken JSON');
  refused({ ...valid, mode: 'sideways' }, /\/mode/, 'unknown mode');
  refused({ ...valid, requests: [] }, /\/requests/, 'empty mix');
  refused({ ...valid, requests: [{ method: 'DELETE', path: '/x' }] }, /\/requests\/0\/method/, 'unsupported method');
  refused({ ...valid, requests: [{ method: 'GET', path: 'no-slash' }] }, /\/requests\/0\/path/, 'relative path');
  refused({ ...valid, requests: [{ method: 'GET', path: '/x', weight: 0 }] }, /\/requests\/0\/weight/, 'zero weight');
  refused({ ...valid, connections: 0 }, /\/connections/, 'zero connections');
  refused({ ...valid, Name: 'typo' }, /bad\.json: invalid scenario/, 'unknown field');
  refused({ ...valid, name: 'Has Spaces' }, /\/name/, 'bad name');
  refused({ ...valid, mode: 'open' }, /\/rate: required in open mode/, 'open mode without a rate');
  refused({ ...valid, rate: 100 }, /only in open mode/, 'a rate in closed mode');
  refused({ ...valid, channelSubscribers: 0 }, /\/channelSubscribers/, 'a channel without subscribers');
  refused({ ...valid, channelSubscribers: 2.5 }, /\/channelSubscribers/, 'a fractional subscriber count');
  const { description: _d, ...noDescription } = valid;
  refused(noDescription, /description/, 'missing description');
});

t.test('a directory with a duplicate name or no files is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-scenarios-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.throws(() => loadScenarios(dir), /no scenario files/);
  writeFileSync(join(dir, 'a.json'), JSON.stringify(valid));
  writeFileSync(join(dir, 'b.json'), JSON.stringify(valid));
  t.throws(() => loadScenarios(dir), /b\.json: invalid scenario: \/name: 'x' already used by a\.json/);
});

t.test('templates: placeholders, query encoding, form bodies and weights', async (t) => {
  const next = requestPicker(
    [
      { method: 'POST', path: '/api/v1/messages', form: { to: '{channel}', content: 'm {seq}' }, weight: 3 },
      { method: 'GET', path: '/api/v1/messages', query: { narrow: [{ operator: 'channel', operand: '{channel}' }], anchor: 'newest' }, weight: 1 },
    ],
    { channel: 'Verona' },
    'mix',
    'Basic abc',
  );
  const reqs = Array.from({ length: 8 }, () => next());
  t.equal(reqs.filter((r) => r.method === 'POST').length, 6, 'weights 3:1 over 8 requests');
  const post = reqs.find((r) => r.method === 'POST')!;
  t.equal(new URLSearchParams(post.body).get('to'), 'Verona');
  t.match(new URLSearchParams(post.body).get('content'), /^m \d+$/);
  t.equal(post.headers?.['content-type'], 'application/x-www-form-urlencoded');
  t.equal(post.headers?.authorization, 'Basic abc');
  const contents = new Set(reqs.filter((r) => r.method === 'POST').map((r) => r.body));
  t.equal(contents.size, 6, '{seq} makes every body unique');
  const get = reqs.find((r) => r.method === 'GET')!;
  const query = new URL(`http://x${get.path}`).searchParams;
  t.same(JSON.parse(query.get('narrow')!), [{ operator: 'channel', operand: 'Verona' }], 'objects are JSON-encoded after filling');
  t.throws(() => requestPicker([{ method: 'GET', path: '/m/{missing}' }], {}, 'mix'), /mix: unknown placeholder \{missing\}/, 'unknown placeholders are refused up front');
});
