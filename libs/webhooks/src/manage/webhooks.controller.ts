import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, type ErrorDoc, IdParam, invalidQueryDoc } from '@platform/core';
import {
  Authenticated,
  CSRF_ERROR,
  CurrentPrincipal,
  invalidDoc,
  ORGANIZATION_ACCESS_ERRORS,
  organizationNotFoundDoc,
  type Principal,
  principalMay,
} from '@platform/identity';
import {
  WebhookCreatedResponseDto,
  WebhookDeliveryResponseDto,
  WebhookReceiptResponseDto,
  WebhookResponseDto,
  WebhookWithReceiveSecretResponseDto,
  WebhookWithSigningSecretResponseDto,
} from '../webhooks.openapi.js';
import { WebhookHistoryService } from './webhook-history.service.js';
import { CreateWebhookBody, UpdateWebhookBody, WebhookHistoryQuery } from './webhooks.dto.js';
import { WebhooksService } from './webhooks.service.js';

const WEBHOOK_404 = organizationNotFoundDoc('no webhook of the organization has this id');
const WEBHOOK_422 = invalidDoc(
  '`webhook` must be an object; `webhook.name` (1 to 200 characters, not blank) and `webhook.url` (http or https, no credentials)',
);
const URL_NOT_ALLOWED: ErrorDoc = [
  422,
  'url_not_allowed',
  'the url points at an address outbound calls may not reach (loopback, private, metadata)',
];
const READ_ERRORS = [...ORGANIZATION_ACCESS_ERRORS, WEBHOOK_404];
const WRITE_ERRORS = [...ORGANIZATION_ACCESS_ERRORS, CSRF_ERROR, WEBHOOK_404];

/** The history lists page with `limit` 1..200 (default 25) and `offset`; anything else is refused. */
const PAGING_422 = invalidQueryDoc(
  '`limit` not an integer in 1..200, or `offset` not a non-negative integer',
);

/**
 * Webhooks of an organization (`webhooks:*` permissions): each has a receive side (a public
 * URL registries push to, authenticated by a secret) and an outbound side (app and cluster
 * events POSTed to `url`, Standard Webhooks signed). The custom actions rotate_secret and
 * rotate_signing_secret need the delete level (the manage-equivalent). The deliveries and
 * receipts lists page with `limit` (1..200, default 25) and `offset`; the spec leaves them
 * open, so an invalid value answers 422 `validation_failed` naming it rather than being
 * clamped.
 */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly history: WebhookHistoryService,
  ) {}

  @Get()
  @ApiData(WebhookResponseDto, { list: true, description: "the organization's webhooks" })
  @ApiErrors(...ORGANIZATION_ACCESS_ERRORS)
  @Authenticated({ scope: 'organization', permission: 'webhooks:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.webhooks.list(principal);
  }

  @Post()
  @ApiData(WebhookCreatedResponseDto, {
    status: 201,
    description: 'the new webhook, with its receive and signing secrets (shown this once)',
  })
  @ApiErrors(...ORGANIZATION_ACCESS_ERRORS, CSRF_ERROR, WEBHOOK_422, URL_NOT_ALLOWED)
  @Authenticated({ scope: 'organization', permission: 'webhooks:create' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateWebhookBody) {
    return this.webhooks.create(principal, body.webhook);
  }

  @Get(':id')
  @ApiData(WebhookResponseDto, { description: 'the webhook' })
  @ApiErrors(...READ_ERRORS)
  @Authenticated({ scope: 'organization', permission: 'webhooks:read' })
  show(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.webhooks.show(principal, id);
  }

  @Patch(':id')
  @ApiData(WebhookResponseDto, { description: 'the changed webhook' })
  @ApiErrors(...WRITE_ERRORS, WEBHOOK_422, URL_NOT_ALLOWED)
  @Authenticated({ scope: 'organization', permission: 'webhooks:update' })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Body() body: UpdateWebhookBody,
  ) {
    return this.webhooks.update(principal, id, body.webhook);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the webhook, its receipts and deliveries are deleted' })
  @ApiErrors(...WRITE_ERRORS)
  @Authenticated({ scope: 'organization', permission: 'webhooks:delete' })
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    await this.webhooks.remove(principal, id);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @ApiData(WebhookWithReceiveSecretResponseDto, {
    description: 'the webhook with its new receive secret; the old one no longer authenticates',
  })
  @ApiErrors(...WRITE_ERRORS)
  @Authenticated({ scope: 'organization', permission: 'webhooks:delete' })
  rotateSecret(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.webhooks.rotateSecret(principal, id);
  }

  @Post(':id/rotate_signing_secret')
  @HttpCode(200)
  @ApiData(WebhookWithSigningSecretResponseDto, {
    description: 'the webhook with its new signing secret; the old one also signs for 24 hours',
  })
  @ApiErrors(...WRITE_ERRORS)
  @Authenticated({ scope: 'organization', permission: 'webhooks:delete' })
  rotateSigningSecret(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.webhooks.rotateSigningSecret(principal, id);
  }

  @Get(':id/deliveries')
  @ApiData(WebhookDeliveryResponseDto, {
    list: true,
    description: 'a page of outbound deliveries, newest first, with `metadata.total`',
  })
  @ApiErrors(...READ_ERRORS, PAGING_422)
  @Authenticated({ scope: 'organization', permission: 'webhooks:read' })
  @ApiOperation({ summary: 'List deliveries of a webhook' })
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Query() query: WebhookHistoryQuery,
  ) {
    return this.history.deliveryPage(principal, id, {
      limit: query.limit,
      offset: query.offset,
      showResponses: principalMay(principal, 'webhooks:update'),
    });
  }

  @Get(':id/receipts')
  @ApiData(WebhookReceiptResponseDto, {
    list: true,
    description: 'a page of authenticated receives, newest first, with `metadata.total`',
  })
  @ApiErrors(...READ_ERRORS, PAGING_422)
  @Authenticated({ scope: 'organization', permission: 'webhooks:read' })
  @ApiOperation({ summary: 'List receipts of a webhook' })
  receipts(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Query() query: WebhookHistoryQuery,
  ) {
    return this.history.receiptPage(principal, id, { limit: query.limit, offset: query.offset });
  }
}
