import { array, integer, object, string } from '@platform/kube';

/** Signed webhooks after each run, and the record of their deliveries in the status. */
export const webhooks = (failureDescription: string, description: string) =>
  object(
    {
      success: string({
        description: 'URL to POST to when a backup succeeds.',
        pattern: '^https?://',
      }),
      failure: string({ description: failureDescription, pattern: '^https?://' }),
      secretRef: object(
        {
          name: string({ description: 'Name of the Secret.', minLength: 1 }),
          key: string({
            description: 'Key of the signing secret in the Secret.',
            default: 'secret',
            minLength: 1,
          }),
        },
        {
          description:
            'Secret in the same namespace holding the signing key (whsec_ and the base64 of the ' +
            'key bytes). While it is missing or malformed, deliveries are held, never sent ' +
            'unsigned, and the WebhooksReady condition says why.',
          required: ['name'],
        },
      ),
    },
    { description, required: ['secretRef'] },
  );

export const WEBHOOK_DELIVERY_STATES = ['Pending', 'Delivered', 'Failed'] as const;

export const webhookDeliveries = (events: string) =>
  array(
    object(
      {
        id: string({ description: 'The webhook-id header, the same on every attempt.' }),
        event: string({ description: events }),
        url: string({ description: 'Receiver URL.' }),
        job: string({ description: 'Job whose outcome is reported.' }),
        state: string({
          description:
            'Pending (to be attempted at nextAttemptTime), Delivered or Failed (given up or refused).',
          enum: WEBHOOK_DELIVERY_STATES,
        }),
        attempts: integer({ description: 'Attempts made.' }),
        createdAt: string({ description: 'When the delivery was queued.', format: 'date-time' }),
        lastAttemptTime: string({
          description: 'When the last attempt was made.',
          format: 'date-time',
        }),
        lastOutcome: string({ description: 'What the last attempt came to.' }),
        nextAttemptTime: string({
          description: 'When a pending delivery is attempted next.',
          format: 'date-time',
        }),
        payload: string({ description: 'JSON body of a pending delivery.' }),
      },
      { required: ['id', 'event', 'url', 'job', 'state', 'attempts'] },
    ),
    {
      description:
        'Webhook deliveries: every pending one (with its body, so retries outlast an operator ' +
        'restart) and the last 10 that ended.',
    },
  );
