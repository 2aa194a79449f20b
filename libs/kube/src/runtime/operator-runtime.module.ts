import {
  type DynamicModule,
  Module,
  type ModuleMetadata,
  type Provider,
  type Type,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { KubeClient } from './kube-client.js';
import { OperatorMetrics } from './operator-metrics.js';
import {
  OPERATOR_RUNTIME_SETTINGS,
  OperatorRuntime,
  type OperatorRuntimeSettings,
  type OperatorTiming,
  RECONCILERS,
} from './operator-runtime.js';
import type { Reconciler } from './reconciler.js';

export interface OperatorRuntimeOptions {
  /** The operator's name: logs, and the default lease name `<name>-leader`. */
  name: string;
  reconcilers: Type<Reconciler>[];
  imports?: ModuleMetadata['imports'];
  /** Extra providers; one for KubeClient replaces the client built from the environment. */
  providers?: Provider[];
  timing?: Partial<OperatorTiming>;
}

/**
 * Wires an operator's reconcilers to the runtime: the KubeClient (from KUBECONFIG or the
 * service account), informers, work queues, leader election, resync, metrics and readiness.
 * Import it into bootstrapOperator; it needs the CoreModule's configuration, clock and metrics.
 */
@Module({})
export class OperatorRuntimeModule {
  static forRoot(options: OperatorRuntimeOptions): DynamicModule {
    const settings: OperatorRuntimeSettings = { name: options.name, timing: options.timing };
    return {
      module: OperatorRuntimeModule,
      imports: options.imports ?? [],
      providers: [
        {
          provide: KubeClient,
          useFactory: (config: AppConfig) =>
            KubeClient.fromEnvironment(config.operator.kubeconfig ?? undefined),
          inject: [APP_CONFIG],
        },
        ...options.reconcilers,
        ...(options.providers ?? []),
        { provide: OPERATOR_RUNTIME_SETTINGS, useValue: settings },
        {
          provide: RECONCILERS,
          useFactory: (...reconcilers: Reconciler[]) => reconcilers,
          inject: options.reconcilers,
        },
        OperatorMetrics,
        OperatorRuntime,
      ],
      exports: [KubeClient, OperatorMetrics, OperatorRuntime],
    };
  }
}
