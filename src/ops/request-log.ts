/**
 * One observer per answered request (issue 13 §2): counts it in the metrics and writes one
 * `info` log line `{"msg":"request","method","route","status","ms","realm","user_id","ip"}`.
 * `route` is the path template, so a line never carries message ids, emails or API keys from
 * the URL; `ms` is rounded to 0.01 ms.
 */
import type { AnsweredRequest } from '../http/server.js';
import { log } from '../log.js';
import { observeRequest } from '../metrics.js';

/** The `onAnswered` hook of `startHttpServer`: metrics always, the log line at level info. */
export function recordAnsweredRequest(answer: AnsweredRequest): void {
  observeRequest(answer.route, answer.method, answer.status, answer.ms / 1000);
  if (!log.isLevelEnabled('info')) return;
  log.info(
    {
      method: answer.method,
      route: answer.route,
      status: answer.status,
      ms: Math.round(answer.ms * 100) / 100,
      realm: answer.realm,
      user_id: answer.userId,
      ip: answer.ip,
    },
    'request',
  );
}
