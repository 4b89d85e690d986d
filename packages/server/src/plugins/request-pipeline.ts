import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RequestContext } from '../context.js';
import type { ClientAddressing } from '../http/client-address.js';
import type { RequestContextResolver } from '../http/request-context.js';
import type { AfterStepRun, BeforeStepRun, RequestPipeline, SendStepRun, Step } from '../http/request-steps.js';
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

/** The registry's request steps, in the order both paths run them. */
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

/**
 * Runs the pipeline on every fastify request, as hooks named after the steps. The hooks are
 * callback-style: a step that answers without a promise costs none.
 */
export function installRequestPipeline(app: FastifyInstance, pipeline: RequestPipeline): void {
  app.decorateRequest('ctx', null as unknown as RequestContext);
  for (const step of pipeline.beforeHandler) app.addHook('onRequest', named(step, beforeHandlerHook(step)));
  for (const step of pipeline.beforeSend) app.addHook('onSend', named(step, beforeSendHook(step)));
  for (const step of pipeline.afterResponse) app.addHook('onResponse', named(step, afterResponseHook(step)));
}

function beforeHandlerHook(step: Step<BeforeStepRun>) {
  const run = step.run;
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let result;
    try {
      result = run(request, reply);
    } catch (err) {
      return done(err as Error);
    }
    if (result instanceof Promise) result.then(done, done);
    else done(result);
  };
}

function beforeSendHook(step: Step<SendStepRun>) {
  const run = step.run;
  return (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    run(reply);
    done(null, payload);
  };
}

function afterResponseHook(step: Step<AfterStepRun>) {
  const run = step.run;
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    run(request, reply);
    done();
  };
}

/** The hook under the step's name, as fastify's route listing shows it. */
function named<T extends object>(step: Step<unknown>, hook: T): T {
  return Object.defineProperty(hook, 'name', { value: step.name });
}
