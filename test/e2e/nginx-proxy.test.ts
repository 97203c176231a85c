/**
 * parley behind a real HTTPS reverse proxy (issue 13 §1): nginx from the Debian package, started
 * on loopback with a self-signed certificate, runs exactly the site `parley print-config nginx`
 * prints (README "Running in production"), in front of a real parley process started with
 * `--external-url https://127.0.0.1:<nginx port>`. Through nginx a client logs in over HTTPS,
 * is told an https:// realm_url, holds a long-poll until an event wakes it, and receives events
 * over the WebSocket stream (wss://), and uploads a file larger than `--max-body-bytes` (the
 * printed upload location's limit) while an ordinary request that large is refused.
 *
 * nginx's default proxy_read_timeout is 60 s, and a long-poll is held up to 55 s (an event
 * socket far longer): here the printed timeouts and unbuffered proxying are checked as values;
 * nginx-idle-socket.test.ts holds a socket quiet for 65 s through the printed site (and through a
 * control with nginx's defaults, which cuts it).
 */
import t from 'tap';
import { Agent, FormData as UndiciFormData, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';
import { randomBytes } from 'node:crypto';
import { runCli, startServer } from '../support/server-process.js';
import { findNginx, freePort, selfSignedCertificate, startNginx, tempDir, testNginxConf, writeNginxConf } from '../support/nginx.js';

const tools = findNginx();
if ('missing' in tools) {
  t.comment(`SKIP nginx reverse-proxy test: ${tools.missing}`);
  t.pass(`skipped: ${tools.missing}`);
} else {
  t.test('parley behind nginx over HTTPS', async (t) => {
    const dir = tempDir(t, 'parley-nginx-');
    const tls = selfSignedCertificate(tools.openssl, dir);
    const proxyPort = await freePort();
    const external = `https://127.0.0.1:${proxyPort}`;
    const parley = await startServer({ t, args: ['--external-url', external] });

    const printed = await runCli([
      'print-config', 'nginx', '--external-url', external, '--port', String(parley.port),
      '--listen-address', '127.0.0.1', '--tls-cert', tls.certPath, '--tls-key', tls.keyPath,
    ]);
    t.equal(printed.code, 0, printed.stderr);
    const site = printed.stdout;
    t.match(site, /^\s*proxy_buffering off;$/m, 'responses are not buffered (long-polls, sockets)');
    const readTimeout = Number(/^\s*proxy_read_timeout (\d+)s;$/m.exec(site)?.[1]);
    t.ok(readTimeout >= 600, `proxy_read_timeout ${readTimeout}s is far above nginx's 60 s default and the 55 s heartbeat`);
    t.match(site, /proxy_set_header Upgrade \$http_upgrade;/);
    t.match(site, /proxy_set_header X-Forwarded-Proto \$scheme;/);
    t.match(site, new RegExp(`listen 127\\.0\\.0\\.1:${proxyPort} ssl`));
    t.notMatch(site, /listen 80/, 'no port-80 redirect for a non-standard https port');

    const check = testNginxConf(tools.nginx, dir, writeNginxConf(dir, site));
    t.equal(check.status, 0, `nginx -t accepts the printed site: ${check.output}`);
    const nginx = await startNginx(t, tools.nginx, dir, site, proxyPort);

    const dispatcher = new Agent({ connect: { ca: tls.certPem } });
    t.teardown(() => dispatcher.close());
    const call = async (method: string, path: string, auth: string | null, params: Record<string, string> = {}) => {
      const form = new URLSearchParams(params).toString();
      const isGet = method === 'GET';
      const res = await undiciFetch(`${external}/api/v1${path}${isGet && form ? `?${form}` : ''}`, {
        method,
        dispatcher,
        headers: { ...(auth ? { Authorization: auth } : {}), ...(isGet ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) },
        ...(isGet ? {} : { body: form }),
      });
      const text = await res.text();
      try {
        return { status: res.status, body: JSON.parse(text) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
      } catch {
        throw new Error(`${method} ${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 300)}\n${nginx.log()}`);
      }
    };

    const settings = await call('GET', '/server_settings', null);
    t.equal(settings.status, 200);
    t.equal(settings.body.realm_url, external, 'realm_url is the https:// external URL');

    const login = await call('POST', '/fetch_api_key', null, { username: 'hamlet@zulip.com', password: 'parley-e2e-password' });
    t.equal(login.status, 200, 'log in over HTTPS');
    const auth = 'Basic ' + Buffer.from(`hamlet@zulip.com:${login.body.api_key}`).toString('base64');

    const register = await call('POST', '/register', auth, { event_types: '["message"]', fetch_event_types: '["realm"]', apply_markdown: 'true' });
    t.equal(register.status, 200);
    t.equal(register.body.realm_url, external, '/register realm_url');

    // A long-poll held by parley across nginx, woken by a message sent meanwhile.
    const poll = call('GET', '/events', auth, { queue_id: register.body.queue_id, last_event_id: String(register.body.last_event_id) });
    let answered = false;
    void poll.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 1500));
    t.notOk(answered, 'the long-poll is held (not answered at once, not buffered away)');
    const content = `see ${external}/#narrow/channel/1-Verona`;
    const sent = await call('POST', '/messages', auth, { type: 'stream', to: 'Verona', topic: 'proxy', content });
    t.equal(sent.status, 200);
    const events = await poll;
    t.equal(events.status, 200);
    const message = events.body.events.find((e: { type: string }) => e.type === 'message')?.message;
    t.equal(message?.id, sent.body.id, 'the held long-poll delivers the message');
    t.equal(
      message?.content,
      `<p>see <a href="#narrow/channel/1-Verona">${external}/#narrow/channel/1-Verona</a></p>`,
      'a link into the https:// organization renders relative',
    );

    // The WebSocket event stream through nginx (wss://).
    const queue = await call('POST', '/register', auth, { event_types: '["message"]' });
    const ws = new WebSocket(`wss://127.0.0.1:${proxyPort}/api/v1/events/socket`, { headers: { Authorization: auth }, ca: tls.certPem });
    t.teardown(() => ws.terminate());
    const frames: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    let wake: (() => void) | null = null;
    ws.on('message', (data) => {
      frames.push(JSON.parse(String(data)));
      wake?.();
    });
    const frame = async (pred: (f: Record<string, any>) => boolean) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = frames.find(pred);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching frame; got ${JSON.stringify(frames)}\n${nginx.log()}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 200);
        });
      }
    };
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ op: 'subscribe', queue_id: queue.body.queue_id, last_event_id: queue.body.last_event_id }));
    t.match(await frame((f) => f.type === 'subscribed'), { result: 'success', queue_id: queue.body.queue_id });
    const second = await call('POST', '/messages', auth, { type: 'stream', to: 'Verona', topic: 'proxy', content: 'over the socket' });
    const pushed = await frame((f) => f.type === 'events' && f.events.some((e: { type: string }) => e.type === 'message'));
    t.equal(pushed.events.find((e: { type: string }) => e.type === 'message').message.id, second.body.id, 'the event arrives over wss://');
    ws.close();

    // Uploads pass the upload location's limit (above --max-body-bytes, 5 MiB by default);
    // an ordinary request that large is refused by nginx itself.
    const big = randomBytes(6 * 1024 * 1024);
    const form = new UndiciFormData();
    form.append('file', new Blob([new Uint8Array(big)], { type: 'application/octet-stream' }), 'big.bin');
    const uploaded = await undiciFetch(`${external}/api/v1/user_uploads`, { method: 'POST', dispatcher, headers: { Authorization: auth }, body: form });
    t.equal(uploaded.status, 200, 'a 6 MiB upload passes nginx');
    const uri = ((await uploaded.json()) as { uri: string }).uri;
    const back = await undiciFetch(`${external}${uri}`, { dispatcher, headers: { Authorization: auth } });
    t.ok(Buffer.from(await back.arrayBuffer()).equals(big), 'and reads back whole through nginx');
    const tooBig = await undiciFetch(`${external}/api/v1/messages`, {
      method: 'POST', dispatcher, headers: { Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `content=${'x'.repeat(6 * 1024 * 1024)}`,
    });
    await tooBig.arrayBuffer();
    t.equal(tooBig.status, 413, 'other paths keep --max-body-bytes');
  });
}
