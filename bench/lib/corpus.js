// The synthetic registry the benchmarks search: deterministic, shaped like a large Unity
// registry. Shared by bench/search.js (seeded through the metadata store) and bench/run.js
// (seeded through the publish API).

export const UNITY_SCOPE = 'com.acme';
export const UNITY_SCOPE_PACKAGES = 300;

// Words are drawn with a Zipf
// distribution (s = 1) over 20,000 words: made-up product words, with the 300 real domain words
// placed from rank 16 on (rank 16 × 1.0175^i), so the commonest domain word appears in about
// 5 % of packages and the median one in a few hundred, as words do in a real registry.

export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DOMAIN_WORDS = `input system physics audio render shader network ui camera animation terrain particle editor
tools utility core math json http save data localization addressables pooling tween inventory dialogue quest ai
pathfinding navmesh procedural noise mesh texture sprite tilemap lighting post process volumetric fog water ocean sky
weather vehicle character controller ragdoll cloth hair skin toon outline bloom dof motion blur lens flare decal
foliage grass tree rock cave dungeon generator voxel marching cubes spline curve bezier rope chain joint spring
inspector attribute serialization reflection dependency injection event bus signal state machine behaviour tree
goap utility scheduler timer coroutine async task thread job burst compute gpu instancing batching culling lod
occlusion streaming bundle asset loader cache memory profiler debug console log analytics telemetry crash reporter
ads purchase store leaderboard achievement cloud multiplayer lobby matchmaking relay voice chat replication
prediction rollback lockstep physics2d collider trigger raycast layer mask tag scene loader transition fade menu
button slider toggle dropdown scroll list grid layout canvas font text rich markdown emoji icon cursor tooltip
notification toast modal window panel tab dock gizmo handle grid snap measure ruler align distribute selection
hierarchy prefab variant nested override material shadergraph vfx graph timeline cinemachine playable director
recorder capture screenshot video stream encoder decoder codec compression zip crypto hash random seed name
generator localization i18n translation currency number format date time calendar clock stopwatch countdown
health damage weapon projectile bullet shooter platformer runner puzzle match3 card deck board chess turn
strategy rts rpg roguelike stats level experience skill tree talent buff debuff effect status loot drop craft
recipe economy shop trade farm crop animal pet mount horse flight drone car race track lap checkpoint minimap
radar compass waypoint marker fog-of-war vision stealth sound footstep reverb occlusion spatial ambisonic midi
synth sequencer beat rhythm lipsync facial blendshape ik retarget mocap humanoid avatar vr xr ar hand tracking
haptics controller gamepad keyboard mouse touch gesture swipe pinch accelerometer gyro vibration`.split(/\s+/);

const VOCABULARY_SIZE = 20_000;

function makeVocabulary(random) {
  const syllables = 'ka lo mi ne ru sa to vi xe zu bra cle dri fro gla kri plo sta tre vor'.split(' ');
  const domain = new Set(DOMAIN_WORDS);
  const made = new Set();
  while (made.size < VOCABULARY_SIZE - domain.size) {
    let word = '';
    const n = 2 + Math.floor(random() * 3);
    for (let i = 0; i < n; i++) word += syllables[Math.floor(random() * syllables.length)];
    if (!domain.has(word)) made.add(word);
  }
  const words = [...made];
  [...domain].forEach((word, i) => words.splice(Math.min(words.length, Math.floor(16 * Math.pow(1.0175, i))), 0, word));
  return words;
}

function zipfSampler(size, s, random) {
  const cumulative = new Float64Array(size);
  let sum = 0;
  for (let r = 0; r < size; r++) cumulative[r] = sum += 1 / Math.pow(r + 1, s);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/**
 * `count` packages shaped like a large Unity registry, deterministic: the first
 * UNITY_SCOPE_PACKAGES are `com.acme.*` (one vendor's scope, as the Unity Editor lists it).
 */
export function* corpusPackages(count) {
  const random = prng(42);
  const vocabulary = makeVocabulary(random);
  const zipf = zipfSampler(vocabulary.length, 1, random);
  const word = () => vocabulary[zipf()];
  const vendors = Array.from({ length: 3000 }, (_, i) => `${vocabulary[5000 + i]}${i % 7 === 0 ? 'games' : ''}`);
  const firstNames = 'ana ben chen dara eli fatima goro hana ivan jonas kim lea mateo nora omar pia quinn rosa sven tara'.split(
    ' ',
  );
  const now = Date.now();
  const seen = new Set();
  for (let i = 0; i < count; i++) {
    const vendor = i < UNITY_SCOPE_PACKAGES ? 'acme' : vendors[Math.floor(random() * vendors.length)];
    const productWords = [word(), ...(random() < 0.6 ? [word()] : [])];
    let name = `com.${vendor}.${productWords.join('-')}`;
    if (seen.has(name)) name = `${name}-${i.toString(36)}`;
    seen.add(name);
    const first = firstNames[Math.floor(random() * firstNames.length)];
    const title = productWords.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
    const keywords = Array.from({ length: 2 + Math.floor(random() * 4) }, word);
    const description = `${title}: a ${word()} ${word()} package for Unity with ${word()} and ${word()} support.`;
    // Drawn in this order so that a corpus of a given size never changes.
    const displayName = random() < 0.7 ? title : undefined;
    const repository = random() < 0.6 ? `https://git.example/${vendor}/${productWords.join('-')}` : undefined;
    const readme = `# ${title}\n\n${description}\n\n${'Usage notes. '.repeat(Math.floor(random() * 40))}`;
    const deprecated = random() < 0.02 ? 'No longer maintained' : undefined;
    yield {
      name,
      description,
      keywords,
      author: `${first} ${vendor} <${first}@${vendor}.example>`,
      maintainer: first,
      displayName,
      repository,
      readme,
      unity: '2021.3',
      deprecated,
      lastPublish: new Date(now - Math.floor(random() * 900) * 86_400_000),
      versionIntervalDays: 20 + Math.floor(random() * 60),
    };
  }
}

/** 200 one-word queries (domain words) and a 3–5 letter fragment of each. */
export function queries(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const oneWord = Array.from({ length: 200 }, () => pick(DOMAIN_WORDS));
  const fragment = oneWord.map((w) => {
    if (w.length <= 4) return w;
    const length = Math.min(w.length - 1, 3 + Math.floor(random() * 3));
    const start = Math.floor(random() * (w.length - length + 1));
    return w.slice(start, start + length);
  });
  return { oneWord, fragment };
}
