import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crdFileName, renderCrdManifest, writeCrdManifests } from './crd-manifest.js';
import type { CustomResourceDefinition } from './crd-types.js';

const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', description: "It's 'quoted'" } },
      },
    ],
  },
};

describe('CRD manifests', () => {
  it('names the file <group>_<plural>.yaml', () => {
    expect(crdFileName(crd)).toBe('example.com_widgets.yaml');
  });

  it('writes the header as comments, then the YAML with single quotes and unwrapped lines', () => {
    const manifest = renderCrdManifest(crd, ['first line', 'second line']);
    expect(manifest.split('\n').slice(0, 4)).toEqual([
      '# first line',
      '# second line',
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
    ]);
    expect(manifest).toContain("description: It's 'quoted'");
  });

  it('writes a schema used twice out in full both times, never as a YAML alias', () => {
    const shared = { type: 'string' as const, description: 'Shared.' };
    const schema = { type: 'object' as const, properties: { first: shared, second: shared } };
    const version = { ...crd.spec.versions[0], schema: { openAPIV3Schema: schema } };
    const manifest = renderCrdManifest({ ...crd, spec: { ...crd.spec, versions: [version] } }, []);
    expect(manifest).not.toMatch(/[&*]a\d/);
    expect(manifest.match(/description: Shared\./g)).toHaveLength(2);
  });

  it('writes every manifest and removes the YAML of kinds that no longer exist', () => {
    const folder = mkdtempSync(join(tmpdir(), 'crds-'));
    try {
      writeFileSync(join(folder, 'example.com_gone.yaml'), 'old');
      writeFileSync(join(folder, 'README.txt'), 'kept');
      const written = writeCrdManifests(folder, new Map([['example.com_widgets.yaml', 'new']]));
      expect(written).toBe(1);
      expect(readdirSync(folder).sort()).toEqual(['README.txt', 'example.com_widgets.yaml']);
      expect(readFileSync(join(folder, 'example.com_widgets.yaml'), 'utf8')).toBe('new');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
