import type { KindRef } from '@platform/kube';
import { GroupwareKindRefs } from '../crds/definitions.js';
import { envReference, type OccCommand } from '../occ/occ-job.js';

/*
 * What differs between the two Talk backends the operator registers with instances: the kind,
 * the occ commands and the purpose label of their Jobs and secret copies. Talk's `add` commands
 * take the URL, the shared secret and `--verify` (check the certificate); `delete` takes the URL
 * and removes every entry with it, succeeding when there is none.
 */

/** The Job's environment variable holding the shared secret, read by the script as "$TALK_SECRET". */
export const TALK_SECRET_ENV = 'TALK_SECRET';

export interface TalkBackend {
  kind: KindRef;
  /** `signaling` or `recording`: the occ purpose label of its Jobs and secret copies. */
  purpose: 'signaling' | 'recording';
  finalizer: string;
}

export const SIGNALING_BACKEND: TalkBackend = {
  kind: GroupwareKindRefs.SignalingServer,
  purpose: 'signaling',
  finalizer: 'k8s.neutral.com/signaling-registrations',
};

export const RECORDING_BACKEND: TalkBackend = {
  kind: GroupwareKindRefs.RecordingServer,
  purpose: 'recording',
  finalizer: 'k8s.neutral.com/recording-registrations',
};

export function deleteCommand(backend: TalkBackend, url: string): OccCommand {
  return [`talk:${backend.purpose}:delete`, url];
}

/**
 * Registers `url`: first removes what an earlier registration left (`previousUrl`, and `url`
 * itself, since `add` appends and a repeated add would list the server twice), then adds it
 * with the secret from the environment.
 */
export function registerCommands(
  backend: TalkBackend,
  target: { url: string; verifyTls: boolean },
  previousUrl?: string,
): OccCommand[] {
  const removals = previousUrl && previousUrl !== target.url ? [previousUrl] : [];
  return [
    ...[...removals, target.url].map((url) => deleteCommand(backend, url)),
    [
      `talk:${backend.purpose}:add`,
      target.url,
      envReference(TALK_SECRET_ENV),
      ...(target.verifyTls ? ['--verify'] : []),
    ],
  ];
}
