/**
 * Server limits and protocol parameters (Zulip's `zproject/default_settings.py` and
 * `zerver/lib/events.py` `fetch_initial_state_data`, the `realm` fetch type), shared by the
 * handlers that enforce them and the `POST /register` builder that reports them. Domain data: no
 * imports from the layers above.
 */
import {
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
} from './messages.js';
import { MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH, MAX_CHANNEL_FOLDER_NAME_LENGTH } from './channel-folders.js';

/**
 * Server limits and protocol parameters reported with the `realm` fetch type.
 * Units are in the names (seconds, milliseconds, MiB); lengths are Unicode code points.
 */
export const SERVER_LIMITS = {
  max_message_length: MAX_MESSAGE_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
  max_stream_name_length: MAX_STREAM_NAME_LENGTH,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  /** FL 397: `send_new_subscription_messages` is honoured up to this many new subscribers. */
  max_bulk_new_subscription_messages: 100,
  /** FL 410. */
  max_channel_folder_name_length: MAX_CHANNEL_FOLDER_NAME_LENGTH,
  max_channel_folder_description_length: MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
  /** FL 415 (`settings.MAX_REMINDER_NOTE_LENGTH`). */
  max_reminder_note_length: 1000,
  /** Seconds; Zulip's `PRESENCE_PING_INTERVAL_SECS`. */
  server_presence_ping_interval_seconds: 60,
  /**
   * Seconds after which clients show a user offline. Zulip's `OFFLINE_THRESHOLD_SECS` default is
   * 200; parley reports 140, the value clients hard-coded before FL 164 (team decision).
   */
  server_presence_offline_threshold_seconds: 140,
  /** Milliseconds (`TYPING_STARTED_EXPIRY_PERIOD_MILLISECONDS` etc., FL 204). */
  server_typing_started_expiry_period_milliseconds: 45000,
  server_typing_stopped_wait_period_milliseconds: 12000,
  server_typing_started_wait_period_milliseconds: 30000,
  /** Seconds: recommended client HTTP timeout for `GET /events` (heartbeats come every 45–55 s). */
  event_queue_longpoll_timeout_seconds: 90,
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  max_avatar_file_size_mib: 5,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  /** Days (FL 332): `MIN_DEACTIVATED_REALM_DELETION_DAYS` / `MAX_…` (null = no maximum). */
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
} as const;
