import { Controller, Header, HttpCode, Param, Post, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Public, RawResponse } from '@platform/core';
import type { Request } from 'express';
import { ApiErrors, type ErrorDoc } from '@platform/oncall';
import { AckChannelsService, type AnswerOutcome } from './ack-channels.service.js';
import { messageResponse, sayResponse, TwilioWebhookVerifier } from './twilio-webhook.js';

const TWIML = 'text/xml; charset=utf-8';

const CALL_REPLIES: Record<AnswerOutcome, string> = {
  acknowledged: 'Acknowledged. Escalation stopped.',
  declined: 'Not acknowledged. The escalation continues.',
  unknown: 'This page can no longer be acknowledged.',
};

const SMS_REPLIES: Record<Exclude<AnswerOutcome, 'declined'>, string> = {
  acknowledged: 'Acknowledged.',
  unknown: 'Unknown or expired reply code; nothing was acknowledged.',
};

const WEBHOOK_ERRORS: readonly ErrorDoc[] = [
  [
    403,
    'invalid_webhook_signature',
    'X-Twilio-Signature missing or wrong (HMAC-SHA1 with PHONE_AUTH_TOKEN over PUBLIC_URL, the path and query, and the form parameters sorted by name), or no phone provider configured',
  ],
  [403, 'alerts_capability_not_enabled', "the alert's project no longer has the alerts capability"],
];

const SIGNATURE_DOC =
  "Public: a webhook of the Twilio-compatible phone provider, form-encoded, checked with X-Twilio-Signature, answered with TwiML outside the success envelope (errors keep the JSON error envelope). An acknowledgement here is attributed to whom the page went, {id, name} of the account or {label} of an external phone contact (never the number), halts every active escalation of the alert and is idempotent per acknowledger within one firing. It counts only while the page's escalation is the alert's current one (the alert fires, in the firing that opened it) and whom the page went to still may: an account still a member of the project's organization with alerts update, answering from its verified number; a contact still on a roster of the project with that number. Otherwise nothing is acknowledged and the answer says so.";

/** A TwiML answer, always 200 whatever was answered. */
const ApiTwiml = (description: string, example: string) =>
  ApiResponse({
    status: 200,
    description,
    content: { 'text/xml': { schema: { type: 'string' }, example } },
  });

/**
 * Webhooks of the Twilio-compatible phone provider (PHONE_API_URL): the answer to a phone
 * page and SMS replies to SMS pages. Public, form-encoded as Twilio sends them, answered with
 * TwiML (`text/xml`), outside the success envelope.
 *
 * Every request must carry `X-Twilio-Signature`: base64 of HMAC-SHA1 keyed with
 * PHONE_AUTH_TOKEN over PUBLIC_URL + the path and query as received + every form parameter's
 * name and value, sorted by name. A missing or wrong signature, or no phone provider
 * configured, answers 403 `invalid_webhook_signature` (general error envelope). The alert's
 * project must still have the alerts capability (403 `alerts_capability_not_enabled`).
 *
 * An acknowledgement here is attributed to whom the page went: `{id, name}` of the account,
 * or `{label}` of an external phone contact (never the number). It counts on channel `phone`
 * (an SMS reply is recorded as `sms` in the escalation ledger and timeline), halts every
 * active escalation of the alert and is idempotent per acknowledger within one firing.
 *
 * As with the e-mail link, an answer counts only for the page's escalation while it is the
 * alert's current one, and only while whom the page went to may still answer: an account
 * that is a member of the project's organization with `alerts:update`, from its verified
 * number; a contact still on a roster of the project with that number. Otherwise the caller
 * is told the page can no longer be acknowledged (still 200: the provider asked nothing
 * wrong).
 */
@ApiTags('alerts', 'escalation')
@Controller('alerts')
@RawResponse()
export class PhoneAckController {
  constructor(
    private readonly webhooks: TwilioWebhookVerifier,
    private readonly channels: AckChannelsService,
  ) {}

  /**
   * The `<Gather action>` of a phone page's call. `token` is a signed reference to the page
   * (the same HMAC-SHA256 scheme as the e-mail link under its own purpose, so neither token
   * is accepted in the other's place; valid SIGNED_LINK_TTL_SECONDS): 401
   * `invalid_signed_token` or `signed_link_expired` otherwise. `Digits=1` acknowledges and
   * says "Acknowledged. Escalation stopped."; any other input says the alert was not
   * acknowledged; a page whose alert or recipient is gone, or that may no longer be answered
   * (see above), says it can no longer be acknowledged.
   */
  @Post('phone_ack/:token')
  @HttpCode(200)
  @Public()
  @Header('Content-Type', TWIML)
  @ApiOperation({
    summary: 'Answer of a phone page (Twilio <Gather action>)',
    description: `Digits=1 acknowledges on channel phone and says "${CALL_REPLIES.acknowledged}"; any other input says the alert was not acknowledged and the escalation continues; a page whose alert or recipient is gone, or that may no longer be answered, says it can no longer be acknowledged. The token is checked first, whatever was pressed. ${SIGNATURE_DOC}`,
  })
  @ApiParam({
    name: 'token',
    type: String,
    description:
      "signed reference to the page (HMAC-SHA256 with SECRET_KEY under its own purpose, so an e-mail link's token is refused here), valid SIGNED_LINK_TTL_SECONDS",
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiProduces('text/xml')
  @ApiBody({
    schema: {
      type: 'object',
      properties: {
        Digits: { type: 'string', example: '1', description: '1 acknowledges' },
        CallSid: { type: 'string' },
      },
      additionalProperties: { type: 'string' },
    },
  })
  @ApiTwiml('TwiML <Say> telling the caller the outcome', sayResponse(CALL_REPLIES.acknowledged))
  @ApiErrors(
    [401, 'invalid_signed_token', 'the token was changed, truncated or is otherwise malformed'],
    [401, 'signed_link_expired', 'a genuine token older than SIGNED_LINK_TTL_SECONDS'],
    ...WEBHOOK_ERRORS,
  )
  async answerCall(@Req() request: Request, @Param('token') token: string): Promise<string> {
    const params = this.webhooks.verify(request);
    return sayResponse(CALL_REPLIES[await this.channels.answerCall(token, params.Digits)]);
  }

  /**
   * The inbound-message webhook of the provider's number. A `Body` that is (once trimmed)
   * the reply code of the latest SMS page sent to `From` whose escalation is still the
   * alert's current one acknowledges that page's alert and replies "Acknowledged.";
   * anything else (a code of an earlier firing included) replies that the code is unknown and
   * changes nothing (still 200).
   */
  @Post('sms_reply')
  @HttpCode(200)
  @Public()
  @Header('Content-Type', TWIML)
  @ApiOperation({
    summary: 'SMS reply to an SMS page (inbound-message webhook)',
    description: `Set as the inbound-message webhook of the provider's number. A Body that is (once trimmed) the reply code of the latest SMS page sent to From whose escalation is still the alert's current one acknowledges that page's alert on channel phone (recorded as sms in the escalation ledger and timeline) and replies "${SMS_REPLIES.acknowledged}"; anything else replies that the code is unknown and changes nothing. ${SIGNATURE_DOC}`,
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiProduces('text/xml')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['From', 'Body'],
      properties: {
        From: { type: 'string', example: '+4930123456789', description: 'the replying number' },
        To: { type: 'string' },
        Body: { type: 'string', example: '482913', description: 'the reply code of the page' },
      },
      additionalProperties: { type: 'string' },
    },
  })
  @ApiTwiml('TwiML <Message> replying with the outcome', messageResponse(SMS_REPLIES.acknowledged))
  @ApiErrors(...WEBHOOK_ERRORS)
  async answerSms(@Req() request: Request): Promise<string> {
    const params = this.webhooks.verify(request);
    return messageResponse(SMS_REPLIES[await this.channels.answerSms(params.From, params.Body)]);
  }
}
