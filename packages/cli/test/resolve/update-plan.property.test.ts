import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { recordOf } from '../../src/resolve/plan-context.js';
import { planUpdate } from '../../src/resolve/update-plan.js';
import { context, doc } from './documents.js';
import { semverText, versionList } from './update-plan.arb.js';

const NAME = 'com.vendor.a';

describe('planUpdate, for any published history', () => {
  it('never lowers a version, never picks one the editor cannot use or a deprecated one, and stays in the caret range without --latest', () => {
    fc.assert(
      fc.property(versionList(), semverText(), fc.boolean(), (versions, current, latest) => {
        const ctx = context([doc(NAME, versions)]);
        const plan = planUpdate({ [NAME]: current }, ctx, { names: [], latest });
        if (plan.kind !== 'plan') throw new Error('all documents are known');
        expect(plan.conflicts).toEqual([]);
        const update = plan.updated[0];
        if (!update) {
          expect(plan.unchanged).toEqual([expect.objectContaining({ package: NAME, version: current })]);
          // `latest` exactly when nothing newer is known: no higher major, no version for a newer editor.
          const [kept] = plan.unchanged;
          expect(kept!.status).toBe(kept!.newerMajor ? 'newer-major' : kept!.needsNewerEngine ? 'needs-newer-engine' : 'latest');
          return;
        }
        const record = recordOf(ctx, NAME, update.to)!;
        expect(semver.gt(update.to, current)).toBe(true);
        expect(ctx.isCompatible(record)).toBe(true);
        expect(record.deprecated).toBeUndefined();
        if (!latest) expect(semver.satisfies(update.to, `^${current}`)).toBe(true);
      }),
    );
  });

  it('picks the newest candidate: nothing usable lies between the pick and the top of the range', () => {
    fc.assert(
      fc.property(versionList(), semverText(), fc.boolean(), (versions, current, latest) => {
        const ctx = context([doc(NAME, versions)]);
        const plan = planUpdate({ [NAME]: current }, ctx, { names: [], latest });
        if (plan.kind !== 'plan') throw new Error('all documents are known');
        const picked = plan.updated[0]?.to ?? current;
        for (const v of versions) {
          const record = recordOf(ctx, NAME, v.v)!;
          const usable = ctx.isCompatible(record) && !v.deprecated;
          const inRange = semver.satisfies(v.v, latest ? `>${current}` : `^${current}`) && semver.gt(v.v, current);
          if (usable && inRange) expect(semver.lte(v.v, picked)).toBe(true);
        }
      }),
    );
  });

  it('with no editor version, ignores unity fields entirely', () => {
    fc.assert(
      fc.property(versionList(), semverText(), (versions, current) => {
        const withEditor = context([doc(NAME, versions)], { editor: '6000.9.99f9' });
        const without = context([doc(NAME, versions)], { editor: null });
        const a = planUpdate({ [NAME]: current }, withEditor, { names: [], latest: true });
        const b = planUpdate({ [NAME]: current }, without, { names: [], latest: true });
        if (a.kind !== 'plan' || b.kind !== 'plan') throw new Error('all documents are known');
        expect(b.updated).toEqual(a.updated.map(({ needsNewerEngine: _, ...u }) => u));
      }),
    );
  });
});
