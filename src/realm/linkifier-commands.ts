/**
 * Linkifier commands (https://zulip.com/api/get-linkifiers), kept beside `commands.ts` like the
 * channel commands.
 * `pattern` and `urlTemplate` arrive already stripped by the endpoint.
 */

/** `POST /realm/filters`: append a linkifier. Reply `{id}`. */
export interface AddLinkifier {
  type: 'add_linkifier';
  actorId: number;
  pattern: string;
  urlTemplate: string;
}

/** `PATCH /realm/filters/{filter_id}`: replace pattern and URL template, keeping the position. */
export interface UpdateLinkifier {
  type: 'update_linkifier';
  actorId: number;
  id: number;
  pattern: string;
  urlTemplate: string;
}

/** `DELETE /realm/filters/{filter_id}`. */
export interface RemoveLinkifier {
  type: 'remove_linkifier';
  actorId: number;
  id: number;
}

/** `PATCH /realm/linkifiers`: `orderedIds` must enumerate every linkifier exactly once. */
export interface ReorderLinkifiers {
  type: 'reorder_linkifiers';
  actorId: number;
  orderedIds: number[];
}

export type LinkifierCommand = AddLinkifier | UpdateLinkifier | RemoveLinkifier | ReorderLinkifiers;
