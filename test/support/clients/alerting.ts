import type {
  AlertEventResponseDto,
  AlertRoutePreviewResponseDto,
  AlertRouteResponseDto,
  DeliveryResponseDto,
  IngestResponseDto,
  IngestTokenResponseDto,
  MaintenanceWindowResponseDto,
  NotificationEndpointResponseDto,
  NotificationEndpointWithSecretResponseDto,
  SilenceResponseDto,
} from '../../../libs/alerting/src/alerting.openapi.js';
import type { Alert } from '../../../libs/alerting/src/alerts/alerts.openapi.js';
import type {
  CreateEndpointBody,
  UpdateEndpointBody,
} from '../../../libs/alerting/src/endpoints/notification-endpoints.dto.js';
import type { MintIngestTokenBody } from '../../../libs/alerting/src/ingest/ingest-tokens.dto.js';
import type {
  CloneAlertRouteBody,
  CreateAlertRouteBody,
  PreviewAlertRouteBody,
  UpdateAlertRouteBody,
} from '../../../libs/alerting/src/routes/alert-routes.dto.js';
import type {
  CreateMaintenanceWindowBody,
  CreateSilenceBody,
  UpdateMaintenanceWindowBody,
} from '../../../libs/alerting/src/suppression/suppression.dto.js';
import type { CreateTestAlertBody } from '../../../libs/alerting/src/test-alerts/test-alerts.dto.js';
import { type Http, type Input, type Mode, segment } from './http.js';

const project = (projectId: string) => `/projects/${segment(projectId)}`;

/** Paging of the lists that answer `metadata.total`. */
export interface Paging {
  limit?: number;
  offset?: number;
}

export interface AlertListQuery extends Paging {
  q?: string;
  status?: 'firing' | 'resolved';
  acknowledged?: boolean;
}

/** One alert of an Alertmanager webhook. */
export interface AlertmanagerAlert {
  status?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
  fingerprint?: string;
}

/** The Alertmanager webhook payload (version 4) the ingest route takes. */
export interface AlertmanagerWebhook {
  version?: string;
  groupKey?: string;
  truncatedAlerts?: number;
  status?: string;
  receiver?: string;
  groupLabels?: Record<string, string>;
  commonLabels?: Record<string, string>;
  commonAnnotations?: Record<string, string>;
  externalURL?: string;
  alerts: AlertmanagerAlert[];
}

/** `/projects/{project_id}/alert_routes`. */
export function alertRoutesClient<M extends Mode>(http: Http<M>, projectId: string) {
  const base = `${project(projectId)}/alert_routes`;
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    list: () => http.get<AlertRouteResponseDto[]>(base),
    create: (body: Input<M, CreateAlertRouteBody>) =>
      http.post<AlertRouteResponseDto>(base, body, 201),
    preview: (body: Input<M, PreviewAlertRouteBody>) =>
      http.post<AlertRoutePreviewResponseDto>(`${base}/preview`, body, 200),
    show: (id: string) => http.get<AlertRouteResponseDto>(one(id)),
    update: (id: string, body: Input<M, UpdateAlertRouteBody>) =>
      http.patch<AlertRouteResponseDto>(one(id), body),
    delete: (id: string) => http.delete(one(id)),
    clone: (id: string, body?: Input<M, CloneAlertRouteBody>) =>
      http.post<AlertRouteResponseDto>(`${one(id)}/clone`, body, 201),
  };
}

/** `POST /projects/{project_id}/alert_ingest_tokens`. */
export function ingestTokensClient<M extends Mode>(http: Http<M>, projectId: string) {
  return {
    mint: (body?: Input<M, MintIngestTokenBody>) =>
      http.post<IngestTokenResponseDto>(`${project(projectId)}/alert_ingest_tokens`, body, 201),
  };
}

/**
 * `/projects/{project_id}/alerts`: ingest (as Alertmanager, usually with an ingest token), the
 * list, one alert, its timeline, and test alerts.
 */
export function alertsClient<M extends Mode>(http: Http<M>, projectId: string) {
  const base = `${project(projectId)}/alerts`;
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    ingest: (payload: Input<M, AlertmanagerWebhook>) =>
      http.post<IngestResponseDto>(base, payload, 200),
    list: (query: AlertListQuery = {}) => http.get<Alert[]>(base, { ...query }),
    show: (id: string) => http.get<Alert>(one(id)),
    events: (id: string, paging: Paging = {}) =>
      http.get<AlertEventResponseDto[]>(`${one(id)}/alert_events`, { ...paging }),
    test: (body?: Input<M, CreateTestAlertBody>) => http.post<Alert>(`${base}/test`, body, 201),
  };
}

/** `/projects/{project_id}/alerts/{alert_id}/silences`. */
export function silencesClient<M extends Mode>(http: Http<M>, projectId: string, alertId: string) {
  const base = `${project(projectId)}/alerts/${segment(alertId)}/silences`;
  return {
    list: () => http.get<SilenceResponseDto[]>(base),
    create: (body: Input<M, CreateSilenceBody>) => http.post<SilenceResponseDto>(base, body, 201),
    expire: (id: string) => http.delete(`${base}/${segment(id)}`),
  };
}

/** `/projects/{project_id}/maintenance_windows`. */
export function maintenanceWindowsClient<M extends Mode>(http: Http<M>, projectId: string) {
  const base = `${project(projectId)}/maintenance_windows`;
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    list: () => http.get<MaintenanceWindowResponseDto[]>(base),
    create: (body: Input<M, CreateMaintenanceWindowBody>) =>
      http.post<MaintenanceWindowResponseDto>(base, body, 201),
    show: (id: string) => http.get<MaintenanceWindowResponseDto>(one(id)),
    update: (id: string, body: Input<M, UpdateMaintenanceWindowBody>) =>
      http.patch<MaintenanceWindowResponseDto>(one(id), body),
    delete: (id: string) => http.delete(one(id)),
  };
}

/** `/projects/{project_id}/notification_endpoints` and their deliveries. */
export function notificationEndpointsClient<M extends Mode>(http: Http<M>, projectId: string) {
  const base = `${project(projectId)}/notification_endpoints`;
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    list: () => http.get<NotificationEndpointResponseDto[]>(base),
    create: (body: Input<M, CreateEndpointBody>) =>
      http.post<NotificationEndpointWithSecretResponseDto>(base, body, 201),
    show: (id: string) => http.get<NotificationEndpointResponseDto>(one(id)),
    update: (id: string, body: Input<M, UpdateEndpointBody>) =>
      http.patch<NotificationEndpointResponseDto>(one(id), body),
    delete: (id: string) => http.delete(one(id)),
    rotateSecret: (id: string) =>
      http.post<NotificationEndpointWithSecretResponseDto>(
        `${one(id)}/rotate_secret`,
        undefined,
        200,
      ),
    deliveries: (id: string, paging: Paging = {}) =>
      http.get<DeliveryResponseDto[]>(`${one(id)}/deliveries`, { ...paging }),
    test: (id: string) => http.post<DeliveryResponseDto>(`${one(id)}/test`, undefined, 202),
  };
}
