import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotIdParams, Public } from '@platform/core';
import { ApiData, ApiErrors, type ErrorDoc } from '../escalation.openapi.js';
import { AckChannelsService } from './ack-channels.service.js';
import { SignedAckLink, SignedAckResult } from './acknowledgement.openapi.js';

const LINK_ERRORS: readonly ErrorDoc[] = [
  [401, 'invalid_signed_token', 'the token was changed, truncated or is otherwise malformed'],
  [401, 'signed_link_expired', 'a genuine token older than SIGNED_LINK_TTL_SECONDS'],
  [403, 'alerts_capability_not_enabled', "the alert's project no longer has the alerts capability"],
  [404, 'not_found', 'the alert or the account no longer exists'],
];

const TOKEN_DOC =
  'Public: the token is the credential. An e-mail page mints it for the alert, the paged account and the escalation instance: base64url(JSON {a: alert id, u: account id, i: escalation instance id, t: issued, epoch seconds}) "." base64url(HMAC-SHA256(SECRET_KEY, the first part)), valid SIGNED_LINK_TTL_SECONDS (24 hours) after the e-mail was sent; rotating SECRET_KEY invalidates every outstanding link.';

/**
 * The signed acknowledgement link of an e-mail page, `/alerts/ack/{signed_id}`. Public: the
 * token is the credential. An e-mail page mints it for the alert, the paged account and the
 * escalation instance; it is valid for SIGNED_LINK_TTL_SECONDS (24 hours) after the e-mail
 * was sent.
 *
 * Token: `base64url(JSON {a: alert id, u: account id, i: escalation instance id, t: issued,
 * epoch seconds})` `.` `base64url(HMAC-SHA256(SECRET_KEY, the first part))`, compared in
 * constant time; rotating SECRET_KEY invalidates every outstanding link.
 *
 * Errors (general envelope): a changed, truncated or otherwise malformed token → 401
 * `invalid_signed_token`; a genuine one older than the TTL → 401 `signed_link_expired`; the
 * alert or the account no longer exists → 404 `not_found`; the alert's project no longer has
 * the alerts capability → 403 `alerts_capability_not_enabled`.
 */
@ApiTags('alerts', 'escalation')
@ApiParam({ name: 'signed_id', type: String, description: 'the signed token from the e-mail' })
@NotIdParams('signed_id')
@Controller('alerts/ack')
export class SignedAckController {
  constructor(private readonly channels: AckChannelsService) {}

  /**
   * What the link acknowledges, for a confirmation page: `alert_id`, `account_id`,
   * `escalation_instance_id`, `alert_summary` (the alert's `summary` annotation, else its
   * `alertname` label, else its fingerprint) and `alert_severity`. Changes nothing.
   */
  @Get(':signed_id')
  @ApiOperation({
    summary: 'Show what a signed acknowledgement link acknowledges',
    description: `For a confirmation page; changes nothing. ${TOKEN_DOC}`,
  })
  @ApiData(SignedAckLink, { description: 'the alert, account and escalation of the link' })
  @ApiErrors(...LINK_ERRORS)
  @Public()
  show(@Param('signed_id') signedId: string) {
    return this.channels.showLink(signedId);
  }

  /**
   * Acknowledges the alert as the account named in the token, on channel `email`, halting
   * every active escalation of the alert like an in-app acknowledgement. Idempotent: a
   * repeat (also after the link was used, while it is valid) answers the same
   * `{acked: true, alert_id}` and adds no acknowledgement within the same firing.
   */
  @Post(':signed_id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Acknowledge an alert by a signed link',
    description: `Acknowledges as the account named in the token, on channel email, halting every active escalation of the alert like an in-app acknowledgement. Idempotent: a repeat (also after the link was used, while it is valid) answers the same {acked: true, alert_id} and adds no acknowledgement within the same firing. ${TOKEN_DOC}`,
  })
  @ApiData(SignedAckResult, { description: 'acknowledged' })
  @ApiErrors(...LINK_ERRORS)
  @Public()
  acknowledge(@Param('signed_id') signedId: string) {
    return this.channels.acknowledgeLink(signedId);
  }
}
