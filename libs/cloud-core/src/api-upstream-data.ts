import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ResponseMetadata } from '@platform/core';

type PropertySchema = Record<string, unknown>;

interface UpstreamDataOptions {
  status?: 200 | 201 | 202;
  list?: boolean;
  description: string;
  /** The fields clients rely on; the upstream object may carry any others. */
  properties: Record<string, PropertySchema>;
  required?: string[];
}

/**
 * A success answer whose `data` is the provider's object itself, without its wrapper key
 * (4-cloud-resources.md): the document names the fields clients rely on and leaves the object
 * open (`additionalProperties`), since the provider's version decides the rest.
 */
export function ApiUpstreamData(options: UpstreamDataOptions) {
  const item = {
    type: 'object',
    additionalProperties: true,
    required: options.required ?? ['id'],
    properties: options.properties,
  };
  return applyDecorators(
    ApiExtraModels(ResponseMetadata),
    ApiResponse({
      status: options.status ?? 200,
      description: options.description,
      schema: {
        type: 'object',
        required: ['metadata', 'data'],
        properties: {
          metadata: { $ref: getSchemaPath(ResponseMetadata) },
          data: options.list ? { type: 'array', items: item } : item,
        },
      },
    }),
  );
}

export const STRING = { type: 'string' } as const;
export const NULLABLE_STRING = { type: 'string', nullable: true } as const;
export const INTEGER = { type: 'integer' } as const;
export const BOOLEAN = { type: 'boolean' } as const;
export const STRING_LIST = { type: 'array', items: { type: 'string' } } as const;
export const OBJECT = { type: 'object', additionalProperties: true } as const;
export const OBJECT_LIST = { type: 'array', items: OBJECT } as const;
