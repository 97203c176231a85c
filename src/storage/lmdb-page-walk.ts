/**
 * Walks LMDB's B-trees in the data file with plain reads, before LMDB maps it: a
 * zeroed or overwritten branch or leaf page makes LMDB abort the process (SIGABRT) or fail a
 * transaction deep inside recovery; here it is found first and refused with a `DataDirError`.
 *
 * From the current meta page's free-page and main trees, every reachable page is read once: its
 * header must carry its own page number and a branch/leaf flag, its node table must fit the page,
 * branch children and overflow runs must lie within the meta page's last page, and the named
 * databases (leaf nodes flagged F_SUBDATA in the main tree) are walked the same way. Overflow
 * pages (large values) are checked by their header only; their bytes are covered by parley's own
 * CRCs. Layout facts as in lmdb-file-check.ts (mdb.c `MDB_node`: `mn_lo`, `mn_hi` u16, `mn_flags`
 * u16, `mn_ksize` u16, then key and data; a branch node's child page is lo | hi<<16 | flags<<32;
 * `NODEPTR(p, i)` = p + mp_ptrs[i] + PAGEBASE (= header size); F_BIGDATA 0x01, F_SUBDATA 0x02).
 */
import { DataDirError } from './data-dir-error.js';
import { NO_PAGE, P_BRANCH, P_LEAF, P_OVERFLOW, PAGE_HEADER_BYTES, PageFile, type LmdbFileInfo } from './lmdb-file-check.js';

const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const NODE_HEADER_BYTES = 8;
const MAX_DEPTH = 64;

/** What the walk saw. */
export interface PageWalkStats {
  branchPages: number;
  leafPages: number;
  overflowRuns: number;
  trees: number;
}

/**
 * Walks every tree of the file described by `info` (from `inspectLmdbFile`). Throws `DataDirError`
 * naming the file and the first damaged page.
 */
export function walkLmdbPages(dataDir: string, info: LmdbFileInfo): PageWalkStats {
  const { pageSize, current, path } = info;
  const lastPage = current.lastPage;
  const file = new PageFile(path);
  const stats: PageWalkStats = { branchPages: 0, leafPages: 0, overflowRuns: 0, trees: 0 };
  const seen = new Set<number>();
  const headerBuffer = Buffer.alloc(PAGE_HEADER_BYTES);
  const truncated = (page: bigint | number) =>
    new DataDirError(dataDir, path, `${path} is truncated: page ${page}, in use, is beyond its end (${file.fileBytes} bytes)`);
  const damaged = (page: bigint | number, why: string) =>
    new DataDirError(dataDir, path, `${path} has a damaged page ${page} (${why})`);
  const walkTree = (root: bigint, subdatabases: boolean): void => {
    if (root === NO_PAGE) return;
    stats.trees++;
    const buffer = Buffer.alloc(pageSize); // one page at a time per tree: reused
    const stack: Array<[page: bigint, depth: number]> = [[root, 1]];
    while (stack.length > 0) {
      const [pgno, depth] = stack.pop()!;
      if (pgno < 2n || pgno > lastPage) throw damaged(pgno, `a page number beyond the last page ${lastPage}`);
      const n = Number(pgno);
      if (seen.has(n)) throw damaged(pgno, 'reached twice: the tree has a cycle');
      seen.add(n);
      if (depth > MAX_DEPTH) throw damaged(pgno, 'the tree is deeper than LMDB allows');
      const page = file.read(n * pageSize, pageSize, buffer);
      if (page.length < pageSize) throw truncated(pgno);
      const flags = page.readUInt16LE(18);
      if (page.readBigUInt64LE(0) !== pgno || (flags & (P_BRANCH | P_LEAF)) === 0 || (flags & (P_BRANCH | P_LEAF)) === (P_BRANCH | P_LEAF)) {
        throw damaged(pgno, 'zeroed or overwritten: its header is not a B-tree page of that number');
      }
      const lower = page.readUInt16LE(20);
      const upper = page.readUInt16LE(22);
      if (lower > upper || upper > pageSize - PAGE_HEADER_BYTES || lower % 2 !== 0) throw damaged(pgno, `impossible free-space bounds ${lower}..${upper}`);
      const keys = lower >> 1;
      if (flags & P_BRANCH) stats.branchPages++;
      else stats.leafPages++;
      for (let i = 0; i < keys; i++) {
        const at = PAGE_HEADER_BYTES + page.readUInt16LE(PAGE_HEADER_BYTES + 2 * i);
        if (at < PAGE_HEADER_BYTES + lower || at + NODE_HEADER_BYTES > pageSize) throw damaged(pgno, `node ${i} lies outside the page`);
        const lo = page.readUInt16LE(at);
        const hi = page.readUInt16LE(at + 2);
        const nodeFlags = page.readUInt16LE(at + 4);
        const keySize = page.readUInt16LE(at + 6);
        if (flags & P_BRANCH) {
          stack.push([BigInt(lo) | (BigInt(hi) << 16n) | (BigInt(nodeFlags) << 32n), depth + 1]);
          continue;
        }
        const dataAt = at + NODE_HEADER_BYTES + keySize;
        if (nodeFlags & F_BIGDATA) {
          if (dataAt + 8 > pageSize) throw damaged(pgno, `node ${i} lies outside the page`);
          const overflow = page.readBigUInt64LE(dataAt);
          if (overflow < 2n || overflow > lastPage) throw damaged(pgno, `node ${i} points to page ${overflow}, beyond the last page`);
          const header = file.read(Number(overflow) * pageSize, PAGE_HEADER_BYTES, headerBuffer);
          if (header.length < PAGE_HEADER_BYTES) throw truncated(overflow);
          const pages = header.readUInt32LE(20);
          if (header.length < PAGE_HEADER_BYTES || header.readBigUInt64LE(0) !== overflow || (header.readUInt16LE(18) & P_OVERFLOW) === 0 || pages < 1 || overflow + BigInt(pages) - 1n > lastPage) {
            throw damaged(overflow, 'zeroed or overwritten: not the overflow page a value points to');
          }
          if ((Number(overflow) + pages) * pageSize > file.fileBytes) throw truncated(Number(overflow) + pages - 1);
          stats.overflowRuns++;
        } else if (subdatabases && nodeFlags & F_SUBDATA) {
          if (dataAt + 48 > pageSize) throw damaged(pgno, `node ${i} lies outside the page`);
          walkTree(page.readBigUInt64LE(dataAt + 40), false);
        }
      }
    }
  };
  try {
    walkTree(current.free.root, false);
    walkTree(current.main.root, true);
  } finally {
    file.close();
  }
  return stats;
}
