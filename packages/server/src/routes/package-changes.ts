import type { Routes } from '../http/routes.js';
import type { Config } from '../config/config.js';
import type { Services } from '../services/services.js';
import { packageNameParam, requireWriter } from './guards.js';
import { MAX_DOCUMENT_REST } from '../services/publish-service.js';
import { requireWriteCode } from './second-factor-guard.js';
import { noteChange } from '../plugins/change-recording.js';
import { notePackageChanges } from './package-change-notes.js';

/**
 * The revision-addressed writes npm uses to unpublish and change owners:
 * `PUT /<name>/-rev/<rev>` (edited document: versions removed, or new `maintainers`),
 * `DELETE /<name>/-/<file>/-rev/<rev>` (the file of a removed version) and
 * `DELETE /<name>/-rev/<rev>` (the whole package).
 */
export function packageChangeRoutes(app: Routes, { services }: { services: Services; config: Config }): void {
  app.put<{ Params: { name: string; rev: string }; Body: unknown }>(
    '/:name/-rev/:rev',
    // These documents never carry a tarball: parsed whole, they get the rest's limit of a publish.
    { bodyLimit: MAX_DOCUMENT_REST },
    async (request) => {
      const name = packageNameParam(request.params.name);
      const caller = requireWriter(request);
      await requireWriteCode(services, request, caller, 'Changing this package');
      const { rev, changes } = await services.packageUpdates.update(request.ctx.tenant, caller, name, request.body, {
        rev: request.params.rev,
        allowRemoval: true,
      });
      notePackageChanges(request, name, changes);
      return { ok: true, id: name, rev };
    },
  );

  app.delete<{ Params: { name: string; rev: string } }>('/:name/-rev/:rev', async (request) => {
    const name = packageNameParam(request.params.name);
    const caller = requireWriter(request);
    await requireWriteCode(services, request, caller, 'Unpublishing');
    const versions = await services.packageUpdates.unpublishPackage(request.ctx.tenant, caller, name, request.params.rev);
    noteChange(request, { action: 'package.unpublish', package: name, target: name, details: { versions } });
    return { ok: true };
  });

  app.delete<{ Params: { name: string; file: string; rev: string } }>('/:name/-/:file/-rev/:rev', async (request) => {
    const name = packageNameParam(request.params.name);
    const caller = requireWriter(request);
    await requireWriteCode(services, request, caller, 'Unpublishing');
    await services.packageUpdates.deleteFile(request.ctx.tenant, caller, name, request.params.file, request.params.rev);
    return { ok: true };
  });
}
