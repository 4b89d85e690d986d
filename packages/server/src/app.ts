import type { RequestListener } from 'node:http';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { InjectOptions, Response as InjectedResponse } from 'light-my-request';
import type { ServerDeps } from './deps.js';
import { answerFrameworkError, installErrorHandler } from './plugins/error-handler.js';
import { createRequestPipeline, installRequestPipeline } from './plugins/request-pipeline.js';
import { installBodyParsing } from './plugins/body-parsing.js';
import { installConnectionDraining } from './plugins/connection-draining.js';
import { installJsonDepthLimit } from './plugins/json-depth.js';
import { RequestLog, loggerOptions, type LogStream } from './plugins/logging.js';
import { RegistryMetrics } from './observability/metrics.js';
import { StorageFigureSource } from './observability/storage-figures.js';
import { createServices, type Services } from './services/services.js';
import { healthRoutes } from './routes/health.js';
import { pingRoutes } from './routes/ping.js';
import { tokenRoutes } from './routes/tokens.js';
import { profileRoutes } from './routes/profile.js';
import { registryInfoRoutes } from './routes/registry-info.js';
import { userAuthRoutes } from './routes/user-auth.js';
import { packageRoutes } from './routes/packages.js';
import { versionRoutes } from './routes/versions.js';
import { tarballRoutes } from './routes/tarballs.js';
import { publishRoutes } from './routes/publish.js';
import { packageChangeRoutes } from './routes/package-changes.js';
import { distTagRoutes } from './routes/dist-tags.js';
import { searchRoutes } from './routes/search.js';
import { downloadCountRoutes } from './routes/download-counts.js';
import { signingKeyRoutes } from './routes/signing-keys.js';
import { advisoryRoutes } from './routes/advisories.js';
import { attestationRoutes } from './routes/attestations.js';
import { adminUserRoutes } from './routes/admin-users.js';
import { teamRoutes } from './routes/teams.js';
import { webRoutes } from './web/index.js';
import { ClientAddressing, proxyTrustOf } from './http/client-address.js';
import { createHttpServer } from './http/http-server.js';
import { RequestContextResolver } from './http/request-context.js';
import { requestIdGenerator } from './http/request-ids.js';
import { HotPath } from './hot-path/hot-path.js';
import { installUplinkGuard } from './services/uplinks/uplink-guard.js';
import type { RequestPipeline } from './http/request-steps.js';
import { installChangeRecording } from './plugins/change-recording.js';
import { auditRoutes } from './routes/audit.js';
import { webhookRoutes } from './routes/webhooks.js';

export interface BuiltApp {
  app: FastifyInstance;
  services: Services;
  metrics: RegistryMetrics;
  /** The hot reads' short path; `enabled = false` sends everything through fastify. */
  hotPath: HotPath;
  /** The request steps both paths run. */
  pipeline: RequestPipeline;
  /** What the HTTP server calls for each request: the hot path, and fastify for what it leaves. */
  listener: RequestListener;
  /**
   * An in-process request through `listener`, as the socket's requests go: every route answers
   * it, the hot path's included (fastify's own `app.inject` reaches fastify's routes only).
   */
  inject(options: InjectOptions | string): Promise<InjectedResponse>;
}

export interface BuildOptions {
  /** PEM certificate and key: serve HTTPS. */
  tls?: { cert: Buffer; key: Buffer };
  /** Write the JSON-lines log here instead of stdout. */
  logStream?: LogStream;
}

/** Builds the registry as a Fastify instance. Never listens: main.ts (or a test) does that. */
export async function buildApp(deps: ServerDeps, options: BuildOptions = {}): Promise<BuiltApp> {
  const { config } = deps;
  const addressing = new ClientAddressing(proxyTrustOf(config.trustProxy));
  const nextRequestId = requestIdGenerator();
  // Set once the services exist; the server is created before them, with fastify.
  const offer: { hotPath?: HotPath; fastify?: RequestListener } = {};
  // Each request is offered to the hot path first (hot-path/hot-path.ts).
  const listener: RequestListener = (request, response) => {
    if (offer.hotPath?.serve(request, response) !== true) offer.fastify!(request, response);
  };
  const app = Fastify({
    ...(options.tls ? { https: options.tls } : {}),
    serverFactory: (fastifyHandler) => {
      offer.fastify = fastifyHandler;
      return createHttpServer(options.tls, listener);
    },
    genReqId: nextRequestId,
    logger: loggerOptions(config.logLevel, options.logStream),
    trustProxy: addressing.trust,
    bodyLimit: config.maxBodySize,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // npm packument names and tarball files may carry `%2f`; keep routing on the decoded path.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // connection-draining.ts answers requests that arrive while closing, in our error shape.
    return503OnClosing: false,
    frameworkErrors: (err, request, reply) => answerFrameworkError(err, request, reply, requestLog),
    // Routes check their input themselves (routes/login-body.ts) and send JSON they built: with
    // no schemas, fastify's compilers (ajv, fast-json-stringify: ~2.5 MiB of heap for the
    // server's whole life) are never loaded. A schema added to a route fails at start-up.
    schemaController: { compilersFactory: { buildValidator: noSchemas, buildSerializer: noSchemas } },
    forceCloseConnections: false,
    // One log line per request, written by the pipeline's requestLog step when the response is sent.
    logController: new LogController({ disableRequestLogging: true }),
  }) as unknown as FastifyInstance;
  const requestLog = new RequestLog(app.log);
  const services = createServices(deps, {
    onError: (err, task) => app.log.error({ err }, `background task failed: ${task}`),
    onUplinkFailure: (uplink, what, why) => app.log.warn({ uplink, package: what, reason: why }, 'upstream request failed'),
    log: app.log,
  });
  app.addHook('onReady', async () => services.start());
  // Buffered download counts are written before the storage closes (main and tests close the app first).
  app.addHook('onClose', async () => {
    requestLog.flush();
    await services.close();
  });
  installErrorHandler(app);
  const drain = installConnectionDraining(app);
  installBodyParsing(app);
  installJsonDepthLimit(app);
  const contexts = new RequestContextResolver(config, services);
  const metrics = new RegistryMetrics();
  const storageFigures = new StorageFigureSource(deps.usage);
  metrics.setSources({
    busConnected: () => deps.bus.connected,
    redisReady: () => deps.redis?.ready,
    cacheStats: () => services.documentCache.stats,
    uplinkStats: () => services.uplinks.stats(),
    // While the database is unreachable the other metrics still answer (health says why).
    storageFigures: () => storageFigures.read().catch(() => undefined),
  });
  // The steps every request takes, on fastify's path and on the hot path alike.
  const pipeline = createRequestPipeline({
    drain,
    contexts,
    addressing,
    rateLimits: services.rateLimits,
    requestLog,
    metrics,
    tokenUses: services.tokenUses,
  });
  installRequestPipeline(app, pipeline);
  installUplinkGuard(app);
  installChangeRecording(app, services.audit, (err) => app.log.error({ err }, 'recording a change in the audit log failed'));
  const staticPaths = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (!route.url.includes(':') && !route.url.includes('*')) staticPaths.add(route.url);
  });

  await app.register(pingRoutes, { services });
  await app.register(registryInfoRoutes, { config });
  await app.register(userAuthRoutes, { services });
  await app.register(tokenRoutes, { services });
  await app.register(profileRoutes, { services });
  await app.register(packageRoutes, { services });
  await app.register(versionRoutes, { services });
  await app.register(tarballRoutes, { services });
  await app.register(publishRoutes, { services });
  await app.register(packageChangeRoutes, { services, config });
  await app.register(distTagRoutes, { services });
  await app.register(searchRoutes, { services });
  await app.register(downloadCountRoutes, { services });
  await app.register(signingKeyRoutes, { services });
  await app.register(advisoryRoutes, { services });
  await app.register(attestationRoutes, { services });
  await app.register(adminUserRoutes, { services });
  await app.register(teamRoutes, { services });
  await app.register(auditRoutes, { services });
  await app.register(webhookRoutes, { services });
  await app.register(webRoutes, { deps, services });
  await app.register(healthRoutes, { services, metrics });
  const hotPath = new HotPath({ services, pipeline, addressing, log: app.log, nextRequestId, drain, staticPaths });
  offer.hotPath = hotPath;
  const inject = async (request: InjectOptions | string): Promise<InjectedResponse> => {
    await app.ready();
    // Loaded on first use, as fastify loads it for its own inject: a server never needs it.
    const { default: lightMyRequest } = await import('light-my-request');
    return lightMyRequest(listener, request);
  };
  return { app, services, metrics, hotPath, pipeline, listener, inject };
}

function noSchemas(): never {
  throw new Error('route schemas are not used: check the input in the handler (see routes/login-body.ts)');
}
