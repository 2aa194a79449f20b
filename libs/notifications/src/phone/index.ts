export * from './phone-dispatcher.js';
export * from './phone-exception.js';
export * from './phone-provider.js';
export * from './phone-verification.service.js';
export * from './phone.dto.js';
export * from './phone.module.js';
