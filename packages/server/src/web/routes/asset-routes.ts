import type { Routes } from '../../http/routes.js';
import { ProtocolError } from '@pkg/protocol';
import type { Asset, Assets } from '../assets.js';

/** `GET /-/web/assets/<name>.<hash>.<ext>`: content-addressed, so cached for a year. */
export function assetRoutes(app: Routes, { assets }: { assets: Assets }): void {
  const byPath = new Map<string, Asset>(Object.values(assets).map((a) => [a.path, a]));
  app.get<{ Params: { file: string } }>('/-/web/assets/:file', async (request, reply) => {
    const asset = byPath.get(`/-/web/assets/${request.params.file}`);
    if (!asset) throw new ProtocolError('NOT_FOUND', 'No such file');
    const accepted = String(request.headers['accept-encoding'] ?? '');
    reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'Accept-Encoding');
    if (/\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(asset.br);
    if (/\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  });
}
