export * from './address-rules.js';
export * from './host-resolver.js';
export * from './outbound-http.js';
export * from './outbound-url.js';
export * from './outbound.module.js';
export * from './signed-webhook.js';
