/**
 * `<controller>.<handler>`, e.g. `notificationPreferences.update`. The same id names the
 * operation in the OpenAPI document and in `source_operation` of errors.
 */
export function operationId(controller: { name: string }, handler: { name: string }): string {
  const base = controller.name.replace(/Controller$/, '');
  return `${base.charAt(0).toLowerCase()}${base.slice(1)}.${handler.name}`;
}
