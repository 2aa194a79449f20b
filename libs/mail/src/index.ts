export * from './email.js';
export * from './mail-transport.js';
export * from './mail.module.js';
export * from './mailer.js';
export { messageIdLeft, messageIdOf } from './message-id.js';
