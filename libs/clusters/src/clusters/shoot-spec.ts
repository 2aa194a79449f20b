import type { FieldError } from '@platform/core';
import type { CloudProfile, Shoot, ShootSpec, ShootWorker } from '../garden/gardener-kinds.js';
import type { CreateClusterBody } from './clusters.dto.js';

/** Gardener deletes a Shoot only once it carries this annotation set to "true". */
export const CONFIRM_DELETION_ANNOTATION = 'confirmation.gardener.cloud/deletion';

/**
 * A CloudProfile annotation holding, as JSON, a fragment of a Shoot `spec` that the platform
 * operator wants every cluster of that profile to start from: the credentials binding,
 * networking, provider `infrastructureConfig`/`controlPlaneConfig`, worker defaults
 * (`provider.workers[0]`, e.g. a volume) and so on. What the customer chose is laid over it.
 */
export const SHOOT_DEFAULTS_ANNOTATION = 'platform.k8s.neutral.com/shoot-defaults';

/** Networking extension when the profile names none: Gardener's most common one. */
export const DEFAULT_NETWORKING_TYPE = 'calico';

/** What in a create body, the profile aside, cannot be right (`minimum` ≤ `maximum`, names). */
export function bodyProblems(body: CreateClusterBody): FieldError[] {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  body.workers.forEach((worker, index) => {
    if (seen.has(worker.name)) {
      problems.push(problem(`workers.${index}.name`, `worker group ${worker.name} is named twice`));
    }
    seen.add(worker.name);
    if (worker.minimum > worker.maximum) {
      problems.push(problem(`workers.${index}.maximum`, 'maximum must be at least minimum'));
    }
  });
  return problems;
}

/**
 * What the chosen profile does not offer: a listed, unexpired `kubernetes_version`, a listed
 * `region` and, for every worker group, a usable `machine_type` that some zone of the region
 * offers. Gardener would refuse these too, but only after the project was provisioned and with
 * a message naming its own fields.
 */
export function profileProblems(
  body: CreateClusterBody,
  profile: CloudProfile,
  now: Date,
): FieldError[] {
  const spec = profile.spec ?? {};
  const name = profile.metadata.name;
  const problems: FieldError[] = [];
  const versions = spec.kubernetes?.versions ?? [];
  const version = versions.find((v) => v.version === body.kubernetes_version);
  const current = versions.filter((v) => !expired(v.expirationDate, now)).map((v) => v.version);
  if (!version) {
    problems.push(
      problem(
        'kubernetes_version',
        `kubernetes_version must be one of the versions cloud profile ${name} offers: ${list(current)}`,
      ),
    );
  } else if (expired(version.expirationDate, now)) {
    problems.push(
      problem(
        'kubernetes_version',
        `kubernetes_version ${version.version} expired on ${version.expirationDate}; offered: ${list(current)}`,
      ),
    );
  }
  const region = spec.regions?.find((r) => r.name === body.region);
  if (!region) {
    const names = (spec.regions ?? []).map((r) => r.name);
    problems.push(
      problem(
        'region',
        `region must be one of the regions of cloud profile ${name}: ${list(names)}`,
      ),
    );
  }
  const machines = (spec.machineTypes ?? []).filter((m) => m.usable !== false);
  body.workers.forEach((worker, index) => {
    const field = `workers.${index}.machine_type`;
    if (!machines.some((m) => m.name === worker.machine_type)) {
      const names = machines.map((m) => m.name);
      problems.push(
        problem(
          field,
          `machine_type must be one of the machine types of cloud profile ${name}: ${list(names)}`,
        ),
      );
    } else if (region && zonesOffering(region, worker.machine_type).length === 0) {
      problems.push(
        problem(
          field,
          `machine type ${worker.machine_type} is unavailable in region ${region.name}`,
        ),
      );
    }
  });
  return problems;
}

/**
 * The Shoot of a validated create: the operator's defaults of the profile under the customer's
 * choice. Workers go to the first zone of the region that offers their machine type (Gardener
 * spreads a group over every zone it lists, and `maximum` must then cover them all); machine
 * images are left to Gardener, which picks the profile's newest.
 */
export function shootOf(
  body: CreateClusterBody,
  profile: CloudProfile,
  namespace: string,
  labels: Record<string, string>,
  defaults: ShootSpec,
): Shoot {
  const profileName = profile.metadata.name!;
  const region = profile.spec?.regions?.find((r) => r.name === body.region);
  const { workers: workerDefaults, ...providerDefaults } = defaults.provider ?? {};
  const workerDefault = (workerDefaults?.[0] ?? {}) as Partial<ShootWorker>;
  const workers: ShootWorker[] = body.workers.map((worker) => {
    const zone = region ? zonesOffering(region, worker.machine_type)[0] : undefined;
    return {
      ...workerDefault,
      name: worker.name,
      machine: { ...(workerDefault.machine ?? {}), type: worker.machine_type },
      minimum: worker.minimum,
      maximum: worker.maximum,
      ...(zone ? { zones: [zone] } : {}),
    };
  });
  const spec: ShootSpec = {
    // The credentials binding: by convention named after the profile, unless its defaults say.
    credentialsBindingName: profileName,
    ...defaults,
    networking: { type: DEFAULT_NETWORKING_TYPE, ...(defaults.networking ?? {}) },
    // Both spellings: `cloudProfile` is the current one, `cloudProfileName` what older Gardener
    // versions read; Gardener checks they agree.
    cloudProfileName: profileName,
    cloudProfile: { kind: 'CloudProfile', name: profileName },
    region: body.region,
    kubernetes: { ...(defaults.kubernetes ?? {}), version: body.kubernetes_version },
    provider: { ...providerDefaults, type: profile.spec?.type, workers },
  };
  // Defaults naming a (legacy) secret binding instead replace the convention.
  if (defaults.secretBindingName && !defaults.credentialsBindingName)
    delete spec.credentialsBindingName;
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: body.name, namespace, labels },
    spec,
  };
}

/**
 * The profile's Shoot defaults (SHOOT_DEFAULTS_ANNOTATION), or an error message when the
 * annotation is not a JSON object.
 */
export function shootDefaultsOf(profile: CloudProfile): ShootSpec | string {
  const raw = profile.metadata.annotations?.[SHOOT_DEFAULTS_ANNOTATION];
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ShootSpec;
    return `${SHOOT_DEFAULTS_ANNOTATION} of cloud profile ${profile.metadata.name} is not a JSON object`;
  } catch (error) {
    return `${SHOOT_DEFAULTS_ANNOTATION} of cloud profile ${profile.metadata.name} is not JSON: ${(error as Error).message}`;
  }
}

function zonesOffering(
  region: NonNullable<NonNullable<CloudProfile['spec']>['regions']>[number],
  machineType: string,
): string[] {
  return (region.zones ?? [])
    .filter((zone) => !(zone.unavailableMachineTypes ?? []).includes(machineType))
    .map((zone) => zone.name);
}

const expired = (expirationDate: string | undefined, now: Date) =>
  expirationDate !== undefined && new Date(expirationDate).getTime() <= now.getTime();

const list = (names: string[]) => (names.length > 0 ? names.join(', ') : '(none)');

const problem = (field: string, message: string): FieldError => ({ field, messages: [message] });
