import type { RequestListener } from 'node:http';
import type { InjectOptions, Response as InjectedResponse } from 'light-my-request';
import type { ServerDeps } from './deps.js';
import { apiErrorHandler, routeNotFound } from './plugins/error-handler.js';
import { createRequestPipeline } from './plugins/request-pipeline.js';
import { ConnectionDraining } from './plugins/connection-draining.js';
import { createLogger, RequestLog, type LogStream } from './plugins/logging.js';
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
import { HttpApp } from './http/http-app.js';
import { RequestContextResolver } from './http/request-context.js';
import { requestIdGenerator } from './http/request-ids.js';
import { installUplinkGuard } from './plugins/uplink-write-guard.js';
import type { RequestPipeline } from './http/request-steps.js';
import { installChangeRecording } from './plugins/change-recording.js';
import { auditRoutes } from './routes/audit.js';
import { webhookRoutes } from './routes/webhooks.js';

export interface BuiltApp {
  /** The HTTP server: its routes, its lifecycle (ready, listen, close) and its logger. */
  app: HttpApp;
  services: Services;
  metrics: RegistryMetrics;
  /** The request steps every request runs. */
  pipeline: RequestPipeline;
  /** What the HTTP server calls for each request. */
  listener: RequestListener;
  /** An in-process request, answered as a socket's request is: every route answers it. */
  inject(options: InjectOptions | string): Promise<InjectedResponse>;
}

export interface BuildOptions {
  /** PEM certificate and key: serve HTTPS. */
  tls?: { cert: Buffer; key: Buffer };
  /** Write the JSON-lines log here instead of stdout. */
  logStream?: LogStream;
}

/** Builds the registry's HTTP server and its services. Never listens: main.ts (or a test) does that. */
export async function buildApp(deps: ServerDeps, options: BuildOptions = {}): Promise<BuiltApp> {
  const { config } = deps;
  const addressing = new ClientAddressing(proxyTrustOf(config.trustProxy));
  const log = createLogger(config.logLevel, options.logStream);
  const requestLog = new RequestLog(log);
  const services = createServices(deps, {
    onError: (err, task) => log.error({ err }, `background task failed: ${task}`),
    onUplinkFailure: (uplink, what, why) => log.warn({ uplink, package: what, reason: why }, 'upstream request failed'),
    log,
  });
  const contexts = new RequestContextResolver(config, services);
  const metrics = new RegistryMetrics();
  const storageFigures = new StorageFigureSource(deps.usage);
  metrics.setSources({
    busConnected: () => deps.bus.connected,
    redisReady: () => deps.redis?.ready,
    cacheStats: () => services.documentCache.stats,
    renderStats: () => services.packageReads.renderStats,
    uplinkStats: () => services.uplinks.stats(),
    // While the database is unreachable the other metrics still answer (health says why).
    storageFigures: () => storageFigures.read().catch(() => undefined),
  });
  const drain = new ConnectionDraining();
  // The steps every request takes, in order, around its route (http/exchange.ts runs them).
  const pipeline = createRequestPipeline({
    drain,
    contexts,
    addressing,
    rateLimits: services.rateLimits,
    requestLog,
    metrics,
    tokenUses: services.tokenUses,
  });
  const app = new HttpApp({
    tls: options.tls,
    log,
    scope: { addressing, log },
    pipeline,
    bodyLimit: config.maxBodySize,
    nextRequestId: requestIdGenerator(),
    errorHandler: apiErrorHandler,
    notFound: routeNotFound,
  });
  drain.attach(app);
  app.onReady(async () => services.start());
  // Buffered download counts are written before the storage closes (main and tests close the app first).
  app.onClose(async () => {
    requestLog.flush();
    await services.close();
  });
  const routes = app.routes;
  installUplinkGuard(routes);
  installChangeRecording(routes, services.audit, (err) => log.error({ err }, 'recording a change in the audit log failed'));

  pingRoutes(routes);
  registryInfoRoutes(routes, { config });
  userAuthRoutes(routes, { services });
  tokenRoutes(routes, { services });
  profileRoutes(routes, { services });
  packageRoutes(routes, { services });
  versionRoutes(routes, { services });
  tarballRoutes(routes, { services });
  publishRoutes(routes, { services });
  packageChangeRoutes(routes, { services, config });
  distTagRoutes(routes, { services });
  searchRoutes(routes, { services });
  downloadCountRoutes(routes, { services });
  signingKeyRoutes(routes, { services });
  advisoryRoutes(routes, { services });
  attestationRoutes(routes, { services });
  adminUserRoutes(routes, { services });
  teamRoutes(routes, { services });
  auditRoutes(routes, { services });
  webhookRoutes(routes, { services });
  await webRoutes(routes, { deps, services });
  healthRoutes(routes, { services, metrics });
  return { app, services, metrics, pipeline, listener: app.listener, inject: (request) => app.inject(request) };
}
