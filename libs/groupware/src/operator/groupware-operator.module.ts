import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { type OperatorTiming, OperatorRuntimeModule, type Reconciler } from '@platform/kube';
import { GroupwareInstanceReconciler } from '../instance/groupware-instance.reconciler.js';
import { GroupwarePoolReconciler } from '../pools/groupware-pool.reconciler.js';
import { GroupwareProfileReconciler } from '../profiles/groupware-profile.reconciler.js';
import { GroupwareReconciler } from '../tenant/groupware.reconciler.js';
import {
  RecordingServerReconciler,
  SignalingServerReconciler,
} from '../talk/talk-server.reconciler.js';

export interface GroupwareOperatorOptions {
  /** Extra providers, e.g. a KubeClient (replacing the one built from the environment). */
  providers?: Provider[];
  timing?: Partial<OperatorTiming>;
  /** The reconcilers to run (default all of GROUPWARE_RECONCILERS). */
  reconcilers?: Type<Reconciler>[];
}

/** One reconciler per kind of the group. */
export const GROUPWARE_RECONCILERS: Type<Reconciler>[] = [
  GroupwareInstanceReconciler,
  GroupwareProfileReconciler,
  GroupwarePoolReconciler,
  GroupwareReconciler,
  SignalingServerReconciler,
  RecordingServerReconciler,
];

/** The groupware operator: the reconcilers of k8s.neutral.com on the operator runtime. */
@Module({})
export class GroupwareOperatorModule {
  static forRoot(options: GroupwareOperatorOptions = {}): DynamicModule {
    return {
      module: GroupwareOperatorModule,
      imports: [
        OperatorRuntimeModule.forRoot({
          name: 'groupware-operator',
          reconcilers: options.reconcilers ?? GROUPWARE_RECONCILERS,
          providers: [...(options.providers ?? [])],
          timing: options.timing,
        }),
      ],
    };
  }
}
