import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PermissionOverrides, Role } from './access/permissions.js';

@Entity('account')
export class Account {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('text') login!: string;
  /** The login in the form logins are compared in (see loginKey); unique. */
  @Column('text', { select: false }) loginKey!: string;
  @Column('text') name!: string;
  @Column('text', { nullable: true, select: false }) passwordHash!: string | null;
  /** Session JWTs issued before this are refused (moved by a password change or reset). */
  @Column('timestamptz', { nullable: true, select: false }) sessionsValidAfter!: Date | null;
  @Column('timestamptz', { nullable: true }) emailVerifiedAt!: Date | null;
  @Column('boolean') isPlatformAdmin!: boolean;
  /** E.164; set only once verified by an SMS code (a pending number lives in phone_verification). */
  @Column('text', { nullable: true }) phoneNumber!: string | null;
  @Column('timestamptz', { nullable: true }) phoneVerifiedAt!: Date | null;
  @Column('timestamptz') createdAt!: Date;
  @Column('timestamptz') updatedAt!: Date;
}

@Entity('organization')
export class Organization {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('text') name!: string;
  @Column('timestamptz') createdAt!: Date;
  @Column('timestamptz') updatedAt!: Date;
}

@Entity('membership')
export class Membership {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') organizationId!: string;
  @Column('uuid') accountId!: string;
  @Column('text') role!: Role;
  @Column('jsonb') permissions!: PermissionOverrides;
  @Column('timestamptz') createdAt!: Date;
  @Column('timestamptz') updatedAt!: Date;
}

@Entity('project')
export class Project {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') organizationId!: string;
  @Column('text') name!: string;
  @Column('timestamptz') createdAt!: Date;
  @Column('timestamptz') updatedAt!: Date;
}

@Entity('legal_document')
export class LegalDocument {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('text') docType!: string;
  @Column('integer') version!: number;
  @Column('text') title!: string;
  @Column('text') content!: string;
  @Column('text') contentHash!: string;
  @Column('timestamptz') publishedAt!: Date;
}

@Entity('legal_consent')
export class LegalConsent {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') accountId!: string;
  @Column('text') docType!: string;
  @Column('integer') version!: number;
  @Column('text') contentHash!: string;
  @Column('timestamptz') acceptedAt!: Date;
}

@Entity('email_verification')
export class EmailVerification {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') accountId!: string;
  @Column('text') tokenHash!: string;
  @Column('timestamptz') expiresAt!: Date;
  @Column('timestamptz', { nullable: true }) usedAt!: Date | null;
  @Column('timestamptz') createdAt!: Date;
}

export type TokenKind = 'api' | 'ingest';

@Entity('api_token')
export class ApiToken {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') organizationId!: string;
  @Column('uuid') accountId!: string;
  @Column('uuid', { nullable: true }) projectId!: string | null;
  @Column('text') name!: string;
  @Column('text') kind!: TokenKind;
  @Column('text') tokenHash!: string;
  @Column('text') last4!: string;
  @Column('text', { array: true }) scopes!: string[];
  @Column('timestamptz') createdAt!: Date;
  @Column('timestamptz', { nullable: true }) lastUsedAt!: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt!: Date | null;
}

@Entity('invitation')
export class Invitation {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') organizationId!: string;
  @Column('text') email!: string;
  @Column('text') role!: Role;
  @Column('text') tokenHash!: string;
  @Column('uuid', { nullable: true }) invitedBy!: string | null;
  @Column('timestamptz') expiresAt!: Date;
  @Column('timestamptz', { nullable: true }) acceptedAt!: Date | null;
  @Column('timestamptz', { nullable: true }) declinedAt!: Date | null;
  @Column('timestamptz') createdAt!: Date;
}

export const IDENTITY_ENTITIES = [
  Account,
  Organization,
  Membership,
  Project,
  LegalDocument,
  LegalConsent,
  EmailVerification,
  ApiToken,
  Invitation,
];
