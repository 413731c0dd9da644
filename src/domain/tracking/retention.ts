/**
 * How long the customer's data is kept (issue 29 item 9; docs/security.md,
 * "What is kept and for how long"), run by the prune job with the delivery
 * log's: SMS rows (SMS_RETENTION_DAYS), chat messages (CHAT_RETENTION_DAYS),
 * survey comments, blanked while the rating stays for the technician's rate
 * (SURVEY_COMMENT_RETENTION_DAYS), and tracking tokens once expired
 * (TRACKING_TOKEN_RETENTION_DAYS). Set-based deletes in bounded batches, so no
 * statement holds a long lock.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../../config/index.js';
import { pruneChatBatch } from '../../db/stores/chat.js';
import { pruneSmsBatch } from '../../db/stores/sms.js';
import { blankSurveyCommentBatch, pruneTrackingTokenBatch } from '../../db/stores/tracking.js';

export type RetentionConfig = Pick<Config, 'smsRetentionDays' | 'chatRetentionDays' | 'surveyCommentRetentionDays' | 'trackingTokenRetentionDays'>;

export interface CustomerPruned {
  sms: number;
  chat: number;
  surveyComments: number;
  trackingTokens: number;
}

async function drain(step: (batch: number) => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step(batch);
    total += n;
    if (n < batch) return total;
  }
}

export async function pruneCustomerData(em: EntityManager, cfg: RetentionConfig, batch = 5000): Promise<CustomerPruned> {
  return {
    sms: await drain((b) => pruneSmsBatch(em, cfg.smsRetentionDays, b), batch),
    chat: await drain((b) => pruneChatBatch(em, cfg.chatRetentionDays, b), batch),
    surveyComments: await drain((b) => blankSurveyCommentBatch(em, cfg.surveyCommentRetentionDays, b), batch),
    trackingTokens: await drain((b) => pruneTrackingTokenBatch(em, cfg.trackingTokenRetentionDays, b), batch),
  };
}
