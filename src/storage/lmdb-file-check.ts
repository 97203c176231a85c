/**
 * Checks LMDB's data file before LMDB maps it: LMDB trusts its file, so a truncated
 * file faults with SIGBUS when a page past the end is touched, a zeroed root page aborts inside
 * LMDB, and a flipped bit in a meta page's transaction id makes LMDB pick the older meta page and
 * silently open an older state. Here the file is read with plain `pread`s and refused with a
 * `DataDirError` naming the file instead.
 *
 * Layout facts (lmdb-js's LMDB fork, `dependencies/lmdb/libraries/liblmdb/mdb.c`, 64-bit build):
 * - page header `MDB_page_header` (24 bytes): `mp_pgno` u64 @0, `mh_txnid` u64 @8, `mp_pad` u16
 *   @16, `mp_flags` u16 @18, `mp_lower`/`mp_upper` u16 @20/@22 (or `mp_pages` u32 @20 on
 *   overflow pages); flags P_BRANCH 0x01, P_LEAF 0x02, P_OVERFLOW 0x04, P_META 0x08;
 * - pages 0 and 1 are meta pages; `MDB_meta` follows the header: `mm_magic` u32 (0xBEEFC0DE),
 *   `mm_version` u32 (low 16 bits = MDB_DATA_VERSION 2), `mm_address` u64, `mm_mapsize` u64,
 *   `mm_dbs[2]` (`MDB_db`, 48 bytes each: `md_pad` u32 = page size for the free DB, `md_flags`
 *   u16, `md_depth` u16, branch/leaf/overflow page counts, `md_entries`, `md_root` u64 @40),
 *   `mm_last_pg` u64, `mm_txnid` u64, `boot_id` i64;
 * - "Transaction N writes meta page #(N % 2)" (mdb_env_write_meta: `toggle = txnid & 1`), so meta
 *   page 0 holds an even txnid, page 1 an odd one (or 0 before the first commit), and the two
 *   differ by exactly 1 once a transaction has committed — except in a new or compacted file
 *   (mdb_env_copyfd1 writes an odd txnid to page 1 and leaves page 0 at 0). LMDB opens the meta
 *   with the larger txnid.
 * All integers are little-endian (x86-64 and arm64).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError } from './data-dir-error.js';

/** LMDB's data file inside the data directory. */
export const LMDB_DATA_FILE = 'data.mdb';

const MDB_MAGIC = 0xbeefc0de;
const MDB_DATA_VERSION = 2;
/** Bytes of LMDB's page header. */
export const PAGE_HEADER_BYTES = 24;
export const P_BRANCH = 0x01;
export const P_LEAF = 0x02;
export const P_OVERFLOW = 0x04;
export const P_META = 0x08;
/** `P_INVALID`: the root of an empty tree. */
export const NO_PAGE = 0xffff_ffff_ffff_ffffn;

/** One B-tree root as recorded in a meta page (`MDB_db`). */
export interface TreeRoot {
  depth: number;
  entries: bigint;
  /** Root page number, or `NO_PAGE` for an empty tree. */
  root: bigint;
}

/** One of the two meta pages. */
export interface MetaPage {
  page: 0 | 1;
  pageSize: number;
  lastPage: bigint;
  txnid: bigint;
  free: TreeRoot;
  main: TreeRoot;
}

/** What the check found in a sound data file. */
export interface LmdbFileInfo {
  path: string;
  fileBytes: number;
  pageSize: number;
  /** The meta page LMDB will open (larger txnid). */
  current: MetaPage;
  /** The other meta page (the previous transaction). */
  previous: MetaPage;
}

/** `absent`: no data file; `empty`: a 0-byte file (LMDB would silently create a new store in it). */
export type LmdbFileState = { kind: 'absent' } | { kind: 'empty'; path: string } | { kind: 'sound'; info: LmdbFileInfo };

/** Positional reads of a data file (also used by the page walk of `parley verify`). */
export class PageFile {
  readonly fileBytes: number;
  private readonly fd: number;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
    this.fileBytes = fstatSync(this.fd).size;
  }

  /** `length` bytes at `offset` (shorter at the end of the file), into `into` if given (reused). */
  read(offset: number, length: number, into?: Buffer): Buffer {
    const buf = into !== undefined && into.length >= length ? into.subarray(0, length) : Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.fd, buf, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return got === length ? buf : buf.subarray(0, got);
  }

  close(): void {
    closeSync(this.fd);
  }
}

function readTree(buf: Buffer, at: number): TreeRoot {
  return { depth: buf.readUInt16LE(at + 6), entries: buf.readBigUInt64LE(at + 32), root: buf.readBigUInt64LE(at + 40) };
}

/** Decodes meta page `page` from its bytes, or returns why it is not a meta page. */
function parseMeta(buf: Buffer, page: 0 | 1): MetaPage | string {
  if (buf.length < PAGE_HEADER_BYTES + 144) return `meta page ${page} is cut off`;
  const m = PAGE_HEADER_BYTES;
  if (buf.readBigUInt64LE(0) !== BigInt(page) || (buf.readUInt16LE(18) & P_META) === 0) return `page ${page} is not a meta page`;
  if (buf.readUInt32LE(m) !== MDB_MAGIC) return `meta page ${page} has no LMDB magic number`;
  if ((buf.readUInt32LE(m + 4) & 0xffff) !== MDB_DATA_VERSION) return `meta page ${page} has an unknown LMDB version ${buf.readUInt32LE(m + 4) & 0xffff}`;
  const pageSize = buf.readUInt32LE(m + 24);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return `meta page ${page} has an impossible page size ${pageSize}`;
  return {
    page,
    pageSize,
    free: readTree(buf, m + 24),
    main: readTree(buf, m + 72),
    lastPage: buf.readBigUInt64LE(m + 120),
    txnid: buf.readBigUInt64LE(m + 128),
  };
}

/**
 * Inspects `<dataDir>/data.mdb` without opening it with LMDB: absent, empty, or sound (both meta
 * pages well-formed and consistent, the file long enough for every page they reference, root
 * pages in place). Throws `DataDirError` naming the file and the damage found (truncated file,
 * zeroed or overwritten meta page, meta pages whose transaction ids do not pair up, a root page
 * that is not a B-tree page); other I/O errors (EACCES…) are thrown as they are.
 */
export function inspectLmdbFile(dataDir: string): LmdbFileState {
  const path = join(dataDir, LMDB_DATA_FILE);
  let file: PageFile;
  try {
    file = new PageFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw error;
  }
  try {
    if (file.fileBytes === 0) return { kind: 'empty', path };
    const damaged = (problem: string): DataDirError => new DataDirError(dataDir, path, `${path} ${problem}`);
    const first = file.read(0, 4096);
    const m0 = parseMeta(first, 0);
    if (typeof m0 === 'string') throw damaged(`is not a sound LMDB file (${m0})`);
    const second = file.read(m0.pageSize, 4096);
    const m1 = parseMeta(second, 1);
    if (typeof m1 === 'string') throw damaged(`is not a sound LMDB file (${m1})`);
    if (m1.pageSize !== m0.pageSize) throw damaged(`has meta pages that disagree on the page size (${m0.pageSize} and ${m1.pageSize})`);
    const { pageSize } = m0;
    // Meta page k holds txnids with parity k; the two are consecutive once anything committed,
    // except that a new or compacted file (mdb_env_copy) has page 0 still at txnid 0.
    const paired =
      m0.txnid % 2n === 0n &&
      (m1.txnid % 2n === 1n || m1.txnid === 0n) &&
      (m0.txnid - m1.txnid === 1n || m1.txnid - m0.txnid === 1n || m0.txnid === 0n);
    if (!paired) {
      throw damaged(`has meta pages with transaction ids ${m0.txnid} and ${m1.txnid}, which cannot both be right (a flipped bit would make LMDB open an older state)`);
    }
    const [current, previous] = m0.txnid >= m1.txnid ? [m0, m1] : [m1, m0];
    if (file.fileBytes < 2 * pageSize) throw damaged(`is truncated: it has ${file.fileBytes} bytes, less than its two meta pages`);
    // The file may legitimately end before `lastPage` when the last pages are free and were never
    // written (mdb.c: "the file may be shorter if the freeDB lists the final pages"); every page
    // in use is checked against the file's end by the page walk.
    for (const meta of [current, previous]) {
      if (meta.lastPage < 1n) throw damaged(`has a malformed meta page ${meta.page} (last page ${meta.lastPage})`);
      for (const [name, tree] of [['free-page', meta.free], ['main', meta.main]] as const) {
        if (tree.root !== NO_PAGE && (tree.root < 2n || tree.root > meta.lastPage || tree.depth < 1 || tree.depth > 64)) {
          throw damaged(`has a malformed meta page ${meta.page} (${name} tree root ${tree.root}, depth ${tree.depth}, last page ${meta.lastPage})`);
        }
      }
    }
    for (const [name, tree] of [['free-page', current.free], ['main', current.main]] as const) {
      if (tree.root === NO_PAGE) continue;
      const header = file.read(Number(tree.root) * pageSize, PAGE_HEADER_BYTES);
      if (header.length < PAGE_HEADER_BYTES) throw damaged(`is truncated: the root page ${tree.root} of LMDB's ${name} tree is beyond its end (${file.fileBytes} bytes)`);
      const flags = header.readUInt16LE(18);
      if (header.readBigUInt64LE(0) !== tree.root || (flags & (P_BRANCH | P_LEAF)) === 0) {
        throw damaged(`has a damaged page ${tree.root} (the root of LMDB's ${name} tree is zeroed or overwritten)`);
      }
    }
    return { kind: 'sound', info: { path, fileBytes: file.fileBytes, pageSize, current, previous } };
  } finally {
    file.close();
  }
}
