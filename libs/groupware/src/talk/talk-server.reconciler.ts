import { Injectable } from '@nestjs/common';
import {
  CoreKinds,
  ensureObject,
  type FinalizeResult,
  type KindRef,
  type KubeObject,
  type ObjectName,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  writeStatus,
} from '@platform/kube';
import { GroupwareKindRefs } from '../crds/definitions.js';
import type { GroupwareInstance, SignalingServer } from '../crds/types.js';
import { OccLabels } from '../occ/occ-job.js';
import {
  deleteCommand,
  RECORDING_BACKEND,
  registerCommands,
  SIGNALING_BACKEND,
  type TalkBackend,
} from './talk-backends.js';
import { type Operation, TalkJobs } from './talk-jobs.js';
import { type TalkEvent, TalkEvents } from './talk-events.js';
import {
  type InstanceAction,
  planInstances,
  type Registration,
  sameRegistration,
} from './talk-plan.js';
import {
  readSharedSecret,
  secretCopy,
  secretCopyName,
  SecretUnavailable,
  TalkAnnotations,
} from './talk-secrets.js';
import { failureMessage, type RegistrationPass, talkServerStatus } from './talk-status.js';

/** The source Secret is not watched: an unreadable one is looked at again this often. */
export const SECRET_POLL_MS = 60_000;

type TalkServer = SignalingServer;
type SecretObject = KubeObject & { data?: Record<string, string> };

/** One pass's state: the Jobs, the secret copies to keep, and what was found. */
interface PassState {
  jobs: TalkJobs;
  events: TalkEvent[];
  sharedSecret?: string;
  copies: Set<string>;
  pass: RegistrationPass;
}

/**
 * Registers a Talk backend (signaling or recording server, cluster-scoped) with every Ready
 * GroupwareInstance running Talk, through occ Jobs in the instance's namespace that read the
 * shared secret from a copy of it there; removes the registration when Talk is turned off or
 * the server deleted, and re-registers when the URL, TLS verification or secret changes.
 * Instance events reach every server of the kind (ownerOf); the Jobs and copies carry the
 * server's name in an annotation.
 */
abstract class TalkServerReconciler implements Reconciler<TalkServer> {
  readonly kind: KindRef;
  readonly owns = [GroupwareKindRefs.GroupwareInstance, CoreKinds.Job, CoreKinds.Secret];
  readonly finalizer: string;
  private readonly events = new TalkEvents();

  constructor(private readonly backend: TalkBackend) {
    this.kind = backend.kind;
    this.finalizer = backend.finalizer;
  }

  /** Only this backend's Jobs and secret copies are cached; instances are watched whole. */
  ownsSelector(kind: KindRef): string | undefined {
    if (isKind(kind, GroupwareKindRefs.GroupwareInstance)) return undefined;
    return `${OccLabels.purpose}=${this.backend.purpose}`;
  }

  ownerOf(child: KubeObject, kind: KindRef, context: ReconcileContext): ObjectName[] {
    if (isKind(kind, GroupwareKindRefs.GroupwareInstance)) {
      return context
        .cache(this.kind)
        .list()
        .map((server) => ({ name: server.metadata.name! }));
    }
    const server = child.metadata.annotations?.[TalkAnnotations.server];
    return server ? [{ name: server }] : [];
  }

  async reconcile(server: TalkServer, context: ReconcileContext): Promise<ReconcileResult | void> {
    const state = await this.registerAll(server, context, false);
    return this.requeue(state, context);
  }

  /** Unregisters from every instance; the finalizer stays until each delete Job succeeded. */
  async finalize(server: TalkServer, context: ReconcileContext): Promise<FinalizeResult | void> {
    const state = await this.registerAll(server, context, true);
    if (state.pass.registrations.length > 0) {
      return { pending: true, requeueAfterMs: this.requeue(state, context)?.requeueAfterMs };
    }
    // Nothing will look at this server's Jobs again.
    await state.jobs.removeLeftovers();
  }

  private async registerAll(
    server: TalkServer,
    context: ReconcileContext,
    deleting: boolean,
  ): Promise<PassState> {
    const name = server.metadata.name!;
    const instances = context.cache<GroupwareInstance>(GroupwareKindRefs.GroupwareInstance).list();
    const actions = planInstances(instances, server.status?.registrations ?? [], deleting);
    const state: PassState = {
      jobs: new TalkJobs(context, this.backend, name),
      events: [],
      copies: new Set(),
      pass: { registrations: [], running: [], failures: [] },
    };
    if (actions.some((action) => action.type === 'register')) {
      try {
        state.sharedSecret = await readSharedSecret(context.client, server.spec!);
      } catch (error) {
        if (!(error instanceof SecretUnavailable)) throw error;
        state.pass.secretProblem = error.message;
      }
    }
    for (const action of actions) await this.apply(server, context, action, state);
    await writeStatus(
      context,
      this.kind,
      server,
      talkServerStatus(server.status, state.pass, context.clock.now()),
    );
    await this.events.emit(context, server, state.events);
    // Jobs whose outcome the status now records go once the status shows it (the next pass).
    if (!state.pass.secretProblem && !deleting) await state.jobs.removeLeftovers();
    await this.removeCopies(context, name, state.copies);
    return state;
  }

  private async apply(
    server: TalkServer,
    context: ReconcileContext,
    action: InstanceAction,
    state: PassState,
  ): Promise<void> {
    const { pass } = state;
    switch (action.type) {
      case 'forget':
        return;
      case 'keep':
        state.copies.add(copyKey(action.instance, this.backend, server));
        pass.registrations.push(action.previous);
        return;
      case 'unregister': {
        const done = await this.runOperation(state, action.key, 'Unregistered', {
          instance: action.instance,
          commands: [deleteCommand(this.backend, action.previous.url)],
        });
        if (!done) pass.registrations.push(action.previous);
        return;
      }
      case 'register':
        return this.register(server, context, action, state);
    }
  }

  private async register(
    server: TalkServer,
    context: ReconcileContext,
    action: Extract<InstanceAction, { type: 'register' }>,
    state: PassState,
  ): Promise<void> {
    const { pass } = state;
    const keepPrevious = () => {
      if (action.previous) pass.registrations.push(action.previous);
    };
    state.copies.add(copyKey(action.instance, this.backend, server));
    if (state.sharedSecret === undefined) return keepPrevious();
    const copy = await ensureObject<SecretObject>(
      context,
      CoreKinds.Secret,
      secretCopy(action.instance, this.backend, server.metadata.name!, state.sharedSecret),
    );
    const spec = server.spec!;
    const wanted: Registration = {
      instance: action.key,
      url: spec.url,
      verifyTls: spec.verifyTls ?? true,
      secretVersion: copy.metadata.resourceVersion,
    };
    if (sameRegistration(action.previous, wanted)) return keepPrevious();
    const done = await this.runOperation(state, action.key, 'Registered', {
      instance: action.instance,
      commands: registerCommands(
        this.backend,
        { url: spec.url, verifyTls: wanted.verifyTls! },
        action.previous?.url,
      ),
      revision: copy.metadata.resourceVersion,
      secretCopy: copy.metadata.name,
    });
    if (done) pass.registrations.push(wanted);
    else keepPrevious();
  }

  /** Runs (or looks at) the operation's Job; true once it succeeded. */
  private async runOperation(
    state: PassState,
    key: string,
    success: 'Registered' | 'Unregistered',
    operation: Operation,
  ): Promise<boolean> {
    const outcome = await state.jobs.run(operation);
    const { job } = outcome;
    if (outcome.state === 'succeeded') {
      const message =
        success === 'Registered' ? `registered with ${key}` : `unregistered from ${key}`;
      state.events.push({ reason: success, job, message: `${message} (occ Job ${job})` });
      return true;
    }
    if (outcome.state === 'failed') {
      const failure = { instance: key, job, attempt: outcome.attempt, retryAt: outcome.retryAt };
      state.pass.failures.push(failure);
      state.events.push({ reason: 'OccFailed', job, message: failureMessage(failure) });
    } else {
      state.pass.running.push(key);
    }
    return false;
  }

  /** Deletes this server's secret copies that no instance needs any more. */
  private async removeCopies(
    context: ReconcileContext,
    server: string,
    keep: Set<string>,
  ): Promise<void> {
    const copies = context
      .cache<SecretObject>(CoreKinds.Secret)
      .list(undefined, { [OccLabels.purpose]: this.backend.purpose })
      .filter((secret) => secret.metadata.annotations?.[TalkAnnotations.server] === server)
      .filter((secret) => !keep.has(`${secret.metadata.namespace}/${secret.metadata.name}`));
    await Promise.all(
      copies.map((secret) =>
        context.client.delete(CoreKinds.Secret, secret.metadata.namespace, secret.metadata.name!),
      ),
    );
  }

  private requeue(state: PassState, context: ReconcileContext): ReconcileResult | undefined {
    const now = context.clock.nowMs();
    const waits = state.pass.failures.map((failure) =>
      Math.max(0, failure.retryAt.getTime() - now),
    );
    if (state.pass.secretProblem) waits.push(SECRET_POLL_MS);
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
  }
}

function isKind(kind: KindRef, other: KindRef): boolean {
  return kind.group === other.group && kind.kind === other.kind;
}

/** `<namespace>/<name>` of the instance's copy of the server's secret. */
function copyKey(instance: GroupwareInstance, backend: TalkBackend, server: TalkServer): string {
  const name = secretCopyName(instance.metadata.name!, backend, server.metadata.name!);
  return `${instance.metadata.namespace}/${name}`;
}

/** SignalingServer: `talk:signaling:add` / `talk:signaling:delete`. */
@Injectable()
export class SignalingServerReconciler extends TalkServerReconciler {
  constructor() {
    super(SIGNALING_BACKEND);
  }
}

/** RecordingServer: `talk:recording:add` / `talk:recording:delete`. */
@Injectable()
export class RecordingServerReconciler extends TalkServerReconciler {
  constructor() {
    super(RECORDING_BACKEND);
  }
}
