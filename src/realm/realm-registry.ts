/**
 * All realms of one server process (src/README.md: scale: nothing assumes one global realm). Opens the
 * store, recovers every realm (snapshot + log tail), starts one actor per realm, picks the realm
 * for a request's Host, and authenticates API keys (https://zulip.com/api/http-headers).
 */
import { serverSecret } from '../storage/server-secret.js';
import { FileStore } from '../storage/file-store.js';
import { Errors, type ZulipError } from '../errors.js';
import { evolve } from '../domain/evolve.js';
import { emptyRealmState, type User } from '../domain/realm-state.js';
import type { MessageBody, RealmRecord } from '../domain/records.js';
import { fromSnapshot } from '../domain/realm-snapshot.js';
import { findUserByEmail } from '../domain/users.js';
import { openStore, type Store } from '../storage/lmdb.js';
import { AppendLog } from '../storage/append-log.js';
import { SnapshotStore } from '../storage/snapshot-store.js';
import { recoverRealm } from '../storage/recovery.js';
import { API_KEY_PATTERN, keysEqual, randomToken } from '../auth/api-keys.js';
import { EventDispatcher } from '../events/dispatch.js';
import { RealmActor, type SnapshotPolicy } from './realm-actor.js';
import { bodiesOf, setupRunner, type SetupRunner } from './apply-command.js';
import type { CommandContext } from './decision.js';
import type { RealmHandle } from './realm-handle.js';
import type { RealmUrls } from './realm-urls.js';
import { flushLogger, log } from '../log.js';
import { startWordIndexBackfill } from './word-index-backfill.js';

/** Options of `RealmRegistry.open`. */
export interface RegistryOptions {
  dataDir: string;
  /** The organizations' URLs (`--external-url`); `setUrls` replaces them once the port is bound. */
  urls: RealmUrls;
  snapshotPolicy?: SnapshotPolicy;
  /** Clock/randomness for handlers; defaults to the real ones. */
  ctx?: CommandContext;
  /** Free bytes to keep on the data disk (storage/disk-space.ts; default 8 MiB). */
  minFreeBytes?: number;
  /** Called when a realm can no longer guarantee durability; default logs and exits(1). */
  onFatal?: (realmId: number, error: unknown) => void;
  /** Test hook passed to every realm actor (`RealmActorDeps.afterAppend`). */
  afterAppend?: () => Promise<void>;
}

/** The real clock (UNIX seconds) and crypto randomness. */
export const systemContext: CommandContext = {
  now: () => Date.now() / 1000,
  randomToken,
};

const DEFAULT_SNAPSHOT_POLICY: SnapshotPolicy = { everyRecords: 20_000, everySeconds: 60, everyDirtyBytes: 16 * 1024 * 1024 };

export class RealmRegistry {
  private readonly realms = new Map<number, RealmActor>();
  private readonly bySubdomain = new Map<string, RealmActor>();
  /** Subdomain → id of realms whose first commit is in flight. */
  private readonly creating = new Map<string, number>();
  readonly events = new EventDispatcher();

  private constructor(
    private readonly store: Store,
    private readonly log: AppendLog,
    private readonly snapshots: SnapshotStore,
    private readonly options: RegistryOptions,
  ) {
    this.urls = options.urls;
    this.files = new FileStore(store.dataDir);
    this.camoKey = serverSecret(store.dataDir, 'camo-key');
  }

  /** The content-addressed file store under the data directory (uploads, avatars, emoji). */
  readonly files: FileStore;

  /** The current organization URLs (see `setUrls`). */
  private urls: RealmUrls;

  /**
   * Opens the data directory and recovers every realm. Throws `StorageCorruptionError` (from
   * storage/) with a clear message when a snapshot or log record fails its checks.
   */
  static async open(options: RegistryOptions): Promise<RealmRegistry> {
    const store = openStore(options.dataDir, options.minFreeBytes === undefined ? {} : { minFreeBytes: options.minFreeBytes });
    const log = new AppendLog(store);
    try {
      log.trackDurableMark();
    } catch (error) {
      await store.close();
      throw error;
    }
    const snapshots = new SnapshotStore(store, log);
    const registry = new RealmRegistry(store, log, snapshots, options);
    for (const { id, subdomain } of log.listRealms()) {
      const state = registry.recover(id);
      state.subdomain = subdomain;
      registry.start(state);
    }
    return registry;
  }

  /** Realm `id`'s state from its latest snapshot and log tail (storage/recovery.ts). */
  private recover(id: number): ReturnType<typeof emptyRealmState> {
    return recoverRealm(this.log, this.snapshots, id, {
      empty: () => emptyRealmState(id),
      fromSnapshot: (core, columns) => fromSnapshot(id, core, columns),
      evolve: (s, record) => evolve(s, record as RealmRecord),
    }).state;
  }

  /** Sets a realm state's configured host and URL (never persisted). */
  private locate(state: ReturnType<typeof emptyRealmState>): void {
    state.host = this.urls.hostFor(state.subdomain);
    state.url = this.urls.urlFor(state.subdomain);
    state.camoKey = this.camoKey;
  }

  /** The camo key every realm renders external media URLs with (`storage/server-secret.ts`). */
  readonly camoKey: string;

  /**
   * Replaces the organization URLs of every realm, e.g. once the port is bound when the default
   * `http://127.0.0.1:<port>` was provisional (`--port 0`). Only URLs change: the host names of
   * generated emails stay (they do not depend on the port).
   */
  setUrls(urls: RealmUrls): void {
    this.urls = urls;
    for (const realm of this.realms.values()) this.locate(realm.state);
  }

  /** The organization URL a realm with this subdomain has ('' = root), whether or not it exists. */
  urlFor(subdomain: string): string {
    return this.urls.urlFor(subdomain);
  }

  private start(state: ReturnType<typeof emptyRealmState>): RealmActor {
    this.locate(state);
    // The search word index of a restored state is filled from the stored bodies in the
    // background (word-index-backfill.ts), again after a reload from the log.
    const backfill = (): void => {
      void startWordIndexBackfill({
        state: () => actor.state,
        running: () => actor.running,
        readBody: (messageId) => {
          try {
            return this.log.getBody(actor.state.id, messageId) as MessageBody | undefined;
          } catch {
            return undefined; // damaged: the scan would not match it either (damaged-body.ts)
          }
        },
      });
    };
    const actor: RealmActor = new RealmActor(state, {
      log: this.log,
      snapshots: this.snapshots,
      ctx: this.options.ctx ?? systemContext,
      snapshotPolicy: this.options.snapshotPolicy ?? DEFAULT_SNAPSHOT_POLICY,
      dispatch: (realmId, seq, events) => this.events.publish(realmId, seq, events),
      recover: () => {
        const recovered = this.recover(state.id);
        setImmediate(backfill); // the actor installs `recovered` before this runs
        return recovered;
      },
      files: this.files,
      onFatal:
        this.options.onFatal ??
        ((realmId, error) => {
          log.fatal({ err: error, realm_id: realmId }, 'cannot guarantee durability any more; exiting');
          flushLogger();
          process.exit(1);
        }),
      ...(this.options.afterAppend && { afterAppend: this.options.afterAppend }),
    });
    this.realms.set(state.id, actor);
    this.bySubdomain.set(state.subdomain, actor);
    backfill();
    return actor;
  }

  /** Number of realms registered in the store (each must be loaded; `GET /health` compares). */
  registeredRealmCount(): number {
    return this.log.listRealms().length;
  }

  /** Absolute path of the data directory. */
  get dataDir(): string {
    return this.store.dataDir;
  }

  /** Every realm. */
  all(): RealmActor[] {
    return [...this.realms.values()];
  }

  /** The realm with this subdomain ('' = root), if any. */
  bySubdomainName(subdomain: string): RealmActor | undefined {
    return this.bySubdomain.get(subdomain);
  }

  /**
   * Creates a realm: the `create_realm` command and then whatever `setup` runs (users, channels,
   * messages — e.g. the demo) are decided and folded offline, and all their records are committed
   * in ONE transaction together with the realm's registration, so a crash leaves either no realm
   * or the complete one. Throws a ZulipError when the subdomain is taken or a setup command is
   * rejected (nothing is written then).
   */
  async createRealm(subdomain: string, name: string, description = '', setup?: (run: SetupRunner) => void): Promise<RealmActor> {
    if (this.bySubdomain.has(subdomain) || this.creating.has(subdomain)) {
      throw Errors.badRequest(`Subdomain '${subdomain}' is already in use`);
    }
    const id = Math.max(0, ...this.realms.keys(), ...this.creating.values()) + 1;
    this.creating.set(subdomain, id);
    try {
      const state = emptyRealmState(id);
      state.subdomain = subdomain;
      this.locate(state);
      const records: RealmRecord[] = [];
      const run = setupRunner(state, this.options.ctx ?? systemContext, records);
      run({ type: 'create_realm', subdomain, name, description });
      setup?.(run);
      // Zulip's cross-realm bots exist from the start (so /register never sees them appear).
      run({ type: 'ensure_system_bots' });
      await this.log.append(id, records, bodiesOf(records), { subdomain });
      return this.start(state);
    } finally {
      this.creating.delete(subdomain);
    }
  }

  /**
   * The realm a request's Host header selects (https://zulip.com/api/http-headers,
   * `RealmUrls.subdomainForHost`): `<sub>.<external host>` selects `<sub>` (`www` = root); anything
   * else (the external host itself, 127.0.0.1, another name) selects the root realm. Null when
   * that realm does not exist. Selection only: the realm's URLs come from configuration
   * (`RealmState.url`).
   */
  realmForHost(hostHeader: string): RealmActor | null {
    return this.bySubdomain.get(this.urls.subdomainForHost(hostHeader)) ?? null;
  }

  /**
   * HTTP Basic authentication with `email:api_key` on /api/v1 (https://zulip.com/api/http-headers). The
   * email must match the key owner's delivery email (case-insensitively); the key is compared in
   * constant time. Every failure is a 401 UNAUTHORIZED error. Returns the user with `realm`.
   */
  authenticate(realm: RealmHandle | null, email: string, apiKey: string): { realm: RealmHandle; user: User } | ZulipError {
    if (!API_KEY_PATTERN.test(apiKey)) return Errors.malformedApiKey();
    const match = (r: RealmHandle) => {
      const user = findUserByEmail(r.state, email);
      return user !== undefined && user.email === email.trim().toLowerCase() && keysEqual(user.apiKey, apiKey) ? user : undefined;
    };
    const user = realm ? match(realm) : undefined;
    if (realm === null || user === undefined) {
      for (const other of this.realms.values()) if (other !== realm && match(other)) return Errors.wrongSubdomain();
      return Errors.invalidApiKey();
    }
    if (realm.state.settings.deactivated) return Errors.realmDeactivatedApi();
    if (!user.isActive) return Errors.accountDeactivatedApi();
    return { realm, user };
  }

  /** Stops every actor (in-flight commands finish and a final snapshot is written), then closes the store. */
  async close(): Promise<void> {
    await Promise.all(this.all().map((r) => r.stop()));
    await this.store.close();
  }
}
