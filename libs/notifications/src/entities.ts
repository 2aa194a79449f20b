import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { PERSON_CHANNELS, type PersonChannelName } from './channels/channel.js';

/** The channels a notification preference or category names. */
export const CHANNELS = PERSON_CHANNELS;
export type ChannelName = PersonChannelName;
export const SEVERITIES = ['info', 'notice', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

@Entity('notification_category')
export class NotificationCategory {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('text') key!: string;
  @Column('text') label!: string;
  @Column('text', { array: true }) defaultChannels!: ChannelName[];
  @Column('boolean') mandatoryForAdmins!: boolean;
  @Column('text') severity!: Severity;
  @Column('text', { nullable: true }) featureKey!: string | null;
  @Column('boolean') superadminOnly!: boolean;
  @Column('integer') position!: number;
}

@Entity('notification')
export class Notification {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') accountId!: string;
  @Column('uuid', { nullable: true }) organizationId!: string | null;
  @Column('text') categoryKey!: string;
  @Column('text') eventType!: string;
  @Column('jsonb') payload!: Record<string, unknown>;
  @Column('timestamptz', { nullable: true }) readAt!: Date | null;
  @Column('timestamptz') createdAt!: Date;
  /** At most one notification per account and key (see NotifyRequest.idempotencyKey). */
  @Column('text', { nullable: true }) idempotencyKey!: string | null;
}

@Entity('notification_preference')
export class NotificationPreference {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') accountId!: string;
  @Column('text') categoryKey!: string;
  @Column('text') channel!: ChannelName;
  @Column('boolean') enabled!: boolean;
  @Column('timestamptz') updatedAt!: Date;
}

@Entity('notification_schedule')
export class NotificationSchedule {
  @PrimaryColumn('uuid') accountId!: string;
  @Column('text') emailMode!: 'instant' | 'hourly_digest' | 'daily_digest';
  @Column('text', { nullable: true }) quietStart!: string | null;
  @Column('text', { nullable: true }) quietEnd!: string | null;
  @Column('text') timezone!: string;
  @Column('integer') digestHour!: number;
  @Column('timestamptz', { nullable: true }) lastDigestAt!: Date | null;
  @Column('timestamptz') updatedAt!: Date;
}

@Entity('notification_absence')
export class NotificationAbsence {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') accountId!: string;
  @Column('timestamptz') startsAt!: Date;
  @Column('timestamptz') endsAt!: Date;
  @Column('text', { nullable: true }) note!: string | null;
  @Column('timestamptz') createdAt!: Date;
}

@Entity('broadcast')
export class Broadcast {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('text') title!: string;
  @Column('text') body!: string;
  @Column('text') severity!: Severity;
  @Column('boolean') banner!: boolean;
  @Column('timestamptz') publishedAt!: Date;
  @Column('uuid', { nullable: true }) createdBy!: string | null;
}

@Entity('pending_email')
export class PendingEmail {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') accountId!: string;
  @Column('uuid', { nullable: true }) notificationId!: string | null;
  @Column('text') categoryKey!: string;
  @Column('text') subject!: string;
  @Column('text') text!: string;
  @Column('text', { nullable: true }) html!: string | null;
  @Column('timestamptz') createdAt!: Date;
  @Column('timestamptz', { nullable: true }) sentAt!: Date | null;
}

/** notify()'s deliveries: how each stands is its `delivery` row, of the same id. */
@Entity('notification_delivery')
export class NotificationDelivery {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid', { nullable: true }) notificationId!: string | null;
  @Column('uuid') accountId!: string;
}

export const NOTIFICATION_ENTITIES = [
  NotificationCategory,
  Notification,
  NotificationPreference,
  NotificationSchedule,
  NotificationAbsence,
  Broadcast,
  PendingEmail,
  NotificationDelivery,
];
