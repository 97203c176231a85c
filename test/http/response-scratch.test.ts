/**
 * Response bodies assembled in one reused buffer (api/raw-json.ts `ScratchBuffer`, used by
 * http/response.ts): the buffer's own contract, and the property that makes reusing it safe — uWS
 * keeps its own copy of whatever part of a body it could not send at once, so a body that sits
 * in backpressure is not changed by the next response assembled in the same buffer.
 */
import t from 'tap';
import { connect } from 'node:net';
import { concatUtf8, encodeBody, RawJson, ScratchBuffer } from '../../src/api/raw-json.js';
import { startHttpServer } from '../../src/http/server.js';

t.test('ScratchBuffer: exact-length views of one buffer up to maxBytes, new buffers beyond, the pool below 4 KiB', async (t) => {
  const KIB = 1024;
  const scratch = new ScratchBuffer(64 * KIB, 8 * KIB);
  const a = scratch.take(5 * KIB);
  t.equal(a.length, 5 * KIB);
  const b = scratch.take(6 * KIB);
  t.equal(b.buffer, a.buffer, 'the same memory again');
  const grown = scratch.take(20 * KIB);
  t.equal(grown.length, 20 * KIB);
  t.not(grown.buffer, a.buffer, 'grown when too small');
  t.equal(scratch.take(10 * KIB).buffer, grown.buffer, 'and reused after growing');
  const capped = scratch.take(64 * KIB);
  t.equal(capped.length, 64 * KIB, 'grown at most to maxBytes');
  const big = scratch.take(64 * KIB + 1);
  t.equal(big.length, 64 * KIB + 1);
  t.not(big.buffer, capped.buffer, 'over maxBytes: its own allocation');
  t.equal(scratch.take(5 * KIB).buffer, capped.buffer, 'which does not replace the scratch');
  const small = scratch.take(100);
  t.equal(small.length, 100);
  t.not(small.buffer, capped.buffer, 'a small body: not the scratch');
  t.equal(small.buffer.byteLength, Buffer.poolSize, "but Node's shared pool");
});

t.test('encodeBody writes the same bytes into a scratch as into its own buffer', async (t) => {
  const scratch = new ScratchBuffer(1 << 20);
  const cases: Array<[object, unknown]> = [
    [{ result: 'success', messages: new RawJson(['[', new TextEncoder().encode('{"id":1,"content":"é ✓"}'), ']']) }, { result: 'success', messages: [{ id: 1, content: 'é ✓' }] }],
    [{ result: 'success', big: new RawJson(['"', Buffer.alloc(10_000, 'x'), '"']), anchor: 5 }, { result: 'success', big: 'x'.repeat(10_000), anchor: 5 }],
  ];
  for (const [body, parsed] of cases) {
    const own = encodeBody(body);
    const scratched = encodeBody(body, scratch);
    t.same(Buffer.from(scratched as Buffer), own, 'same bytes');
    t.same(JSON.parse(String(scratched)), parsed, 'the JSON meant');
  }
  t.equal(concatUtf8(['ab', new Uint8Array([0x63])], scratch).toString(), 'abc');
});

/**
 * Counts the "a" and "z" bytes `socket` receives until it has at least `aBytes` "a" bytes and its
 * data ends with a body's end (`"}` and a newline).
 */
function countLetters(socket: import('node:net').Socket, aBytes: number): Promise<{ a: number; z: number }> {
  return new Promise((resolve, reject) => {
    let a = 0;
    let z = 0;
    socket.on('data', (chunk: Buffer) => {
      for (const byte of chunk) {
        if (byte === 0x61) a++;
        else if (byte === 0x7a) z++;
      }
      if (a >= aBytes && chunk.subarray(-3).toString() === '"}\n') resolve({ a, z });
    });
    socket.once('error', reject);
  });
}

t.test('a body held back by a slow client is not changed by the next response', async (t) => {
  const BODY = 900 * 1024; // under the scratch's 1 MiB: assembled in it
  const bodyOf = (letter: string) => ({ result: 'success', data: new RawJson(['"', Buffer.alloc(BODY, letter), '"']) });
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    dispatch: (req) => ({ status: 200, body: bodyOf(req.path.endsWith('/slow') ? 'a' : 'z') }),
  });
  t.teardown(() => server.close());

  // Eight pipelined requests whose answers (7 MB) cannot all fit in the kernel's socket buffers
  // while this client reads nothing: uWS holds the rest.
  const REQUESTS = 8;
  const slow = connect(server.port, '127.0.0.1');
  t.teardown(() => slow.destroy());
  await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
  slow.pause();
  slow.write('GET /api/v1/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(REQUESTS));
  await new Promise((resolve) => setTimeout(resolve, 200));

  // Meanwhile other responses are assembled in the same scratch.
  for (let i = 0; i < 3; i++) {
    const reply = await fetch(`http://127.0.0.1:${server.port}/api/v1/fast`);
    const text = await reply.text();
    t.equal(text.length, BODY + '{"result":"success","data":""}\n'.length, `fast response ${i + 1} is whole`);
  }

  const expected = REQUESTS * BODY;
  const received = countLetters(slow, expected);
  slow.resume();
  const { a, z } = await received;
  t.equal(z, 0, 'no byte of the later responses in the held-back ones');
  t.ok(a >= expected, `every held-back body arrived whole (${a} "a" bytes, bodies ${expected})`);
});
