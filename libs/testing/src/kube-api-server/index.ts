export { FakeKubeApiServer, type FakeKubeApiServerOptions } from './server.js';
export type { KubeApiRequest } from './routes.js';
export * from './third-party-crds.js';
