import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { ServerDeps } from './deps.js';
import { answerFrameworkError, installErrorHandler } from './plugins/error-handler.js';
import { installRequestContext } from './plugins/request-context.js';
import { installRateLimits } from './plugins/rate-limit.js';
import { installAccessControl } from './plugins/access.js';
import { installBodyParsing } from './plugins/body-parsing.js';
import { installConnectionDraining } from './plugins/connection-draining.js';
import { installJsonDepthLimit } from './plugins/json-depth.js';
import { installRequestLog, loggerOptions, type LogStream } from './plugins/logging.js';
import { RegistryMetrics } from './observability/metrics.js';
import { installRequestMetrics } from './plugins/request-metrics.js';
import { createServices, type Services } from './services/services.js';
import { healthRoutes } from './routes/health.js';
import { pingRoutes } from './routes/ping.js';
import { userAuthRoutes } from './routes/user-auth.js';
import { packageRoutes } from './routes/packages.js';
import { versionRoutes } from './routes/versions.js';
import { tarballRoutes } from './routes/tarballs.js';
import { publishRoutes } from './routes/publish.js';
import { packageChangeRoutes } from './routes/package-changes.js';
import { distTagRoutes } from './routes/dist-tags.js';
import { searchRoutes } from './routes/search.js';
import { downloadCountRoutes } from './routes/download-counts.js';
import { webRoutes } from './web/index.js';

export interface BuiltApp {
  app: FastifyInstance;
  services: Services;
  metrics: RegistryMetrics;
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
  const app = Fastify({
    ...(options.tls ? { https: options.tls } : {}),
    logger: loggerOptions(config.logLevel, options.logStream),
    // A hop count is accepted by fastify (proxy-addr) though its types omit it.
    trustProxy: config.trustProxy as boolean | string[],
    bodyLimit: config.maxBodySize,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // npm packument names and tarball files may carry `%2f`; keep routing on the decoded path.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // connection-draining.ts answers requests that arrive while closing, in our error shape.
    return503OnClosing: false,
    frameworkErrors: answerFrameworkError,
    // Wrong types are a 400, not silently coerced ("wrong types" must change nothing).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    forceCloseConnections: false,
    // One log line per request, written by installRequestLog when the response is sent.
    logController: new LogController({ disableRequestLogging: true }),
  }) as unknown as FastifyInstance;
  const services = createServices(deps, {
    onError: (err, task) => app.log.error({ err }, `background task failed: ${task}`),
  });
  // Buffered download counts are written before the storage closes (main and tests close the app first).
  app.addHook('onClose', async () => services.close());
  installErrorHandler(app);
  installConnectionDraining(app);
  installBodyParsing(app);
  installJsonDepthLimit(app);
  installRequestContext(app, config, services);
  installRateLimits(app, services.rateLimits);
  installAccessControl(app);
  installRequestLog(app);
  const metrics = new RegistryMetrics();
  metrics.setSources({
    busConnected: () => deps.bus.connected,
    redisReady: () => deps.redis?.ready,
    cacheStats: () => services.documentCache.stats,
  });
  installRequestMetrics(app, metrics);

  await app.register(pingRoutes, { services });
  await app.register(userAuthRoutes, { services });
  await app.register(packageRoutes, { services });
  await app.register(versionRoutes, { services });
  await app.register(tarballRoutes, { services });
  await app.register(publishRoutes, { services, config });
  await app.register(packageChangeRoutes, { services, config });
  await app.register(distTagRoutes, { services });
  await app.register(searchRoutes, { services });
  await app.register(downloadCountRoutes, { services });
  await app.register(webRoutes, { deps, services });
  await app.register(healthRoutes, { services, metrics });
  return { app, services, metrics };
}
