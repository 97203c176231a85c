/** Every endpoint parley serves: the route table handed to `api/registry.ts`. */
import type { Endpoint } from './define-endpoint.js';
import { authEndpoints } from './auth.js';
import { serverSettingsEndpoints } from './server-settings.js';
import { messageEndpoints } from './messages.js';
import { userEndpoints } from './users.js';
import { streamEndpoints } from './streams.js';

export const endpoints: readonly Endpoint<any>[] = [
  ...authEndpoints,
  ...serverSettingsEndpoints,
  ...messageEndpoints,
  ...userEndpoints,
  ...streamEndpoints,
];
