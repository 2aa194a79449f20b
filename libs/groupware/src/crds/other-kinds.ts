import {
  conditions,
  objectName,
  observedGeneration,
  persistence,
  resources,
  clusterSecretKeyRef,
  stringMap,
  VERSION_PATTERN,
} from './common-schemas.js';
import { groupwareApps, groupwareInstanceSpec } from './groupware-instance.js';
import { array, boolean, integer, object, string, withoutDefaults } from '@platform/kube';

/*
 * GroupwareProfile as the spec defines it; GroupwarePool, Groupware, SignalingServer and
 * RecordingServer with the fields the operator design fixes.
 */

export const groupwareProfileSpec = object(
  {
    description: string(),
    defaults: object(
      {
        replicaCount: integer({ minimum: 1 }),
        resources,
        persistence,
        internalDatabase: object({
          enabled: boolean({ description: 'Use the built-in database of the chart.' }),
        }),
      },
      { description: 'Values under every instance of the profile; the instance spec wins.' },
    ),
    helm: object({ version: string({ description: 'Chart version.' }) }),
  },
  { description: 'Reusable defaults of groupware instances.' },
);

export const groupwareProfileStatus = object(
  {
    observedGeneration,
    conditions,
    instances: integer({ description: 'Instances naming this profile.', minimum: 0 }),
  },
  { description: 'Observed state.' },
);

/** The operator's claim label on a pooled instance: `<namespace>.<name>` of the Groupware. */
export const CLAIMED_BY_LABEL = 'k8s.neutral.com/claimed-by';

export const groupwarePoolSpec = object(
  {
    profile: objectName('GroupwareProfile of the pooled instances.'),
    size: integer({
      description: 'Unclaimed Ready instances to keep.',
      default: 1,
      minimum: 0,
      maximum: 50,
    }),
    namespace: objectName('Namespace of the pooled instances.'),
    // Defaults are left to the instances created from it, which get them when created.
    template: withoutDefaults(groupwareInstanceSpec),
  },
  {
    description: 'Warm groupware instances for Groupware objects to claim.',
    required: ['namespace'],
  },
);

export const groupwarePoolStatus = object(
  {
    observedGeneration,
    conditions,
    ready: integer({ description: 'Ready, unclaimed instances.', minimum: 0 }),
    claimed: integer({ description: 'Instances claimed by a Groupware.', minimum: 0 }),
    creating: integer({ description: 'Instances not Ready yet.', minimum: 0 }),
  },
  { description: 'Observed state.' },
);

export const groupwareSpec = object(
  {
    profile: objectName('GroupwareProfile of an instance created for it.'),
    poolSelector: object(
      { matchLabels: stringMap('Labels a pool must carry for its instances to be claimed.') },
      { description: 'Pools to claim a Ready instance from.' },
    ),
    version: string({
      description: 'Version of an instance created for it; the instance default when unset.',
      pattern: VERSION_PATTERN,
    }),
    apps: groupwareApps,
  },
  { description: 'Tenant-facing groupware.', required: ['profile'] },
);

export const GROUPWARE_PHASES = ['Pending', 'Creating', 'Ready', 'Failed'] as const;

export const groupwareStatus = object(
  {
    phase: string({ enum: GROUPWARE_PHASES }),
    observedGeneration,
    conditions,
    instanceRef: object(
      { namespace: objectName('Namespace of the instance.'), name: objectName('Instance name.') },
      { description: 'The GroupwareInstance serving this Groupware.' },
    ),
    url: string({ description: 'Where users reach the groupware.' }),
    claimedFromPool: objectName('The pool the instance was claimed from; unset when created.'),
  },
  { description: 'Observed state.' },
);

/** SignalingServer and RecordingServer: a Talk backend registered with every Talk instance. */
const talkServerSpec = (description: string) =>
  object(
    {
      url: string({ description: 'Base URL of the server.', minLength: 1 }),
      secretRef: clusterSecretKeyRef('Shared secret of the server.', 'secret'),
      verifyTls: boolean({ description: 'Verify the server certificate.', default: true }),
    },
    { description, required: ['url', 'secretRef'] },
  );

export const signalingServerSpec = talkServerSpec('High-performance signaling server of Talk.');
export const recordingServerSpec = talkServerSpec('Recording server of Talk.');

export const talkServerStatus = object(
  {
    observedGeneration,
    conditions,
    registeredInstances: array(
      string({ description: '<namespace>/<name> of a GroupwareInstance.' }),
      { description: 'Instances the server is registered with.', listType: 'set' },
    ),
    registrations: array(
      object(
        {
          instance: string({ description: '<namespace>/<name> of a GroupwareInstance.' }),
          url: string({ description: 'The URL registered with it.' }),
          verifyTls: boolean(),
          secretVersion: string({
            description: "resourceVersion of the instance's copy of the secret registered.",
          }),
        },
        { required: ['instance', 'url'] },
      ),
      {
        description: 'What is registered with each instance: what to remove when it changes.',
        listType: 'map',
        mapKeys: ['instance'],
      },
    ),
  },
  { description: 'Observed state.' },
);
