import t, { type Test } from 'tap';
import { CHUNK_HEADER_BYTES, CODEC_VERSION, crc32, decodeRecord, encodeRecord, openChunk, sealChunk, StorageCorruptionError } from '../../src/storage/codec.js';

t.test('round trip keeps the record', async (t) => {
  const record = { type: 'message_sent', v: 1, id: 42, topic: 'héllo', flags: [1, 2, 3], nested: { a: null, b: true }, big: 2 ** 40 };
  const bytes = encodeRecord(record);
  t.equal(bytes[0], CODEC_VERSION);
  t.same(decodeRecord(bytes), record);
});

t.test('crc32 is the IEEE CRC-32', async (t) => {
  t.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
});

t.test('a flipped payload byte fails the CRC check, naming realm and seq', async (t) => {
  const bytes = encodeRecord({ type: 'x', v: 1, text: 'some payload' });
  bytes[bytes.length - 2]! ^= 0x40;
  let error: unknown;
  try {
    decodeRecord(bytes, { realmId: 3, seq: 17 });
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof StorageCorruptionError);
  const e = error as StorageCorruptionError;
  t.equal(e.check, 'crc');
  t.equal(e.realmId, 3);
  t.equal(e.seq, 17);
  t.match(e.message, /realm 3, log record seq 17: CRC mismatch/);
});

t.test('truncation is detected', async (t) => {
  const bytes = encodeRecord({ type: 'x', v: 1, text: 'some payload' });
  t.throws(() => decodeRecord(bytes.subarray(0, bytes.length - 3)), { name: 'StorageCorruptionError', check: 'crc' });
  t.throws(() => decodeRecord(bytes.subarray(0, 4)), { name: 'StorageCorruptionError', check: 'truncated' });
  t.throws(() => decodeRecord(new Uint8Array(0)), { name: 'StorageCorruptionError', check: 'truncated' });
});

t.test('an unknown codec version is rejected', async (t) => {
  const bytes = encodeRecord({ type: 'x', v: 1 });
  bytes[0] = CODEC_VERSION + 1;
  t.throws(() => decodeRecord(bytes, { realmId: 1, what: 'snapshot core' }), {
    check: 'version',
    message: /realm 1, snapshot core: unknown codec version/,
  });
});

t.test('a non-object payload is rejected even with a valid CRC', async (t) => {
  // Build a blob whose msgpack payload is the number 7 (0x07) with a correct CRC.
  const payload = new Uint8Array([0x07]);
  const bytes = new Uint8Array(6);
  bytes[0] = CODEC_VERSION;
  new DataView(bytes.buffer).setUint32(1, crc32(payload));
  bytes.set(payload, 5);
  t.throws(() => decodeRecord(bytes), { name: 'StorageCorruptionError', check: 'shape' });
});

t.test('encodeRecord refuses non-objects', async (t) => {
  t.throws(() => encodeRecord(null as unknown as object), TypeError);
});

t.test('crc32 with a seed continues a CRC', async (t) => {
  const enc = new TextEncoder();
  t.equal(crc32(enc.encode('56789'), crc32(enc.encode('1234'))), 0xcbf43926);
});

t.test('crc32 is the same CRC on both sides of the native-call size threshold', async (t) => {
  // Lengths around 512 bytes (where zlib's native CRC takes over), continued from a short and a long prefix.
  let x = 12345;
  const random = (n: number) => Uint8Array.from({ length: n }, () => (x = (x * 1103515245 + 12345) >>> 0) >>> 24);
  const bitwise = (bytes: Uint8Array, crc = 0): number => {
    crc = ~crc >>> 0;
    for (const b of bytes) {
      crc ^= b;
      for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
    }
    return ~crc >>> 0;
  };
  for (const n of [0, 1, 511, 512, 513, 4096, 100_000]) {
    const bytes = random(n);
    t.equal(crc32(bytes), bitwise(bytes), `${n} bytes`);
    const head = random(n % 700);
    t.equal(crc32(bytes, crc32(head)), bitwise(bytes, bitwise(head)), `${n} bytes after ${head.length}`);
  }
});

t.test('a sealed chunk carries the CRC of "<realmId>/<name>/<chunkNo>" then its bytes, and opens only there', async (t) => {
  const encoder = new TextEncoder();
  for (const name of ['um:ids:17', 'msg:sender', 'é名', '']) {
    for (const chunkNo of [0, 7, 10, 99_999, 4_294_967_295]) {
      const blob = new Uint8Array(CHUNK_HEADER_BYTES + 40).map((_, i) => (i * 31) & 0xff);
      sealChunk(blob, 3, name, chunkNo);
      const place = encoder.encode(`3/${name}/${chunkNo}`);
      const reference = crc32(blob.subarray(CHUNK_HEADER_BYTES), crc32(place));
      t.equal(new DataView(blob.buffer).getUint32(1), reference, `${JSON.stringify(name)} chunk ${chunkNo}`);
      t.same(openChunk(blob, 3, name, chunkNo, 40, {}), blob.subarray(CHUNK_HEADER_BYTES));
      t.throws(() => openChunk(blob, 3, name, chunkNo + 1, 40, {}), StorageCorruptionError, 'another chunk number fails');
      t.throws(() => openChunk(blob, 4, name, chunkNo, 40, {}), StorageCorruptionError, 'another realm fails');
    }
  }
});
