/**
 * `GET /server_settings` (unauthenticated; https://zulip.com/api/get-server-settings, Zulip's
 * `api_get_server_settings`). python-zulip-api calls it in its constructor with an Authorization
 * header that must be ignored, and asserts `zulip_version`.
 */
import { Errors } from '../errors.js';
import { defineEndpoint } from './define-endpoint.js';
import { realmIconUrl } from '../domain/realm-icon.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../version.js';

/** Authentication backends as Zulip reports them; parley has email/password only. */
export const AUTHENTICATION_METHODS = {
  password: true,
  dev: false,
  email: true,
  ldap: false,
  remoteuser: false,
  github: false,
  azuread: false,
  gitlab: false,
  google: false,
  apple: false,
  saml: false,
  'openid connect': false,
};

/**
 * `GET /server_settings`: the server and realm description clients read before logging in (Zulip's
 * zerver/views/auth.py `api_get_server_settings`).
 */
export const getServerSettings = defineEndpoint({
  auth: 'none',
  params: {},
  handler: ({ realm }) => {
    // https://zulip.com/api/get-server-settings: a Host that selects no organization is a 400.
    if (realm === null) return Errors.badRequest('Invalid subdomain');
    const url = realm.url;
    return {
      authentication_methods: AUTHENTICATION_METHODS,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_uri: url,
      realm_url: url,
      realm_name: realm.state.settings.name,
      realm_icon: realmIconUrl(realm.state),
      realm_description: realm.state.settings.description,
      realm_web_public_access_enabled: false,
      external_authentication_methods: [],
    };
  },
});

