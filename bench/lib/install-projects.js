// The package sets and projects of the install benchmark (`bench/installs.js`): a Unity project
// of 50 packages, a Godot 4 project of 20 and an Unreal Engine 5 project of 10, each a dependency
// graph with depth and sharing, published through the real API, and the same sets as npm
// projects. Deterministic (a seeded generator) except for the bytes of the binary files.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The three projects: packages in the closure, how many the project lists itself, sizes of binary content. */
export const ENGINES = {
  unity: { packages: 50, direct: 15, minBytes: 8 * 1024, maxBytes: 1536 * 1024, sourceFiles: [6, 30] },
  godot: { packages: 20, direct: 6, minBytes: 8 * 1024, maxBytes: 768 * 1024, sourceFiles: [4, 20] },
  unreal: { packages: 10, direct: 4, minBytes: 128 * 1024, maxBytes: 4096 * 1024, sourceFiles: [8, 40] },
};
export const NAMESPACE = 'com.benchinst';
/** Every package has these versions; projects install the last. Older ones are small (package.json, README). */
export const VERSIONS = ['1.0.0', '1.1.0', '1.2.0'];
export const INSTALLED = VERSIONS.at(-1);

function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)) };
}

const pad = (i) => String(i).padStart(2, '0');
const pascal = (i) => `BenchPlugin${pad(i)}`;
const WORDS =
  'player enemy camera input state machine event buffer vector quaternion render mesh audio clip spawn pool timer signal tween path graph node inventory item dialogue quest save load config network sync'.split(
    ' ',
  );

/**
 * The set of one engine: `count` packages, the first `direct` listed by the project; each other
 * package is needed by one package a little before it (depth), and about a third of the
 * packages also need one or two later ones (sharing).
 */
export function packageSet(engine) {
  const spec = ENGINES[engine];
  const rng = generator(engine.length * 7919 + spec.packages);
  const names = Array.from({ length: spec.packages }, (_, i) => `${NAMESPACE}.${engine}.pkg${pad(i)}`);
  const deps = names.map(() => new Set());
  for (let j = spec.direct; j < names.length; j++) deps[rng.int(Math.max(0, j - 6), j - 1)].add(j);
  for (let i = 0; i < names.length - 1; i++) {
    if (rng.next() < 0.35) {
      const extra = rng.int(1, 2);
      for (let k = 0; k < extra; k++) deps[i].add(rng.int(i + 1, names.length - 1));
    }
  }
  const packages = names.map((name, i) => ({
    name,
    index: i,
    dependencies: [...deps[i]].sort((x, y) => x - y).map((d) => names[d]),
    binaryBytes: Math.round(spec.minBytes * (spec.maxBytes / spec.minBytes) ** rng.next()),
    sourceFiles: rng.int(spec.sourceFiles[0], spec.sourceFiles[1]),
    seed: rng.int(1, 1e9),
  }));
  return { engine, packages, direct: names.slice(0, spec.direct) };
}

function sourceText(seed, lines) {
  const rng = generator(seed);
  const out = [];
  for (let l = 0; l < lines; l++) {
    const w = () => WORDS[rng.int(0, WORDS.length - 1)];
    out.push(`    ${w()}_${w()} = ${w()}.${w()}(${w()}, ${rng.int(0, 999)}); // ${w()} ${w()} ${w()}`);
  }
  return out.join('\n') + '\n';
}

/** The files of one version (paths relative to `package/`), laid out for its engine. */
function filesOf(engine, pkg, version) {
  const readme = { path: 'README.md', content: `# ${pkg.name}\n\nVersion ${version}. ${sourceText(pkg.seed, 8)}` };
  if (version !== INSTALLED) return [readme];
  const files = [readme, { path: 'CHANGELOG.md', content: `## ${version}\n${sourceText(pkg.seed + 1, 20)}` }];
  const source = (dir, ext, i) => ({ path: `${dir}/File${i}.${ext}`, content: sourceText(pkg.seed + 10 + i, 40 + (i % 7) * 30) });
  const binary = (p) => ({ path: p, content: randomBytes(pkg.binaryBytes) });
  if (engine === 'unity') {
    files.push({ path: `Runtime/Bench${pad(pkg.index)}.asmdef`, content: JSON.stringify({ name: `Bench${pad(pkg.index)}` }) });
    for (let i = 0; i < pkg.sourceFiles; i++) files.push(source(i % 3 === 0 ? 'Editor' : 'Runtime', 'cs', i));
    files.push(binary('Runtime/Textures/atlas.bytes'));
  } else if (engine === 'godot') {
    const dir = `addons/bench_${pad(pkg.index)}`;
    files.push({
      path: `${dir}/plugin.cfg`,
      content: `[plugin]\n\nname="Bench ${pkg.index}"\ndescription="bench"\nauthor="bench"\nversion="${version}"\nscript="plugin.gd"\n`,
    });
    files.push({ path: `${dir}/plugin.gd`, content: '@tool\nextends EditorPlugin\n' });
    for (let i = 0; i < pkg.sourceFiles; i++) files.push(source(dir, 'gd', i));
    files.push(binary(`${dir}/icons/atlas.png`));
  } else {
    const name = pascal(pkg.index);
    files.push({
      path: `${name}.uplugin`,
      content: JSON.stringify(
        {
          FileVersion: 3,
          Version: 1,
          VersionName: version,
          FriendlyName: name,
          Modules: [{ Name: name, Type: 'Runtime', LoadingPhase: 'Default' }],
        },
        null,
        '\t',
      ),
    });
    files.push({ path: `Source/${name}/${name}.Build.cs`, content: 'using UnrealBuildTool;\n' });
    for (let i = 0; i < pkg.sourceFiles; i++)
      files.push(source(`Source/${name}/${i % 2 ? 'Private' : 'Public'}`, i % 2 ? 'cpp' : 'h', i));
    files.push(binary(`Content/${name}Assets.uasset`));
  }
  return files;
}

/** package.json fields beyond name and version: the engine's minimum and the dependencies at this version. */
function manifestOf(engine, pkg, version) {
  const field = engine === 'unity' ? { unity: '2021.3' } : engine === 'godot' ? { godot: '4.0' } : { unreal: '5.0' };
  return { ...field, dependencies: Object.fromEntries(pkg.dependencies.map((d) => [d, version])) };
}

/**
 * Publishes every version of every package of `set` (dependencies first, so each published
 * document is complete), a few packages at a time.
 */
export async function publishSet(kit, baseUrl, token, set) {
  const queue = [...set.packages].reverse();
  const worker = async () => {
    for (let pkg = queue.shift(); pkg; pkg = queue.shift()) {
      for (const version of VERSIONS) {
        const res = await kit.publishVersion(baseUrl, token, pkg.name, version, {
          manifest: manifestOf(set.engine, pkg, version),
          files: filesOf(set.engine, pkg, version),
        });
        if (res.status !== 201 && res.status !== 200)
          throw new Error(`publish ${pkg.name}@${version}: ${res.status} ${res.text}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

const PROJECT_GODOT = `; Engine configuration file.\n\nconfig_version=5\n\n[application]\n\nconfig/name="Bench"\nconfig/features=PackedStringArray("4.2", "Forward Plus")\n`;
const UPROJECT = [
  '{',
  '\t"FileVersion": 3,',
  '\t"EngineAssociation": "5.3",',
  '\t"Category": "",',
  '\t"Description": "",',
  '\t"Plugins": []',
  '}',
].join('\r\n');

/** Writes the project of `set` for `pkg` into `dir` (empty). Unity's manifest names `registry` as the scope's registry. */
export function writePkgProject(dir, set, registry) {
  mkdirSync(dir, { recursive: true });
  const dependencies = Object.fromEntries(set.direct.map((n) => [n, INSTALLED]));
  const write = (rel, text) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  if (set.engine === 'unity') {
    mkdirSync(path.join(dir, 'Assets'), { recursive: true });
    write(
      'ProjectSettings/ProjectVersion.txt',
      'm_EditorVersion: 2022.3.10f1\nm_EditorVersionWithRevision: 2022.3.10f1 (0123456789ab)\n',
    );
    const manifest = { dependencies, scopedRegistries: [{ name: 'bench', url: registry, scopes: [`${NAMESPACE}.unity`] }] };
    write('Packages/manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
  } else {
    if (set.engine === 'godot') write('project.godot', PROJECT_GODOT);
    else write('Bench.uproject', UPROJECT);
    write('pkg.json', `${JSON.stringify({ dependencies }, null, 2)}\n`);
  }
}

/** The npm project of the same set: a package.json naming the same packages. */
export function writeNpmProject(dir, set) {
  mkdirSync(dir, { recursive: true });
  const dependencies = Object.fromEntries(set.direct.map((n) => [n, INSTALLED]));
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: `bench-${set.engine}`, version: '1.0.0', private: true, dependencies }, null, 2)}\n`,
  );
}

/** Files of a project that point at a registry (lock files, Unity's manifest): copied with `from` replaced by `to`. */
export function copyProject(template, dir, from, to) {
  rmSync(dir, { recursive: true, force: true });
  cpSync(template, dir, { recursive: true });
  for (const rel of ['pkg-lock.json', 'package-lock.json', 'Packages/manifest.json']) {
    const file = path.join(dir, rel);
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (from !== to) writeFileSync(file, text.split(from).join(to));
  }
}
