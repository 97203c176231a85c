/**
 * Reads a V8 sampling heap profile (`HeapProfiler.stopSampling`, Chrome DevTools `.heapprofile`
 * format) into bytes per request by allocation site, for bench/profile.ts `--heap-prof`.
 */

/** One node of the allocation call tree: bytes sampled in this frame itself (`selfSize`, bytes). */
export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  id: number;
  children: HeapProfileNode[];
}

/** `HeapProfiler.SamplingHeapProfile` (samples omitted: only the tree is read). */
export interface SamplingHeapProfile {
  head: HeapProfileNode;
}

function frameName(node: HeapProfileNode): string {
  const f = node.callFrame;
  const where = f.url === '' ? '' : ` ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
  return `${f.functionName || '(anonymous)'}${where}`;
}

/**
 * Lines of text: total bytes per request, then the `top` allocation sites by self bytes per request,
 * each with its two nearest callers (the site alone is often a generic helper).
 */
export function summarizeHeap(profile: SamplingHeapProfile, requests: number, top: number): string[] {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapProfileNode, parents: string[]): void => {
    const name = frameName(node);
    if (node.selfSize > 0) {
      const key = [name, ...parents.slice(-2).reverse()].join('  <  ');
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    parents.push(name);
    for (const child of node.children) walk(child, parents);
    parents.pop();
  };
  walk(profile.head, []);
  const perRequest = (bytes: number) => (bytes / requests).toFixed(0).padStart(6);
  const rows = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [`sampled ${(total / 1e6).toFixed(1)} MB = ${perRequest(total).trim()} bytes per request`, ...rows.map(([site, bytes]) => `${perRequest(bytes)} B  ${site}`)];
}

/**
 * Lines of text: bytes per request by source file, builtins (no file) counted to the nearest
 * caller that has one, heaviest `top` first: which module's code allocates.
 */
export function summarizeHeapByFile(profile: SamplingHeapProfile, requests: number, top: number): string[] {
  const byFile = new Map<string, number>();
  const walk = (node: HeapProfileNode, owner: string): void => {
    const url = node.callFrame.url;
    const file = url === '' ? owner : url.replace(/^.*\/(node_modules\/[^/]+|dist)\//, '$1/');
    if (node.selfSize > 0) byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, file);
  };
  walk(profile.head, '(root)');
  return [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top).map(([file, bytes]) => `${(bytes / requests).toFixed(0).padStart(6)} B  ${file}`);
}
