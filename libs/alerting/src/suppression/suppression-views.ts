import type {
  AuthorDto,
  MaintenanceWindowResponseDto,
  SilenceResponseDto,
} from '../alerting.openapi.js';
import { isActive } from './suppression.js';
import type { MaintenanceWindowRow, SilenceRow } from './suppression.repository.js';

const author = (id: string | null, name: string | null): AuthorDto | null =>
  id !== null && name !== null ? { id, name } : null;

export const silenceView = (s: SilenceRow, now: Date): SilenceResponseDto => ({
  id: s.id,
  alert_id: s.alert_id,
  starts_at: s.starts_at,
  ends_at: s.ends_at,
  comment: s.comment,
  created_by: author(s.created_by, s.created_by_name),
  created_at: s.created_at,
  active: isActive(s, now),
});

export const maintenanceWindowView = (
  w: MaintenanceWindowRow,
  now: Date,
): MaintenanceWindowResponseDto => ({
  id: w.id,
  project_id: w.project_id,
  name: w.name,
  starts_at: w.starts_at,
  ends_at: w.ends_at,
  matchers: w.matchers,
  active: isActive(w, now),
  created_by: author(w.created_by, w.created_by_name),
  created_at: w.created_at,
  updated_at: w.updated_at,
});
