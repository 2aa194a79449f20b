export type {
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  JsonSchema,
  PrinterColumn,
} from './crd-types.js';
export * from './crd-manifest.js';
export { applySchemaDefaults } from './schema-defaults.js';
export * from './schema-builder.js';
export { schemaAt, schemaNodes, type SchemaNode } from './schema-paths.js';
