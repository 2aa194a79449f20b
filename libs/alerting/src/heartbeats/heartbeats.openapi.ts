import { ApiProperty } from '@nestjs/swagger';
import {
  HEARTBEAT_STATUSES,
  type HeartbeatRow,
  type HeartbeatStatus,
} from './heartbeats.repository.js';

export class HeartbeatResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) interval_seconds!: number;
  @ApiProperty({ type: 'integer' }) grace_seconds!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  labels!: Record<string, string>;
  @ApiProperty({
    format: 'uri',
    description:
      'the secret URL to ping (POST or GET, no credentials, 204); rotate_ping_url replaces it and the old one answers 404',
  })
  ping_url!: string;
  @ApiProperty({
    enum: HEARTBEAT_STATUSES,
    description:
      'pending: never pinged (no alert fires before the first ping); up: pinged within interval plus grace; down: the ping is overdue and the alert fires',
  })
  status!: HeartbeatStatus;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_ping_at!: Date | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when the heartbeat turns down without another ping; null while pending',
  })
  next_ping_due_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: Date;
}

export function heartbeatView(row: HeartbeatRow, pingUrl: string): HeartbeatResponseDto {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    interval_seconds: row.interval_seconds,
    grace_seconds: row.grace_seconds,
    labels: row.labels,
    ping_url: pingUrl,
    status: row.status,
    last_ping_at: row.last_ping_at,
    next_ping_due_at: row.due_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
