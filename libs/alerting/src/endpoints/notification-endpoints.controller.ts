import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, type ErrorDoc, IdParam, invalidQueryDoc, ListResult } from '@platform/core';
import {
  ApiAlertingErrors,
  ApiAlertingWriteErrors,
  alertingInvalidDoc,
  alertingNotFoundDoc,
} from '../alerting-errors.openapi.js';
import {
  DeliveryResponseDto,
  NotificationEndpointResponseDto,
  NotificationEndpointWithSecretResponseDto,
} from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal, principalMay } from '@platform/identity';
import {
  CreateEndpointBody,
  DeliveriesQuery,
  UpdateEndpointBody,
} from './notification-endpoints.dto.js';
import { NotificationEndpointsService } from './notification-endpoints.service.js';

const ENDPOINT_404 = alertingNotFoundDoc('no notification endpoint of the project has this id');
const ENDPOINT_422 = alertingInvalidDoc('name, url (http or https, no credentials) or events');
const PAGING_422 = invalidQueryDoc(
  '`limit` not an integer in 1..200, or `offset` not a non-negative integer',
);
const URL_NOT_ALLOWED: ErrorDoc = [
  422,
  'url_not_allowed',
  'the url points at an address outbound calls may not reach (loopback, private, metadata)',
];

const RESOURCE = 'notification_endpoints';

/**
 * Notification endpoints: webhook receivers that get the project's alert events as JSON
 * POSTs signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`). Choices where the spec is silent:
 * - fields: `name`, `url` (http or https, no credentials), `enabled` (default true), `events`
 *   (a non-empty subset of alert_firing and alert_resolved; default both);
 * - the signing secret (`whsec_<base64>`) appears only in the create and rotate_secret
 *   answers; after a rotation the previous secret keeps signing alongside the new one for
 *   24 hours, so receivers can switch over without rejecting deliveries;
 * - the URL must point at a public address (422 `url_not_allowed` otherwise, see
 *   OutboundHttp), checked again at every delivery;
 * - `GET .../{id}/deliveries` pages with `limit` (default 25) and `offset`; unlike the alert
 *   list, whose leniency the spec pins, a `limit` outside 1..200 or a negative or non-integer
 *   `offset` answers 422 `validation_failed` naming it. Newest first, each delivery with every attempt; a failed attempt
 *   keeps the first 1024 characters of the answer in `response_body`, shown only to callers
 *   who may edit the endpoint (alerts:update, and notification_endpoints:write on a token),
 *   null for others and for successful attempts;
 * - `POST .../{id}/test` sends a signed `endpoint.test` ping (also to a disabled endpoint)
 *   and answers 202 with the pending delivery;
 * - the custom actions rotate_secret and test need manage on a token and the alerts delete
 *   permission of a member; reads need alerts:read, writes alerts:create/update/delete.
 */
@ApiTags('alerting')
@Controller('projects/:project_id/notification_endpoints')
@RequiresCapability('alerts')
export class NotificationEndpointsController {
  constructor(private readonly endpoints: NotificationEndpointsService) {}

  @Get()
  @ApiData(NotificationEndpointResponseDto, { list: true, description: 'the endpoints' })
  @ApiAlertingErrors(alertingNotFoundDoc())
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.endpoints.list(principal.projectId!);
  }

  @Post()
  @ApiData(NotificationEndpointWithSecretResponseDto, {
    status: 201,
    description: 'the new endpoint, with its secret',
  })
  @ApiAlertingWriteErrors(alertingNotFoundDoc(), ENDPOINT_422, URL_NOT_ALLOWED)
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateEndpointBody) {
    return this.endpoints.create(principal.projectId!, body);
  }

  @Get(':id')
  @ApiData(NotificationEndpointResponseDto, { description: 'the endpoint' })
  @ApiAlertingErrors(ENDPOINT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.endpoints.show(principal.projectId!, id);
  }

  @Patch(':id')
  @ApiData(NotificationEndpointResponseDto, { description: 'the changed endpoint' })
  @ApiAlertingWriteErrors(ENDPOINT_404, ENDPOINT_422, URL_NOT_ALLOWED)
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Body() body: UpdateEndpointBody,
  ) {
    return this.endpoints.update(principal.projectId!, id, {
      name: body.name,
      url: body.url,
      enabled: body.enabled,
      events: body.events,
    });
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the endpoint is deleted' })
  @ApiAlertingWriteErrors(ENDPOINT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    await this.endpoints.remove(principal.projectId!, id);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @ApiData(NotificationEndpointWithSecretResponseDto, {
    description: 'the endpoint with its new secret',
  })
  @ApiAlertingWriteErrors(ENDPOINT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  rotateSecret(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.endpoints.rotateSecret(principal.projectId!, id);
  }

  @Get(':id/deliveries')
  @ApiData(DeliveryResponseDto, {
    list: true,
    description: 'a page of deliveries, newest first, with `metadata.total`',
  })
  @ApiAlertingErrors(ENDPOINT_404, PAGING_422)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  async deliveries(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Query() query: DeliveriesQuery,
  ) {
    const page = await this.endpoints.deliveryPage(principal.projectId!, id, {
      limit: query.limit,
      offset: query.offset,
      showResponses: principalMay(principal, 'alerts:update', RESOURCE),
    });
    return new ListResult(page.items, page.total);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiData(DeliveryResponseDto, { status: 202, description: 'the test delivery, queued' })
  @ApiAlertingWriteErrors(ENDPOINT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  sendTest(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.endpoints.sendTest(principal.projectId!, id);
  }
}
