/**
 * Assembles a server: data-directory lock → realm registry (recovery) → demo organization on an
 * empty store → HTTP front end. Used by the CLI and by in-process tests.
 */
import { randomToken } from './auth/api-keys.js';
import { hashPassword } from './auth/passwords.js';
import type { Config } from './config.js';
import { acquireDataDirLock } from './storage/data-dir-lock.js';
import { RealmRegistry } from './realm/realm-registry.js';
import { RealmUrls } from './realm/realm-urls.js';
import { TrustedProxies } from './http/client-ip.js';
import type { CommandContext } from './realm/decision.js';
import { createDemoRealm } from './realm/demo-realm.js';
import { DEMO_BOT_EMAIL, DEMO_USERS } from './domain/demo-cast.js';
import { createDispatcher, type ApiServices } from './api/registry.js';
import { buildEndpoints } from './api/endpoints.js';
import { EventQueueManager, DEFAULT_TIMING, type EventQueueTiming } from './events/event-queues.js';
import { startHttpServer } from './http/server.js';
import { ApiRateLimits } from './api/api-rate-limits.js';
import { handleJoin, isJoinPath } from './api/join.js';

/** A running server. */
export interface RunningServer {
  /** Bound port (the real one when `config.port` was 0). */
  port: number;
  /** `http://host:port`. */
  url: string;
  registry: RealmRegistry;
  /** The server's event queues. */
  queues: EventQueueManager;
  /** The demo password when this start created the demo organization. */
  demoPassword?: string;
  /** Stops accepting, finishes in-flight requests and commands, snapshots, closes the store. */
  close(): Promise<void>;
}

/** Starts a server on `config`. `log` receives human-readable startup lines. */
export async function startServer(
  config: Config,
  options: {
    log?: (line: string) => void;
    ctx?: CommandContext;
    eventTiming?: EventQueueTiming;
    /** Test hook: see `RealmActorDeps.afterAppend`. */
    afterAppend?: () => Promise<void>;
  } = {},
): Promise<RunningServer> {
  const log = options.log ?? (() => {});
  // Validated before anything is opened; with `--port 0` the default URL's port is provisional
  // until the port is bound (no request can arrive before, see `setUrls` below).
  const provisionalUrls = RealmUrls.forServer(config, config.port);
  const trustedProxies = TrustedProxies.parse(config.trustedProxies);
  if (config.externalHost !== undefined && config.externalUrl === undefined) {
    log(`warning: --external-host is deprecated; use --external-url ${provisionalUrls.rootUrl.replace(/:0$/, ':<port>')}`);
  }
  const lock = acquireDataDirLock(config.dataDir);
  let registry: RealmRegistry;
  try {
    registry = await RealmRegistry.open({
      dataDir: config.dataDir,
      urls: provisionalUrls,
      snapshotPolicy: { everyRecords: config.snapshotEveryRecords, everySeconds: config.snapshotEverySeconds },
      minFreeBytes: config.minFreeBytes,
      ...(options.ctx && { ctx: options.ctx }),
      ...(options.afterAppend && { afterAppend: options.afterAppend }),
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  let demoPassword: string | undefined;
  let demoName = '';
  if (config.demo && registry.all().length === 0) {
    demoPassword = config.demoPassword ?? randomToken(16);
    demoName = (await createDemoRealm(registry, await hashPassword(demoPassword))).state.settings.name;
  }
  const queues = new EventQueueManager(options.eventTiming ?? DEFAULT_TIMING);
  registry.events.subscribe((realmId, seq, events) => queues.publish(realmId, seq, events));
  const services: ApiServices = {
    realmForHost: (host) => registry.realmForHost(host),
    authenticate: (realm, email, apiKey) => registry.authenticate(realm as never, email, apiKey),
    rateLimits: config.rateLimits ? new ApiRateLimits() : null,
  };
  const dispatch = createDispatcher(buildEndpoints({ queues }), services);
  let http;
  try {
    http = await startHttpServer({
      host: config.host,
      port: config.port,
      dispatch,
      maxBodyBytes: config.maxBodyBytes,
      trustedProxies,
      benchCeiling: config.bench,
      socket: { services, queues },
      join: { matches: isJoinPath, handle: (req) => handleJoin(req, services) },
    });
  } catch (error) {
    queues.shutdown();
    await registry.close();
    lock.release();
    throw new Error(`cannot listen on ${config.host}:${config.port} (is another server using that port?)`, { cause: error });
  }
  const url = `http://${config.host}:${http.port}`;
  registry.setUrls(RealmUrls.forServer(config, http.port));
  if (demoPassword !== undefined) {
    log(`created the demo organization "${demoName}" at ${registry.urlFor('')} — accounts (password: ${demoPassword}):`);
    for (const [email, name] of DEMO_USERS) log(`  ${email}  ${name}`);
    log(`  ${DEMO_BOT_EMAIL}  (bot, API key only)`);
  }
  log(`organization URL: ${registry.urlFor('')}`);
  log(`parley listening on ${url}`);
  return {
    port: http.port,
    url,
    registry,
    ...(demoPassword !== undefined && { demoPassword }),
    queues,
    async close() {
      queues.shutdown(); // answer waiting long-polls so the HTTP server can drain
      await http.close();
      await registry.close();
      lock.release();
    },
  };
}
