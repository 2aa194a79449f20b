import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { UPSTREAM_ERRORS } from '@platform/cloud-core';
import { ApiData, ApiErrors, NotIdParams, Public } from '@platform/core';
import { invalidDoc } from '@platform/identity';
import { PushArtifactEventDto, WebhookReceiveResultDto } from '../webhooks.openapi.js';
import { WebhookReceiveService } from './receive.service.js';

/**
 * The public inbound side of a webhook, for container registries (Harbor's webhook policy, for
 * one): authenticated by the webhook's receive secret in `Authorization`, never by a session
 * or token. Unknown ids answer 401 like a wrong secret, so the route reveals no webhook.
 */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhookReceiveController {
  constructor(private readonly receiver: WebhookReceiveService) {}

  @Post(':id/receive')
  @HttpCode(202)
  @Public()
  @NotIdParams('id')
  @ApiHeader({
    name: 'Authorization',
    required: true,
    description:
      "the webhook's receive secret, bare (as registries send it) or as `Bearer <secret>`",
  })
  @ApiBody({ type: PushArtifactEventDto, description: 'the registry event' })
  @ApiData(WebhookReceiveResultDto, {
    status: 202,
    description:
      'the container apps pinned to the pushed digest, and those that had it already; both empty for a push nothing runs and for other event types',
  })
  @ApiErrors(
    [
      401,
      'unauthorized',
      'no Authorization header, a wrong secret, or no webhook with this id (the same answer)',
    ],
    invalidDoc(
      'a PUSH_ARTIFACT event without its `event_data.resources` (digest, resource_url), or a field of the wrong type, or no string `type`',
    ),
    ...UPSTREAM_ERRORS,
  )
  @ApiOperation({ summary: 'Receive a webhook call' })
  receive(
    @Param('id') id: string,
    @Headers('authorization') authorization: string | undefined,
    @Body() body: unknown,
  ) {
    return this.receiver.receive(id, authorization, body);
  }
}
