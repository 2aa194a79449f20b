import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { CustomResourceDefinition } from './crd-types.js';

/** `<group>_<plural>.yaml`, the file name kubebuilder gives a CRD manifest. */
export const crdFileName = (crd: CustomResourceDefinition) =>
  `${crd.spec.group}_${crd.spec.names.plural}.yaml`;

/** A manifest file: the header lines as comments, then the CRD as YAML. */
export function renderCrdManifest(crd: CustomResourceDefinition, header: string[]): string {
  const comments = header.map((line) => `# ${line}`).join('\n');
  return `${comments}\n${stringify(crd, { lineWidth: 0, singleQuote: true, aliasDuplicateObjects: false })}`;
}

/**
 * Writes the manifests (file name to content) into `folder`, removing the manifests of kinds
 * that no longer exist; returns how many were written.
 */
export function writeCrdManifests(folder: string, manifests: Map<string, string>): number {
  mkdirSync(folder, { recursive: true });
  for (const file of readdirSync(folder)) {
    if (file.endsWith('.yaml') && !manifests.has(file)) rmSync(join(folder, file));
  }
  for (const [file, content] of manifests) writeFileSync(join(folder, file), content);
  return manifests.size;
}
