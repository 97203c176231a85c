/**
 * The body of a render worker thread (see realm/render-pool.ts): renders one message's Markdown
 * with the same renderer and work budget as an in-thread render (`realm/message-render.ts`), from
 * a plain-data context ({@link ContextSnapshot}), and reports the HTML, the findings and which
 * lookups the render made. Loaded by piscina as the worker's module: the default export handles
 * one task.
 */
import { snapshotContext, type ContextSnapshot, type LookupCall } from './context-snapshot.js';
import { zulipRenderer } from './zulip-renderer.js';
import { MarkdownRenderingError, messageRenderWork } from './render-budget.js';

/** One render task (structured-cloned to the worker). */
export interface RenderTask {
  content: string;
  /** The realm URL (`RenderOptions.realmUrl`); absent = none. */
  realmUrl?: string;
  context: ContextSnapshot;
}

/** Findings as plain arrays (Zulip's `MessageRenderingResult` mention fields). */
export interface PlainFindings {
  mentionedUserIds: number[];
  mentionedGroupIds: number[];
  streamWildcard: boolean;
  topicWildcard: boolean;
}

/** What one task produced: the HTML, or the budget error, and the lookups the render made. */
export type RenderTaskResult =
  | { kind: 'rendered'; html: string; findings: PlainFindings; used: LookupCall[]; missed: LookupCall[]; readNow: boolean }
  | { kind: 'over_budget'; used: LookupCall[]; missed: LookupCall[]; readNow: boolean };

/** Renders one task; a renderer bug (not the budget) throws, and the caller renders in-thread. */
export default function renderTask(task: RenderTask): RenderTaskResult {
  const { context, use } = snapshotContext(task.context);
  const work = messageRenderWork(task.content.length);
  let html: string;
  try {
    html = zulipRenderer.render(task.content, task.realmUrl !== undefined ? { zulip: context, realmUrl: task.realmUrl, work } : { zulip: context, work });
  } catch (err) {
    if (err instanceof MarkdownRenderingError) return { kind: 'over_budget', ...use };
    throw err;
  }
  const found = context.out;
  return {
    kind: 'rendered',
    html,
    findings: {
      mentionedUserIds: [...found.mentionedUserIds],
      mentionedGroupIds: [...found.mentionedGroupIds],
      streamWildcard: found.streamWildcard,
      topicWildcard: found.topicWildcard,
    },
    ...use,
  };
}
