import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotIdParams, Public } from '@platform/core';
import { ApiData, ApiErrors, type ErrorDoc } from '@platform/oncall';
import { AckChannelsService } from './ack-channels.service.js';
import { SignedAckLink, SignedAckResult } from './acknowledgement.openapi.js';

const LINK_ERRORS: readonly ErrorDoc[] = [
  [401, 'invalid_signed_token', 'the token was changed, truncated or is otherwise malformed'],
  [401, 'signed_link_expired', 'a genuine token older than SIGNED_LINK_TTL_SECONDS'],
  [403, 'alerts_capability_not_enabled', "the alert's project no longer has the alerts capability"],
  [
    403,
    'forbidden',
    "the link's account is no longer a member of the project's organization with alerts update",
  ],
  [404, 'not_found', 'the alert or the account no longer exists'],
  [
    410,
    'link_superseded',
    "the link's escalation is no longer the alert's current one: the alert resolved, or fired again and opened another",
  ],
];

const TOKEN_DOC = `Public: the token is the credential. An e-mail page mints it for the alert, the paged account and the escalation instance: base64url(JSON {a: alert id, u: account id, i: escalation instance id, t: issued, epoch seconds}) "." base64url(HMAC-SHA256(SECRET_KEY, the first part)), valid SIGNED_LINK_TTL_SECONDS (24 hours) after the e-mail was sent; rotating SECRET_KEY invalidates every outstanding link. The link works only for its escalation while that is the alert's current one (the alert fires, in the firing that opened it, and it did not end with a resolution): else 410 link_superseded, also for a link that acknowledged that firing. Its account must still be a member of the project's organization with alerts update: else 403 forbidden.`;

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
 * The link is bound to its escalation instance and re-checked against membership at every
 * use (see AckChannelsService): its account no longer a member with `alerts:update` → 403
 * `forbidden`; its instance no longer the alert's current escalation (the alert resolved, or
 * fired again and opened another) → 410 `link_superseded`. Nothing is acknowledged then.
 *
 * Errors (general envelope), in the order they are checked: a changed, truncated or otherwise
 * malformed token → 401 `invalid_signed_token`; a genuine one older than the TTL → 401
 * `signed_link_expired`; the alert or the account no longer exists → 404 `not_found`; the
 * alert's project no longer has the alerts capability → 403 `alerts_capability_not_enabled`;
 * then 403 `forbidden` and 410 `link_superseded`.
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
   * repeat within the same firing (also after the link was used) answers the same
   * `{acked: true, alert_id}` and adds no acknowledgement; once the alert resolved or fired
   * again it is 410.
   */
  @Post(':signed_id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Acknowledge an alert by a signed link',
    description: `Acknowledges as the account named in the token, on channel email, halting every active escalation of the alert like an in-app acknowledgement. Idempotent: a repeat within the same firing (also after the link was used) answers the same {acked: true, alert_id} and adds no acknowledgement; once the alert resolved or fired again it is 410. ${TOKEN_DOC}`,
  })
  @ApiData(SignedAckResult, { description: 'acknowledged' })
  @ApiErrors(...LINK_ERRORS)
  @Public()
  acknowledge(@Param('signed_id') signedId: string) {
    return this.channels.acknowledgeLink(signedId);
  }
}
