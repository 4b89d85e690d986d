// The workloads of the benchmark table (issue 8), with their goals.
import { DOMAIN_WORDS, prng } from './corpus.js';
import { SPECIAL } from './seed.js';

export const ABBREVIATED_ACCEPT = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';

/** 200 one-word search queries drawn from the corpus's domain words (as bench/search.js does). */
export function searchPaths(count = 200) {
  const random = prng(7);
  return Array.from({ length: count }, () => {
    const word = DOMAIN_WORDS[Math.floor(random() * DOMAIN_WORDS.length)];
    return `/-/v1/search?text=${encodeURIComponent(word)}&size=20&from=0`;
  });
}

/**
 * Each workload: what wrk requests (paths in turn, headers; `auth` adds the target's token),
 * the status every answer must have, and the goal: a share of the ceiling's req/s, or (publish)
 * an absolute rate.
 */
export function benchWorkloads({ corpusNames }) {
  const doc100 = `/${SPECIAL.doc100}`;
  const big = SPECIAL.bigTarball;
  return [
    { id: 'document-20', label: 'package document, 20 versions (~20 KB)', paths: [`/${SPECIAL.doc20}`], goal: { ceiling: 60 } },
    {
      // The same document, of a package served from an upstream registry (an uplink), cached:
      // the goal is within 10 % of document-20 (bench/README.md).
      id: 'proxied-document',
      label: 'the same from an uplink, cached',
      paths: [`/${SPECIAL.proxied}`],
      goal: { ceiling: 60 },
      needsUpstream: true,
    },
    { id: 'document-100', label: 'package document, 100 versions (~100 KB)', paths: [doc100], goal: { ceiling: 60 } },
    {
      id: 'document-100-gzip',
      label: 'the same with gzip',
      paths: [doc100],
      headers: { 'accept-encoding': 'gzip' },
      goal: { ceiling: 60 },
    },
    {
      id: 'abbreviated',
      label: 'abbreviated document (100 versions)',
      paths: [doc100],
      headers: { accept: ABBREVIATED_ACCEPT },
      goal: { ceiling: 60 },
    },
    { id: 'tarball', label: '100 KB tarball', paths: [`/${big}/-/${big}-1.0.0.tgz`], goal: { ceiling: 60 } },
    { id: 'search', label: 'search, 200 one-word queries in turn', paths: searchPaths(), goal: { ceiling: 20 } },
    { id: 'not-found', label: '404 (unknown package)', paths: ['/com.bench.does-not-exist'], status: 404, goal: { ceiling: 60 } },
    { id: 'whoami', label: 'whoami with a token', paths: ['/-/whoami'], auth: true, goal: { ceiling: 60 } },
    { id: 'publish', label: 'publish, 20 KB tarballs, 4 concurrent', kind: 'publish', status: 201, goal: { rate: 300 } },
    // Last: it leaves every package's document in our server's cache, which the workloads after
    // it would be measured with.
    {
      id: 'documents-all',
      label: 'abbreviated + gzip, every package in turn',
      paths: corpusNames.map((name) => `/${name}`),
      headers: { accept: ABBREVIATED_ACCEPT, 'accept-encoding': 'gzip' },
      goal: undefined,
    },
  ];
}
