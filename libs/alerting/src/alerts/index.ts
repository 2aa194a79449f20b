export * from './alert-list-query.js';
export * from './alert-search-texts.js';
export * from './alert-view.js';
export * from './alerts.module.js';
export * from './alerts.repository.js';
export * from '../suppression/suppression.js';
export * from '../suppression/suppression.module.js';
export * from '../suppression/suppression.service.js';
