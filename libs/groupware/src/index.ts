export * from './crds/index.js';
