/**
 * The printed nginx site keeps a quiet event socket open past nginx's default 60 s
 * `proxy_read_timeout` (issue 13 §1: clients wait on parley far longer than a minute). Two nginx
 * instances run side by side in front of one parley: the one with the site `parley print-config
 * nginx` prints, and a control with that site minus its timeouts (nginx's defaults). A socket
 * through each stays silent for 65 s; the control's is cut by nginx, the printed site's still
 * delivers the next event. (A long-poll is answered by a heartbeat within 55 s, so a socket is
 * how to hold a client past 60 s.) Idle waiting costs no CPU; the file has its own timeout.
 */
import t from 'tap';
import WebSocket from 'ws';
import { api, fetchApiKey, basicAuth, runCli, startServer, DEFAULT_DEMO_PASSWORD } from '../support/server-process.js';
import { findNginx, freePort, selfSignedCertificate, startNginx, tempDir } from '../support/nginx.js';

/** Longer than nginx's default proxy_read_timeout (60 s). */
const QUIET_MS = 65_000;

const tools = findNginx();
if ('missing' in tools) {
  t.comment(`SKIP nginx idle-socket test: ${tools.missing}`);
  t.pass(`skipped: ${tools.missing}`);
} else {
  t.setTimeout(QUIET_MS + 90_000);
  t.test('an event socket through nginx outlives nginx\'s default 60 s read timeout', async (t) => {
    const printedPort = await freePort();
    const controlPort = await freePort();
    const parley = await startServer({ t, args: ['--external-url', `https://127.0.0.1:${printedPort}`] });
    const sites: Record<'printed' | 'control', { port: number; ws?: WebSocket; closedAt?: number; frames: string[] }> = {
      printed: { port: printedPort, frames: [] },
      control: { port: controlPort, frames: [] },
    };
    const key = (await fetchApiKey(parley.url, 'hamlet@zulip.com', DEFAULT_DEMO_PASSWORD)).api_key;
    const auth = basicAuth('hamlet@zulip.com', key);
    for (const [name, site] of Object.entries(sites)) {
      const dir = tempDir(t, `parley-nginx-${name}-`);
      const tls = selfSignedCertificate(tools.openssl, dir);
      const printed = await runCli([
        'print-config', 'nginx', '--external-url', `https://127.0.0.1:${site.port}`, '--port', String(parley.port),
        '--listen-address', '127.0.0.1', '--tls-cert', tls.certPath, '--tls-key', tls.keyPath,
      ]);
      t.equal(printed.code, 0, printed.stderr);
      const config = name === 'printed' ? printed.stdout : printed.stdout.replace(/^\s*proxy_(read|send)_timeout .*\n/gm, '');
      if (name === 'control') t.notMatch(config, /proxy_read_timeout/, 'the control runs with nginx\'s default timeouts');
      await startNginx(t, tools.nginx, dir, config, site.port);
      const queue = await api<{ queue_id: string; last_event_id: number }>(parley.url, 'hamlet@zulip.com', key, 'POST', 'register', { event_types: ['message'] });
      const ws = new WebSocket(`wss://127.0.0.1:${site.port}/api/v1/events/socket`, { headers: { Authorization: auth }, ca: tls.certPem });
      t.teardown(() => ws.terminate());
      ws.on('message', (data) => site.frames.push(String(data)));
      ws.on('close', () => (site.closedAt = Date.now()));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.send(JSON.stringify({ op: 'subscribe', queue_id: queue.body.queue_id, last_event_id: queue.body.last_event_id }));
      site.ws = ws;
    }
    const quietFrom = Date.now();
    await new Promise((r) => setTimeout(r, QUIET_MS));
    t.ok(sites.control.closedAt !== undefined, 'the control (nginx defaults) cut the quiet socket');
    if (sites.control.closedAt !== undefined) t.comment(`control socket closed after ${Math.round((sites.control.closedAt - quietFrom) / 1000)} s of quiet`);
    t.equal(sites.printed.closedAt, undefined, `the printed site kept the socket open through ${QUIET_MS / 1000} s of quiet`);

    const sent = await api<{ id: number }>(parley.url, 'hamlet@zulip.com', key, 'POST', 'messages', { type: 'stream', to: 'Verona', topic: 'quiet', content: 'after a minute' });
    t.equal(sent.status, 200);
    const deadline = Date.now() + 10_000;
    const delivered = () => sites.printed.frames.some((f) => f.includes('"type":"events"') && f.includes(`"id":${sent.body.id}`));
    while (!delivered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    t.ok(delivered(), 'the event arrives over the socket that waited more than a minute');
  });
}
