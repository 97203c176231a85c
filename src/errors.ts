/**
 * One registry of Zulip's error codes, statuses and message templates (src/README.md: errors,
 * https://zulip.com/api/rest-error-handling). Every error a client sees is built here.
 *
 * Wire form: `{"result":"error","msg":<msg>,"code":<code>,...data}` with HTTP `status`.
 * User-facing wording follows feature level 417: "channel" where level 247 said "stream".
 *
 * Two ways errors travel:
 * - in `realm/` handlers they are returned as values (`Result<T>`), never thrown, because a throw
 *   inside an xstate transition would stop the realm actor;
 * - in `api/` and `http/` parameter decoding they may be thrown as `ZulipError` and are caught by
 *   the dispatcher, which turns them into responses.
 */

/** Zulip's `code` values (a subset of zerver/lib/exceptions.py ErrorCode). */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'REQUEST_VARIABLE_MISSING'
  | 'REQUEST_VARIABLE_INVALID'
  | 'REQUEST_CONFUSING_VAR'
  | 'INVALID_JSON'
  | 'BAD_NARROW'
  | 'STREAM_DOES_NOT_EXIST'
  | 'UNAUTHORIZED_PRINCIPAL'
  | 'BAD_EVENT_QUEUE_ID'
  | 'UNAUTHORIZED'
  | 'AUTHENTICATION_FAILED'
  | 'USER_DEACTIVATED'
  | 'REALM_DEACTIVATED'
  | 'NONEXISTENT_SUBDOMAIN'
  | 'PASSWORD_AUTH_DISABLED'
  | 'RATE_LIMIT_HIT'
  | 'STREAM_WILDCARD_MENTION_NOT_ALLOWED'
  | 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED'
  | 'CANNOT_DEACTIVATE_LAST_USER'
  | 'REACTION_ALREADY_EXISTS'
  | 'CHANNEL_ALREADY_EXISTS'
  | 'REACTION_DOES_NOT_EXIST'
  | 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED'
  | 'INTERNAL_SERVER_ERROR'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'SERVER_NOT_READY'
  | 'CANNOT_DEACTIVATE_GROUP_IN_USE'
  | 'BAD_IMAGE'
  | 'REALM_UPLOAD_QUOTA'
  | 'CSRF_FAILED'
  | 'INVITATION_FAILED'
  // parley's own (no Zulip equivalent): storage failures a client can meet
  | 'DISK_FULL'
  | 'MESSAGE_DAMAGED';

/**
 * A Zulip API error. `data` fields are flattened into the top level of the JSON body
 * (e.g. `var_name`, `stream`). `headers` are extra HTTP headers (e.g. `WWW-Authenticate`).
 * `omitCode` exists only for Zulip's 405 body, which has no `code` key.
 */
export class ZulipError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number = 400,
    readonly data: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
    readonly omitCode = false,
  ) {
    super(message);
    this.name = 'ZulipError';
  }

  /** The JSON body Zulip sends for this error. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { result: 'error', msg: this.message };
    if (!this.omitCode) body.code = this.code;
    return Object.assign(body, this.data);
  }
}

/** A handler outcome: either the value or a ZulipError (errors are values in `realm/`). */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ZulipError };

/** Wraps a success value. */
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
/** Wraps an error value. */
export const fail = <T = never>(error: ZulipError): Result<T> => ({ ok: false, error });

const bad = (msg: string, data?: Record<string, unknown>) => new ZulipError('BAD_REQUEST', msg, 400, data);
const basicAuthHeader = { 'WWW-Authenticate': 'Basic realm="zulip"' };

/** HTML-escapes like Django's `escape` (used where Zulip echoes user input into messages). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#x27;',
  );
}

/**
 * Constructors for every error parley returns. Each names its Zulip source
 * (zerver/lib/exceptions.py classes, the view that raises it).
 * Keep wording byte-for-byte: clients and tests match on it.
 */
export const Errors = {
  // parameter parsing (zerver/lib/typed_endpoint.py)
  missingArgument: (name: string) =>
    new ZulipError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name }),
  confusingVar: (a: string, b: string) =>
    new ZulipError('REQUEST_CONFUSING_VAR', `Can't decide between '${a}' and '${b}' arguments`, 400, {
      var_name1: a,
      var_name2: b,
    }),
  badValue: (name: string, raw: string) =>
    new ZulipError('REQUEST_VARIABLE_INVALID', `Bad value for '${name}': ${raw}`, 400, {
      var_name: name,
      bad_value: raw,
    }),
  badRequest: bad,

  // routing (zproject/urls.py, zerver/lib/rest.py) (parley answers JSON where Django would send an HTML page)
  notFound: () => new ZulipError('NOT_FOUND', 'Not Found', 404),
  methodNotAllowed: (allowed: readonly string[]) =>
    new ZulipError('METHOD_NOT_ALLOWED', 'Method Not Allowed', 405, { allowed_methods: allowed }, {}, true),
  payloadTooLarge: (limitBytes: number) =>
    new ZulipError('PAYLOAD_TOO_LARGE', `Request body too large (limit: ${limitBytes} bytes)`, 413),
  internal: () => new ZulipError('INTERNAL_SERVER_ERROR', 'Internal server error', 500),
  serverNotReady: () => new ZulipError('SERVER_NOT_READY', 'Server is shutting down', 503),
  /** `GET /health` failed a check (Zulip's zerver/views/health.py raises ServerNotReadyError). */
  unhealthy: (msg: string) => new ZulipError('SERVER_NOT_READY', msg, 503),
  /** `GET /metrics` on the main port without the configured bearer token. */
  metricsTokenRequired: () =>
    new ZulipError('UNAUTHORIZED', 'A valid metrics token is required: Authorization: Bearer <token>', 401, {}, { 'WWW-Authenticate': 'Bearer realm="parley-metrics"' }),

  // Storage (parley-specific codes, Zulip has none)
  /** The data disk has no room for the write: HTTP 507 Insufficient Storage (RFC 4918 §11.5); reads still work. */
  diskFull: () =>
    new ZulipError('DISK_FULL', "The server's data disk is full: changes cannot be saved until space is freed. Reading still works.", 507),
  /**
   * A read waited for a change it reflects to become durable and the write did not complete in
   * time or failed (api/durable-read.ts); nothing unsaved was shown, the client may retry.
   */
  changeNotSaved: () =>
    new ZulipError('SERVER_NOT_READY', 'A recent change could not be confirmed as saved in time; try again', 503),
  /** A message whose stored body fails its checksum (GET /messages shows the others with a marker for it). */
  messageDamaged: (messageId: number) =>
    new ZulipError('MESSAGE_DAMAGED', `The stored content of message ${messageId} is damaged; an administrator must restore it from a backup`, 400),

  // authentication on /api/v1 (zerver/decorator.py): everything is re-wrapped as 401 UNAUTHORIZED
  notLoggedIn: () =>
    new ZulipError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401, {}, basicAuthHeader),
  unauthorized: (msg: string) => new ZulipError('UNAUTHORIZED', msg, 401, {}, basicAuthHeader),
  invalidBasicAuthHeader: () =>
    new ZulipError('UNAUTHORIZED', 'Invalid authorization header for basic auth', 401, {}, basicAuthHeader),
  notBasicAuth: () => bad('This endpoint requires HTTP basic authentication.'),
  malformedApiKey: () => new ZulipError('UNAUTHORIZED', 'Malformed API key', 401, {}, basicAuthHeader),
  invalidApiKey: () => new ZulipError('UNAUTHORIZED', 'Invalid API key', 401, {}, basicAuthHeader),
  accountDeactivatedApi: () => new ZulipError('UNAUTHORIZED', 'Account is deactivated', 401, {}, basicAuthHeader),
  realmDeactivatedApi: () =>
    new ZulipError('UNAUTHORIZED', 'This organization has been deactivated', 401, {}, basicAuthHeader),
  wrongSubdomain: () =>
    new ZulipError('UNAUTHORIZED', 'Account is not associated with this subdomain', 401, {}, basicAuthHeader),

  // web sessions on /json (zerver/lib/rest.py `rest_dispatch`, zerver/middleware.py `csrf_failure`)
  /**
   * `/json` without a session: Zulip's `MissingAuthenticationError` with the session challenge
   * (`WWW-Authenticate: Session realm="zulip"`, which browsers never answer with a password dialog).
   */
  notLoggedInSession: () =>
    new ZulipError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401, {}, { 'WWW-Authenticate': 'Session realm="zulip"' }),
  /** Django's CSRF check refused a session request (`CsrfFailureError`: 403, `reason` field). */
  csrfFailed: (reason: string) => new ZulipError('CSRF_FAILED', `CSRF error: ${reason}`, 403, { reason }),
  /** `PATCH /settings` with a wrong `old_password` (zerver/views/user_settings.py `json_change_settings`). */
  wrongOldPassword: () => bad('Wrong password!'),
  /** `PATCH /settings` `new_password` failing `check_password_strength`. */
  newPasswordTooWeak: () => bad('New password is too weak!'),

  // fetch_api_key (zerver/views/auth.py `api_fetch_api_key`) (plain JsonableErrors: no WWW-Authenticate)
  invalidSubdomain: () => new ZulipError('NONEXISTENT_SUBDOMAIN', 'Invalid subdomain', 404),
  invalidEmailAddress: () => bad('Enter a valid email address.'),
  authenticationFailed: () =>
    new ZulipError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401),
  userDeactivated: () => new ZulipError('USER_DEACTIVATED', 'Account is deactivated', 401),
  realmDeactivated: () => new ZulipError('REALM_DEACTIVATED', 'This organization has been deactivated', 401),
  rateLimited: (retryAfterSeconds: number) =>
    new ZulipError(
      'RATE_LIMIT_HIT',
      'API usage exceeded rate limit',
      429,
      { 'retry-after': retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    ),

  // role helpers (zerver/decorator.py `require_realm_admin` ...)
  mustBeAdmin: () => new ZulipError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator'),
  mustBeOwner: () => new ZulipError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner'),
  /**
   * Also what administrator-only endpoints answer non-administrators:
   * https://zulip.com/api/http-headers, https://zulip.com/api/rest-error-handling specify
   * BAD_REQUEST with an insufficient-permission message, and the seed wins over Zulip's own
   * "Must be an organization administrator" (UNAUTHORIZED_PRINCIPAL,
   * https://zulip.com/api/rest-error-handling).
   */
  insufficientPermission: () => bad('Insufficient permission'),
  /**
   * zerver/lib/exceptions.py `InvitationError` (raised by zerver/actions/invites.py
   * `do_invite_users`): `errors` = `[email, message, is_deactivated_user]` per skipped address.
   */
  invitationFailed: (msg: string, errors: ReadonlyArray<[string, string, boolean]>, sentInvitations: boolean, dailyLimitReached = false) =>
    new ZulipError('INVITATION_FAILED', msg, 400, {
      errors,
      sent_invitations: sentInvitations,
      license_limit_reached: false,
      daily_limit_reached: dailyLimitReached,
    }),
  notAllowedForGuests: () => bad('Not allowed for guest users'),
  /** Seed §4.12/§7: `PATCH /users/{id}` giving a guest the administrator role (Zulip itself allows it). */
  guestCannotBeAdmin: () => bad('Guests cannot be organization administrators'),
  noBots: () => bad('This endpoint does not accept bot requests.'),

  // send message (zerver/views/message_send.py, zerver/actions/message_send.py)
  invalidType: () => bad('Invalid type'),
  expectedOneStream: () => bad('Expected exactly one stream'),
  invalidStreamDataType: () => bad('Invalid data type for stream'),
  invalidRecipientsDataType: () => bad('Invalid data type for recipients'),
  mixedRecipients: () => bad('Recipient lists may contain emails or user IDs, but not both.'),
  missingStream: () => bad('Missing channel'),
  multipleStreams: () => bad('Cannot send to multiple channels'),
  missingTopic: () => bad('Missing topic'),
  topicEmpty: () => bad("Topic can't be empty!"),
  topicInvalidChar: (position: number) => bad(`Invalid character in topic, at position ${position}!`),
  noRecipients: () => bad('Message must have recipients'),
  invalidEmail: (email: string) => bad(`Invalid email '${email}'`),
  invalidUserId: (id: number) => bad(`Invalid user ID ${id}`),
  messageEmpty: () => bad('Message must not be empty'),
  messageNullBytes: () => bad('Message must not contain null bytes'),
  /**
   * Zulip's `render_incoming_message`: a `MarkdownRenderingError` (its 5 s timeout, or rendered
   * HTML over `MAX_MESSAGE_LENGTH * 100` characters) answers "Unable to render message".
   */
  unableToRenderMessage: () => bad('Unable to render message'),
  /** A string parameter over its limit, in code points (`@typed_endpoint`'s `StringConstraints` wording). */
  parameterTooLong: (name: string, limit: number) => bad(`${name} is too long (limit: ${limit} characters)`),
  streamNameEmpty: () => bad("Channel name can't be empty!"),
  streamNameTooLong: (limit: number) => bad(`Channel name too long (limit: ${limit} characters).`),
  streamNameInvalidChar: (position: number) => bad(`Invalid character in channel name, at position ${position}!`),
  streamNameNotFound: (name: string) =>
    new ZulipError('STREAM_DOES_NOT_EXIST', `Channel '${escapeHtml(name)}' does not exist`, 400, {
      stream: escapeHtml(name),
    }),
  streamIdNotFound: (id: number) =>
    new ZulipError('STREAM_DOES_NOT_EXIST', `Channel with ID '${id}' does not exist`, 400, { stream_id: id }),
  notAuthorizedToSend: (streamName: string) => bad(`Not authorized to send to channel '${streamName}'`),
  cannotSendToChannel: () => bad('You do not have permission to post in this channel.'),
  /** zerver/lib/exceptions.py `CannotAdministerChannelError`. */
  cannotAdministerChannel: () => bad('You do not have permission to administer this channel.'),
  /** Zulip's `StreamWildcardMentionNotAllowedError` (FL 229 code; FL 417 wording). */
  streamWildcardMentionNotAllowed: () =>
    new ZulipError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.', 400),
  /** Zulip's `TopicWildcardMentionNotAllowedError`. */
  topicWildcardMentionNotAllowed: () =>
    new ZulipError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.', 400),
  noLongerUsingZulip: (email: string) => bad(`'${email}' is no longer using Zulip.`),
  cannotAccessRecipients: () => bad('You do not have permission to access some of the recipients.'),
  topicsRequired: () => bad('Topics are required in this organization.'),
  emptyTopicNotAllowedInChannel: () => bad('Sending messages to the general chat is not allowed in this channel.'),
  onlyEmptyTopicAllowed: () => bad('Only the general chat topic is allowed in this channel.'),
  localIdRequired: () => bad('Missing local_id'),

  // event queues (zerver/tornado/views.py `get_events_backend`)
  badEventQueueId: (queueId: string) =>
    new ZulipError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId }),

  // message access (zerver/lib/message.py `access_message`)
  invalidMessage: () => bad('Invalid message(s)'),

  // Message flags (Zulip's zerver/actions/message_flags.py, zerver/views/message_flags.py)
  invalidFlag: (flag: string) => bad(`Invalid flag: '${flag}'`),
  flagNotEditable: (flag: string) => bad(`Flag not editable: '${flag}'`),
  invalidFlagOperation: (op: string) => bad(`Invalid message flag operation: '${op}'`),
  noSuchTopic: (topic: string) => bad(`No such topic '${topic}'`),

  // users and streams lookups (zerver/lib/users.py, zerver/lib/streams.py)
  noSuchUser: () => bad('No such user'),
  invalidStreamId: () => bad('Invalid channel ID'),
  invalidStreamName: (name: string) => bad(`Invalid channel name '${name}'`),
  /** Zulip's `ChannelExistsError` (`POST /channels/create`, FL 417): HTTP 409 Conflict. */
  channelAlreadyExists: (name: string) => new ZulipError('CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`, 409),
  userNotAuthorized: () => bad('User not authorized for this query'),

  // User groups (Zulip's `CannotDeactivateGroupInUseError`, FL 298): where the group is used.
  cannotDeactivateGroupInUse: (objections: readonly Record<string, unknown>[]) =>
    new ZulipError('CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.', 400, { objections }),

  // Custom emoji, avatars and images (zerver/lib/emoji.py, zerver/views/realm_emoji.py,
  // zerver/views/user_settings.py set_avatar_backend, zerver/lib/thumbnail.py BadImageError)
  emojiNameMissing: () => bad('Emoji name is missing'),
  emojiNameBadEnd: () => bad('Emoji names must end with either a letter or digit.'),
  emojiNameBadChars: () =>
    bad('Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'),
  emojiNameTaken: () => bad('A custom emoji with this name already exists.'),
  onlyAdminsOverrideBuiltInEmoji: () => bad('Only administrators can override built-in emoji.'),
  emojiDoesNotExist: (name: string) => bad(`Emoji '${name}' does not exist`),
  notEmojiAdmin: () => bad('Must be an organization administrator or emoji author'),
  exactlyOneFile: () => bad('You must upload exactly one file.'),
  /** Zulip's avatar form: "You must upload exactly one avatar." */
  exactlyOneAvatar: () => bad('You must upload exactly one avatar.'),
  fileTooLargeMib: (mib: number) => bad(`Uploaded file is larger than the allowed limit of ${mib} MiB`),
  badImage: (msg: string) => new ZulipError('BAD_IMAGE', msg, 400),
  avatarChangesDisabled: () => bad('Avatar changes are disabled in this organization.'),
  // Uploads (zerver/views/upload.py upload_file_backend, zerver/lib/upload/__init__.py
  // check_upload_within_quota, zerver/views/attachments.py remove)
  uploadNoFile: () => bad('You must specify a file to upload'),
  uploadTooManyFiles: () => bad('You may only upload one file at a time'),
  uploadTooLarge: (maxMib: number) => bad(`File is larger than this server's configured maximum upload size (${maxMib} MiB).`),
  /** parley's: Zulip stores empty files; the issue asks to refuse them. */
  uploadEmpty: () => bad('Uploaded file is empty'),
  uploadQuota: () => new ZulipError('REALM_UPLOAD_QUOTA', "Upload would exceed your organization's upload quota.", 400),
  invalidAttachment: () => bad('Invalid attachment'),
  /** Missing and not allowed alike (no existence oracle; Zulip's serve_file 404 page). */
  fileNotFound: () => new ZulipError('BAD_REQUEST', 'File not found', 404),
  invalidUploadToken: () => bad('Invalid token'),
  invalidUploadFilename: () => bad('Invalid filename'),

  // Personal features (zerver/views/muted_users.py, zerver/actions/saved_snippets.py,
  // zerver/views/read_receipts.py, zerver/views/typing.py, zerver/views/users.py
  // deactivate_user_own_backend, zerver/views/push_notifications.py)
  cannotMuteSelf: () => bad('Cannot mute self'),
  userAlreadyMuted: () => bad('User already muted'),
  userNotMuted: () => bad('User is not muted'),
  /** `ResourceNotFoundError`: HTTP 404, code BAD_REQUEST. */
  savedSnippetDoesNotExist: () => new ZulipError('BAD_REQUEST', 'Saved snippet does not exist.', 404),
  readReceiptsDisabled: () => bad('Read receipts are disabled in this organization.'),
  channelTypingDisabled: () => bad('User has disabled typing notifications for channel messages'),
  directTypingDisabled: () => bad('User has disabled typing notifications for direct messages'),
  /** Zulip's `CannotDeactivateLastUserError` ("the only organization owner" / "the only user"). */
  cannotDeactivateLastUser: (isLastOwner: boolean) => {
    const entity = isLastOwner ? 'organization owner' : 'user';
    return new ZulipError('CANNOT_DEACTIVATE_LAST_USER', `Cannot deactivate the only ${entity}.`, 400, { is_last_owner: isLastOwner, entity });
  },
  pushTokenInvalidLength: () => bad('Empty or invalid length token'),
  invalidApnsToken: () => bad('Invalid APNS token'),
  invalidAppId: () => bad('Invalid app ID'),
  pushTokenDoesNotExist: () => bad('Token does not exist'),
} as const;
