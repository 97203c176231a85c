/**
 * bench/heap-summary.ts: bytes per request by allocation site and by file from a sampling heap
 * profile tree (the format `HeapProfiler.stopSampling` returns), on a hand-built tree.
 */
import t from 'tap';
import { summarizeHeap, summarizeHeapByFile, type HeapProfileNode } from '../../bench/heap-summary.js';

let nextId = 1;
function node(functionName: string, url: string, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode {
  return { callFrame: { functionName, url, lineNumber: 9, columnNumber: 0 }, selfSize, id: nextId++, children };
}

// (root) → handle (100) → parse (300) → push builtin (200); handle → dispatch (400)
const profile = {
  head: node('(root)', '', 0, [
    node('handle', 'file:///x/dist/http/server.js', 100, [
      node('parse', 'file:///x/dist/http/request.js', 300, [node('push', '', 200)]),
      node('dispatch', 'file:///x/dist/api/registry.js', 400),
    ]),
  ]),
};

t.test('sites: self bytes per request with two callers, heaviest first', async (t) => {
  const lines = summarizeHeap(profile, 10, 10);
  t.equal(lines[0], 'sampled 0.0 MB = 100 bytes per request');
  t.match(lines[1]!, /^\s+40 B  dispatch dist\/api\/registry\.js:10  <  handle dist\/http\/server\.js:10  <  \(root\)$/);
  t.match(lines[2]!, /^\s+30 B  parse dist\/http\/request\.js:10  <  handle/);
  t.match(lines[3]!, /^\s+20 B  push  <  parse dist\/http\/request\.js:10  <  handle dist\/http\/server\.js:10$/);
  t.equal(lines.length, 5);
  t.equal(summarizeHeap(profile, 10, 2).length, 3, 'top limits the rows');
});

t.test('files: builtins count to the nearest caller with a file', async (t) => {
  t.strictSame(summarizeHeapByFile(profile, 10, 10), [
    '    50 B  dist/http/request.js',
    '    40 B  dist/api/registry.js',
    '    10 B  dist/http/server.js',
  ]);
});
