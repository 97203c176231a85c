/**
 * Assembles a server: data-directory lock → realm registry (recovery) → HTTP front end (bound,
 * answering 503 while starting) → demo organization on an empty store → ready. The demo is
 * created only once the port is bound, so a busy port never loses a generated password (issue 13
 * §4). Used by the CLI and by in-process tests.
 */
import { randomToken } from './auth/api-keys.js';
import { hashPassword } from './auth/passwords.js';
import type { Config } from './config.js';
import { Errors } from './errors.js';
import type { RealmState } from './domain/realm-state.js';
import { RealmRegistry } from './realm/realm-registry.js';
import { startRetentionJob } from './realm/retention-job.js';
import { startDeliveryJob } from './realm/scheduled-delivery-job.js';
import { startAttachmentExpiryJob, type AttachmentExpiryOptions } from './realm/attachment-expiry-job.js';
import { RealmUrls } from './realm/realm-urls.js';
import { TrustedProxies } from './http/client-ip.js';
import type { CommandContext } from './realm/decision.js';
import { createDemoRealm } from './realm/demo-realm.js';
import { DEMO_BOT_EMAIL, DEMO_USERS } from './domain/demo-cast.js';
import { createDispatcher, type ApiServices } from './api/registry.js';
import { buildRoutes } from './api/endpoints.js';
import { EventQueueManager, DEFAULT_TIMING, type EventQueueTiming } from './events/event-queues.js';
import { startHttpServer } from './http/server.js';
import { ApiRateLimits } from './api/api-rate-limits.js';
import { startMetricsServer, type MetricsServer } from './http/metrics-endpoint.js';
import { handleJoin, isJoinPath } from './api/join.js';
import { userAvatarsRoute } from './api/media-files.js';
import { serverEmojiDataRoute } from './api/emoji-data.js';
import { defaultRealmIconRoute } from './api/realm-icon.js';
import { thumbnailRoute } from './api/thumbnail.js';
import { externalContentRoute } from './http/external-content.js';
import { handleWebPage, isWebPagePath } from './api/web-pages.js';
import { StaticAssets } from './http/static-assets.js';
import { fileURLToPath } from 'node:url';
import { errorResponse, type ApiResponse } from './api/registry.js';
import { checkHealth } from './ops/health.js';
import { addScrapeSource, enableDefaultMetrics, scrapeMetrics } from './metrics.js';
import { recordAnsweredRequest } from './ops/request-log.js';
import { bindFailureCause, lockDataDir, writeDemoPasswordFile } from './ops/startup.js';
import { log as logger } from './log.js';
import { FileTooLarge, type FileStore } from './storage/file-store.js';
import { thumbnailUpload } from './storage/upload-thumbnails.js';
import { serverSecret } from './storage/server-secret.js';
import { fileDigests } from './domain/file-references.js';
import { handleUserUploads, isUserUploadsPath } from './api/user-uploads-page.js';
import type { UploadServices } from './api/uploaded-file.js';
import { ConfigError } from './config.js';
import { Mailer, defaultFromAddress, smtpUrlProblem, type MailerOptions } from './mail/mailer.js';
import { join as joinPath } from 'node:path';
import { handlePasswordReset, isPasswordResetPath } from './api/password-reset.js';
import { MissedMessageEmails } from './realm/missed-message-emails.js';
import { isUploadPath, type UploadRoute } from './http/multipart-upload.js';
import { OutgoingWebhooks } from './api/outgoing-webhooks.js';
import { postWebhook } from './http/webhook-client.js';
import { closeRenderPool, setRenderPool, type RenderPool } from './realm/render-pool.js';
import { releaseStartupGarbage } from './ops/startup-memory.js';

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
  /** Port of the dedicated metrics listener, when `config.metricsPort` is set. */
  metricsPort?: number;
  /** The outbound mail queue (SMTP with `--smtp-url`, else `<data dir>/outbox/`). */
  mailer: Mailer;
  /** The missed-message email job (tests drive `tick` with their clock). */
  missedMessages: MissedMessageEmails;
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
    /** Test hook: the `/external_content/` proxy may fetch from 127.0.0.1 (never in production). */
    externalContentAllowLoopback?: boolean;
    /** Test hooks of outgoing webhook bots: loopback targets allowed, shorter limits (never in production). */
    outgoingWebhooks?: { allowLoopback?: boolean; timeoutSeconds?: number; retryDelayMs?: number };
    /** The built browser app (`index.html` + assets); default `<package>/dist/webapp`. */
    webappDir?: string;
    /** Test hook: the scheduled message delivery job's period (seconds) and clock (UNIX seconds). */
    scheduledDelivery?: { intervalSeconds?: number; now?: () => number };
    /** Test hook: the missed-message email job's clock (UNIX seconds); its timer then stays off (tests call `tick`). */
    missedMessageClock?: () => number;
    /** Test hook: mailer retry timing (`retryBaseMs`, `maxAttempts`, …). */
    mail?: Partial<Omit<MailerOptions, 'smtpUrl' | 'from' | 'outboxDir'>>;
    /** Test hook: the unclaimed-upload expiry job's period, clock and age limit. */
    attachmentExpiry?: AttachmentExpiryOptions;
    /** Test hook: the pool rendering large messages (default: worker threads, realm/render-pool.ts). */
    renderPool?: RenderPool;
    /**
     * Collect start-up's garbage before answering (ops/startup-memory.ts): ~30 MiB less idle RSS
     * for ~0.2 s more start-up. The CLI sets it; in-process tests start many servers and skip it.
     */
    releaseStartupMemory?: boolean;
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
  const smtpProblem = config.smtpUrl === undefined ? null : smtpUrlProblem(config.smtpUrl);
  if (smtpProblem !== null) throw new ConfigError(`--smtp-url ${smtpProblem}`);
  const lock = lockDataDir(config.dataDir);
  if (options.renderPool !== undefined) setRenderPool(options.renderPool);
  let registry: RealmRegistry;
  try {
    registry = await RealmRegistry.open({
      dataDir: config.dataDir,
      urls: provisionalUrls,
      snapshotPolicy: {
        everyRecords: config.snapshotEveryRecords,
        everySeconds: config.snapshotEverySeconds,
        everyDirtyBytes: config.snapshotEveryDirtyMib * 1024 * 1024,
      },
      minFreeBytes: config.minFreeBytes,
      ...(options.ctx && { ctx: options.ctx }),
      ...(options.afterAppend && { afterAppend: options.afterAppend }),
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  const createDemo = config.demo && registry.all().length === 0;
  // Uploaded files: a file no record names (a crash between file and record) is garbage.
  const files = registry.files;
  const referenced = new Set(registry.all().flatMap((realm) => [...fileDigests(realm.state)]));
  const swept = await files.sweep((digest) => referenced.has(digest));
  if (swept.temp + swept.unreferenced > 0) logger.info(swept, 'removed unreferenced upload files');
  const uploads = uploadServices(files, registry, config.maxFileUploadMib, config.uploadQuotaMib);
  const queues = new EventQueueManager(options.eventTiming ?? DEFAULT_TIMING);
  registry.events.subscribe((realmId, seq, events) => queues.publish(realmId, seq, events));
  // Outgoing webhook bots (api/outgoing-webhooks.ts): POSTs after their message is durable.
  const webhookTimeoutSeconds = options.outgoingWebhooks?.timeoutSeconds ?? 10;
  const outgoingWebhooks = new OutgoingWebhooks({
    realm: (realmId) => registry.all().find((r) => r.id === realmId),
    post: (url, body, contentType) =>
      postWebhook(url, { body, contentType, timeoutMs: webhookTimeoutSeconds * 1000, maxBytes: 1024 * 1024, allowLoopback: options.outgoingWebhooks?.allowLoopback === true }),
    timeoutSeconds: webhookTimeoutSeconds,
    ...(options.outgoingWebhooks?.retryDelayMs !== undefined && { retryDelayMs: options.outgoingWebhooks.retryDelayMs }),
  });
  registry.events.subscribe((realmId, _seq, events) => outgoingWebhooks.onEvents(realmId, events));
  const services: ApiServices = {
    realmForHost: (host) => registry.realmForHost(host),
    authenticate: (realm, email, apiKey) => registry.authenticate(realm, email, apiKey),
    rateLimits: config.rateLimits ? new ApiRateLimits() : null,
    uploads,
  };
  const mailer = new Mailer({
    ...options.mail,
    smtpUrl: config.smtpUrl,
    from: config.emailFrom ?? defaultFromAddress(provisionalUrls.rootUrl),
    outboxDir: joinPath(registry.dataDir, 'outbox'),
  });
  const apiDispatch = createDispatcher(buildRoutes({ queues, mailer }), services);
  // Missed-message emails (realm/missed-message-emails.ts): fed by durable message events.
  const missedMessages = new MissedMessageEmails({
    realm: (id) => registry.all().find((r) => r.id === id),
    hasEventQueue: (realmId, userId) => queues.hasQueues(realmId, userId),
    mailer,
    ...(options.missedMessageClock && { now: options.missedMessageClock }),
  });
  const unsubscribeMissed = registry.events.subscribe((realmId, seq, events) => missedMessages.onEvents(realmId, seq, events));
  if (options.missedMessageClock === undefined) missedMessages.start();
  const assets = new StaticAssets(options.webappDir ?? fileURLToPath(new URL('../dist/webapp/', import.meta.url)));
  const pageServices = { ...services, appShell: () => assets.shell() };
  // Password reset pages (api/password-reset.ts): tokens are HMACs under a server secret.
  const resetServices = { ...services, mailer, secret: serverSecret(registry.dataDir, 'password-reset') };
  // Bound before the demo exists: until then every request gets 503 (clients retry).
  let starting = true;
  const startingError = errorResponse(Errors.unhealthy('Server is starting'));
  const dispatch: typeof apiDispatch = (req) => (starting ? Promise.resolve(startingError) : apiDispatch(req));
  const health = (): ApiResponse => {
    if (starting) return startingError;
    const problem = checkHealth({
      dataDir: registry.dataDir,
      realms: () => registry.all(),
      registeredRealms: () => registry.registeredRealmCount(),
    });
    return problem === null ? { status: 200, body: { result: 'success', msg: '' } } : errorResponse(problem);
  };
  const metricsOn = config.metricsPort !== undefined || (config.metricsToken ?? '') !== '';
  if (metricsOn) enableDefaultMetrics();
  const removeScrapeSource = addScrapeSource({
    eventQueues: () => queues.stats(),
    realms: () => registry.all().map((realm) => realmCounts(realm.subdomain, realm.state)),
  });
  // Message retention (realm/retention-job.ts): deletes expired messages periodically.
  const retention = startRetentionJob(() => registry.all());
  // Scheduled messages and reminders (realm/scheduled-delivery-job.ts): sent at their time.
  const delivery = startDeliveryJob(() => registry.all(), options.scheduledDelivery);
  // Unclaimed uploads expire after 3 weeks (realm/attachment-expiry-job.ts).
  const attachmentExpiry = startAttachmentExpiryJob(() => registry.all(), uploads.forget, options.attachmentExpiry);
  const release = async () => {
    await delivery.stop();
    outgoingWebhooks.close();
    await retention.stop();
    unsubscribeMissed();
    await missedMessages.stop();
    await mailer.close();
    await attachmentExpiry.stop();
    removeScrapeSource();
    queues.shutdown();
    await registry.close();
    await closeRenderPool(); // the render worker threads (they would keep the process alive)
    lock.release();
  };
  let http;
  let metricsServer: MetricsServer | undefined;
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
      rawRoutes: [
        userAvatarsRoute(services.realmForHost),
        thumbnailRoute(services),
        externalContentRoute({ key: registry.camoKey, allowLoopback: options.externalContentAllowLoopback === true }),
        serverEmojiDataRoute(),
        defaultRealmIconRoute(),
      ],
      pages: {
        matches: (path) => isWebPagePath(path) || isPasswordResetPath(path),
        handle: (req) => (isPasswordResetPath(req.path) ? handlePasswordReset(req, resetServices) : handleWebPage(req, pageServices)),
      },
      assets,
      health,
      ...((config.metricsToken ?? '') !== '' && { metrics: { token: config.metricsToken!, scrape: scrapeMetrics } }),
      onAnswered: recordAnsweredRequest,
      upload: uploadRoute(files, config.maxFileUploadMib),
      userUploads: { matches: isUserUploadsPath, handle: (req) => (starting ? Promise.resolve(startingError) : handleUserUploads(req, services)) },
    });
  } catch (error) {
    await release();
    const cause = await bindFailureCause(config.host, config.port);
    throw new Error(`cannot listen on ${config.host}:${config.port}: ${cause}`, { cause: error });
  }
  if (config.metricsPort !== undefined) {
    try {
      metricsServer = await startMetricsServer(config.metricsHost, config.metricsPort, scrapeMetrics, health);
    } catch (error) {
      await http.close();
      await release();
      const cause = await bindFailureCause(config.metricsHost, config.metricsPort);
      throw new Error(`cannot listen on ${config.metricsHost}:${config.metricsPort} (--metrics-port): ${cause}`, { cause: error });
    }
  }
  const url = `http://${config.host}:${http.port}`;
  registry.setUrls(RealmUrls.forServer(config, http.port));
  let demoPassword: string | undefined;
  if (createDemo) {
    try {
      demoPassword = config.demoPassword ?? randomToken(16);
      // A generated password is written down before the demo exists, so it can never be lost.
      const passwordFile = config.demoPassword === undefined ? writeDemoPasswordFile(config.dataDir, demoPassword) : undefined;
      const demoName = (await createDemoRealm(registry, await hashPassword(demoPassword))).state.settings.name;
      log(`created the demo organization "${demoName}" at ${registry.urlFor('')} — accounts (password: ${demoPassword}):`);
      for (const [email, name] of DEMO_USERS) log(`  ${email}  ${name}`);
      log(`  ${DEMO_BOT_EMAIL}  (bot, API key only)`);
      if (passwordFile !== undefined) log(`the generated password is also in ${passwordFile} (readable by its owner only)`);
    } catch (error) {
      metricsServer?.close();
      await http.close();
      await release();
      throw error;
    }
  }
  if (options.releaseStartupMemory === true) await releaseStartupGarbage();
  starting = false;
  log(`organization URL: ${registry.urlFor('')}`);
  if (metricsServer !== undefined) log(`parley metrics on http://${config.metricsHost}:${metricsServer.port}/metrics`);
  log(`parley listening on ${url}`);
  logger.info({ event: 'start', url, realms: registry.all().length, data_dir: registry.dataDir }, 'parley started');
  return {
    port: http.port,
    url,
    registry,
    ...(demoPassword !== undefined && { demoPassword }),
    ...(metricsServer !== undefined && { metricsPort: metricsServer.port }),
    queues,
    mailer,
    missedMessages,
    async close() {
      metricsServer?.close();
      queues.shutdown(); // answer waiting long-polls so the HTTP server can drain
      await http.close();
      await release();
      logger.info({ event: 'stop' }, 'parley stopped');
    },
  };
}

/** Messages stored and active users of a realm, for the per-realm gauges. O(messages). */
function realmCounts(subdomain: string, state: RealmState): { subdomain: string; messages: number; users: number } {
  let users = 0;
  for (const user of state.users.values()) if (user.isActive) users++;
  const index = state.messages;
  let messages = 0;
  for (let id = 0; id < index.bits.length; id++) if (index.exists(id)) messages++;
  return { subdomain, messages, users };
}

const MIB = 1024 * 1024;

/** The file store's read side and the upload limits, as the API layer sees them. */
function uploadServices(files: FileStore, registry: RealmRegistry, maxFileUploadMib: number, uploadQuotaMib: number): UploadServices {
  const forget = (sha256: string): void => {
    void (async () => {
      if (registry.all().some((realm) => fileDigests(realm.state).has(sha256))) return;
      const age = await files.ageMs(sha256);
      if (age === undefined) return;
      // A commit in the last minute may belong to an upload whose record is still on its way.
      if (age < FRESH_FILE_MS) return void setTimeout(() => forget(sha256), FRESH_FILE_MS - age + 1000).unref();
      if (registry.all().some((realm) => fileDigests(realm.state).has(sha256))) return;
      await files.remove(sha256);
    })().catch((error: unknown) => logger.warn({ err: error }, 'could not remove a deleted upload'));
  };
  return {
    maxFileUploadMib,
    quotaBytes: uploadQuotaMib > 0 ? uploadQuotaMib * MIB : null,
    size: (sha256) => files.size(sha256),
    open: (sha256, start, end) => files.openRead(sha256, { start, end }),
    forget,
    thumbnail: (sha256, contentType) => thumbnailUpload(files, sha256, contentType),
    urlKey: serverSecret(registry.dataDir, 'upload-url-key'),
  };
}

/** Files younger than this are never removed at run time (see `forget`). */
const FRESH_FILE_MS = 60_000;

/** `POST /api/v1/user_uploads`: streamed to the file store's temp area, at most the upload limit. */
function uploadRoute(files: FileStore, maxFileUploadMib: number): UploadRoute {
  const tooLarge = () => Errors.uploadTooLarge(maxFileUploadMib);
  return {
    // Custom emoji, avatars and the realm icon are multipart uploads too (checked against their own 5 MiB limits).
    matches: (method, path) => method === 'POST' && (isUploadPath(path) || path === '/api/v1/realm/icon' || path === '/json/realm/icon'),
    maxFileBytes: maxFileUploadMib * MIB,
    tooLarge,
    stage: (source, maxBytes) =>
      files.stage(source, { maxBytes }).catch((error: unknown) => {
        throw error instanceof FileTooLarge ? tooLarge() : error;
      }),
  };
}
