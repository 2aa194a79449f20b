import { invalid } from './errors.js';
import type { KindStore } from './kind-store.js';
import {
  CRD_KIND,
  type JsonSchema,
  type KindRegistration,
  NAMESPACE_KIND,
  kindKey,
} from './kinds.js';
import { type StoredObject, timestamp } from './objects.js';
import { applySchema } from './schema.js';
import type { KindHooks, ObjectStore } from './store.js';

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: {
    kind?: string;
    plural?: string;
    singular?: string;
    shortNames?: string[];
    listKind?: string;
  };
  versions?: Array<{
    name?: string;
    served?: boolean;
    storage?: boolean;
    subresources?: { status?: object };
    schema?: { openAPIV3Schema?: JsonSchema };
  }>;
}

export interface ControllerContext {
  objects: ObjectStore;
  now: () => Date;
  /** Ends the watches of a kind that stops being served. */
  closeWatches(store: KindStore): void;
}

/** Registers the built-in kinds with what the real control plane does for them. */
export function registerBuiltIns(context: ControllerContext, kinds: KindRegistration[]): void {
  for (const kind of kinds) {
    if (kind === CRD_KIND) context.objects.register(kind, crdHooks(context));
    else if (kind === NAMESPACE_KIND) context.objects.register(kind, namespaceHooks(context));
    else context.objects.register(kind);
  }
}

/** A kind served by a custom resource definition: its schema's defaults and checks apply. */
export function registerCustomResource(
  context: ControllerContext,
  registration: KindRegistration,
): void {
  const schema = registration.schema;
  context.objects.register(
    { ...registration, requireResourceVersionOnUpdate: true },
    schema
      ? {
          prepare: (object) => {
            const errors = applySchema(object, schema);
            if (errors.length > 0) invalidObject(registration, object, errors);
          },
        }
      : {},
  );
}

function invalidObject(
  registration: KindRegistration,
  object: StoredObject,
  errors: string[],
): never {
  throw invalid(registration, object.metadata.name ?? '', errors);
}

function crdRegistrations(crd: StoredObject): KindRegistration[] {
  const spec = (crd.spec ?? {}) as CrdSpec;
  return (spec.versions ?? [])
    .filter((version) => version.served !== false)
    .map((version) => ({
      group: spec.group!,
      version: version.name!,
      kind: spec.names!.kind!,
      plural: spec.names!.plural!,
      namespaced: spec.scope !== 'Cluster',
      statusSubresource: version.subresources?.status !== undefined,
      shortNames: spec.names?.shortNames,
      schema: version.schema?.openAPIV3Schema,
    }));
}

function crdHooks(context: ControllerContext): KindHooks {
  const served = new Map<string, string[]>();
  const unregister = (key: string) => {
    const store = context.objects.kind(key);
    if (store) context.closeWatches(store);
    context.objects.unregister(key);
  };
  return {
    prepare: (crd, previous) => {
      const spec = (crd.spec ?? {}) as CrdSpec;
      const errors: string[] = [];
      if (!spec.group) errors.push('spec.group: Required value');
      if (!spec.names?.kind) errors.push('spec.names.kind: Required value');
      if (!spec.names?.plural) errors.push('spec.names.plural: Required value');
      if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
        errors.push(
          `spec.scope: Unsupported value: "${String(spec.scope)}": supported values: "Cluster", "Namespaced"`,
        );
      }
      if (!spec.versions?.length) errors.push('spec.versions: Required value');
      else if (spec.versions.filter((version) => version.storage).length !== 1) {
        errors.push(
          'spec.versions: Invalid value: must have exactly one version marked as storage version',
        );
      }
      if (
        spec.group &&
        spec.names?.plural &&
        crd.metadata.name !== `${spec.names.plural}.${spec.group}`
      ) {
        errors.push(
          `metadata.name: Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`,
        );
      }
      if (errors.length > 0) throw invalid(CRD_KIND, crd.metadata.name ?? '', errors);
      const now = timestamp(context.now());
      const previousConditions = (
        previous?.status as { conditions?: Array<{ lastTransitionTime: string }> }
      )?.conditions;
      const since = previousConditions?.[0]?.lastTransitionTime ?? now;
      crd.status = {
        conditions: [
          {
            type: 'NamesAccepted',
            status: 'True',
            reason: 'NoConflicts',
            message: 'no conflicts found',
            lastTransitionTime: since,
          },
          {
            type: 'Established',
            status: 'True',
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
            lastTransitionTime: since,
          },
        ],
        acceptedNames: {
          ...spec.names,
          listKind: spec.names?.listKind ?? `${spec.names!.kind}List`,
        },
        storedVersions: spec
          .versions!.filter((version) => version.storage)
          .map((version) => version.name),
      };
    },
    committed: (type, crd) => {
      const name = crd.metadata.name!;
      const previousKeys = served.get(name) ?? [];
      const registrations = type === 'DELETED' ? [] : crdRegistrations(crd);
      const keys = registrations.map(kindKey);
      for (const registration of registrations) registerCustomResource(context, registration);
      for (const key of previousKeys) if (!keys.includes(key)) unregister(key);
      if (keys.length > 0) served.set(name, keys);
      else served.delete(name);
    },
  };
}

function namespaceHooks(context: ControllerContext): KindHooks {
  return {
    prepare: (namespace, previous) => {
      if (!previous && namespace.status === undefined) namespace.status = { phase: 'Active' };
      if (namespace.metadata.deletionTimestamp) namespace.status = { phase: 'Terminating' };
    },
    committed: (type, namespace) => {
      if (type !== 'DELETED') return;
      const name = namespace.metadata.name!;
      for (const store of context.objects.allKinds()) {
        if (!store.registration.namespaced) continue;
        for (const entry of store.entries(name)) {
          if (!entry.deleting) {
            context.objects.delete(store, entry.namespace, entry.name, {
              propagationPolicy: 'Background',
            });
          }
        }
      }
    },
  };
}
