import { array, boolean, integer, map, object, quantity, string } from '@platform/kube';

/** Kubernetes object names (DNS subdomains), for references to other objects. */
export const objectName = (description: string) =>
  string({
    description,
    minLength: 1,
    maxLength: 253,
    pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  });

/** The name of a Secret in the object's own namespace; its keys are fixed per section. */
export const credentialsSecret = (keys: string) =>
  objectName(`Secret in the same namespace holding the keys ${keys}.`);

/** "29" (a major: its newest known patch) or an exact version such as "29.0.16". */
export const VERSION_PATTERN = '^[0-9]+(\\.[0-9]+){0,2}$';

export const resources = object(
  {
    requests: object(
      { cpu: quantity('CPU request.'), memory: quantity('Memory request.') },
      { description: 'Resources the scheduler reserves.' },
    ),
    limits: object(
      { cpu: quantity('CPU limit.'), memory: quantity('Memory limit.') },
      { description: 'Resources the containers may not exceed.' },
    ),
  },
  { description: 'Requests and limits of the groupware containers.' },
);

export const persistence = object(
  {
    enabled: boolean({ description: 'Keep the data directory on a persistent volume claim.' }),
    size: quantity('Size of the data volume, e.g. 10Gi.'),
    storageClass: string({ description: 'Storage class of the data volume.' }),
  },
  { description: 'Data volume.' },
);

/** `metav1.Condition`, as every status of the group carries it. */
export const conditions = array(
  object(
    {
      type: string({ description: 'Ready, UpgradeBlocked, ...', minLength: 1, maxLength: 316 }),
      status: string({ enum: ['True', 'False', 'Unknown'] }),
      observedGeneration: integer({ format: 'int64', minimum: 0 }),
      lastTransitionTime: string({ format: 'date-time' }),
      reason: string({ description: 'InvalidSpec, DatabaseFailed, ReleaseFailed, OccFailed, ...' }),
      message: string(),
    },
    { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
  ),
  {
    description: 'Latest observations of the object, one per type.',
    listType: 'map',
    mapKeys: ['type'],
  },
);

export const observedGeneration = integer({
  description: 'Generation of the spec the status describes.',
  format: 'int64',
});

/** A key of a Secret in the object's own namespace. */
export const secretKeyRef = (description: string, defaultKey: string) =>
  object(
    {
      name: objectName('Secret name.'),
      key: string({ description: 'Key of the Secret.', default: defaultKey }),
    },
    { description, required: ['name'] },
  );

/** A key of a Secret named by a cluster-scoped object, which has no namespace of its own. */
export const clusterSecretKeyRef = (description: string, defaultKey: string) =>
  object(
    {
      name: objectName('Secret name.'),
      namespace: objectName('Secret namespace.'),
      key: string({ description: 'Key of the Secret.', default: defaultKey }),
    },
    { description, required: ['name', 'namespace'] },
  );

/** A Talk backend (signaling or recording server) as an instance names it itself. */
export const talkBackend = (description: string) =>
  object(
    {
      url: string({ description: 'Base URL of the server.', minLength: 1 }),
      secretRef: secretKeyRef('Shared secret of the server.', 'secret'),
      verifyTls: boolean({ description: 'Verify the server certificate.', default: true }),
    },
    { description, required: ['url', 'secretRef'] },
  );

export const stringMap = (description: string) => map(string(), { description });

/** Nextcloud chart probe settings; the chart's own values apply where a field is unset. */
export const probe = (description: string) =>
  object(
    {
      enabled: boolean(),
      initialDelaySeconds: integer({ minimum: 0 }),
      periodSeconds: integer({ minimum: 1 }),
      timeoutSeconds: integer({ minimum: 1 }),
      failureThreshold: integer({ minimum: 1 }),
      successThreshold: integer({ minimum: 1 }),
    },
    { description },
  );
