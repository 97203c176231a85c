/** Configuration from flags and PARLEY_* environment variables. */
import t from 'tap';
import { ConfigError, DEFAULT_CONFIG, parseConfig } from '../src/config.js';

t.test('defaults, env, flags (flags win)', async (t) => {
  t.same(parseConfig([], {}).config, DEFAULT_CONFIG);
  const { config } = parseConfig(['--port', '8080', '--no-demo', '--data-dir=/tmp/x'], { PARLEY_PORT: '7000', PARLEY_HOST: '0.0.0.0', PARLEY_DEMO_PASSWORD: 'pw' });
  t.equal(config.port, 8080);
  t.equal(config.host, '0.0.0.0');
  t.equal(config.demo, false);
  t.equal(config.dataDir, '/tmp/x');
  t.equal(config.demoPassword, 'pw');
  t.equal(parseConfig([], { PARLEY_DEMO: 'false' }).config.demo, false);
  t.equal(parseConfig(['--demo'], { PARLEY_DEMO: 'false' }).config.demo, true);
});

t.test('--rate-limits on|off and PARLEY_RATE_LIMITS (default on)', async (t) => {
  t.equal(DEFAULT_CONFIG.rateLimits, true);
  t.equal(parseConfig(['--rate-limits', 'off'], {}).config.rateLimits, false);
  t.equal(parseConfig(['--rate-limits=off'], {}).config.rateLimits, false);
  t.equal(parseConfig(['--no-rate-limits'], {}).config.rateLimits, false);
  t.equal(parseConfig([], { PARLEY_RATE_LIMITS: 'off' }).config.rateLimits, false);
  t.equal(parseConfig(['--rate-limits', 'on'], { PARLEY_RATE_LIMITS: 'off' }).config.rateLimits, true, 'the flag wins');
  const bare = parseConfig(['--rate-limits', 'extra'], { PARLEY_RATE_LIMITS: 'off' });
  t.equal(bare.config.rateLimits, true, 'bare flag = on');
  t.same(bare.rest, ['extra'], 'a following word that is not on/off stays an operand');
  t.throws(() => parseConfig([], { PARLEY_RATE_LIMITS: 'sometimes' }), new ConfigError("--rate-limits must be true or false, got 'sometimes'"));
});

t.test('errors', async (t) => {
  t.throws(() => parseConfig(['--bogus'], {}), new ConfigError('unknown option --bogus'));
  t.throws(() => parseConfig(['--port', 'abc'], {}), new ConfigError("--port must be a TCP port number from 0 to 65535, got 'abc'"));
  t.throws(() => parseConfig(['--port', '65536'], {}), new ConfigError("--port must be a TCP port number from 0 to 65535, got '65536'"));
  t.equal(parseConfig(['--port', '65535'], {}).config.port, 65535, 'the highest port is fine');
  t.throws(() => parseConfig(['--log-level', 'loud'], {}), /--log-level must be one of/);
  t.throws(() => parseConfig(['--port'], {}), new ConfigError('--port needs a value'));
  t.throws(() => parseConfig([], { PARLEY_DEMO: 'maybe' }), new ConfigError("--demo must be true or false, got 'maybe'"));
});

t.test('extra sub-command options and operands', async (t) => {
  const r = parseConfig(['--name', 'Acme', 'extra'], {}, { name: 'string' });
  t.same(r.extra, { name: 'Acme' });
  t.same(r.rest, ['extra']);
});
