import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientPaths } from '../../src/config/paths.js';
import { run, testDeps } from '../support/deps.js';

describe('pkg config', () => {
  it('gets defaults, sets, lists and deletes settings in the config file', async () => {
    const deps = await testDeps();
    const file = path.join(deps.env.PKG_CONFIG_DIR!, 'config.json');
    expect(await run(deps, ['config', 'get', 'registry'])).toMatchObject({ code: 0, stdout: 'http://127.0.0.1:4873\n' });
    expect(await run(deps, ['config', 'set', 'registry', 'https://registry.example.com/'])).toMatchObject({
      code: 0,
      stdout: 'registry = https://registry.example.com\n',
    });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ registry: 'https://registry.example.com' });
    await run(deps, ['config', 'set', 'timeout', '5']);
    const list = await run(deps, ['config', 'list']);
    expect(list.stdout).toBe(
      `registry = https://registry.example.com\ntokenStore = auto (default)\ntimeout = 5\nengineVersion =  (default)\nbackupsKept = 10 (default)\ncheckoutCommand =  (default)\n\nConfig file: ${file}\n`,
    );
    const json = JSON.parse((await run(deps, ['config', 'list', '--json'])).stdout);
    expect(json).toEqual({
      success: true,
      file,
      config: {
        registry: 'https://registry.example.com',
        tokenStore: 'auto',
        timeout: 5,
        engineVersion: '',
        backupsKept: 10,
        checkoutCommand: '',
      },
      sources: {
        registry: 'file',
        tokenStore: 'default',
        timeout: 'file',
        engineVersion: 'default',
        backupsKept: 'default',
        checkoutCommand: 'default',
      },
    });
    expect((await run(deps, ['config', 'delete', 'registry'])).stdout).toBe(
      'Deleted registry; now the default: http://127.0.0.1:4873\n',
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ timeout: 5 });
  });

  it('shows PKG_REGISTRY as the registry in effect', async () => {
    const deps = await testDeps({ env: { PKG_REGISTRY: 'https://env.example' } });
    expect(JSON.parse((await run(deps, ['config', 'get', 'registry', '--json'])).stdout)).toEqual({
      success: true,
      key: 'registry',
      value: 'https://env.example',
      source: 'PKG_REGISTRY',
    });
  });

  it('rejects unknown keys, bad values and wrong usage with exit 2, changing nothing', async () => {
    const deps = await testDeps();
    const cases: [string[], RegExp][] = [
      [
        ['config', 'get', 'colour'],
        /^Error: Unknown configuration key 'colour'\nHint: Known keys: registry, tokenStore, timeout, engineVersion, backupsKept, checkoutCommand\.\n/,
      ],
      [['config', 'set', 'registry', 'http://registry.example.com'], /^Error: Refusing plain http:\/\//],
      [['config', 'set', 'registry', 'not a url'], /^Error: Invalid registry URL 'not a url'/],
      [['config', 'set', 'tokenStore', 'cloud'], /^Error: Invalid value for tokenStore: 'cloud'/],
      [['config', 'set', 'timeout', '0'], /^Error: Invalid value for timeout: '0'/],
      [['config', 'set', 'registry'], /^Error: pkg config set needs a key and a value/],
      [['config', 'frob'], /^Error: Unknown config action 'frob'/],
      [['config'], /^Error: Missing required argument 'action'/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(deps, argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    await expect(readFile(path.join(deps.env.PKG_CONFIG_DIR!, 'config.json'))).rejects.toThrow();
  });

  it('reports a damaged config file with exit 1 and a hint', async () => {
    const deps = await testDeps();
    await mkdir(deps.env.PKG_CONFIG_DIR!, { recursive: true });
    await writeFile(path.join(deps.env.PKG_CONFIG_DIR!, 'config.json'), '{oops');
    const result = await run(deps, ['config', 'get', 'registry']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: Cannot read .*config\.json: it is not valid JSON: \w[^\n]* at line \d+, column \d+\nHint: /,
    );
  });
});

describe('clientPaths', () => {
  it('follows XDG on Linux, Application Support on macOS and AppData on Windows', () => {
    expect(clientPaths({}, 'linux', '/home/u')).toEqual({
      configDir: '/home/u/.config/pkg',
      dataDir: '/home/u/.local/share/pkg',
      cacheDir: '/home/u/.cache/pkg',
    });
    expect(clientPaths({ XDG_CONFIG_HOME: '/x/conf', XDG_DATA_HOME: 'relative/ignored' }, 'linux', '/home/u')).toMatchObject({
      configDir: '/x/conf/pkg',
      dataDir: '/home/u/.local/share/pkg',
    });
    expect(clientPaths({}, 'darwin', '/Users/u')).toEqual({
      configDir: '/Users/u/Library/Application Support/pkg',
      dataDir: '/Users/u/Library/Application Support/pkg',
      cacheDir: '/Users/u/Library/Caches/pkg',
    });
    expect(
      clientPaths(
        { APPDATA: 'C:\\Users\\u\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' },
        'win32',
        'C:\\Users\\u',
      ),
    ).toEqual({
      configDir: 'C:\\Users\\u\\AppData\\Roaming\\pkg',
      dataDir: 'C:\\Users\\u\\AppData\\Local\\pkg\\Data',
      cacheDir: 'C:\\Users\\u\\AppData\\Local\\pkg\\Cache',
    });
    expect(clientPaths({ PKG_CONFIG_DIR: '/c', PKG_DATA_DIR: '/d', PKG_CACHE_DIR: '/k' }, 'linux', '/home/u')).toEqual({
      configDir: '/c',
      dataDir: '/d',
      cacheDir: '/k',
    });
  });
});
