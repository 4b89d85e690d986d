import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/** The web interface's static files, next to src/ and dist/ alike: `packages/server/web-assets/`. */
const ASSET_DIR = new URL('../../web-assets/', import.meta.url);

const FILES = {
  style: { file: 'style.css', type: 'text/css; charset=utf-8' },
  copy: { file: 'copy.js', type: 'text/javascript; charset=utf-8' },
  icon: { file: 'icon.svg', type: 'image/svg+xml' },
} as const;

export type AssetName = keyof typeof FILES;

export interface Asset {
  /** Content-addressed path, e.g. `/-/web/assets/style.3f9a1c0b.css`: cacheable forever. */
  path: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
}

export type Assets = Record<AssetName, Asset>;

/** Reads and precompresses the assets once, at start-up. */
export async function loadAssets(): Promise<Assets> {
  const assets = {} as Assets;
  for (const [name, spec] of Object.entries(FILES) as [AssetName, (typeof FILES)[AssetName]][]) {
    const body = await readFile(new URL(spec.file, ASSET_DIR));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
    const dot = spec.file.lastIndexOf('.');
    assets[name] = {
      path: `/-/web/assets/${spec.file.slice(0, dot)}.${hash}${spec.file.slice(dot)}`,
      type: spec.type,
      body,
      gzip: gzipSync(body, { level: 9 }),
      br: brotliCompressSync(body),
    };
  }
  return assets;
}
