import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { backupCrdDirectory, loadBackupCrds } from './index.js';
import { backupCrdManifests, backupCrds } from './manifests.js';

describe('backup CRD manifests', () => {
  it('the committed manifests are exactly what the schema source generates (npm run crds:backups)', () => {
    const folder = backupCrdDirectory();
    const generated = backupCrdManifests();
    const committed = readdirSync(folder).filter((file) => file.endsWith('.yaml'));
    expect(committed.sort()).toEqual([...generated.keys()].sort());
    for (const [file, content] of generated) {
      expect({ file, content: readFileSync(join(folder, file), 'utf8') }).toEqual({
        file,
        content,
      });
    }
  });

  it('each manifest parses back to the generated CustomResourceDefinition', () => {
    expect(loadBackupCrds()).toEqual(backupCrds());
    for (const content of backupCrdManifests().values()) {
      expect(backupCrds()).toContainEqual(parse(content));
    }
  });

  it('every manifest says it is generated and how Helm treats it', () => {
    for (const [file, content] of backupCrdManifests()) {
      const kind = backupCrds().find((crd) => file.includes(`_${crd.spec.names.plural}.`))!.spec
        .names.kind;
      expect(content.split('\n').slice(0, 4)).toEqual([
        `# ${kind} of backups.k8s.neutral.com/v1, generated from`,
        '# libs/backups/src/crds by `npm run crds:backups`: edit the source, not this file.',
        '# Helm installs it with the chart but never upgrades it: apply a changed version with',
        '# `kubectl apply --server-side -f` before upgrading.',
      ]);
    }
  });
});
