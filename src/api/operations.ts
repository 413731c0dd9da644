/**
 * Every operation of the service, declared once (D19), each in its area's
 * folder: HTTP mounts these (src/http/mount.ts), the socket invokes them by
 * operationId (invoke.ts) and the OpenAPI document (document/openapi.ts)
 * describes them. Error statuses every route shares (malformed JSON, 408, 413,
 * 415, the authentication failures, 500) are added by the document from
 * `auth` and `envelope`, so each declaration lists only its own answers.
 */
import { historyOptions, queryHistory } from './catalog/history.js';
import { listServiceTypes } from './catalog/types.js';
import {
  trackingPage,
  trackingPageCode,
  trackingPageLogout,
  trackingPageMessage,
  trackingPagePart,
  trackingPageScript,
  trackingPageSurvey,
  trackingPageVerify,
  trackingSharedPage,
} from './customer/page.js';
import {
  answerSurvey,
  chatStatistics,
  chatUnread,
  listChatMessages,
  markChatRead,
  requestTrackingCode,
  sendChatMessage,
  revokeTracking,
  shareTracking,
  trackService,
  trackServicePublic,
} from './customer/tracking.js';
import { listWebhookDeliveries } from './deliveries/deliveries.js';
import { testWebhook } from './webhooks/testWebhook.js';
import { listCentralServices } from './providers/centralServices.js';
import { acceptOffer } from './offers/acceptOffer.js';
import { createOffer } from './offers/createOffer.js';
import { getOfferResponses } from './offers/offerResponses.js';
import type { OperationDecl } from './operation.js';
import { consoleHome, consoleOffer, consoleQueue, consoleResend, consoleScript } from './deliveries/console.js';
import { login } from './operators/login.js';
import { adminLogin, adminLoginPage, adminLogout, adminQueues } from './operators/pages.js';
import { listRecipients } from './operators/recipients.js';
import { operatorLiveMap, operatorSocketToken } from './operators/liveMap.js';
import { addAddress } from './service/addAddress.js';
import { cancelService, confirmAssignment, withdrawOffer } from './service/assignment.js';
import { assignDirectly } from './service/directAssignment.js';
import { finalizeService } from './service/finalize.js';
import { updatePosition } from './service/position.js';
import { listTechnicianServices } from './providers/technicianServices.js';
import { issueTechnicianTokenOp } from './providers/technicianToken.js';
import { reportProgress } from './service/progress.js';
import { changeTechnician } from './providers/changeTechnician.js';
import { metricsEndpoint } from './deliveries/metrics.js';
import { asyncApiDocument, docsAsset, docsPage, health, healthLive, healthReady, pageAsset, openApiDocument } from './system/system.js';

/** Every operation, in the order the document lists them. */
export const OPERATIONS: readonly OperationDecl[] = [
  createOffer,
  getOfferResponses,
  acceptOffer,
  confirmAssignment,
  withdrawOffer,
  cancelService,
  addAddress,
  assignDirectly,
  reportProgress,
  changeTechnician,
  updatePosition,
  finalizeService,
  issueTechnicianTokenOp,
  listTechnicianServices,
  listServiceTypes,
  queryHistory,
  historyOptions,
  login,
  listRecipients,
  operatorLiveMap,
  operatorSocketToken,
  adminLoginPage,
  adminLogin,
  adminLogout,
  adminQueues,
  health,
  healthLive,
  healthReady,
  openApiDocument,
  asyncApiDocument,
  docsPage,
  docsAsset,
  pageAsset,
  requestTrackingCode,
  trackService,
  shareTracking,
  trackServicePublic,
  revokeTracking,
  answerSurvey,
  sendChatMessage,
  listChatMessages,
  markChatRead,
  chatUnread,
  chatStatistics,
  trackingPage,
  trackingPageCode,
  trackingPageVerify,
  trackingPagePart,
  trackingPageMessage,
  trackingPageSurvey,
  trackingPageLogout,
  trackingPageScript,
  trackingSharedPage,
  listWebhookDeliveries,
  testWebhook,
  listCentralServices,
  consoleHome,
  consoleOffer,
  consoleResend,
  consoleQueue,
  consoleScript,
  metricsEndpoint,
];

/** Operations served by a mounted package rather than the mounter (the route test skips them in its walk). */
export const MOUNTED_OUTSIDE_ROUTER: ReadonlySet<string> = new Set([adminQueues.operationId]);

const BY_ID = new Map(OPERATIONS.map((op) => [op.operationId, op]));

/** The operation named `operationId`. */
export function operationById(operationId: string): OperationDecl {
  const op = BY_ID.get(operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  return op;
}
