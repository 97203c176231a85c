/** Every endpoint parley serves: the route table handed to `api/registry.ts`. */
import type { Endpoint } from './define-endpoint.js';
import type { EventQueueManager } from '../events/event-queues.js';
import { authEndpoints } from './auth.js';
import { serverSettingsEndpoints } from './server-settings.js';
import { messageEndpoints } from './messages.js';
import { messageFetchEndpoints } from './messages-fetch.js';
import { messageDeleteEndpoints } from './message-delete.js';
import { matchesNarrowEndpoints } from './matches-narrow.js';
import { userEndpoints } from './users.js';
import { userAdminEndpoints } from './user-admin.js';
import { streamEndpoints } from './streams.js';
import { eventEndpoints } from './events.js';
import { typingEndpoints } from './typing.js';
import { presenceEndpoints } from './presence.js';
import { subscriptionEndpoints } from './subscriptions.js';
import { userTopicEndpoints } from './user-topics.js';
import { linkifierEndpoints } from './realm-linkifiers.js';
import { inviteEndpoints } from './invites.js';
import { userStatusEndpoints } from './user-status.js';
import { userGroupEndpoints } from './user-groups.js';
import { channelEndpoints } from './channels.js';
import { customProfileFieldEndpoints } from './custom-profile-fields.js';
import { navigationViewEndpoints } from './navigation-views.js';
import { channelFolderEndpoints } from './channel-folders.js';
import { messageEditEndpoints } from './message-edit.js';
import { messageHistoryEndpoints } from './message-history.js';
import { messageFlagEndpoints } from './message-flags.js';
import { draftEndpoints } from './drafts.js';
import { reactionEndpoints } from './reactions.js';

/** Server-wide services some endpoints are bound to. */
export interface EndpointServices {
  queues: EventQueueManager;
}

/** The full route table. */
export function buildEndpoints(services: EndpointServices): Endpoint<any>[] {
  return [
    ...authEndpoints,
    ...serverSettingsEndpoints,
    ...messageEndpoints,
    ...messageFetchEndpoints,
    ...matchesNarrowEndpoints,
    ...messageDeleteEndpoints,
    ...userEndpoints,
    ...userAdminEndpoints,
    ...streamEndpoints,
    ...eventEndpoints(services.queues),
    ...typingEndpoints,
    ...presenceEndpoints,
    ...subscriptionEndpoints,
    ...userTopicEndpoints,
    ...linkifierEndpoints,
    ...inviteEndpoints,
    ...userStatusEndpoints,
    ...userGroupEndpoints,
    ...channelEndpoints,
    ...customProfileFieldEndpoints,
    ...navigationViewEndpoints,
    ...channelFolderEndpoints,
    ...messageEditEndpoints,
    ...messageHistoryEndpoints,
    ...messageFlagEndpoints,
    ...draftEndpoints,
    ...reactionEndpoints,
  ];
}
