import { ApiProperty } from '@nestjs/swagger';
import type { EmailMode } from './delivery/decide.js';
import { CHANNELS, type ChannelName, SEVERITIES, type Severity } from './entities.js';

/*
 * The response bodies of the notification routes (the `data` of the success envelope). The
 * view functions return these types; the services never answer instances of them.
 */

export class OkResponseDto {
  @ApiProperty({ enum: [true] }) ok!: true;
}

export class NotificationResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'the category key' }) category!: string;
  @ApiProperty() event_type!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) organization_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) organization_name!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'per event type' })
  payload!: Record<string, unknown>;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) read_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class UnreadCountResponseDto {
  @ApiProperty({ type: 'integer' }) unread_count!: number;
}

export class NotificationReadResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) read_at!: Date;
}

export class NotificationCategoryResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() key!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ enum: CHANNELS, isArray: true }) default_channels!: ChannelName[];
  @ApiProperty() mandatory_for_admins!: boolean;
  @ApiProperty({ enum: SEVERITIES }) severity!: Severity;
  @ApiProperty({ type: String, nullable: true, description: 'the feature it belongs to' })
  feature_key!: string | null;
  @ApiProperty() superadmin_only!: boolean;
}

export class AbsenceResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) starts_at!: Date;
  @ApiProperty({ type: String, format: 'date-time' }) ends_at!: Date;
  @ApiProperty({ type: String, nullable: true }) note!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: Date;
}

export class BroadcastResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() body!: string;
  @ApiProperty({ enum: SEVERITIES }) severity!: Severity;
  @ApiProperty() banner!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) published_at!: Date;
}

export class PreferenceResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() category_key!: string;
  @ApiProperty({ enum: CHANNELS }) channel!: ChannelName;
  @ApiProperty() enabled!: boolean;
}

export class ScheduleResponseDto {
  @ApiProperty({ enum: ['instant', 'hourly_digest', 'daily_digest'] }) email_mode!: EmailMode;
  @ApiProperty({ type: String, nullable: true, example: '22:00' }) quiet_start!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '07:00' }) quiet_end!: string | null;
  @ApiProperty({ example: 'Europe/Berlin' }) timezone!: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 23 }) digest_hour!: number;
  @ApiProperty({ type: [String], description: 'categories always e-mailed at once' })
  mandatory_instant_categories!: string[];
}

export class PhoneVerificationResponseDto {
  @ApiProperty({ description: 'E.164' }) phone_number!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'when the code expires' })
  expires_at!: Date;
}

export class PhoneVerifiedResponseDto {
  @ApiProperty({ description: 'E.164' }) phone_number!: string;
  @ApiProperty({ enum: [true] }) phone_verified!: true;
}
