# pkg-registry server image. Build from the repository root:
#   docker build -t pkg-registry .
#   docker run -p 4873:4873 -v pkg-registry-data:/var/lib/pkg-registry pkg-registry
# docs/operations.md ("Container image") explains each choice.

# --- build: compile the TypeScript and the native SQLite module, then drop dev dependencies ---
FROM node:20-bookworm AS build
WORKDIR /src
COPY . .
# `npm ci` runs the root `prepare` script, which builds every workspace (tsc -b).
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: only what `pkg-registry serve` loads, as an unprivileged user ---
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PKG_REGISTRY_HOST=0.0.0.0 \
    PKG_REGISTRY_PORT=4873 \
    PKG_REGISTRY_DATA=/var/lib/pkg-registry \
    UV_THREADPOOL_SIZE=8
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/pkg-registry --shell /usr/sbin/nologin pkg-registry \
 && mkdir -p /var/lib/pkg-registry \
 && chown pkg-registry:pkg-registry /var/lib/pkg-registry
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/packages/protocol/package.json ./packages/protocol/package.json
COPY --from=build /src/packages/protocol/dist ./packages/protocol/dist
COPY --from=build /src/packages/server/package.json ./packages/server/package.json
COPY --from=build /src/packages/server/bin ./packages/server/bin
COPY --from=build /src/packages/server/dist ./packages/server/dist
COPY --from=build /src/packages/server/web-assets ./packages/server/web-assets
USER pkg-registry
VOLUME ["/var/lib/pkg-registry"]
EXPOSE 4873
# Ready means the database and the tarball store answer (a Redis outage only degrades: still 200).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PKG_REGISTRY_PORT || 4873) + '/-/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM lets requests in flight finish (shutdownTimeout); node is PID 1 and handles it itself.
STOPSIGNAL SIGTERM
# The memory options of `npm start` (docs/operations.md, "Memory"), spelled out so that PID 1 is
# the server itself: the bin started without them would start itself again as a child with them.
ENTRYPOINT ["node", "--max-semi-space-size=2", "--heap-growing-percent=20", "--no-concurrent-recompilation", "/app/packages/server/bin/pkg-registry.js"]
CMD ["serve"]
