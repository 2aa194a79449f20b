import type { Alert } from '../../../libs/alerting/src/alerts/alerts.openapi.js';
import type {
  CloneChainBody,
  CreateChainBody,
  UpdateChainBody,
} from '../../../libs/escalation/src/chains/chains.dto.js';
import type {
  EscalationChain,
  EscalationStep,
  ResolvedStepTargets,
} from '../../../libs/escalation/src/chains/chains.openapi.js';
import type {
  CreateStepBody,
  UpdateStepBody,
} from '../../../libs/escalation/src/chains/escalation-steps.dto.js';
import { type Http, type Input, type Mode, segment } from './http.js';

const chainsPath = (projectId: string) => `/projects/${segment(projectId)}/escalation_chains`;

/** `/projects/{project_id}/escalation_chains`. */
export function escalationChainsClient<M extends Mode>(http: Http<M>, projectId: string) {
  const base = chainsPath(projectId);
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    list: () => http.get<EscalationChain[]>(base),
    create: (body: Input<M, CreateChainBody>) => http.post<EscalationChain>(base, body, 201),
    show: (id: string) => http.get<EscalationChain>(one(id)),
    update: (id: string, body: Input<M, UpdateChainBody>) =>
      http.patch<EscalationChain>(one(id), body),
    delete: (id: string) => http.delete(one(id)),
    clone: (id: string, body?: Input<M, CloneChainBody>) =>
      http.post<EscalationChain>(`${one(id)}/clone`, body, 201),
    resolvedTargets: (id: string) => http.get<ResolvedStepTargets[]>(`${one(id)}/resolved_targets`),
  };
}

/** `/projects/{project_id}/escalation_chains/{id}/escalation_steps`. */
export function escalationStepsClient<M extends Mode>(
  http: Http<M>,
  projectId: string,
  chainId: string,
) {
  const base = `${chainsPath(projectId)}/${segment(chainId)}/escalation_steps`;
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    list: () => http.get<EscalationStep[]>(base),
    create: (body: Input<M, CreateStepBody>) => http.post<EscalationStep>(base, body, 201),
    show: (id: string) => http.get<EscalationStep>(one(id)),
    update: (id: string, body: Input<M, UpdateStepBody>) =>
      http.patch<EscalationStep>(one(id), body),
    delete: (id: string) => http.delete(one(id)),
  };
}

/** `/projects/{project_id}/alerts/{id}/ack`: acknowledging in the app, and undoing it. */
export function acknowledgementsClient<M extends Mode>(http: Http<M>, projectId: string) {
  const ack = (alertId: string) => `/projects/${segment(projectId)}/alerts/${segment(alertId)}/ack`;
  return {
    acknowledge: (alertId: string) => http.post<Alert>(ack(alertId), undefined, 200),
    unacknowledge: (alertId: string) => http.delete<Alert>(ack(alertId), 200),
  };
}
