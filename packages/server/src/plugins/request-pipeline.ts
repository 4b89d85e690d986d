import type { ClientAddressing } from '../http/client-address.js';
import type { RequestContextResolver } from '../http/request-context.js';
import type { RequestPipeline } from '../http/request-steps.js';
import type { RegistryMetrics } from '../observability/metrics.js';
import type { RateLimitService } from '../services/rate-limits.js';
import { readAccessStep } from './access.js';
import { closeWhileDrainingStep, refuseWhileDrainingStep, responseDoneStep, type DrainState } from './connection-draining.js';
import { requestLogStep, type RequestLog } from './logging.js';
import { rateLimitStep } from './rate-limit.js';
import { requestContextStep } from './request-context.js';
import { requestMetricsStep } from './request-metrics.js';
import { tokenLimitsStep } from './token-limits.js';
import type { TokenUseRecorder } from '../services/token-uses.js';

export interface PipelineParts {
  drain: DrainState;
  contexts: RequestContextResolver;
  addressing: ClientAddressing;
  rateLimits: RateLimitService;
  requestLog: RequestLog;
  metrics: RegistryMetrics;
  tokenUses: TokenUseRecorder;
}

/** The registry's request steps, in the order every request runs them (http/exchange.ts). */
export function createRequestPipeline(parts: PipelineParts): RequestPipeline {
  return {
    beforeHandler: [
      refuseWhileDrainingStep(parts.drain),
      requestContextStep(parts.contexts, parts.addressing),
      rateLimitStep(parts.rateLimits),
      readAccessStep,
      tokenLimitsStep(parts.tokenUses),
    ],
    beforeSend: [closeWhileDrainingStep(parts.drain)],
    afterResponse: [responseDoneStep(parts.drain), requestLogStep(parts.requestLog), requestMetricsStep(parts.metrics)],
  };
}
