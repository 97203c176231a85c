/**
 * What parley reports itself as (`/server_settings`, `/register`). Clients gate features on
 * `zulip_feature_level`; the seed contract is feature level 417.
 */
export const ZULIP_FEATURE_LEVEL = 417;
/** A Zulip-style version string: clients parse the leading `major.minor`. */
export const ZULIP_VERSION = '11.0-parley';
export const ZULIP_MERGE_BASE = '11.0';
